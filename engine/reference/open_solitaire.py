"""Penguin, Baker's Game, FreeCell, Eight Off and Seahaven Towers, written to read like the rules.

This module is the judge of the solver in ``engine/search/``: it lays
out a deal, says which moves are legal, and replays a claimed solution from the
deal to the end (:func:`check_solution`).  It shares no code with the solver's
move generator, so a bug there cannot vouch for itself.  It also holds a small
exhaustive search with no pruning at all (:func:`exhaustive_verdict`), which the
tests use on positions with few cards to confirm the solver's verdicts.

The rules (switches in brackets):

* Penguin: the first card dealt is the *beak*, the deepest card of column 1;
  the other three cards of its rank go to the foundations as they are dealt;
  every other card fills the next tableau slot row by row (row 1: columns 2-7,
  then rows 2-7: columns 1-7).  Foundations build up in suit from the beak's
  rank, wrapping from King to Ace.  [cells] free cells.
* Dealt in turn (Baker's Game, FreeCell, Eight Off, Seahaven Towers): with C
  columns and p cards dealt to cells, card k (0-based) of the first 52 - p goes
  to column (k mod C) + 1, and the last p cards go to cells 1..p in order.
  Foundations build up in suit from Ace to King.
  - Baker's Game and FreeCell: [columns] C = 8 (FreeCell 4..8), p = 0.
  - Eight Off: C = 8, [cells] 8, [prefilled_cells] p = 4: eight columns of 6.
  - Seahaven Towers: C = 10, [cells] 4, [prefilled_cells] p = 2: ten columns of 5.
* Tableau: down in suit (Penguin, Baker's Game, Eight Off, Seahaven Towers) or
  in alternating colours (FreeCell).  Ranks order from the base rank (the
  beak's, or Ace) upwards; with [wrap] a card of rank base-1 may also go on a
  card of the base rank.
* A move takes the top card of a column or cell, or a run: cards at the top of
  a column, each built legally on the one below.  A run goes only onto a
  column: [sequence_move] `unlimited`, any length; `limited`, as many as single
  cards could move through free cells and empty columns: (free cells + 1) x
  2^(empty columns, not counting the target column) when empty columns take
  any card, else free cells + 1 (an empty column that takes only Kings, or
  nothing, cannot hold the upper cards of a run: they are not Kings);
  `single` (used by the tests' plain search), one card at a time.
* An empty column takes [empty_column] anything (`any`), only a run headed by
  the top rank (`kings`; Penguin's `beak_minus_one`: rank base-1), or nothing.
* Won when all 52 cards are on the foundations.

How the sources read these games (and so how we do):

* Solvitaire (Blake and Gent; ``src/main/input-output/input/sol_preset_types.cpp``
  of github.com/thecharlesblake/Solvitaire) moves single cards only (its
  default ``"move built group": "no"``); Seahaven Towers says so explicitly.
  Its ``eight-off``: 8 piles (the default count), same suit, spaces `kings`,
  8 cells with 4 pre-filled.  ``fore-cell-same-suit``: the same with 4 cells,
  all 4 pre-filled (Fore Cell is the red-black version).  ``seahaven-towers``:
  10 piles, same suit, spaces `kings`, 4 cells with 2 pre-filled.
  ``free-cell-N-cell`` / ``free-cell-N-pile``: FreeCell with N cells / N piles
  (4 cells).  It deals from the back of its shuffled deck: the pre-filled cells
  first, then the piles row by row.  Our deal order differs (cells last), which
  changes no win rate: any fixed placement of a uniformly shuffled deck is a
  uniform layout.
* PySolFC (``pysollib/games/bakersgame.py``): Eight Off deals 6 rows to 8
  columns, then 4 cards to cells 1, 3, 5, 7 of 8; Seahaven Towers deals 5 rows
  to 10 columns, then 2 cards to the middle cells 2 and 3 of 4; both take Kings
  only in empty columns and move a run of at most free cells + 1 cards
  (``FreeCell_SS_RowStack``; its Baker's Game and FreeCell rows, which take any
  card, count empty columns too, "only legal if ... base_rank == ANY_RANK").
  We put the dealt cells' cards in the first cells (cells are interchangeable:
  no rule depends on which cell holds a card).  PySolFC's Relaxed Seahaven
  Towers moves any run (our `sequence_move: unlimited`).

Solution notation (the ``solution`` column; :func:`format_solution` writes it,
:func:`check_solution_text` replays it).  It is fc-solve's *extended standard
notation* (``fc-solve -m -snx``; PySolFC's FreeCell Solver hints use the same
standard notation): one token per move, separated by single spaces, each token
a source then a destination:

* columns ``1``..``9`` and ``0`` for a tenth (Seahaven Towers), numbered as the
  deal lays them out (column 1 holds the first card dealt; in Penguin, the
  beak);
* cells ``a``..``g`` for cells 1..7 and ``k`` for cell 8 (fc-solve skips
  ``h``, ``i``, ``j`` after ``g``, so ``h`` is never a cell);
* ``h`` the foundation (destination only; the card goes to its suit's pile).

So ``3h`` plays column 3's top card to its foundation, ``ah`` cell a's card,
``1a`` column 1's top card to cell a, ``a5`` cell a's card onto column 5, and
``54`` moves from column 5 onto column 4.  A move of several cards between
columns is written as fc-solve writes it: onto a non-empty column the count is
left out, because exactly one card of the run at the top of the source builds
on the target's top card (a run's cards have distinct ranks) and the move
takes it and every card above it; into an empty column the count follows a
``v`` in hexadecimal (``54v3``: three cards; ``54`` alone is one card), as in
fc-solve.  The one difference from fc-solve's output: cells are numbered as
the reference fills them (a card goes to the first free cell, a run to the
first empty column), and the safe automatic foundation moves the solver makes
are written out as ordinary moves (``3h``), so a replay has no hidden steps.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.cards import format_card

RED_SUITS = (1, 2)  # diamonds, hearts


@dataclass(frozen=True)
class Rules:
    """The rules of one open solitaire as plain values."""

    layout: str  # "penguin" or "in_turn" ("eight_columns", the historical name, is the same)
    build: str  # "suit" or "alternate"
    cells: int
    wrap: bool
    sequence_move: str  # "unlimited", "limited" or "single"
    empty_column: str  # "any", "kings", "beak_minus_one" or "none"
    columns: int = 8  # dealt in turn only
    prefilled: int = 0  # dealt in turn only: the last cards of the deal go to cells 1..prefilled

    def __post_init__(self) -> None:
        if self.layout not in ("penguin", "in_turn", "eight_columns"):
            raise ValueError(f"layout {self.layout!r}: penguin or in_turn")
        if not 0 <= self.prefilled <= self.cells:
            raise ValueError(f"prefilled cells {self.prefilled}: at most cells ({self.cells})")

    @property
    def ncols(self) -> int:
        return 7 if self.layout == "penguin" else self.columns


@dataclass(frozen=True)
class Move:
    """Move ``count`` cards from a column or cell to a column, a cell or the foundation (0-based indices)."""

    source: str  # "column" or "cell"
    source_index: int
    count: int
    target: str  # "column", "cell" or "foundation"
    target_index: int = -1


@dataclass
class Layout:
    columns: list[list[int]]  # bottom card first
    cells: list[int | None]
    foundations: list[int]  # cards on each suit's foundation (C D H S)
    base: int  # rank the foundations start from

    def copy(self) -> Layout:
        return Layout([list(c) for c in self.columns], list(self.cells), list(self.foundations), self.base)

    def key(self) -> tuple:
        return (tuple(tuple(c) for c in self.columns), tuple(self.cells), tuple(self.foundations))

    def won(self) -> bool:
        return all(f == 13 for f in self.foundations)


def rank(card: int) -> int:
    return card % 13


def suit(card: int) -> int:
    return card // 13


def deal_layout(deal: Sequence[int], rules: Rules) -> Layout:
    """The opening layout of a deal, before any move."""
    deal = [int(c) for c in deal]
    cells: list[int | None] = [None] * rules.cells
    if rules.layout == "penguin":
        beak = deal[0]
        columns: list[list[int]] = [[beak]] + [[] for _ in range(6)]
        foundations = [0, 0, 0, 0]
        slot = 1  # slot s is row s // 7, column s % 7
        for card in deal[1:]:
            if rank(card) == rank(beak):
                foundations[suit(card)] = 1
            else:
                columns[slot % 7].append(card)
                slot += 1
        return Layout(columns, cells, foundations, rank(beak))
    # dealt in turn: the first 52 - prefilled cards round the columns, the last ones into cells 1, 2, ...
    in_columns = len(deal) - rules.prefilled
    columns = [[] for _ in range(rules.columns)]
    for k, card in enumerate(deal[:in_columns]):
        columns[k % rules.columns].append(card)
    for j, card in enumerate(deal[in_columns:]):
        cells[j] = card
    return Layout(columns, cells, [0, 0, 0, 0], 0)


def order(card: int, base: int) -> int:
    """Position of the card's rank in the order base, base+1, ..., base-1 (0..12)."""
    return (rank(card) - base) % 13


def builds_on(card: int, below: int, layout: Layout, rules: Rules) -> bool:
    """May ``card`` lie on ``below`` in the tableau?"""
    if rules.build == "suit":
        if suit(card) != suit(below):
            return False
    elif (suit(card) in RED_SUITS) == (suit(below) in RED_SUITS):
        return False
    o_card, o_below = order(card, layout.base), order(below, layout.base)
    return o_below == o_card + 1 or (rules.wrap and o_card == 12 and o_below == 0)


def empty_column_takes(card: int, layout: Layout, rules: Rules) -> bool:
    if rules.empty_column == "any":
        return True
    if rules.empty_column == "kings":
        return rank(card) == 12
    if rules.empty_column == "beak_minus_one":
        return rank(card) == (layout.base - 1) % 13
    return False


def next_for_foundation(card: int, layout: Layout) -> bool:
    return layout.foundations[suit(card)] == order(card, layout.base) and layout.foundations[suit(card)] < 13


def is_run(cards: Sequence[int], layout: Layout, rules: Rules) -> bool:
    return all(builds_on(cards[k + 1], cards[k], layout, rules) for k in range(len(cards) - 1))


def run_capacity(layout: Layout, rules: Rules, target_index: int) -> float:
    """The longest run that may move to column ``target_index``."""
    if rules.sequence_move == "unlimited":
        return float("inf")
    if rules.sequence_move == "single":
        return 1
    free = sum(1 for c in layout.cells if c is None)
    if rules.empty_column != "any":  # an empty column would not take the run's upper cards (not Kings)
        return free + 1
    empty = sum(1 for i, col in enumerate(layout.columns) if not col and i != target_index)
    return (free + 1) * 2**empty


def illegal_reason(layout: Layout, move: Move, rules: Rules) -> str | None:
    """Why ``move`` is not legal in ``layout``, or None if it is."""
    if move.count < 1:
        return "moves no card"
    if move.source == "column":
        if not 0 <= move.source_index < len(layout.columns):
            return f"no column {move.source_index + 1}"
        col = layout.columns[move.source_index]
        if move.count > len(col):
            return f"column {move.source_index + 1} holds only {len(col)} cards"
        cards = col[len(col) - move.count :]
        if not is_run(cards, layout, rules):
            return "the cards moved are not a run"
    elif move.source == "cell":
        if not 0 <= move.source_index < len(layout.cells) or layout.cells[move.source_index] is None:
            return f"cell {move.source_index + 1} holds no card"
        if move.count != 1:
            return "a cell holds one card"
        cards = [layout.cells[move.source_index]]
    else:
        return f"unknown source {move.source!r}"
    head = cards[0]
    if move.target == "foundation":
        if move.count != 1:
            return "one card at a time goes to a foundation"
        if not next_for_foundation(head, layout):
            return f"{format_card(head)} is not next on its foundation"
    elif move.target == "cell":
        if move.count != 1:
            return "one card at a time goes to a cell"
        if not 0 <= move.target_index < len(layout.cells) or layout.cells[move.target_index] is not None:
            return f"cell {move.target_index + 1} is not free"
    elif move.target == "column":
        t = move.target_index
        if not 0 <= t < len(layout.columns) or (move.source == "column" and t == move.source_index):
            return f"bad target column {t + 1}"
        target = layout.columns[t]
        if target:
            if not builds_on(head, target[-1], layout, rules):
                return f"{format_card(head)} does not build on {format_card(target[-1])}"
        elif not empty_column_takes(head, layout, rules):
            return f"an empty column does not take {format_card(head)} ({rules.empty_column})"
        if move.count > run_capacity(layout, rules, t):
            return f"a run of {move.count} is longer than {run_capacity(layout, rules, t)} allowed"
    else:
        return f"unknown target {move.target!r}"
    return None


def apply_move(layout: Layout, move: Move) -> None:
    """Carry out a move already known to be legal."""
    if move.source == "column":
        col = layout.columns[move.source_index]
        cards = col[len(col) - move.count :]
        del col[len(col) - move.count :]
    else:
        cards = [layout.cells[move.source_index]]
        layout.cells[move.source_index] = None
    if move.target == "foundation":
        layout.foundations[suit(cards[0])] += 1
    elif move.target == "cell":
        layout.cells[move.target_index] = cards[0]
    else:
        layout.columns[move.target_index].extend(cards)


def check_solution(deal: Sequence[int], rules: Rules, moves: Sequence[Move]) -> str | None:
    """Replay ``moves`` from the deal; None if every move is legal and the game ends won, else why not."""
    layout = deal_layout(deal, rules)
    return check_from(layout, rules, moves)


def check_from(layout: Layout, rules: Rules, moves: Sequence[Move]) -> str | None:
    layout = layout.copy()
    for k, move in enumerate(moves, start=1):
        why = illegal_reason(layout, move, rules)
        if why is not None:
            return f"move {k} ({move}): {why}"
        apply_move(layout, move)
    if not layout.won():
        return f"after {len(moves)} moves only {sum(layout.foundations)} cards are on the foundations"
    return None


def legal_moves(layout: Layout, rules: Rules) -> Iterator[Move]:
    """Every legal move (every run length, every target column and cell), no pruning."""
    sources = [("column", i, n) for i, col in enumerate(layout.columns) for n in range(1, len(col) + 1)]
    sources += [("cell", j, 1) for j, c in enumerate(layout.cells) if c is not None]
    targets = [("foundation", -1)] + [("cell", j) for j in range(len(layout.cells))]
    targets += [("column", i) for i in range(len(layout.columns))]
    for src, si, n in sources:
        for tgt, ti in targets:
            move = Move(src, si, n, tgt, ti)
            if illegal_reason(layout, move, rules) is None:
                yield move


def exhaustive_verdict(layout: Layout, rules: Rules, limit: int = 200_000, symmetric: bool = False) -> bool | None:
    """Is the position winnable?  Plain depth-first search over exact positions; None past ``limit``.

    With ``symmetric`` two positions that differ only in the order of their columns or of their
    cells count as one (no rule depends on which column or cell holds a card).
    """

    def key(here: Layout) -> tuple:
        if not symmetric:
            return here.key()
        return (tuple(sorted(tuple(c) for c in here.columns)), tuple(sorted(c for c in here.cells if c is not None)))

    seen = {key(layout)}
    stack = [layout]
    while stack:
        here = stack.pop()
        if here.won():
            return True
        for move in legal_moves(here, rules):
            nxt = here.copy()
            apply_move(nxt, move)
            k = key(nxt)
            if k not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(k)
                stack.append(nxt)
    return False


# --- reading a solver's answer and telling it ------------------------------------


def card_move(layout: Layout, head: int, target: int | str) -> Move:
    """The move that takes ``head`` (and the cards above it) onto card ``target``, or to
    ``"empty"`` (the first empty column), ``"cell"`` (the first free cell) or ``"foundation"``.

    This only locates cards; whether the move is legal is :func:`illegal_reason`'s job.
    """
    src = None
    for j, c in enumerate(layout.cells):
        if c == head:
            src = ("cell", j, 1)
    for i, col in enumerate(layout.columns):
        if head in col:
            src = ("column", i, len(col) - col.index(head))
    if src is None:
        raise ValueError(f"{format_card(head)} is not in the tableau or cells")
    if target == "foundation":
        return Move(src[0], src[1], src[2], "foundation")
    if target == "cell":
        free = [j for j, c in enumerate(layout.cells) if c is None]
        return Move(src[0], src[1], src[2], "cell", free[0] if free else -1)
    if target == "empty":
        empty = [i for i, col in enumerate(layout.columns) if not col]
        return Move(src[0], src[1], src[2], "column", empty[0] if empty else -1)
    where = [i for i, col in enumerate(layout.columns) if col and col[-1] == target]
    return Move(src[0], src[1], src[2], "column", where[0] if where else -1)


def describe(layout: Layout, move: Move) -> str:
    """A move in words, e.g. "run 9S..6S from column 2 to column 5" (1-based numbers, cell letters as in the
    solution notation)."""
    if move.source == "column":
        col = layout.columns[move.source_index]
        cards = col[len(col) - move.count :]
        where = f"from column {move.source_index + 1}"
    else:
        cards = [layout.cells[move.source_index]]
        where = f"from cell {cell_letter(move.source_index)}"
    what = format_card(cards[0]) if len(cards) == 1 else f"run {format_card(cards[0])}..{format_card(cards[-1])}"
    if move.target == "foundation":
        return f"{what} to foundation"
    if move.target == "cell":
        return f"{what} {where} to cell {cell_letter(move.target_index)}"
    return f"{what} {where} to column {move.target_index + 1}"


def layout_lines(layout: Layout) -> list[str]:
    """The layout as text: foundations, cells, then the columns side by side (deepest card first)."""
    names = "CDHS"
    fnd = []
    for s in range(4):
        n = layout.foundations[s]
        fnd.append(f"{names[s]}:" + (format_card(s * 13 + (layout.base + n - 1) % 13) if n else "--"))
    lines = ["foundations " + " ".join(fnd)]
    lines.append("cells " + " ".join(format_card(c) if c is not None else ".." for c in layout.cells))
    lines.append(" ".join(f"{column_symbol(i):>3}" for i in range(len(layout.columns))))
    depth = max((len(c) for c in layout.columns), default=0)
    for p in range(depth):
        lines.append(" ".join(f"{format_card(c[p]):>3}" if p < len(c) else "   " for c in layout.columns))
    return lines


# --- the solution notation (docs/solvers.md) -------------------------------------

FOUNDATION_LETTER = "h"
_TOKEN = re.compile(r"^([0-9a-z])([0-9a-z])(?:v([0-9a-f]+))?$")


def column_symbol(i: int) -> str:
    """The digit of column ``i`` (0-based): 1..9, and 0 for the tenth (keyboard order)."""
    return "0" if i == 9 else str(i + 1)


def column_of_symbol(digit: str) -> int:
    return 9 if digit == "0" else int(digit) - 1


def cell_letter(j: int) -> str:
    """fc-solve's letter for cell ``j`` (0-based): a..g, then k (h is the foundation)."""
    return chr(ord("a") + (j if j < 7 else j + 3))


def cell_of_letter(letter: str) -> int | None:
    """The cell index a letter names (a..g, k), or None (``h``, ``i``, ``j`` and letters past ``k`` name no
    cell: a game has at most 8 cells)."""
    k = ord(letter) - ord("a")
    if 0 <= k < 7:
        return k
    if k == 10:
        return 7
    return None


def implied_count(layout: Layout, source_index: int, target_index: int, rules: Rules) -> int:
    """How many cards a column-to-column move without a count takes: down to the topmost card of the source
    that builds on the target's top card (1 when the target is empty or no card builds on it)."""
    src = layout.columns[source_index] if 0 <= source_index < len(layout.columns) else []
    dst = layout.columns[target_index] if 0 <= target_index < len(layout.columns) else []
    if not dst:
        return 1
    for depth in range(1, len(src) + 1):
        if builds_on(src[-depth], dst[-1], layout, rules):
            return depth
    return 1


def move_token(layout: Layout, move: Move, rules: Rules) -> str:
    """The notation of one move, made in ``layout`` (before the move)."""
    src = column_symbol(move.source_index) if move.source == "column" else cell_letter(move.source_index)
    if move.target == "foundation":
        return src + FOUNDATION_LETTER
    if move.target == "cell":
        return src + cell_letter(move.target_index)
    token = src + column_symbol(move.target_index)
    if move.source == "column" and move.count != implied_count(layout, move.source_index, move.target_index, rules):
        token += f"v{move.count:x}"
    return token


def format_solution(deal_or_layout, rules: Rules, moves: Sequence[Move]) -> str:
    """Moves (legal, from the deal or a layout) as solution text: tokens separated by single spaces."""
    layout = deal_or_layout.copy() if isinstance(deal_or_layout, Layout) else deal_layout(deal_or_layout, rules)
    tokens = []
    for k, move in enumerate(moves):
        tokens.append(move_token(layout, move, rules))
        if k < len(moves) - 1:  # the last move is not needed afterwards (and may be one the checker refuses)
            apply_move(layout, move)
    return " ".join(tokens)


def parse_move(token: str, layout: Layout, rules: Rules) -> Move | str:
    """The move a token names in ``layout``, or why the token is not a move.  Legality is not judged here."""
    m = _TOKEN.match(token)
    if m is None:
        return f"{token!r} is not a move (allowed: e.g. 3h, ah, 1a, a5, 54, 54v3)"
    s, d, count = m.groups()
    if "0" in (s, d) and rules.ncols < 10:  # 0 names the tenth column, in games that have one
        return f"{token!r} is not a move (allowed: e.g. 3h, ah, 1a, a5, 54, 54v3; 0 is a tenth column)"
    if s.isdigit():
        source, source_index = "column", column_of_symbol(s)
    else:
        j = cell_of_letter(s)
        if j is None:
            return f"{token!r}: {s!r} is not a source (allowed: a column 1-{rules.ncols} or a cell letter)"
        source, source_index = "cell", j
    if count is not None and not (source == "column" and d.isdigit()):
        return f"{token!r}: a count (v...) is written only for a move between columns"
    if d == FOUNDATION_LETTER:
        return Move(source, source_index, 1, "foundation")
    if not d.isdigit():
        j = cell_of_letter(d)
        if j is None:
            return f"{token!r}: {d!r} is not a destination (allowed: a column, a cell letter, h)"
        return Move(source, source_index, 1, "cell", j)
    target_index = column_of_symbol(d)
    if source == "cell":
        return Move(source, source_index, 1, "column", target_index)
    n = int(count, 16) if count is not None else implied_count(layout, source_index, target_index, rules)
    return Move(source, source_index, n, "column", target_index)


def check_solution_text(deal: Sequence[int] | Layout, rules: Rules, text: str) -> str | None:
    """Parse solution text and replay it from the deal (or a layout): None if every move is legal and
    the game ends won, else the reason (a token that is not a move is a reason too, never an exception)."""
    if not isinstance(text, str):
        return f"the solution is {type(text).__name__}, not text"
    layout = deal.copy() if isinstance(deal, Layout) else deal_layout(deal, rules)
    tokens = text.split()
    for k, token in enumerate(tokens, start=1):
        move = parse_move(token, layout, rules)
        if isinstance(move, str):
            return f"move {k}: {move}"
        why = illegal_reason(layout, move, rules)
        if why is not None:
            return f"move {k} ({token}): {why}"
        apply_move(layout, move)
    if not layout.won():
        return f"after {len(tokens)} moves only {sum(layout.foundations)} cards are on the foundations"
    return None
