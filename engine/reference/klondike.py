"""Thoughtful Klondike, written to read like the rules.

This module is the judge of the future Klondike solver (issue 53): it lays out a deal, lists and explains the
legal moves, and replays a claimed solution from the deal to the end (:func:`check_solution`).  It shares no code
with any kernel or search, and favours clarity over speed.  It also holds a plain exhaustive search with no pruning
at all (:func:`exhaustive_search`), the yardstick the solver's prunings are tested against on small decks.

The rules, as this module reads them (switches in brackets; :class:`Rules` holds them with Solvitaire's defaults,
but any object with the six attributes will do):

* Cards are ``engine.cards`` codes: card = suit * 13 + rank, suits C D H S = 0..3 (C and S black, D and H red),
  rank A = 0 .. K = 12.
* Layout: the deal (distinct card codes, first card dealt first) is dealt row by row as a person deals.  With n
  columns (7 for the real game) the first card goes to column 1 face up, the next n - 1 to columns 2..n face down;
  then one card to each of columns 2..n, column 2's face up, the rest face down; and so on, so column k ends with k
  cards, the last one face up (28 cards for 7 columns).  All remaining cards form the stock, the first remaining
  card being the first one drawn.  Waste and foundations start empty.
* Reduced decks (for tests): a deal may hold the lowest r ranks (A..) of all four suits, 4r cards, with fewer
  columns (``columns``, default 7).  The highest rank present plays the King's part for the empty-column rule.  A
  deal that is no such deck, or has fewer cards than the tableau needs, raises ValueError.
* Foundations: one per suit, built up in suit from the Ace (the card of rank one more than the foundation's top).
* Tableau building [build]: a card goes onto a face-up column top of rank one higher and of the opposite colour
  (``alternate``, the default), the same suit (``suit``) or any suit (``any``).
* Face-up runs move as a unit: any face-up card of a column may move together with all the cards above it (they
  are face up) onto a column where that card may be built, or into an empty column.  The run is not checked: the
  face-up part of a column is a legal build sequence, since cards arrive only by the build rule (except a column's
  bottom face-up card, which nothing lies under).  A whole column may move into an empty column too: pointless,
  but legal, and the plain search prunes nothing.
* Parts of runs [partial_runs]: a part of a run (one that leaves face-up cards of its column behind) may move onto
  a card only when the card it uncovers is next for its foundation under ``uncovers_home`` (the default,
  Solvitaire's "partial-if-card-above-buildable"), and always under ``any``.  Into an empty column any part may
  move, as in Solvitaire.
* Empty columns [empty_column]: ``kings`` (only a King, i.e. the deck's highest rank, or a run headed by one; the
  default), ``any`` (any card or run), ``none`` (nothing may move into an empty column).
* A face-down card that becomes a column's top is turned face up at once, as part of the move that uncovered it.
* Stock and waste [draw] (1..13, default 3): a draw turns min(draw, cards in stock) cards from the stock onto the
  waste one at a time, so the last one turned is the waste's top, the only waste card that plays.  When the stock
  is empty and the waste is not, a redeal turns the waste over to form the stock again, in the same order as
  before (the first card drawn is again the first card the stock gave).  [redeals] ``"unlimited"`` (the default)
  or an int >= 0: the number of redeals allowed.  A draw or a redeal is a move.  A draw needs a card in the stock;
  a redeal needs an empty stock, a card in the waste and a redeal left.
* The waste's top may go to its foundation or onto the tableau (build rule or empty-column rule).  A column's top
  card may go to its foundation (only the top: a card with cards on it may not).
* Worrying back [worrying_back] (default true): a foundation's top card may move back onto the tableau, by the
  build rule or the empty-column rule.  Without it, foundation cards never leave.  Nothing else goes to the waste
  or the stock.
* Thoughtful: every card is known to the player (the search sees face-down cards and the stock's order).
* Won when every card of the deck is on the foundations.  Once won, no move is legal (a solution ends there).

A position is a :class:`Table`: ``columns[k]`` lists column k + 1 bottom card first, its first ``face_down[k]``
cards face down; ``stock`` lists the stock in drawing order (``stock[0]`` is drawn next); ``waste`` lists the
waste in the order drawn, so its top is ``waste[-1]`` and a redeal makes the waste the stock as it is;
``foundations[s]`` is the rank of suit s's top card (-1 when empty); ``redeals_used`` counts redeals made.
:func:`key` is the whole position; it leaves ``redeals_used`` out when the rules allow unlimited redeals (then
the count changes no legal move, and leaving it out keeps the positions finite).  :func:`apply` returns a new
Table and needs the rules (a draw turns ``rules.draw`` cards).

Move notation (one token a move, a solution is the tokens separated by single spaces).  Every card is distinct, so
a move names the card moved, wherever it lies (a column's face-up cards, the waste's top, a foundation's top):

* ``7H>4``: 7H, with any cards on it, onto column 4 (columns are numbered 1..n as dealt); also from the waste or,
  worrying back, from its foundation (``5H>2`` when 5H is a foundation's top);
* ``7H>F``: 7H to its foundation (from a column's top or the waste);
* ``D``: draw; ``R``: redeal (only when the stock is empty).

:func:`legal_moves` lists every legal move in this order: for each card that may move -- the face-up cards of
column 1 from the deepest up, then those of columns 2..n, then the waste's top, then the foundations' tops in suit
order C D H S -- its move to the foundation, then to columns 1..n; then D, then R.

Display (:func:`layout_lines`): one line for the foundations, one for the stock and waste (the waste's three top
cards, top last), then a line a column, bottom card first, its face-down cards in square brackets:
``3: [5C QH] 7S 6H`` (a thoughtful player sees them; the brackets say they cannot move yet).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import RANKS, SUITS, CardError, format_card, parse_card

WON, UNSOLVABLE, UNKNOWN = "won", "unsolvable", "unknown"
BUILDS = ("alternate", "suit", "any")
EMPTY_COLUMNS = ("kings", "any", "none")
PARTIAL_RUNS = ("uncovers_home", "any")
UNLIMITED = "unlimited"
RED_SUITS = (1, 2)  # diamonds, hearts


@dataclass(frozen=True)
class Rules:
    """Klondike's rule switches as plain values, Solvitaire's defaults (callers may pass any object like it)."""

    draw: int = 3  # cards turned from the stock by a draw, 1..13
    redeals: int | str = UNLIMITED  # redeals allowed: "unlimited" or an int >= 0
    worrying_back: bool = True  # may a foundation's top card come back to the tableau?
    empty_column: str = "kings"  # what fills an empty column: "kings", "any" or "none"
    build: str = "alternate"  # tableau building: "alternate", "suit" or "any"
    partial_runs: str = "uncovers_home"  # when part of a run may move onto a card: "uncovers_home" or "any"

    def __post_init__(self) -> None:
        check_rules(self)


def _is_int(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def check_rules(rules: Any) -> None:
    """Raise ValueError naming the switch when a rules object holds a value these rules do not know."""
    if not _is_int(rules.draw) or not 1 <= rules.draw <= 13:
        raise ValueError(f"draw {rules.draw!r}: an int from 1 to 13")
    if rules.redeals != UNLIMITED and (not _is_int(rules.redeals) or rules.redeals < 0):
        raise ValueError(f"redeals {rules.redeals!r}: 'unlimited' or an int >= 0")
    if not isinstance(rules.worrying_back, bool):
        raise ValueError(f"worrying_back {rules.worrying_back!r}: true or false")
    if rules.empty_column not in EMPTY_COLUMNS:
        raise ValueError(f"empty_column {rules.empty_column!r}: one of {', '.join(EMPTY_COLUMNS)}")
    if rules.build not in BUILDS:
        raise ValueError(f"build {rules.build!r}: one of {', '.join(BUILDS)}")
    if rules.partial_runs not in PARTIAL_RUNS:
        raise ValueError(f"partial_runs {rules.partial_runs!r}: one of {', '.join(PARTIAL_RUNS)}")


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def rank(card: int) -> int:
    return card % 13


def suit(card: int) -> int:
    return card // 13


def is_red(card: int) -> bool:
    return suit(card) in RED_SUITS


@dataclass
class Table:
    """A position; see the module docstring for what each list holds."""

    columns: list[list[int]]  # bottom card first
    face_down: list[int]  # how many of each column's bottom cards are face down
    stock: list[int]  # stock[0] is drawn next
    waste: list[int]  # in the order drawn: waste[-1] is the top
    foundations: list[int]  # the top rank per suit C D H S, -1 when empty
    ranks: int  # the deck holds ranks 0..ranks-1 of every suit; rank ranks-1 plays the King's part
    redeals_used: int = 0

    def copy(self) -> Table:
        return Table(
            [list(c) for c in self.columns],
            list(self.face_down),
            list(self.stock),
            list(self.waste),
            list(self.foundations),
            self.ranks,
            self.redeals_used,
        )


def deck_ranks(deal: Sequence[int]) -> int:
    """How many ranks the deal's deck holds (13 for 52 cards); ValueError unless it is ranks A.. of all suits."""
    cards = [int(c) for c in deal]
    if len(set(cards)) != len(cards):
        raise ValueError("a deal's cards must be distinct")
    ranks = len(cards) // 4
    if not 1 <= ranks <= 13 or set(cards) != {s * 13 + r for s in range(4) for r in range(ranks)}:
        raise ValueError(f"a deal of {len(cards)} cards is not the lowest ranks (A..) of all four suits")
    return ranks


def deal_layout(deal: Sequence[int], columns: int = 7) -> Table:
    """The opening position: the tableau dealt row by row (column k gets k cards, the last face up), the rest the
    stock with the first remaining card drawn first."""
    ranks = deck_ranks(deal)
    cards = [int(c) for c in deal]
    if columns < 1:
        raise ValueError(f"columns {columns}: at least 1")
    needed = columns * (columns + 1) // 2
    if len(cards) < needed:
        raise ValueError(f"{columns} columns need at least {needed} cards; the deal has {len(cards)}")
    tableau: list[list[int]] = [[] for _ in range(columns)]
    dealt = 0
    for row in range(columns):  # row r: one card to each of columns r+1..n, the first of them face up
        for k in range(row, columns):
            tableau[k].append(cards[dealt])
            dealt += 1
    return Table(tableau, list(range(columns)), cards[dealt:], [], [-1, -1, -1, -1], ranks)


def won(table: Table) -> bool:
    """Is every card of the deck on the foundations?"""
    return all(top == table.ranks - 1 for top in table.foundations)


def key(table: Table, rules: Any = None) -> tuple:
    """The whole position, hashable.  The redeals used are part of it unless ``rules.redeals`` is unlimited (then
    they change no legal move, and leaving them out keeps the positions finite)."""
    position = (
        tuple(tuple(c) for c in table.columns),
        tuple(table.face_down),
        tuple(table.stock),
        tuple(table.waste),
        tuple(table.foundations),
    )
    if rules is not None and rules.redeals == UNLIMITED:
        return position
    return (*position, table.redeals_used)


# --- moves ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """A draw, a redeal, or a card (with any cards on it) to a column (0-based) or, target None, its foundation."""

    kind: str  # "draw", "redeal" or "card"
    card: int = -1
    target: int | None = None

    def __str__(self) -> str:
        return format_move(self)


DRAW = Move("draw")
REDEAL = Move("redeal")


def card_move(card: int, target: int | None) -> Move:
    """``card`` onto column ``target`` (0-based), or to its foundation when ``target`` is None."""
    return Move("card", card, target)


def format_move(move: Move) -> str:
    """The token of a move: ``7H>4``, ``7H>F``, ``D`` or ``R``."""
    if move.kind == "draw":
        return "D"
    if move.kind == "redeal":
        return "R"
    return f"{format_card(move.card)}>{'F' if move.target is None else move.target + 1}"


def parse_move(token: str) -> Move:
    """A token of the notation as a Move; ValueError when it is not one."""
    t = token.strip().upper()
    if t == "D":
        return DRAW
    if t == "R":
        return REDEAL
    card, sep, target = t.partition(">")
    if not sep:
        raise ValueError("expected CARD>COLUMN, CARD>F, D or R")
    try:
        code = parse_card(card)
    except CardError as exc:
        raise ValueError(str(exc)) from None
    if target == "F":
        return card_move(code, None)
    if not target.isdigit() or int(target) < 1:
        raise ValueError(f"bad target {target!r} (a column 1..n or F)")
    return card_move(code, int(target) - 1)


def solution_text(moves: Iterable[Move]) -> str:
    """Moves as a solution line: tokens separated by single spaces."""
    return " ".join(format_move(m) for m in moves)


def parse_solution(text: str) -> list[Move]:
    """A solution line as moves; ValueError naming the first bad token."""
    moves = []
    for number, token in enumerate(text.split(), start=1):
        try:
            moves.append(parse_move(token))
        except ValueError as exc:
            raise ValueError(f"move {number} '{token}': {exc}") from None
    return moves


# --- the rules of a move -------------------------------------------------------------------------------------------


def builds_on(card: int, below: int, build: str) -> bool:
    """May ``card`` lie on ``below`` in the tableau?  One rank lower, and by ``build``: opposite colour, same suit,
    or any suit."""
    if rank(below) != rank(card) + 1:
        return False
    if build == "alternate":
        return is_red(card) != is_red(below)
    if build == "suit":
        return suit(card) == suit(below)
    return True


def empty_column_takes(card: int, rules: Any, top_rank: int) -> bool:
    """May ``card`` (alone or heading a run) go into an empty column?  ``top_rank`` plays the King."""
    if rules.empty_column == "kings":
        return rank(card) == top_rank
    return rules.empty_column == "any"


def where(table: Table, card: int) -> tuple[str, int] | str:
    """Where a card that may move lies: ("column", k), ("waste", -1) or ("foundation", suit); else why it may not
    move (face down, under other waste or foundation cards, in the stock)."""
    for k, col in enumerate(table.columns):
        if card in col:
            if col.index(card) < table.face_down[k]:
                return f"{format_card(card)} is face down in column {k + 1}"
            return ("column", k)
    if table.waste and table.waste[-1] == card:
        return ("waste", -1)
    if card in table.waste:
        return f"{format_card(card)} is in the waste under {format_card(table.waste[-1])} (only the waste's top plays)"
    if card in table.stock:
        return f"{format_card(card)} is in the stock"
    top = table.foundations[suit(card)]
    if top == rank(card):
        return ("foundation", suit(card))
    if top > rank(card):
        return f"{format_card(card)} is on its foundation under {format_card(suit(card) * 13 + top)}"
    return f"{format_card(card)} is not in this deck"


def illegal_reason(table: Table, rules: Any, move: Move) -> str | None:
    """Why ``move`` is not legal here (one line), or None if it is."""
    if won(table):
        return "the game is already won"
    return _reason(table, rules, move)


def _reason(table: Table, rules: Any, move: Move) -> str | None:
    """:func:`illegal_reason` in a position not yet won."""
    if move.kind == "draw":
        return "the stock is empty" if not table.stock else None
    if move.kind == "redeal":
        if table.stock:
            return f"the stock is not empty ({_cards(len(table.stock))}): draw first"
        if not table.waste:
            return "the waste is empty: nothing to redeal"
        if rules.redeals != UNLIMITED and table.redeals_used >= rules.redeals:
            return f"no redeal left ({table.redeals_used} of {rules.redeals} made)"
        return None
    card = move.card
    source = where(table, card)
    if isinstance(source, str):
        return source
    if move.target is None:  # to its foundation
        if source[0] == "foundation":
            return f"{format_card(card)} is already on its foundation"
        if source[0] == "column" and table.columns[source[1]][-1] != card:
            return f"{format_card(card)} has cards on it (only a column's top card goes to a foundation)"
        if table.foundations[suit(card)] != rank(card) - 1:
            return f"{format_card(card)} is not next on its foundation"
        return None
    n = len(table.columns)
    if not 0 <= move.target < n:
        return f"no column {move.target + 1} (columns 1..{n})"
    if source == ("column", move.target):
        return f"{format_card(card)} is already in column {move.target + 1}"
    if source[0] == "foundation" and not rules.worrying_back:
        return "foundation cards never leave (worrying_back: false)"
    col = table.columns[move.target]
    if col:
        if not builds_on(card, col[-1], rules.build):
            return f"{format_card(card)} does not build on {format_card(col[-1])} (build: {rules.build})"
        if source[0] == "column" and rules.partial_runs == "uncovers_home":
            return _partial_reason(table, source[1], card)
    elif not empty_column_takes(card, rules, table.ranks - 1):
        if rules.empty_column == "none":
            return "nothing may move into an empty column (empty_column: none)"
        return f"an empty column takes only a card of rank {RANKS[table.ranks - 1]} (empty_column: kings)"
    return None


def _partial_reason(table: Table, k: int, card: int) -> str | None:
    """Under ``partial_runs: uncovers_home``: why ``card`` (with the cards on it) may not leave column k for a
    card, or None.  A whole face-up run may; a part of one only when the card it uncovers is next home."""
    col = table.columns[k]
    i = col.index(card)
    if i == table.face_down[k]:
        return None
    under = col[i - 1]
    if table.foundations[suit(under)] == rank(under) - 1:
        return None
    return (
        f"{format_card(card)} is part of a run: it may leave {format_card(under)} only when that card goes home "
        "next (partial_runs: uncovers_home)"
    )


def legal_moves(table: Table, rules: Any) -> list[Move]:
    """Every legal move, in the order the module docstring gives; none once won."""
    if won(table):
        return []
    movable = [c for k, col in enumerate(table.columns) for c in col[table.face_down[k] :]]
    movable += table.waste[-1:]
    movable += [s * 13 + top for s, top in enumerate(table.foundations) if top >= 0]
    targets: list[int | None] = [None, *range(len(table.columns))]
    candidates = [Move("card", c, t) for c in movable for t in targets] + [DRAW, REDEAL]
    return [m for m in candidates if _reason(table, rules, m) is None]


def apply(table: Table, rules: Any, move: Move) -> Table:
    """The position after a legal move (``table`` is left as it was).  The move is not checked here:
    :func:`illegal_reason` is the judge."""
    t = table.copy()
    if move.kind == "draw":
        for _ in range(min(rules.draw, len(t.stock))):  # one at a time: the last turned is the top
            t.waste.append(t.stock.pop(0))
        return t
    if move.kind == "redeal":  # turned over: the first card drawn is again the first the stock gives
        t.stock, t.waste = t.waste, []
        t.redeals_used += 1
        return t
    source = where(t, move.card)
    if source[0] == "column":
        k = source[1]
        col = t.columns[k]
        cards = col[col.index(move.card) :]
        del col[col.index(move.card) :]
        if col and t.face_down[k] == len(col):  # the card uncovered is turned face up at once
            t.face_down[k] -= 1
    elif source[0] == "waste":
        cards = [t.waste.pop()]
    else:  # worrying back
        cards = [move.card]
        t.foundations[suit(move.card)] -= 1
    if move.target is None:
        t.foundations[suit(move.card)] += 1
    else:
        t.columns[move.target].extend(cards)
    return t


# --- solutions -----------------------------------------------------------------------------------------------------


def replay_solution(deal: Sequence[int], rules: Any, text: str, columns: int = 7) -> tuple[Table, str | None]:
    """Play a solution line from the deal, every move checked: (the table after the last legal move, the first
    error as "move 12 '7H>4': <reason>", or None)."""
    check_rules(rules)
    table = deal_layout(deal, columns)
    for number, token in enumerate(text.split(), start=1):
        try:
            move = parse_move(token)
        except ValueError as exc:
            return table, f"move {number} '{token}': {exc}"
        why = illegal_reason(table, rules, move)
        if why is not None:
            return table, f"move {number} '{token}': {why}"
        table = apply(table, rules, move)
    return table, None


def cards_off(table: Table) -> int:
    """How many cards are not on the foundations."""
    return 4 * table.ranks - sum(top + 1 for top in table.foundations)


def check_solution(deal: Sequence[int], rules: Any, text: str, columns: int = 7) -> str | None:
    """None when every move of the line is legal and it ends with the game won; else why it is refused."""
    table, why = replay_solution(deal, rules, text, columns)
    if why is not None:
        return why
    if not won(table):
        return f"not won: {_cards(cards_off(table))} off the foundations after {len(text.split())} moves"
    return None


# --- a deliberately plain exhaustive search ------------------------------------------------------------------------


def exhaustive_search(
    deal: Sequence[int], rules: Any, columns: int = 7, limit: int = 1_000_000
) -> tuple[str, str | None]:
    """Depth-first search over every legal move, positions stored whole (:func:`key`) in a set, nothing else
    pruned.  Returns ("won", solution line), ("unsolvable", None), or ("unknown", None) when more than ``limit``
    positions would be stored.  The moves of a position are searched in :func:`legal_moves`' order, foundation
    moves first; that order changes how soon a win is found and which, never the verdict.  The line is a win, not
    the shortest one."""
    check_rules(rules)
    start = deal_layout(deal, columns)
    # Every stored position's key -> (the key it was reached from, the move), None for the start: the winning
    # line is read back from it.
    reached_from: dict[tuple, tuple[tuple, Move] | None] = {key(start, rules): None}
    stack = [start]
    while stack:
        here = stack.pop()
        here_key = key(here, rules)
        if won(here):
            line: list[Move] = []
            step = reached_from[here_key]
            while step is not None:
                line.append(step[1])
                step = reached_from[step[0]]
            return WON, solution_text(reversed(line))
        children = []
        for move in legal_moves(here, rules):
            there = apply(here, rules, move)
            there_key = key(there, rules)
            if there_key in reached_from:
                continue
            if len(reached_from) >= limit:
                return UNKNOWN, None
            reached_from[there_key] = (here_key, move)
            children.append(there)
        stack.extend(reversed(children))  # the first legal move is searched first
    return UNSOLVABLE, None


# --- showing a position and a line ---------------------------------------------------------------------------------


def layout_lines(table: Table) -> list[str]:
    """The position in card text: foundations, stock and waste (three top cards, top last), then the columns
    bottom card first with face-down cards in square brackets."""
    found = "  ".join(
        f"{SUITS[s]}:{'--' if top < 0 else format_card(s * 13 + top)}" for s, top in enumerate(table.foundations)
    )
    lines = [f"foundations  {found}"]
    shown = " ".join(format_card(c) for c in table.waste[-3:])
    more = ".. " if len(table.waste) > 3 else ""
    waste = f"  waste {len(table.waste)}: {more}{shown}" if table.waste else "  waste 0"
    lines.append(f"stock {len(table.stock)}{waste}  (redeals made: {table.redeals_used})")
    for k, col in enumerate(table.columns):
        down = " ".join(format_card(c) for c in col[: table.face_down[k]])
        up = " ".join(format_card(c) for c in col[table.face_down[k] :])
        text = (f"[{down}] " if down else "") + up
        lines.append(f"{k + 1}: {text or '-'}")
    return lines


def describe(table: Table, rules: Any, move: Move) -> str:
    """A legal move in words, e.g. "7H and 2 cards on it from column 2 onto 8S in column 4; 3C turned face up"."""
    if move.kind == "draw":
        cards = table.stock[: rules.draw]
        return f"draw {len(cards)}: {' '.join(format_card(c) for c in cards)}"
    if move.kind == "redeal":
        allowed = "" if rules.redeals == UNLIMITED else f" of {rules.redeals}"
        return (
            f"redeal {table.redeals_used + 1}{allowed}: the waste turned over, {_cards(len(table.waste))} in the stock"
        )
    name, source = format_card(move.card), where(table, move.card)
    if source[0] == "column":
        col = table.columns[source[1]]
        above = len(col) - 1 - col.index(move.card)
        what = f"{name} and {_cards(above)} on it" if above else name
        text = f"{what} from column {source[1] + 1}"
    else:
        text = f"{name} from the waste" if source[0] == "waste" else f"{name} back from its foundation"
    if move.target is None:
        text += " to its foundation"
    else:
        col = table.columns[move.target]
        onto = f"onto {format_card(col[-1])} in" if col else "into empty"
        text += f" {onto} column {move.target + 1}"
    if source[0] == "column":
        k = source[1]
        after = apply(table, rules, move)
        if after.face_down[k] < table.face_down[k]:
            text += f"; {format_card(after.columns[k][-1])} turned face up"
    return text


def trace_lines(deal: Sequence[int], rules: Any, text: str, columns: int = 7) -> list[str]:
    """A line played move by move: the opening layout, one line per move in words, the final layout and verdict."""
    check_rules(rules)
    table = deal_layout(deal, columns)
    lines = ["deal:", *("  " + line for line in layout_lines(table))]
    tokens = text.split()
    for number, token in enumerate(tokens, start=1):
        try:
            move = parse_move(token)
        except ValueError as exc:
            lines.append(f"refused: move {number} '{token}': {exc}")
            return lines
        why = illegal_reason(table, rules, move)
        if why is not None:
            lines.append(f"refused: move {number} '{token}': {why}")
            return lines
        lines.append(f"{number:>4}. {token:<6} {describe(table, rules, move)}")
        table = apply(table, rules, move)
    lines += ["after the line:", *("  " + line for line in layout_lines(table))]
    lines.append(f"won in {len(tokens)} moves" if won(table) else f"not won: {_cards(cards_off(table))} left")
    return lines
