"""King Albert and Raglan, written to read like the rules.

This module is the judge of the solver (``engine/search/``, driven by
``engine/games/king_albert.py``): it lays out a deal, says which moves are
legal, and replays a claimed solution from the deal to the end
(:func:`check_solution_text`).  It shares no code with the solver's move
generator.  It also holds a small exhaustive search with no pruning at all
(:func:`exhaustive_verdict`), which the tests use on positions with few cards
to confirm the solver's verdicts.

The rules (switches in brackets):

* Layout [layout]:
  - ``king_albert``: nine columns of 1, 2, ..., 9 cards (45 cards) and a
    reserve of the other 7 cards.  The deal is read in order: the first 45
    cards go to the columns row by row, each row from left to right over the
    columns that still take a card (row 1: columns 1-9; row 2: columns 2-9;
    ...; row 9: column 9 alone), so a column's first card is its deepest; the
    last 7 cards fill the reserve slots a, b, ..., g in order.
  - ``raglan``: the four Aces start on the foundations, wherever they fall in
    the deal.  The other 48 cards are read in deal order: the first 42 go to
    nine columns of 1, 2, 3, 4, 5, 6, 7, 7, 7 cards row by row as above (row r
    over the columns that hold at least r cards), the last 6 fill the reserve
    slots a, ..., f.
  Every card is face up.
* The reserve: each reserve card may be played at any time, to a foundation or
  onto the tableau; a reserve slot is never refilled and no card is ever put
  into the reserve.  There are no free cells.
* Foundations: one per suit, built up in suit from the Ace to the King.
* Tableau: build down in alternating colours (a red 6 on a black 7).
  [move_unit] ``card``: one card at a time (King Albert, Raglan);
  ``run``: any run of cards built down in alternating colours moves as a unit
  (Queen Victoria).  An empty column takes [empty_column] any card (or run),
  only a King (or a run headed by one), or nothing.
* [worrying_back] true: the top card of a foundation may be played back onto
  the tableau (onto a card it builds on, or into an empty column), never into
  the reserve.
* Won when all 52 cards are on the foundations.

Sources (Solvitaire's presets "king-albert" and "raglan", the rules Blake and
Gent's table was computed under): nine tableau piles dealt diagonally,
red-black building, single cards (no "move built group"), spaces take any
card, a reserve of 7 (Raglan: 6) single-card piles that are played from and
never to, "removable" foundations (worrying back), and for Raglan the Aces on
the foundations at the start.

Solution notation (the ``solution`` column; :func:`format_solution` writes it,
:func:`check_solution_text` replays it).  Close to fc-solve's standard
notation: one token per move, separated by single spaces, each token a source
then a destination:

* columns ``1``..``9``, numbered as the layout above deals them;
* reserve slots ``a``..``g`` (Raglan ``a``..``f``), a source only, lettered in
  deal order (fc-solve's letters for cells; King Albert has no cells);
* ``h`` the foundation as a destination (the card goes to its suit's pile);
* ``h`` followed by a suit letter ``c``, ``d``, ``h`` or ``s`` as a source:
  that foundation's top card, played back to the tableau (worrying back).

So ``3h`` plays column 3's top card to its foundation, ``ah`` reserve card a,
``a5`` reserve card a onto column 5, ``54`` column 5's top card onto column 4,
and ``hs4`` the top card of the spade foundation onto column 4.  A run between
columns (``move_unit: run``) is written as fc-solve writes it: onto a
non-empty column the count is left out (exactly one card of the run at the top
of the source builds on the target's top card, and the move takes it and
every card above it); into an empty column the count follows a ``v`` in
hexadecimal (``54v3``: three cards; ``54`` alone is one card).  Every
foundation move is written out, so a replay has no hidden steps.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.cards import SUITS, format_card

# What King Albert shares with the other open solitaires, word for word: ranks and suits, the red suits, what
# an empty column takes (any, kings, none; Penguin's beak_minus_one is not a King Albert switch) and the
# foundation letter h of the notation.
from engine.reference.open_solitaire import FOUNDATION_LETTER, RED_SUITS, empty_column_takes, rank, suit

NCOLS = 9
COLUMN_SIZES = {"king_albert": (1, 2, 3, 4, 5, 6, 7, 8, 9), "raglan": (1, 2, 3, 4, 5, 6, 7, 7, 7)}
RESERVE_SIZE = {"king_albert": 7, "raglan": 6}


@dataclass(frozen=True)
class Rules:
    """The rules of King Albert's family as plain values."""

    layout: str = "king_albert"  # "king_albert" or "raglan"
    move_unit: str = "card"  # "card" or "run"
    worrying_back: bool = True
    empty_column: str = "any"  # "any", "kings" or "none"


@dataclass(frozen=True)
class Move:
    """Move ``count`` cards from a column, a reserve slot or a foundation to a column or the foundation.

    Indices are 0-based; a foundation source's index is its suit (C D H S = 0..3).
    """

    source: str  # "column", "reserve" or "foundation"
    source_index: int
    count: int
    target: str  # "column" or "foundation"
    target_index: int = -1


@dataclass
class Layout:
    columns: list[list[int]]  # bottom card first
    reserve: list[int | None]  # None once played
    foundations: list[int]  # cards on each suit's foundation (C D H S)

    def copy(self) -> Layout:
        return Layout([list(c) for c in self.columns], list(self.reserve), list(self.foundations))

    def key(self) -> tuple:
        return (tuple(tuple(c) for c in self.columns), tuple(self.reserve), tuple(self.foundations))

    def won(self) -> bool:
        return all(f == 13 for f in self.foundations)


def red(card: int) -> bool:
    return suit(card) in RED_SUITS


def deal_layout(deal: Sequence[int], rules: Rules) -> Layout:
    """The opening layout of a deal, before any move (docs/solvers.md, "Layout")."""
    cards = [int(c) for c in deal]
    foundations = [0, 0, 0, 0]
    if rules.layout == "raglan":
        for c in cards:
            if rank(c) == 0:
                foundations[suit(c)] = 1
        cards = [c for c in cards if rank(c) != 0]
    sizes = COLUMN_SIZES[rules.layout]
    columns: list[list[int]] = [[] for _ in range(NCOLS)]
    k = 0
    for row in range(max(sizes)):
        for col in range(NCOLS):
            if sizes[col] > row:
                columns[col].append(cards[k])
                k += 1
    reserve: list[int | None] = list(cards[k:])
    return Layout(columns, reserve, foundations)


def builds_on(card: int, below: int) -> bool:
    """May ``card`` lie on ``below`` in the tableau: one rank lower, the other colour?"""
    return red(card) != red(below) and rank(below) == rank(card) + 1


def next_for_foundation(card: int, layout: Layout) -> bool:
    return layout.foundations[suit(card)] == rank(card)


def foundation_top(layout: Layout, s: int) -> int | None:
    n = layout.foundations[s]
    return s * 13 + n - 1 if n > 0 else None


def is_run(cards: Sequence[int]) -> bool:
    return all(builds_on(cards[k + 1], cards[k]) for k in range(len(cards) - 1))


def top_run_length(column: Sequence[int]) -> int:
    """How many cards at the top of a column form a run (0 for an empty column)."""
    n = 1 if column else 0
    while n < len(column) and builds_on(column[-n], column[-n - 1]):
        n += 1
    return n


def moved_cards(layout: Layout, move: Move) -> list[int] | str:
    """The cards a move takes, deepest first, or why it cannot take them."""
    if move.count < 1:
        return "moves no card"
    if move.source == "column":
        if not 0 <= move.source_index < len(layout.columns):
            return f"no column {move.source_index + 1}"
        col = layout.columns[move.source_index]
        if move.count > len(col):
            return f"column {move.source_index + 1} holds only {len(col)} cards"
        return col[len(col) - move.count :]
    if move.count != 1:
        return "one card at a time leaves a reserve slot or a foundation"
    if move.source == "reserve":
        if not 0 <= move.source_index < len(layout.reserve) or layout.reserve[move.source_index] is None:
            return f"reserve slot {reserve_letter(move.source_index)} holds no card"
        return [layout.reserve[move.source_index]]
    if move.source == "foundation":
        if not 0 <= move.source_index < 4:
            return f"no foundation {move.source_index}"
        top = foundation_top(layout, move.source_index)
        if top is None:
            return f"the {SUITS[move.source_index]} foundation is empty"
        return [top]
    return f"unknown source {move.source!r}"


def illegal_reason(layout: Layout, move: Move, rules: Rules) -> str | None:
    """Why ``move`` is not legal in ``layout``, or None if it is."""
    cards = moved_cards(layout, move)
    if isinstance(cards, str):
        return cards
    if move.source == "foundation":
        if not rules.worrying_back:
            return "foundation cards stay there (worrying_back: false)"
        if move.target != "column":
            return "a foundation card goes back only to a column"
    if len(cards) > 1:
        if rules.move_unit == "card":
            return "one card at a time (move_unit: card)"
        if not is_run(cards):
            return "the cards moved are not a run"
    head = cards[0]
    if move.target == "foundation":
        if len(cards) != 1:
            return "one card at a time goes to a foundation"
        if not next_for_foundation(head, layout):
            return f"{format_card(head)} is not next on its foundation"
    elif move.target == "column":
        t = move.target_index
        if not 0 <= t < len(layout.columns) or (move.source == "column" and t == move.source_index):
            return f"bad target column {t + 1}"
        target = layout.columns[t]
        if target:
            if not builds_on(head, target[-1]):
                return f"{format_card(head)} does not build on {format_card(target[-1])}"
        elif not empty_column_takes(head, layout, rules):
            return f"an empty column does not take {format_card(head)} (empty_column: {rules.empty_column})"
    else:
        return f"unknown target {move.target!r}"
    return None


def apply_move(layout: Layout, move: Move) -> None:
    """Carry out a move already known to be legal."""
    if move.source == "column":
        col = layout.columns[move.source_index]
        cards = col[len(col) - move.count :]
        del col[len(col) - move.count :]
    elif move.source == "reserve":
        cards = [layout.reserve[move.source_index]]
        layout.reserve[move.source_index] = None
    else:
        cards = [foundation_top(layout, move.source_index)]
        layout.foundations[move.source_index] -= 1
    if move.target == "foundation":
        layout.foundations[suit(cards[0])] += 1
    else:
        layout.columns[move.target_index].extend(cards)


def check_from(layout: Layout, rules: Rules, moves: Sequence[Move]) -> str | None:
    """Replay ``moves`` from a layout; None if every move is legal and the game ends won, else why not."""
    layout = layout.copy()
    for k, move in enumerate(moves, start=1):
        why = illegal_reason(layout, move, rules)
        if why is not None:
            return f"move {k} ({move}): {why}"
        apply_move(layout, move)
    if not layout.won():
        return f"after {len(moves)} moves only {sum(layout.foundations)} cards are on the foundations"
    return None


def check_solution(deal: Sequence[int], rules: Rules, moves: Sequence[Move]) -> str | None:
    return check_from(deal_layout(deal, rules), rules, moves)


def legal_moves(layout: Layout, rules: Rules) -> Iterator[Move]:
    """Every legal move (every run length, every target), no pruning.  Only counts up to the run at the top
    of a column are tried: a longer count is never a run, so no legal move is left out."""
    sources = [("column", i, n) for i, col in enumerate(layout.columns) for n in range(1, top_run_length(col) + 1)]
    sources += [("reserve", j, 1) for j, c in enumerate(layout.reserve) if c is not None]
    sources += [("foundation", s, 1) for s in range(4) if layout.foundations[s] > 0]
    for src, si, n in sources:
        head = moved_cards(layout, Move(src, si, n, "foundation"))[0]
        # the targets worth asking about: the foundation, columns whose top card takes the head, empty columns
        targets = [("foundation", -1)] + [
            ("column", i) for i, col in enumerate(layout.columns) if not col or builds_on(head, col[-1])
        ]
        for tgt, ti in targets:
            move = Move(src, si, n, tgt, ti)
            if illegal_reason(layout, move, rules) is None:
                yield move


def exhaustive_verdict(layout: Layout, rules: Rules, limit: int = 200_000) -> bool | None:
    """Is the position winnable?  Plain depth-first search over exact positions; None past ``limit``."""
    seen = {layout.key()}
    stack = [layout]
    while stack:
        here = stack.pop()
        if here.won():
            return True
        for move in legal_moves(here, rules):
            nxt = here.copy()
            apply_move(nxt, move)
            k = nxt.key()
            if k not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(k)
                stack.append(nxt)
    return False


# --- reading a solver's answer and telling it ------------------------------------


def card_move(layout: Layout, head: int, target: int | str) -> Move:
    """The move that takes ``head`` (and the cards above it) onto card ``target``, or to ``"empty"`` (the first
    empty column) or ``"foundation"``.  ``head`` is looked for in the reserve, the columns, then on top of
    its foundation.  This only locates cards; whether the move is legal is :func:`illegal_reason`'s job."""
    src = None
    for j, c in enumerate(layout.reserve):
        if c == head:
            src = ("reserve", j, 1)
    for i, col in enumerate(layout.columns):
        if head in col:
            src = ("column", i, len(col) - col.index(head))
    if src is None and foundation_top(layout, suit(head)) == head:
        src = ("foundation", suit(head), 1)
    if src is None:
        raise ValueError(f"{format_card(head)} is not in the tableau, the reserve or on top of a foundation")
    if target == "foundation":
        return Move(src[0], src[1], src[2], "foundation")
    if target == "empty":
        empty = [i for i, col in enumerate(layout.columns) if not col]
        return Move(src[0], src[1], src[2], "column", empty[0] if empty else -1)
    where = [i for i, col in enumerate(layout.columns) if col and col[-1] == target]
    return Move(src[0], src[1], src[2], "column", where[0] if where else -1)


def reserve_letter(j: int) -> str:
    return chr(ord("a") + j)


def describe(layout: Layout, move: Move) -> str:
    """A move in words, e.g. "QH from reserve c to column 5" (1-based columns, letters as in the notation)."""
    cards = moved_cards(layout, move)
    if move.source == "column":
        where = f"from column {move.source_index + 1}"
    elif move.source == "reserve":
        where = f"from reserve {reserve_letter(move.source_index)}"
    else:
        where = "back from its foundation"
    what = format_card(cards[0]) if len(cards) == 1 else f"run {format_card(cards[0])}..{format_card(cards[-1])}"
    if move.target == "foundation":
        return f"{what} to foundation"
    return f"{what} {where} to column {move.target_index + 1}"


def layout_lines(layout: Layout) -> list[str]:
    """The layout as text: foundations, reserve, then the columns side by side (deepest card first)."""
    fnd = [
        f"{SUITS[s]}:" + (format_card(foundation_top(layout, s)) if layout.foundations[s] else "--") for s in range(4)
    ]
    lines = ["foundations " + " ".join(fnd)]
    lines.append("reserve " + " ".join(format_card(c) if c is not None else ".." for c in layout.reserve))
    lines.append(" ".join(f"{i + 1:>3}" for i in range(len(layout.columns))))
    depth = max((len(c) for c in layout.columns), default=0)
    for p in range(depth):
        lines.append(" ".join(f"{format_card(c[p]):>3}" if p < len(c) else "   " for c in layout.columns))
    return lines


# --- the solution notation (docs/solvers.md) -------------------------------------

_TOKEN = re.compile(r"^([1-9]|[a-g]|h[cdhs])([1-9]|h)(?:v([0-9a-f]+))?$")


def implied_count(layout: Layout, source_index: int, target_index: int) -> int:
    """How many cards a column-to-column move without a count takes: down to the topmost card of the source
    that builds on the target's top card (1 when the target is empty or no card builds on it)."""
    src = layout.columns[source_index] if 0 <= source_index < len(layout.columns) else []
    dst = layout.columns[target_index] if 0 <= target_index < len(layout.columns) else []
    if not dst:
        return 1
    for depth in range(1, len(src) + 1):
        if builds_on(src[-depth], dst[-1]):
            return depth
    return 1


def move_token(layout: Layout, move: Move) -> str:
    """The notation of one move, made in ``layout`` (before the move)."""
    if move.source == "column":
        src = str(move.source_index + 1)
    elif move.source == "reserve":
        src = reserve_letter(move.source_index)
    else:
        src = FOUNDATION_LETTER + SUITS[move.source_index].lower()
    if move.target == "foundation":
        return src + FOUNDATION_LETTER
    token = src + str(move.target_index + 1)
    if move.source == "column" and move.count != implied_count(layout, move.source_index, move.target_index):
        token += f"v{move.count:x}"
    return token


def format_solution(deal_or_layout, rules: Rules, moves: Sequence[Move]) -> str:
    """Moves (legal, from the deal or a layout) as solution text: tokens separated by single spaces."""
    layout = deal_or_layout.copy() if isinstance(deal_or_layout, Layout) else deal_layout(deal_or_layout, rules)
    tokens = []
    for k, move in enumerate(moves):
        tokens.append(move_token(layout, move))
        if k < len(moves) - 1:  # the last move is not needed afterwards (and may be one the checker refuses)
            apply_move(layout, move)
    return " ".join(tokens)


def parse_move(token: str, layout: Layout) -> Move | str:
    """The move a token names in ``layout``, or why the token is not a move.  Legality is not judged here."""
    m = _TOKEN.match(token)
    if m is None:
        return f"{token!r} is not a move (allowed: e.g. 3h, ah, a5, 54, 54v3, hs4)"
    s, d, count = m.groups()
    if s.isdigit():
        source, source_index = "column", int(s) - 1
    elif s[0] == FOUNDATION_LETTER:
        source, source_index = "foundation", SUITS.lower().index(s[1])
    else:
        source, source_index = "reserve", ord(s) - ord("a")
    if count is not None and not (source == "column" and d.isdigit()):
        return f"{token!r}: a count (v...) is written only for a move between columns"
    if d == FOUNDATION_LETTER:
        return Move(source, source_index, 1, "foundation")
    target_index = int(d) - 1
    if source != "column":
        return Move(source, source_index, 1, "column", target_index)
    n = int(count, 16) if count is not None else implied_count(layout, source_index, target_index)
    return Move(source, source_index, n, "column", target_index)


def check_solution_text(deal: Sequence[int] | Layout, rules: Rules, text: str) -> str | None:
    """Parse solution text and replay it from the deal (or a layout): None if every move is legal and the game
    ends won, else the reason (a token that is not a move is a reason too, never an exception)."""
    if not isinstance(text, str):
        return f"the solution is {type(text).__name__}, not text"
    layout = deal.copy() if isinstance(deal, Layout) else deal_layout(deal, rules)
    tokens = text.split()
    for k, token in enumerate(tokens, start=1):
        move = parse_move(token, layout)
        if isinstance(move, str):
            return f"move {k}: {move}"
        why = illegal_reason(layout, move, rules)
        if why is not None:
            return f"move {k} ({token}): {why}"
        apply_move(layout, move)
    if not layout.won():
        return f"after {len(tokens)} moves only {sum(layout.foundations)} cards are on the foundations"
    return None
