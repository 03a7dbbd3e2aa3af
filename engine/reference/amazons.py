"""Amazons (Dick's Games of Patience, 1898), written to read like the rules.

This is the oracle the compiled kernel in ``engine/amazons.py`` is held to,
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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import format_card, format_cards
from engine.reference.events import Event

WON, CYCLE, BLOCKED, CAPPED = "won", "cycle", "blocked", "capped"

# The build order of a foundation, as card rank codes (A=0, 7=6, ..., Q=11).
BUILD_ORDER = (0, 6, 7, 8, 9, 10, 11)
FULL = len(BUILD_ORDER)  # cards on a complete foundation
NCARDS = 28


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
        f = self.foundations[i]
        if len(f) != step(card):  # its top must be the rank just below the card
            return False
        return self.rules.build == "any_suit" or suit(f[0]) == suit(card)

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
        c = self.columns
        g = self.rules.gather
        if g == "pile1_bottom_up":
            stock = c[0] + c[1] + c[2] + c[3]
        elif g == "pile4_bottom_up":
            stock = c[3] + c[2] + c[1] + c[0]
        elif g == "pile1_top_down":
            stock = c[0][::-1] + c[1][::-1] + c[2][::-1] + c[3][::-1]
        elif g == "pile4_top_down":
            stock = c[3][::-1] + c[2][::-1] + c[1][::-1] + c[0][::-1]
        else:
            raise ValueError(g)
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
            lines.append(f"pass {d['number']} (k={d['k']}): stock {format_cards(d['stock'])}")
        elif e.kind == "deal":
            lines.append("  deal " + " ".join(f"C{j + 1}:{format_card(c)}" for j, c in sorted(d["cards"].items())))
        elif e.kind == "play":
            i = d["foundation"]
            foundations[i].append(d["card"])
            lines.append(f"    play {format_card(d['card'])} from C{d['column'] + 1} to F{i + 1} "
                         f"(F{i + 1}: {format_cards(foundations[i])})")
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
