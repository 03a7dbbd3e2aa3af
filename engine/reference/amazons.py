"""Amazons (Dick's Games of Patience, 1898), written to read like the rules.

This is the oracle the compiled kernel in ``engine/games/amazons.py`` is held to,
deal by deal, and the source of ``patience play amazons --trace``.  It favours
clarity over speed (though it is kept lean enough for the differential test).

The rules, with every disputed point a switch (see ``AmazonsRules``):

* 28 cards: A 7 8 9 T J Q of each suit.  Four foundation places F1..F4 stand
  directly above four columns C1..C4.  Foundations build A, 7, 8, 9, T, J, Q.
* The deal is the stock, first card dealt first.  A *pass*: until the stock is
  empty, deal one card to each active column, left to right (all columns, or
  with ``skip_completed_columns`` only those whose foundation is not complete;
  the set is fixed when the row is dealt).  When fewer cards remain than active
  columns, the leftmost active columns get them.  After each such row, plays
  are made until none is made.
* Only the top card of a column is available.  An Ace goes to an empty
  foundation place (``ace_placement``); any other card goes onto the foundation
  directly above its own column when that foundation's top is the rank just
  below it (and of the Ace's suit under ``build: same_suit``); with
  ``queen_any_column`` a Queen may go to any foundation that takes it.
* Strategy ``greedy``: scan C1..C4, make the first legal play found, scan again
  from C1, until no play is legal.  A Queen free to go anywhere goes to the
  leftmost foundation that takes it.  ``one_ace``: the same, but an Ace is
  played only while fewer than k foundations are started and incomplete; k
  starts at 1 and, when the loss rule fires with k < 4, grows by one instead of
  ending the game (the loss rule's memory starts afresh).  Under greedy k is 4.
* When the stock is empty the columns, gathered in ``gather`` order (the first
  card listed is dealt first), become the new stock.  Redeals are unlimited.
* Won the moment all 28 cards are on the foundations.
* ``loss_rule: cycle``: lost (``cycle``) when the state at the start of a pass
  (the stock card by card, the foundations card by card, k) equals the state at
  the start of an earlier pass.  ``loss_rule: idle_passes``: lost (``blocked``)
  after ``idle_passes`` consecutive passes in which no card reached a
  foundation.  At the start of each pass the loss rule is judged first, then
  ``max_rounds`` (a game that would start pass ``max_rounds + 1`` is
  ``capped``).

Free play, ``strategy: solver`` (the reading shared with the solver in
``engine/games/amazons_solver.py``):

* The deal, the rows, the active columns and the gather are as above.  After
  each row is dealt (every row of a pass, including its last, possibly partial,
  row, just before the gather) the player may make any sequence of legal plays,
  each one optional, none at all allowed.  No play is possible before a pass's
  first row (the columns are empty then).
* A legal play takes the top card of a column to a foundation: an Ace to the
  place ``ace_placement`` names (there is no Ace limit: k plays no part); a
  Queen under ``queen_any_column`` to any foundation that takes it, the player
  choosing which; any other card to the foundation directly above its column
  when that foundation takes it (``build`` as above).
* There is no loss rule: ``loss_rule`` and ``idle_passes`` have no effect.  A
  deal is ``won`` when some sequence of choices puts all 28 cards on the
  foundations, ``unsolvable`` when none does.  Its number of passes is the
  least over all winning lines (the winning pass counted).

Solution notation (``check_solution`` replays it, ``solution_lines`` shows
it): the passes in order, separated by `` / ``.  A pass in which nothing is
played is ``-``; otherwise it is the groups ``ROW:PLAY,PLAY,...`` separated by
spaces, ROW counting the rows dealt so far in this pass (1 for the first row),
rising from group to group, and the plays made after that row in the order
made.  A play is the card's text (it is on top of some column; an Ace's and an
ordinary card's foundation follow from the rules); a Queen under
``queen_any_column`` is written ``QH>F2``, naming the foundation that takes it.
Example: ``1:AS 3:7S,AH / - / 2:8S,9S 7:QH>F1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import CardError, format_card, format_cards, parse_card
from engine.reference.events import Event

WON, CYCLE, BLOCKED, CAPPED = "won", "cycle", "blocked", "capped"

# The build order of a foundation, as card rank codes (A=0, 7=6, ..., Q=11).
BUILD_ORDER = (0, 6, 7, 8, 9, 10, 11)
FULL = len(BUILD_ORDER)  # cards on a complete foundation
NCARDS = 28
GATHERS = ("pile4_bottom_up", "pile1_bottom_up", "pile1_top_down", "pile4_top_down")  # the orders gathered() knows


def step(card: int) -> int:
    """The card's place in the build order: A=0, 7=1, 8=2, ..., Q=6."""
    return BUILD_ORDER.index(card % 13)


def suit(card: int) -> int:
    return card // 13


@dataclass
class Outcome:
    outcome: str
    rounds: int
    moves: int
    cards_left: int
    foundations_done: int
    aces_allowed: int
    events: list[Event]

    def row(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "won": self.outcome == WON,
            "rounds": self.rounds,
            "moves": self.moves,
            "cards_left": self.cards_left,
            "foundations_done": self.foundations_done,
            "aces_allowed": self.aces_allowed,
        }


def foundation_takes(f: Sequence[int], card: int, rules: Any) -> bool:
    """Does a foundation holding ``f`` take ``card`` (a non-Ace) by rank and, under same_suit, by suit?"""
    if len(f) != step(card):  # its top must be the rank just below the card
        return False
    return rules.build == "any_suit" or suit(f[0]) == suit(card)


def gathered(c: Sequence[Sequence[int]], g: str) -> list[int]:
    """The new stock made of columns ``c`` in gather order ``g`` (the first card listed is dealt first)."""
    if g == "pile1_bottom_up":
        return [*c[0], *c[1], *c[2], *c[3]]
    if g == "pile4_bottom_up":
        return [*c[3], *c[2], *c[1], *c[0]]
    if g == "pile1_top_down":
        return [*c[0][::-1], *c[1][::-1], *c[2][::-1], *c[3][::-1]]
    if g == "pile4_top_down":
        return [*c[3][::-1], *c[2][::-1], *c[1][::-1], *c[0][::-1]]
    raise ValueError(g)


class Table:
    """The stock, four columns and four foundations, with the elementary actions of the game."""

    def __init__(self, deal: Sequence[int], rules: Any, record: bool) -> None:
        self.rules = rules
        self.stock: list[int] = list(deal)
        self.columns: list[list[int]] = [[], [], [], []]
        self.foundations: list[list[int]] = [[], [], [], []]
        self.k = 1 if rules.strategy == "one_ace" else 4  # Aces allowed: foundations started and incomplete
        self.moves = 0
        self.record = record
        self.events: list[Event] = []

    def log(self, kind: str, **data: Any) -> None:
        if self.record:
            self.events.append(Event(kind, data))

    # --- what the table looks like ---------------------------------------------

    def on_foundations(self) -> int:
        return sum(len(f) for f in self.foundations)

    def complete(self, i: int) -> bool:
        return len(self.foundations[i]) == FULL

    def foundations_done(self) -> int:
        return sum(self.complete(i) for i in range(4))

    def started_and_incomplete(self) -> int:
        return sum(1 for f in self.foundations if 0 < len(f) < FULL)

    def state(self) -> tuple:
        """What the cycle rule compares at the start of a pass (the columns are empty then)."""
        return tuple(self.stock), tuple(tuple(f) for f in self.foundations), self.k

    # --- dealing -------------------------------------------------------------------

    def active_columns(self) -> list[int]:
        if self.rules.skip_completed_columns:
            return [j for j in range(4) if not self.complete(j)]
        return [0, 1, 2, 3]

    def deal_row(self) -> None:
        """One card to each active column, left to right, while the stock lasts."""
        dealt = {}
        for j in self.active_columns():
            if not self.stock:
                break
            card = self.stock.pop(0)
            self.columns[j].append(card)
            dealt[j] = card
        self.log("deal", cards=dealt)

    # --- plays -----------------------------------------------------------------------

    def takes(self, i: int, card: int) -> bool:
        """Does foundation Fi take ``card`` (a non-Ace) by rank and, under same_suit, by suit?"""
        return foundation_takes(self.foundations[i], card, self.rules)

    def ace_target(self, j: int) -> int | None:
        """Where an Ace on column Cj goes, or None when the strategy holds it back."""
        if self.started_and_incomplete() >= self.k:
            return None
        empty = [i for i in range(4) if not self.foundations[i]]
        if not empty:  # cannot happen with four Aces and four places; kept for clarity
            return None
        if self.rules.ace_placement == "own_column" and not self.foundations[j]:
            return j
        return empty[0]

    def target(self, j: int) -> int | None:
        """The foundation the top card of column Cj may go to now, or None."""
        if not self.columns[j]:
            return None
        card = self.columns[j][-1]
        if step(card) == 0:
            return self.ace_target(j)
        if self.rules.queen_any_column and step(card) == FULL - 1:
            for i in range(4):  # a Queen free to go anywhere: the leftmost foundation that takes it
                if self.takes(i, card):
                    return i
            return None
        return j if self.takes(j, card) else None

    def make_plays(self) -> None:
        """Scan C1..C4, make the first legal play, scan again from C1; stop when none is legal."""
        while True:
            for j in range(4):
                i = self.target(j)
                if i is not None:
                    card = self.columns[j].pop()
                    self.foundations[i].append(card)
                    self.moves += 1
                    self.log("play", card=card, column=j, foundation=i)
                    break
            else:
                return

    # --- gathering -----------------------------------------------------------------

    def gather(self) -> None:
        """The columns become the new stock; the first card listed is dealt first."""
        g = self.rules.gather
        stock = gathered(self.columns, g)
        self.stock = stock
        self.columns = [[], [], [], []]
        self.log("gather", order=g, stock=list(stock))


def play(deal: Sequence[int], rules: Any, record: bool = False) -> Outcome:
    """Play one deal under ``rules``; with ``record`` keep the events for a trace."""
    t = Table(deal, rules, record)

    def end(outcome: str, rounds: int, **data: Any) -> Outcome:
        t.log(outcome, rounds=rounds, **data)
        return Outcome(outcome, rounds, t.moves, NCARDS - t.on_foundations(), t.foundations_done(), t.k, t.events)

    seen: dict[tuple, int] = {}  # cycle rule's memory: state at the start of a pass -> that pass
    idle = 0  # idle_passes rule's memory: consecutive passes in which no card reached a foundation
    rounds = 0
    while True:
        # the start of a pass: the loss rule first, then the cap
        if rules.loss_rule == "cycle":
            state = t.state()
            if state in seen:
                if t.k < 4:
                    t.k += 1
                    t.log("k", k=t.k, why=f"the state repeats the start of pass {seen[state]}")
                    seen = {}
                    state = t.state()
                else:
                    return end(CYCLE, rounds, first_pass=seen[state])
            seen[state] = rounds + 1
        if rounds == rules.max_rounds:
            return end(CAPPED, rounds)
        rounds += 1
        t.log("pass", number=rounds, stock=list(t.stock), k=t.k)
        moves_before = t.moves
        while t.stock:
            t.deal_row()
            t.make_plays()
            if t.on_foundations() == NCARDS:
                return end(WON, rounds)
        t.gather()
        if rules.loss_rule == "idle_passes":
            idle = idle + 1 if t.moves == moves_before else 0
            if idle >= rules.idle_passes:
                if t.k < 4:
                    t.k += 1
                    t.log("k", k=t.k, why=f"{idle} passes in a row without a play")
                    idle = 0
                else:
                    return end(BLOCKED, rounds, idle=idle)


def trace_lines(result: Outcome) -> list[str]:
    """The events of a recorded game in card text, pass by pass."""
    lines = []
    foundations: list[list[int]] = [[], [], [], []]
    for e in result.events:
        d = e.data
        if e.kind == "pass":
            k = "" if d.get("k") is None else f" (k={d['k']})"
            lines.append(f"pass {d['number']}{k}: stock {format_cards(d['stock'])}")
        elif e.kind == "deal":
            lines.append("  deal " + " ".join(f"C{j + 1}:{format_card(c)}" for j, c in sorted(d["cards"].items())))
        elif e.kind == "play":
            i = d["foundation"]
            foundations[i].append(d["card"])
            lines.append(
                f"    play {format_card(d['card'])} from C{d['column'] + 1} to F{i + 1} "
                f"(F{i + 1}: {format_cards(foundations[i])})"
            )
        elif e.kind == "gather":
            lines.append(f"  gather ({d['order']}): {len(d['stock'])} cards")
        elif e.kind == "k":
            lines.append(f"  k -> {d['k']}: {d['why']}")
        elif e.kind == WON:
            lines.append(f"won in pass {d['rounds']}")
        elif e.kind == CYCLE:
            lines.append(f"cycle: the state at the start of pass {d['rounds'] + 1} repeats pass {d['first_pass']}")
        elif e.kind == BLOCKED:
            lines.append(f"blocked: {d['idle']} passes in a row without a play (after pass {d['rounds']})")
        elif e.kind == CAPPED:
            lines.append(f"capped after {d['rounds']} passes")
    return lines


# --- free play (strategy: solver): legal plays, solutions, and a plain exhaustive search ---------------


def play_targets(card: int, j: int, foundations: Sequence[Sequence[int]], rules: Any) -> list[int]:
    """The foundations ``card``, on top of column Cj, may go to under free play (no Ace limit)."""
    if step(card) == 0:
        empty = [i for i in range(4) if not foundations[i]]
        if not empty:
            return []
        if rules.ace_placement == "own_column" and not foundations[j]:
            return [j]
        return [empty[0]]
    if rules.queen_any_column and step(card) == FULL - 1:
        return [i for i in range(4) if foundation_takes(foundations[i], card, rules)]
    return [j] if foundation_takes(foundations[j], card, rules) else []


def legal_plays(
    columns: Sequence[Sequence[int]], foundations: Sequence[Sequence[int]], rules: Any
) -> list[tuple[int, int]]:
    """Every legal free play as (column, foundation)."""
    return [(j, i) for j in range(4) if columns[j] for i in play_targets(columns[j][-1], j, foundations, rules)]


def row_columns(foundations: Sequence[Sequence[int]], rules: Any, left: int) -> list[int]:
    """The columns the next row is dealt to when ``left`` cards remain in the stock."""
    active = [j for j in range(4) if not (rules.skip_completed_columns and len(foundations[j]) == FULL)]
    return active[:left]


def _parse_play(token: str) -> tuple[int, int | None]:
    if ">" in token:
        card, target = token.split(">", 1)
        if len(target) != 2 or target[0] != "F" or target[1] not in "1234":
            raise ValueError(f"bad foundation {target!r} in {token!r} (expected F1..F4)")
        return parse_card(card), int(target[1]) - 1
    return parse_card(token), None


def parse_solution(text: str) -> list[list[tuple[int, list[tuple[int, int | None]]]]]:
    """The passes of a solution text: for each, its groups (row, [(card, foundation or None), ...])."""
    passes = []
    for number, part in enumerate(text.split("/"), start=1):
        part = part.strip()
        groups: list[tuple[int, list[tuple[int, int | None]]]] = []
        if part != "-":
            if not part:
                raise ValueError(f"pass {number} is empty (write - for a pass without plays)")
            for group in part.split():
                if ":" not in group:
                    raise ValueError(f"pass {number}: group {group!r} is not ROW:PLAY,...")
                row, plays = group.split(":", 1)
                if not row.isdigit() or int(row) < 1 or (groups and int(row) <= groups[-1][0]):
                    raise ValueError(f"pass {number}: row {row!r} must be a number above the previous group's")
                if not plays:
                    raise ValueError(f"pass {number}: group {group!r} has no plays")
                try:
                    groups.append((int(row), [_parse_play(t) for t in plays.split(",")]))
                except CardError as e:
                    raise ValueError(f"pass {number}: {e}") from None
        passes.append(groups)
    return passes


def _free_play(t: Table, card: int, target: int | None) -> str | None:
    """Make one free play on table t; the reason it is illegal, or None."""
    j = next((j for j in range(4) if t.columns[j] and t.columns[j][-1] == card), None)
    if j is None:
        return f"{format_card(card)} is not on top of a column"
    targets = play_targets(card, j, t.foundations, t.rules)
    if not targets:
        return f"{format_card(card)} on C{j + 1} cannot go to a foundation"
    if target is None:
        if len(targets) > 1:
            return f"{format_card(card)} may go to {', '.join(f'F{i + 1}' for i in targets)}: name one (>Fn)"
        target = targets[0]
    elif target not in targets:
        return f"{format_card(card)} on C{j + 1} cannot go to F{target + 1}"
    t.columns[j].pop()
    t.foundations[target].append(card)
    t.moves += 1
    t.log("play", card=card, column=j, foundation=target)
    return None


def replay_solution(
    deal: Sequence[int], rules: Any, text: str, record: bool = False, foundations: Sequence[Sequence[int]] | None = None
) -> tuple[Table, int, str | None]:
    """Play a solution text from the deal (or from the stock ``deal`` with ``foundations`` already built)
    under free play: (the table, passes played, why refused or None)."""
    t = Table(deal, rules, record)
    t.k = 4  # free play has no Ace limit
    if foundations is not None:
        t.foundations = [list(f) for f in foundations]
    if t.on_foundations() == NCARDS and not text.strip():
        return t, 0, None
    try:
        passes = parse_solution(text)
    except ValueError as e:
        return t, 0, str(e)
    for number, groups in enumerate(passes, start=1):
        if not t.stock:
            return t, number - 1, f"pass {number}: the game was already won"
        t.log("pass", number=number, stock=list(t.stock), k=None)
        row = 0
        g = 0
        while t.stock:
            t.deal_row()
            row += 1
            if g < len(groups) and groups[g][0] == row:
                for card, target in groups[g][1]:
                    why = _free_play(t, card, target)
                    if why is not None:
                        return t, number, f"pass {number}, row {row}: {why}"
                g += 1
        if g < len(groups):
            return t, number, f"pass {number}: it has {row} rows, no row {groups[g][0]}"
        if t.on_foundations() == NCARDS:
            if number != len(passes):
                return t, number, f"won in pass {number}, but the solution goes on"
            t.log(WON, rounds=number)
            return t, number, None
        t.gather()
    return t, len(passes), f"{NCARDS - t.on_foundations()} cards left after the last pass"


def check_solution(deal: Sequence[int], rules: Any, text: str) -> str | None:
    """None when ``text`` wins the deal under free play, every play legal; else why it is refused."""
    return replay_solution([int(c) for c in deal], rules, text)[2]


def check_solution_from(
    stock: Sequence[int], foundations: Sequence[Sequence[int]], rules: Any, text: str
) -> str | None:
    """check_solution from a start-of-pass position: the stock, and the foundations card by card."""
    return replay_solution([int(c) for c in stock], rules, text, foundations=foundations)[2]


def solution_lines(deal: Sequence[int], rules: Any, text: str) -> list[str]:
    """A solution replayed pass by pass: rows dealt, plays, gathers (as the fixed strategies' trace)."""
    t, _, why = replay_solution([int(c) for c in deal], rules, text, record=True)
    lines = [f"solution: {text}"]
    lines += trace_lines(Outcome(WON, 0, t.moves, 0, 0, 4, t.events))
    if why is not None:
        lines.append(f"refused: {why}")
    return lines


def _pass_ends(stock: tuple, foundations: tuple, rules: Any) -> tuple[set, bool]:
    """Every distinct position at the end of one free-play pass (stock after the gather, foundations), and
    whether some line of play wins during the pass.  Depth-first over the positions inside the pass,
    each visited once (exact duplicates only)."""
    ends: set = set()
    seen: set = set()
    todo = [(0, ((), (), (), ()), foundations)]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        pos, columns, fnd = node
        if sum(len(f) for f in fnd) == NCARDS:
            return ends, True
        for j, i in legal_plays(columns, fnd, rules):
            cols = list(columns)
            cols[j] = columns[j][:-1]
            f = list(fnd)
            f[i] = fnd[i] + (columns[j][-1],)
            todo.append((pos, tuple(cols), tuple(f)))
        if pos < len(stock):
            cols = list(columns)
            row = row_columns(fnd, rules, len(stock) - pos)
            for a, j in enumerate(row):
                cols[j] = columns[j] + (stock[pos + a],)
            todo.append((pos + len(row), tuple(cols), fnd))
        else:
            ends.add((tuple(gathered(columns, rules.gather)), fnd))
    return ends, False


def exhaustive_search(
    stock: Sequence[int], foundations: Sequence[Sequence[int]], rules: Any, max_positions: int | None = None
) -> tuple[str, int]:
    """Deliberately plain breadth-first search by passes over start-of-pass positions (stock, foundations
    card by card), no pruning beyond exact duplicates.  Returns (won, least passes), (unsolvable, passes
    searched) or (unknown, passes searched) when more than ``max_positions`` positions would be stored."""
    start = (tuple(stock), tuple(tuple(f) for f in foundations))
    if sum(len(f) for f in start[1]) == NCARDS:
        return WON, 0
    seen = {start}
    level = [start]
    passes = 0
    while level:
        passes += 1
        following = []
        for s, f in level:
            ends, won = _pass_ends(s, f, rules)
            if won:
                return WON, passes
            for e in ends:
                if e not in seen:
                    seen.add(e)
                    following.append(e)
            if max_positions is not None and len(seen) > max_positions:
                return "unknown", passes
        level = following
    return "unsolvable", passes
