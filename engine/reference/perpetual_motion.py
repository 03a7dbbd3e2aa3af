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
            lines.append(f"cycle: the stock repeats the stock of pass {d['first_pass']} (cycle of {d['length']} passes)")
        elif e.kind == "capped":
            lines.append(f"capped after {d['rounds']} passes")
    return lines
