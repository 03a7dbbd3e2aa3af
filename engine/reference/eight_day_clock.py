"""Eight Day Clock, or Rondo (Masten, solitairewinrates.com), written to read like the rules.

This is the oracle the compiled kernel in ``engine/games/eight_day_clock.py`` is
held to, deal by deal, and the source of ``patience play eight_day_clock
--trace``.  It favours clarity over speed.  The game has no choices at all: the
deal decides everything.

The rules (Masten's account), with every point the account leaves open a switch
(see ``EightDayClockRules``) or a reading written down here; the kernel's
docstring repeats the readings word for word:

* **The deal.**  52 cards, ranks A=1 .. J=11, Q=12, K=13.  Thirteen piles P1..P13
  in clock order: P1..P12 at one to twelve o'clock, P13 in the centre.  Pile Ph
  *wants* rank h (P1 the Aces, P11 the Jacks, P12 the Queens, P13 the Kings).
  The deal is dealt in four rounds of thirteen, one card to each pile P1..P13 in
  turn, face up: card i of the deal (0-based) goes to pile P(i mod 13 + 1), so
  pile Ph holds, bottom to top, cards h-1, h+12, h+25, h+38 of the deal, and the
  last thirteen cards dealt are the tops.
* **Round the clock.**  After P12 comes P13 (the centre), then P1 again.  A pile
  *shows its hour* when its top card has the rank it wants.  A pile is *open*
  when it holds cards and does not show its hour; cards are only ever taken
  from open piles.  "The next open pile after Ph" looks at P(h+1), P(h+2), ...,
  round the clock, and last at Ph itself.
* **The opening.**  ``start: first_open``: take the top card of the first open
  pile counting from P1 into the hand; ``start: pile1``: take the top card of P1
  whatever it shows.
* **A step.**  With a card in hand, taken last from pile Pt: put it under the
  next open pile Pq after Pt, and take Pq's top card into the hand.  (Pq is open,
  so it holds a card other than the one just put under it.)  Each card taken
  from the top of a pile is one *move*.
* **Empty piles** (``empty_pile``; Masten's account never meets one, and it
  matters only after a discard under the readings that take a card without
  putting one under: see *Blocked* below).  ``pass``: an empty pile is never
  open; play passes it by (putting the card under it and taking "its top card"
  would give the same card back), and only a set-aside card can fill it.
  ``fill``: the card in hand goes into the first empty pile it would pass, as
  into any pile not showing its hour, and stays there; play goes on by taking
  the top card of the next open pile after it.  ``fill_own``: the same, but
  only a card of that pile's own rank goes in (and then shows its hour); other
  cards pass it by.  Filling is not a move; the take after it is.
* **The full clock.**  When a card is in hand and no pile is open, and all
  thirteen piles show their hour, the card in hand is set aside and the thirteen
  top cards (one of each rank) are discarded: one *discard*.  Then the set-aside
  card is put under the pile of its own rank when that pile does not show its
  hour (an empty pile does not), else under the next open pile after it (under
  ``empty_pile: fill``, the next pile that is open or empty).  If no pile can
  take it (every pile shows its hour again), it stays in hand and the clock is
  full again: another discard at once.  Play goes on as ``after_discard`` says:

  - ``placed_pile``: continue from the pile where the card was placed: take that
    pile's top card, exactly as in a step (the set-aside card goes under it).
    Were that pile empty, the card would stay there and play would go on from
    the next open pile after it; this never happens (see *Blocked*);
  - ``after_last_taken``: the card is placed, the hand is empty, and the next
    card is taken from the next open pile after the last pile taken from before
    the full clock;
  - ``first_open``: likewise, from the first open pile counting from P1;
  - ``after_placed_pile``: likewise, from the next open pile after the one where
    the card was placed.

* **Won after three discards.**  52 = 4 x 13, and each discard takes one card of
  each rank, so after three discards 13 cards are left, one of each rank: the
  set-aside card and 12 cards on the piles.  While a card is in hand only 12
  cards lie on the 13 piles, so the clock can never be full again as play goes
  on: the 13 left are the game's last set.  Masten counts the game won at the
  third discard, and play stops there (its set-aside card is not placed).
* **Lost when a state repeats** (``cycle``).  The state after each move is the
  piles read as ranks (bottom to top), the rank in hand and the pile it was
  taken from: play depends on ranks only (suits are passengers), so once that
  state repeats, play repeats for ever and no discard can come.  Discards only
  remove cards, so a state can only repeat one of the same stretch between
  discards.  The game ends at the move that first reaches a state seen before;
  ``cycle_length`` is the number of moves between the two.
* **Blocked.**  When a card is to be taken or moved on and no pile is open, but
  the clock is not full (some pile is empty and every other pile shows its
  hour), nothing can be done: ``blocked``.  Piles lose cards only at a discard
  (one each) and when a card is taken without one put under: the opening, after
  a discard under every ``after_discard`` but ``placed_pile``, and after a fill.
  Under ``placed_pile`` the opening take is the only one, so the piles hold 4,
  3 and 2 cards in the three stretches (one fewer on the pile of the opening
  take): no pile is ever empty before the third discard, and ``empty_pile``
  changes nothing.  Under the other readings a pile often runs empty in the
  third stretch; under ``pass`` the clock can then never be full again.
* **A full clock with an empty hand** (all thirteen tops show their hour when a
  card is to be taken: at the deal under ``start: first_open``, right after a
  set-aside card is placed under the readings other than ``placed_pile``, or
  after a fill) is a discard with nothing set aside; play goes on from the first
  open pile counting from P1.

Columns: ``rounds`` counts the times play went round the clock: 1 from the
opening, plus 1 for each move whose pile comes at or before (in the order
P1..P13) the pile of the move before (a wrap past P13, or a restart further
back).  ``moves`` counts cards taken from pile tops.  ``discards`` (0..3) counts
full clocks, and ``cards_left`` is 52 - 13 x discards (13 on a win: the last
set, which no discard takes).  ``cycle_length`` is 0 unless the outcome is
``cycle``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import format_card, format_cards
from engine.reference.events import Event

WON, CYCLE, BLOCKED = "won", "cycle", "blocked"
NPILES = 13
NCARDS = 52
WIN_DISCARDS = 3


def hour(card: int) -> int:
    """The pile (0-based: P1 = 0, P13 = 12) that wants this card: its rank, A = 0 .. K = 12."""
    return card % 13


@dataclass
class Outcome:
    outcome: str
    rounds: int
    moves: int
    discards: int
    cycle_length: int
    events: list[Event]

    def row(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "won": self.outcome == WON,
            "rounds": self.rounds,
            "moves": self.moves,
            "cards_left": NCARDS - NPILES * self.discards,
            "discards": self.discards,
            "cycle_length": self.cycle_length,
        }


def deal_piles(deal: Sequence[int]) -> list[list[int]]:
    """The layout: card i of the deal goes to pile i mod 13; each pile is listed bottom first."""
    return [list(deal[h::NPILES]) for h in range(NPILES)]


class Clock:
    """The thirteen piles and the hand, with the elementary actions of the game."""

    def __init__(self, deal: Sequence[int], record: bool) -> None:
        self.piles = deal_piles(deal)
        self.hand: int | None = None
        self.last = -1  # the pile the last card was taken from (-1: none yet)
        self.moves = 0
        self.rounds = 1
        self.discards = 0
        self.record = record
        self.events: list[Event] = []

    def log(self, kind: str, **data: Any) -> None:
        if self.record:
            self.events.append(Event(kind, data))

    # --- what the clock shows -------------------------------------------------------

    def shows_hour(self, h: int) -> bool:
        return bool(self.piles[h]) and hour(self.piles[h][-1]) == h

    def is_open(self, h: int) -> bool:
        return bool(self.piles[h]) and not self.shows_hour(h)

    def open_from(self, h: int) -> int | None:
        """The first open pile among Ph, Ph+1, ..., round the clock (13 piles looked at), or None."""
        for k in range(NPILES):
            q = (h + k) % NPILES
            if self.is_open(q):
                return q
        return None

    def receiver_from(self, h: int, card: int, empty_pile: str) -> int | None:
        """The first pile among Ph, Ph+1, ..., round the clock, that takes ``card`` under it: an open pile, or an
        empty one under ``empty_pile: fill`` (any card) or ``fill_own`` (a card of its rank); None if no pile does."""
        for k in range(NPILES):
            q = (h + k) % NPILES
            if self.is_open(q):
                return q
            if not self.piles[q] and (empty_pile == "fill" or (empty_pile == "fill_own" and hour(card) == q)):
                return q
        return None

    def full(self) -> bool:
        return all(self.shows_hour(h) for h in range(NPILES))

    def state(self) -> tuple:
        """What the cycle rule compares: the piles as ranks, the rank in hand, the pile it came from."""
        return tuple(tuple(hour(c) for c in p) for p in self.piles), hour(self.hand), self.last

    # --- actions -----------------------------------------------------------------------

    def take(self, h: int) -> None:
        """Take the top card of pile Ph into the (empty) hand: one move."""
        assert self.hand is None and self.piles[h]
        self.hand = self.piles[h].pop()
        if self.last >= 0 and h <= self.last:
            self.rounds += 1
        self.last = h
        self.moves += 1

    def put_under(self, h: int) -> int:
        """Put the card in hand under pile Ph; the hand is then empty."""
        card = self.hand
        assert card is not None
        self.piles[h].insert(0, card)
        self.hand = None
        return card

    def discard(self) -> list[int]:
        """The clock is full: the thirteen top cards go."""
        tops = [p.pop() for p in self.piles]
        self.discards += 1
        return tops

    def placement(self, card: int, empty_pile: str) -> int | None:
        """Where a set-aside card goes: its own pile unless that shows its hour, else the next pile after it that
        takes it (open; or empty, under ``fill``)."""
        h = hour(card)
        return h if not self.shows_hour(h) else self.receiver_from(h + 1, card, empty_pile)


def play(deal: Sequence[int], rules: Any, record: bool = False) -> Outcome:
    """Play one deal under ``rules``; with ``record`` keep the events for a trace."""
    c = Clock(deal, record)
    seen: dict[tuple, int] = {}  # states of the current stretch -> the move that reached them

    def end(outcome: str, cycle_length: int = 0, **data: Any) -> Outcome:
        c.log(outcome, moves=c.moves, rounds=c.rounds, discards=c.discards, **data)
        return Outcome(outcome, c.rounds, c.moves, c.discards, cycle_length, c.events)

    def moved() -> int | None:
        """Look the new state up; the move of its first visit when it repeats, else None."""
        s = c.state()
        if s in seen:
            return seen[s]
        seen[s] = c.moves
        return None

    c.log("layout", piles=[list(p) for p in c.piles])
    origin = 0  # with an empty hand: the next card is taken from the first open pile at or after this one
    if rules.start == "pile1":
        c.take(0)
        c.log("take", pile=0, card=c.hand)
        moved()
    while True:
        if c.hand is None:
            s = c.open_from(origin)
            if s is None:
                if not c.full():
                    return end(BLOCKED)
                c.log("discard", cards=c.discard(), aside=None)
                if c.discards == WIN_DISCARDS:
                    return end(WON)
                seen = {}
                origin = 0
                continue
            c.take(s)
            c.log("take", pile=s, card=c.hand)
            first = moved()
            if first is not None:
                return end(CYCLE, c.moves - first, first=first)
            continue
        q = c.receiver_from(c.last + 1, c.hand, rules.empty_pile)
        if q is not None and not c.piles[q]:  # an empty pile that keeps the card (fill, fill_own)
            card = c.put_under(q)
            c.log("fill", card=card, pile=q)
            origin = q + 1
            continue
        if q is not None:
            card = c.put_under(q)
            c.take(q)
            c.log("step", card=card, pile=q, taken=c.hand)
            first = moved()
            if first is not None:
                return end(CYCLE, c.moves - first, first=first)
            continue
        if not c.full():
            return end(BLOCKED)
        # The full clock: set the card in hand aside, discard the thirteen tops, place the card.
        aside = c.hand
        c.hand = None
        c.log("discard", cards=c.discard(), aside=aside)
        if c.discards == WIN_DISCARDS:
            return end(WON)
        seen = {}
        p = c.placement(aside, rules.empty_pile)
        c.hand = aside
        if p is None:
            continue  # every pile shows its hour again: the card stays aside, the clock is full again
        if rules.after_discard == "placed_pile" and c.piles[p]:
            c.put_under(p)
            c.take(p)
            c.log("step", card=aside, pile=p, taken=c.hand, placed=True)
            moved()
            continue
        c.put_under(p)
        c.log("place", card=aside, pile=p)
        origin = {"placed_pile": p + 1, "after_last_taken": c.last + 1, "first_open": 0, "after_placed_pile": p + 1}[
            rules.after_discard
        ]


def trace_lines(result: Outcome) -> list[str]:
    """The events of a recorded game in card text: the layout, then move by move."""
    lines = []
    for e in result.events:
        d = e.data
        if e.kind == "layout":
            lines.append("layout (bottom to top; P13 is the centre):")
            for h, p in enumerate(d["piles"]):
                lines.append(f"  P{h + 1:<2} {format_cards(p)}")
        elif e.kind == "take":
            lines.append(f"take {format_card(d['card'])} from P{d['pile'] + 1}")
        elif e.kind == "step":
            how = "place the set-aside card" if d.get("placed") else "put"
            lines.append(f"  {how} {format_card(d['card'])} under P{d['pile'] + 1}, take {format_card(d['taken'])}")
        elif e.kind == "discard":
            aside = "nothing in hand" if d["aside"] is None else f"{format_card(d['aside'])} set aside"
            lines.append(f"full clock ({aside}): discard {format_cards(d['cards'])}")
        elif e.kind == "fill":
            lines.append(f"  put {format_card(d['card'])} into the empty P{d['pile'] + 1}")
        elif e.kind == "place":
            lines.append(f"  place the set-aside card {format_card(d['card'])} under P{d['pile'] + 1}")
        elif e.kind == WON:
            lines.append(f"won: three discards, {d['moves']} moves, {d['rounds']} times round the clock")
        elif e.kind == CYCLE:
            lines.append(
                f"cycle: the state after move {d['moves']} repeats the state after move {d['first']} "
                f"({d['discards']} discards)"
            )
        elif e.kind == BLOCKED:
            lines.append(
                f"blocked after move {d['moves']}: no pile is open and the clock is not full ({d['discards']} discards)"
            )
    return lines
