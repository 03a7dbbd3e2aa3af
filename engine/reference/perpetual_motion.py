"""Perpetual Motion (Narcotic, Idiot's Delight), written to read like the rules.

This is the oracle the compiled kernel is held to, deal by deal, and the source
of ``patience play perpetual_motion --trace``.  It favours clarity over speed.

The rules, with every disputed point a switch (see ``PerpetualMotionRules``):

* Four piles P1..P4.  The deal is the stock, first card dealt first.
* A *pass*: until the stock is empty, deal one card to each pile (even an empty
  one) in ``deal_direction`` order; then
  1. if the four cards just dealt share a rank they are discarded at once and
     the next four are dealt (this applies under both ``discard`` values);
  2. with ``discard: pile_four``, every pile whose top four cards share a rank
     loses them (after each deal every pile is checked; after each move, the
     target pile);
  3. moves, with or without ``cascade`` (see ``_moves_snapshot`` and
     ``_moves_cascade``), of a single card or of the top run of equal rank.
* The game is won the moment every card has been discarded.
* When the stock is empty the piles, gathered in ``gather`` order, become the
  new stock.  The game is lost (``cycle``) when the stock at the start of a
  pass equals, rank by rank, the stock at the start of an earlier pass;
  ``max_rounds`` caps it (``capped``).

Play depends on ranks only; suits are carried along for the trace.

Free play (strategy: solver).  A pass deals the stock four cards at a time, in
deal_direction order, as under forced play.  After each deal of four:
  1. if the four cards just dealt share a rank they are discarded (both discard
     values); otherwise, with discard: pile_four, every pile whose top four cards
     share a rank loses them;
  2. the player may make any sequence of legal moves, each optional (none at all
     is allowed), also right after a discard of the four dealt cards.  A move
     takes the top card of a pile (with move_unit: run, the whole run of equal
     rank on top) onto another, non-empty pile whose top card has the same rank
     and that lies on the side direction names: leftmost, any pile to its left;
     rightmost, any pile to its right; any, any other pile.  With discard:
     pile_four, the target pile then loses its top four cards if they share a
     rank.
The game is won the moment every card has been discarded.  When the stock is
empty the piles are gathered in gather order into the new stock, as under forced
play.  cascade describes the forced automaton and has no effect here.  There is
no cycle rule: a player may play on after a stock repeats; the search treats a
repeated stock as a position already seen.  The solution's passes are counted in
rounds (the winning pass included) and its moves in moves.

Solution notation.  Passes are separated by " / ".  A pass is the list of its
rounds (deals of four), in order, separated by ","; a round is the moves made
after that deal, each written as two digits, source pile then target pile
(piles 1..4 from the left), with no separator: "21" moves pile 2's top card (or
run) onto pile 1, "3141" moves pile 3's then pile 4's onto pile 1.  Trailing
rounds without moves are left out, and a pass with no move at all is written
"-".  Example: "- / 21,,43 / ,3141": no move in pass 1; in pass 2, pile 2 onto
pile 1 after the first deal and pile 4 onto pile 3 after the third; in pass 3,
piles 3 and 4 onto pile 1 after the second deal.  The solution ends with the
pass in which the last cards are discarded, and lists no move after that.

The free-play functions are at the end of this module: ``free_moves``, ``replay`` and
``check_solution`` (a solution text), ``solution_trace``, ``forced_solution`` (the
automaton's line in the notation), the plain exhaustive search
``exhaustive_min_passes`` the tests hold the solver to, and ``passes_lower_bound``, the
admissible bound on the passes a stock still needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import format_card, format_cards
from engine.reference.events import Event

WON, CYCLE, CAPPED = "won", "cycle", "capped"


def rank(card: int) -> int:
    return card % 13


@dataclass
class Outcome:
    outcome: str
    rounds: int
    moves: int
    cards_left: int
    cycle_length: int
    events: list[Event]

    def row(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "won": self.outcome == WON,
            "rounds": self.rounds,
            "moves": self.moves,
            "cards_left": self.cards_left,
            "cycle_length": self.cycle_length,
        }


class Table:
    """The four piles and the stock, with the elementary actions of the game."""

    def __init__(self, deal: Sequence[int], rules: Any, record: bool) -> None:
        self.rules = rules
        self.stock: list[int] = list(deal)
        self.piles: list[list[int]] = [[], [], [], []]
        self.moves = 0
        self.record = record
        self.events: list[Event] = []

    def log(self, kind: str, **data: Any) -> None:
        if self.record:
            self.events.append(Event(kind, data))

    def cards_left(self) -> int:
        return len(self.stock) + sum(len(p) for p in self.piles)

    def top_rank(self, p: int) -> int | None:
        return rank(self.piles[p][-1]) if self.piles[p] else None

    # --- dealing and discarding ------------------------------------------------

    def deal_four(self) -> list[int]:
        """Deal one card to each pile in deal_direction order; return the piles in dealing order."""
        order = [0, 1, 2, 3] if self.rules.deal_direction == "left_to_right" else [3, 2, 1, 0]
        for p in order:
            self.piles[p].append(self.stock.pop(0))
        if self.record:
            self.log("deal", cards={p: self.piles[p][-1] for p in order})
        return order

    def discard_dealt_four_if_same_rank(self) -> bool:
        tops = [self.piles[p][-1] for p in range(4)]
        if len({rank(c) for c in tops}) != 1:
            return False
        for p in range(4):
            self.piles[p].pop()
        self.log("discard", source="dealt", cards=tops)
        return True

    def discard_pile_four_if_same_rank(self, p: int) -> None:
        """pile_four rule: a pile whose top four cards share a rank loses them."""
        pile = self.piles[p]
        if len(pile) >= 4 and len({rank(c) for c in pile[-4:]}) == 1:
            cards = pile[-4:]
            del pile[-4:]
            self.log("discard", source=f"P{p + 1}", cards=cards)

    # --- moves -------------------------------------------------------------------

    def move(self, src: int, dst: int) -> None:
        """Move the top card (or, with move_unit: run, the top run of equal rank) from src onto dst."""
        pile = self.piles[src]
        n = 1
        if self.rules.move_unit == "run":
            while n < len(pile) and rank(pile[-n - 1]) == rank(pile[-1]):
                n += 1
        cards = pile[-n:]
        del pile[-n:]
        self.piles[dst].extend(cards)
        self.moves += 1
        if self.record:
            self.log("move", cards=cards, source=src, target=dst)
        if self.rules.discard == "pile_four":
            self.discard_pile_four_if_same_rank(dst)

    def target_side(self, p: int) -> list[int]:
        """The piles a card on pile p may move to, farthest first."""
        if self.rules.direction == "leftmost":
            return list(range(0, p))  # P1 first: the leftmost is the farthest
        return list(range(3, p, -1))  # P4 first: the rightmost is the farthest

    def moves_snapshot(self) -> None:
        """cascade: false: each pile in turn, judged by the tops as they stood after the deal."""
        snapshot = [self.top_rank(p) for p in range(4)]
        order = [1, 2, 3] if self.rules.direction == "leftmost" else [2, 1, 0]
        for p in order:
            if snapshot[p] is None:
                continue
            for q in self.target_side(p):
                if snapshot[q] == snapshot[p]:
                    self.move(p, q)
                    break

    def moves_cascade(self) -> None:
        """cascade: true: the first pile P1..P4 whose current top matches one on its target side moves, until none."""
        while True:
            moved = False
            for p in range(4):
                r = self.top_rank(p)
                if r is None:
                    continue
                for q in self.target_side(p):
                    if self.top_rank(q) == r:
                        self.move(p, q)
                        moved = True
                        break
                if moved:
                    break
            if not moved:
                return

    # --- gathering -----------------------------------------------------------------

    def gather(self) -> None:
        """The piles become the new stock; the first card listed is dealt first."""
        g = self.rules.gather
        if g == "pile1_bottom_up":
            stock = self.piles[0] + self.piles[1] + self.piles[2] + self.piles[3]
        elif g == "pile4_bottom_up":
            stock = self.piles[3] + self.piles[2] + self.piles[1] + self.piles[0]
        elif g == "pile1_top_down":
            stock = self.piles[0][::-1] + self.piles[1][::-1] + self.piles[2][::-1] + self.piles[3][::-1]
        elif g == "pile4_top_down":
            stock = self.piles[3][::-1] + self.piles[2][::-1] + self.piles[1][::-1] + self.piles[0][::-1]
        else:
            raise ValueError(g)
        self.stock = stock
        self.piles = [[], [], [], []]
        if self.record:
            self.log("gather", order=g, stock=list(stock))


def play(deal: Sequence[int], rules: Any, record: bool = False) -> Outcome:
    """Play one deal under ``rules``; with ``record`` keep the events for a trace."""
    t = Table(deal, rules, record)
    first_pass_of_stock: dict[tuple[int, ...], int] = {}
    rounds = 0
    while True:
        ranks = tuple(rank(c) for c in t.stock)
        if ranks in first_pass_of_stock:
            length = rounds + 1 - first_pass_of_stock[ranks]
            t.log("cycle", first_pass=first_pass_of_stock[ranks], length=length)
            return Outcome(CYCLE, rounds, t.moves, t.cards_left(), length, t.events)
        if rounds == rules.max_rounds:
            t.log("capped", rounds=rounds)
            return Outcome(CAPPED, rounds, t.moves, t.cards_left(), 0, t.events)
        rounds += 1
        first_pass_of_stock[ranks] = rounds
        if record:
            t.log("pass", number=rounds, stock=list(t.stock))
        while t.stock:
            t.deal_four()
            if t.discard_dealt_four_if_same_rank():
                if t.cards_left() == 0:
                    t.log("won", rounds=rounds)
                    return Outcome(WON, rounds, t.moves, 0, 0, t.events)
                continue
            if rules.discard == "pile_four":
                for p in range(4):
                    t.discard_pile_four_if_same_rank(p)
            if rules.cascade:
                t.moves_cascade()
            else:
                t.moves_snapshot()
            if t.cards_left() == 0:
                t.log("won", rounds=rounds)
                return Outcome(WON, rounds, t.moves, 0, 0, t.events)
        t.gather()


def trace_lines(result: Outcome) -> list[str]:
    """The events of a recorded game in card text, pass by pass."""
    lines = []
    for e in result.events:
        d = e.data
        if e.kind == "pass":
            lines.append(f"pass {d['number']}: stock {format_cards(d['stock'])}")
        elif e.kind == "deal":
            lines.append("  deal " + " ".join(f"P{p + 1}:{format_card(c)}" for p, c in sorted(d["cards"].items())))
        elif e.kind == "discard":
            where = "the four just dealt" if d["source"] == "dealt" else f"the top four of {d['source']}"
            lines.append(f"  discard {format_cards(d['cards'])} ({where})")
        elif e.kind == "move":
            what = format_cards(d["cards"])
            lines.append(f"  move {what} from P{d['source'] + 1} to P{d['target'] + 1}")
        elif e.kind == "gather":
            lines.append(f"  gather ({d['order']}): {len(d['stock'])} cards")
        elif e.kind == "won":
            lines.append(f"won in pass {d['rounds']}")
        elif e.kind == "cycle":
            lines.append(
                f"cycle: the stock repeats the stock of pass {d['first_pass']} (cycle of {d['length']} passes)"
            )
        elif e.kind == "capped":
            lines.append(f"capped after {d['rounds']} passes")
    return lines


# =====================================================================================
# Free play (``strategy: solver``)
# =====================================================================================
#
# FREE_PLAY_RULES is the reading of issue 10 that this module, the solver in
# engine/games/perpetual_motion_solver.py and the notation share: the part of this module's
# docstring from "Free play" to the notation's end, so it is written once here (the solver's
# docstring repeats it word for word, and a test holds the two equal).

_DOC = __doc__ or ""  # empty under python -OO, which drops docstrings
FREE_PLAY_RULES = _DOC[_DOC.find("Free play (strategy: solver).") : _DOC.find("\n\nThe free-play functions") + 1]


def free_targets(rules: Any, p: int) -> list[int]:
    """The piles a card on pile p may move to under free play (any of them; order irrelevant)."""
    if rules.direction == "leftmost":
        return list(range(0, p))
    if rules.direction == "rightmost":
        return list(range(p + 1, 4))
    return [q for q in range(4) if q != p]


def free_moves(t: Table) -> list[tuple[int, int]]:
    """Every legal free move (source, target) at the current tops."""
    out = []
    for p in range(4):
        r = t.top_rank(p)
        if r is None:
            continue
        for q in free_targets(t.rules, p):
            if t.top_rank(q) == r:
                out.append((p, q))
    return out


class SolutionError(ValueError):
    """A solution text that is malformed or makes an illegal move."""


def parse_solution(text: str) -> list[list[list[tuple[int, int]]]]:
    """Solution text -> passes -> rounds -> moves (source, target), 0-based piles."""
    text = text.strip()
    if not text:
        raise SolutionError("empty solution")
    passes = []
    for k, chunk in enumerate(text.split(" / "), start=1):
        chunk = chunk.strip()
        if chunk == "-":
            passes.append([])
            continue
        if not chunk:
            raise SolutionError(f"pass {k} is empty (write '-' for a pass with no move)")
        rounds = []
        for j, field in enumerate(chunk.split(","), start=1):
            if len(field) % 2 or any(ch not in "1234" for ch in field):
                raise SolutionError(f"pass {k}, round {j}: {field!r} is not a list of two-digit moves (piles 1-4)")
            rounds.append([(int(field[i]) - 1, int(field[i + 1]) - 1) for i in range(0, len(field), 2)])
        passes.append(rounds)
    return passes


def format_solution(passes: Sequence[Sequence[Sequence[tuple[int, int]]]]) -> str:
    """passes -> rounds -> moves (0-based) -> solution text (trailing move-less rounds dropped)."""
    out = []
    for rounds in passes:
        fields = ["".join(f"{s + 1}{d + 1}" for s, d in moves) for moves in rounds]
        while fields and not fields[-1]:
            fields.pop()
        out.append(",".join(fields) if fields else "-")
    return " / ".join(out)


@dataclass
class Replay:
    """What replaying a solution gave: refused (``error``) or won, with its counts and events."""

    error: str | None
    rounds: int
    moves: int
    cards_left: int
    events: list[Event]


def _deal_and_discard(t: Table) -> None:
    """Deal four; discard them if they share a rank, else (pile_four) check every pile."""
    t.deal_four()
    if not t.discard_dealt_four_if_same_rank() and t.rules.discard == "pile_four":
        for p in range(4):
            t.discard_pile_four_if_same_rank(p)


def replay(deal: Sequence[int], rules: Any, text: str, record: bool = False) -> Replay:
    """Replay a free-play solution from the deal, judging every move by the free-play rules."""
    t = Table(deal, rules, record)
    try:
        passes = parse_solution(text)
    except SolutionError as e:
        return Replay(str(e), 0, 0, t.cards_left(), t.events)
    for k, rounds in enumerate(passes, start=1):
        if record:
            t.log("pass", number=k, stock=list(t.stock))
        nrounds = len(t.stock) // 4
        if len(rounds) > nrounds:
            return Replay(
                f"pass {k} lists {len(rounds)} rounds but deals only {nrounds}", k, t.moves, t.cards_left(), t.events
            )
        for j in range(nrounds):
            _deal_and_discard(t)
            for s, d in rounds[j] if j < len(rounds) else []:
                if t.cards_left() == 0:
                    return Replay(f"pass {k}, round {j + 1}: a move after the game was won", k, t.moves, 0, t.events)
                if (s, d) not in free_moves(t):
                    tops = " ".join("-" if t.top_rank(p) is None else str(t.top_rank(p) + 1) for p in range(4))
                    why = (
                        f"pass {k}, round {j + 1}: move {s + 1}{d + 1} is illegal "
                        f"(tops {tops}, direction {rules.direction})"
                    )
                    return Replay(why, k, t.moves, t.cards_left(), t.events)
                t.move(s, d)
            if t.cards_left() == 0:
                if k != len(passes) or j + 1 < len(rounds):
                    return Replay(
                        f"pass {k}, round {j + 1}: the game is won here, but the solution goes on",
                        k,
                        t.moves,
                        0,
                        t.events,
                    )
                t.log("won", rounds=k)
                return Replay(None, k, t.moves, 0, t.events)
        t.gather()
    return Replay(
        f"the solution ends after pass {len(passes)} with {t.cards_left()} cards left",
        len(passes),
        t.moves,
        t.cards_left(),
        t.events,
    )


def check_solution(deal: Sequence[int], rules: Any, text: str) -> str | None:
    """None if ``text`` replays from ``deal`` to a win under free play, every move legal; else why not."""
    return replay([int(c) for c in deal], rules, text).error


def solution_trace(deal: Sequence[int], rules: Any, text: str) -> list[str]:
    """A solution replayed pass by pass in card text (as ``trace_lines`` for forced play)."""
    r = replay([int(c) for c in deal], rules, text, record=True)
    lines = trace_lines(Outcome("won", r.rounds, r.moves, r.cards_left, 0, r.events))
    if r.error:
        lines.append(f"refused: {r.error}")
    return lines


def forced_solution(deal: Sequence[int], rules: Any) -> str | None:
    """The forced automaton's line of play in solution notation, if it wins; else None.

    Whether it is a legal free-play line is for ``check_solution`` to say (see the solver's docstring)."""
    result = play(list(deal), rules, record=True)
    if result.outcome != WON:
        return None
    passes: list[list[list[tuple[int, int]]]] = []
    for e in result.events:
        if e.kind == "pass":
            passes.append([])
        elif e.kind == "deal":
            passes[-1].append([])
        elif e.kind == "move":
            passes[-1][-1].append((e.data["source"], e.data["target"]))
    return format_solution(passes)


# --- a deliberately simple exhaustive search (for the tests) --------------------------


def _rank_table(ranks: Sequence[int], rules: Any) -> Table:
    return Table([int(r) % 13 for r in ranks], rules, record=False)


def _copy(t: Table) -> Table:
    c = Table([], t.rules, record=False)
    c.stock = list(t.stock)
    c.piles = [list(p) for p in t.piles]
    return c


def pass_successors(ranks: Sequence[int], rules: Any) -> tuple[bool, set[tuple[int, ...]]]:
    """Every choice of free moves in one pass from the stock ``ranks``: (can the pass win, the new stocks).

    Plain enumeration: after each deal, every position reachable by any sequence of moves (a set, so
    a position reached in two ways is explored once), then the next deal from each of them.
    """
    start = _rank_table(ranks, rules)
    frontier = {(tuple(start.stock), ()): start}
    for _ in range(len(ranks) // 4):
        nxt: dict[tuple, Table] = {}
        for t in frontier.values():
            t = _copy(t)
            _deal_and_discard(t)
            todo = [t]
            seen = {tuple(map(tuple, t.piles))}
            while todo:
                u = todo.pop()
                if u.cards_left() == 0:
                    return True, set()
                nxt[(len(u.stock), tuple(map(tuple, u.piles)))] = u
                for s, d in free_moves(u):
                    v = _copy(u)
                    v.move(s, d)
                    key = tuple(map(tuple, v.piles))
                    if key not in seen:
                        seen.add(key)
                        todo.append(v)
        frontier = nxt
    out = set()
    for t in frontier.values():
        t.gather()
        out.add(tuple(t.stock))
    return False, out


def exhaustive_min_passes(ranks: Sequence[int], rules: Any, max_stocks: int = 200_000) -> int | None:
    """Breadth-first by passes over start-of-pass stocks (ranks), exact duplicates only.

    The fewest passes that win from ``ranks``, or None when every reachable stock was expanded and none
    wins (unsolvable).  Raises RuntimeError past ``max_stocks`` stocks (no verdict)."""
    level = {tuple(int(r) % 13 for r in ranks)}
    seen = set(level)
    passes = 0
    while level:
        passes += 1
        nxt = set()
        for s in level:
            won, succ = pass_successors(s, rules)
            if won:
                return passes
            for u in succ:
                if u not in seen:
                    seen.add(u)
                    nxt.add(u)
            if len(seen) > max_stocks:
                raise RuntimeError(f"more than {max_stocks} stocks")
        level = nxt
    return None


def passes_lower_bound(ranks: Sequence[int], rules: Any) -> int:
    """An admissible lower bound on the passes a start-of-pass stock still needs: never above the fewest.

    0 for an empty stock; 2 under ``discard: dealt_four`` when some round of the stock (cards 4j..4j+3)
    mixes ranks; else 1.  Proof: under dealt_four the only discard is rule 1, four cards of one rank dealt
    together, and which fours are dealt together depends on the stock alone (moves come after each deal
    and discard nothing).  So a pass from a stock with a mixed round ends with those cards still out, and
    a win needs another pass.  Under pile_four a move can complete four on a pile, so one pass may clear
    any stock as far as this bound knows.  The solver uses the same fact one pass deeper: once every stock
    of d passes is stored and none is all fours, no line of d + 1 passes wins."""
    r = [int(x) % 13 for x in ranks]
    if not r:
        return 0
    if rules.discard == "dealt_four" and any(len(set(r[4 * j : 4 * j + 4])) > 1 for j in range(len(r) // 4)):
        return 2
    return 1
