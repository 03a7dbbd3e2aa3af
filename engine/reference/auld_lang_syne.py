"""Auld Lang Syne and Tam O'Shanter, written to read like the rules.

This is the oracle the compiled code in ``engine/four_piles.py`` is held
to (the greedy kernel deal by deal; every solver win is replayed here from its
solution text) and the source of ``patience play auld_lang_syne --trace``.  One
module serves both games: ``aces_start`` is true for Auld Lang Syne, false for
Tam O'Shanter.

The rules, with every disputed point a switch (``FourPilesRules``):

* 52 cards, dealt from the deal's order (first card dealt first).
* Auld Lang Syne: the four Aces start on the foundations, F1..F4 in suit order
  C D H S (as PySolFC lays them), and the other 48 cards, in the order the
  deal gives them, are the stock.  Tam O'Shanter: all 52 cards are the stock
  and the foundations start empty; an Ace starts a foundation (any empty one)
  when it is played from a pile.
* A deal puts one card on each pile, P1 first, covering what is there
  (``piles``: 4, or 6).  When the stock holds fewer cards than piles (only
  Tam O'Shanter with 6 piles: 52 = 8 x 6 + 4), the leftmost piles get them.
* Only a pile's top card may be played, and only to a foundation.  A
  foundation builds up by one rank to the King: regardless of suit
  (``build: any_suit``), or in the suit of its Ace (``same_suit``).  Nothing
  is ever built on a pile, a pile emptied stays empty until the next deal
  covers it, and there is no redeal: the game is one pass through the stock.
* Plays are made after each deal of a card to every pile (``mid_deal_plays:
  false``), or after every single card dealt (``true``: a card still on top
  may be played before the next card of the same deal covers it).  After the
  last card, plays go on until none is made.
* Won when every card is on the foundations; otherwise the game ends
  ``blocked`` when the stock is empty and no play is left (``greedy``).

Strategies:

* ``greedy``: every play is made.  At each point where plays may be made:
  scan P1, P2, ... for the first pile whose top card some foundation takes,
  play it to the leftmost foundation that takes it, and scan again from P1;
  stop when no top card can be played.
* ``solver`` (free play): each play is optional, and when several
  foundations take a card the player chooses among them.  The search lives in
  ``engine/four_piles.py``; its wins are written as solution text and
  replayed here move by move by :func:`check_solution`.

Readings where the sources leave room (the same here and in the kernel):

* ``rounds`` is 1 for every game: there is one pass through the stock, and a
  game always deals its whole stock before it ends (the last card dealt must
  still be played to win).
* ``moves`` counts cards played to the foundations (Auld Lang Syne's four
  starting Aces are not moves); ``cards_left`` is 52 less the cards on the
  foundations (so Auld Lang Syne starts at 48).
* Auld Lang Syne removes the Aces from the pack before the deal and deals the
  other 48 cards in the order the deal lists them (PySolFC moves them to the
  top of the talon to deal them first, which is the same thing).

Solution notation (the ``solution`` column, free play): the plays in order,
separated by single spaces, each written ``T:CD>F``: after T cards of the stock
have been dealt, the card CD (on top of some pile) goes to foundation F (1..4).
Cards not played stay where they are; after the last play the rest of the
stock, if any, is dealt and nothing more is played.  T never decreases, and T
must be a point where plays are allowed: a multiple of ``piles`` or the whole
stock, or (``mid_deal_plays: true``) any T from 1.  For example ``4:2C>1
4:3D>1 8:2S>2`` in Auld Lang Syne: after the first deal 2C then 3D go onto F1
(the Ace of clubs), after the second deal 2S onto F2.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import format_card, format_cards, parse_card
from engine.reference.events import Event

WON, BLOCKED = "won", "blocked"
NCARDS = 52
KING = 12


def rank(card: int) -> int:
    return card % 13


def suit(card: int) -> int:
    return card // 13


def stock_of(deal: Sequence[int], aces_start: bool) -> list[int]:
    """The cards dealt onto the piles, first dealt first: the deal less its Aces in Auld Lang Syne."""
    return [c for c in deal if not (aces_start and rank(c) == 0)]


def play_points(n: int, rules: Any) -> list[int]:
    """The numbers T of stock cards dealt after which plays may be made."""
    if rules.mid_deal_plays:
        return list(range(1, n + 1))
    return sorted({min(t, n) for t in range(rules.piles, n + rules.piles, rules.piles)})


@dataclass
class Outcome:
    outcome: str
    moves: int
    cards_left: int
    foundations_done: int
    events: list[Event]

    def row(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "won": self.outcome == WON,
            "rounds": 1,
            "moves": self.moves,
            "cards_left": self.cards_left,
            "foundations_done": self.foundations_done,
        }


class Table:
    """The stock, the piles and four foundations, with the elementary actions of the game."""

    def __init__(self, deal: Sequence[int], rules: Any, aces_start: bool, record: bool = False) -> None:
        self.rules = rules
        self.ncards = len(deal)  # 52; the tests also play reduced decks (ranks A up, four suits each)
        self.stock = stock_of(deal, aces_start)
        self.dealt = 0  # cards of the stock dealt so far
        self.piles: list[list[int]] = [[] for _ in range(rules.piles)]
        self.foundations: list[list[int]] = [[13 * s] for s in range(4)] if aces_start else [[], [], [], []]
        self.moves = 0
        self.record = record
        self.events: list[Event] = []

    def log(self, kind: str, **data: Any) -> None:
        if self.record:
            self.events.append(Event(kind, data))

    # --- what the table looks like ----------------------------------------------

    def on_foundations(self) -> int:
        return sum(len(f) for f in self.foundations)

    def foundations_done(self) -> int:
        return sum(len(f) == 13 for f in self.foundations)

    def won(self) -> bool:
        return self.on_foundations() == self.ncards

    def takes(self, i: int, card: int) -> bool:
        """Does foundation Fi take ``card`` now?"""
        f = self.foundations[i]
        if not f:
            return rank(card) == 0  # an empty place takes an Ace (Tam O'Shanter)
        if rank(f[-1]) + 1 != rank(card):
            return False  # builds up by one, to the King
        return self.rules.build == "any_suit" or suit(f[0]) == suit(card)

    def pile_of(self, card: int) -> int | None:
        """The pile with ``card`` on top, or None."""
        for p, pile in enumerate(self.piles):
            if pile and pile[-1] == card:
                return p
        return None

    # --- dealing and playing ---------------------------------------------------------

    def deal_card(self) -> None:
        """The next stock card onto the next pile in turn (P1, P2, ..., then P1 again)."""
        p = self.dealt % self.rules.piles
        card = self.stock[self.dealt]
        self.piles[p].append(card)
        self.dealt += 1
        self.log("deal", pile=p, card=card, dealt=self.dealt)

    def play(self, p: int, i: int) -> None:
        card = self.piles[p].pop()
        self.foundations[i].append(card)
        self.moves += 1
        self.log("play", card=card, pile=p, foundation=i, dealt=self.dealt)

    def greedy_plays(self) -> None:
        """Scan P1, P2, ...; play the first top card a foundation takes to the leftmost such; scan again."""
        while True:
            for p, pile in enumerate(self.piles):
                if not pile:
                    continue
                targets = [i for i in range(4) if self.takes(i, pile[-1])]
                if targets:
                    self.play(p, targets[0])
                    break
            else:
                return


def play(deal: Sequence[int], rules: Any, aces_start: bool, record: bool = False) -> Outcome:
    """Play one deal greedily (every play made); with ``record`` keep the events for a trace."""
    t = Table(deal, rules, aces_start, record)
    t.log("start", foundations=[list(f) for f in t.foundations], stock=list(t.stock))
    points = set(play_points(len(t.stock), rules))
    while t.dealt < len(t.stock):
        t.deal_card()
        if t.dealt in points:
            t.greedy_plays()
    outcome = WON if t.won() else BLOCKED
    t.log(outcome, moves=t.moves)
    return Outcome(outcome, t.moves, t.ncards - t.on_foundations(), t.foundations_done(), t.events)


# --- solutions: text, replay, trace --------------------------------------------------

TOKEN = re.compile(r"^(\d+):([^>]+)>(\d)$")


def format_play(dealt: int, card: int, foundation: int) -> str:
    return f"{dealt}:{format_card(card)}>{foundation + 1}"


def parse_solution(text: str) -> list[tuple[int, int, int]]:
    """(dealt, card, foundation index) per token; ValueError naming a token that is not ``T:CD>F``."""
    plays = []
    for token in text.split():
        m = TOKEN.match(token)
        if not m:
            raise ValueError(f"token {token!r} is not T:CD>F (e.g. 4:2C>1)")
        f = int(m.group(3))
        if not 1 <= f <= 4:
            raise ValueError(f"token {token!r}: foundation {f} is not 1..4")
        plays.append((int(m.group(1)), parse_card(m.group(2)), f - 1))
    return plays


def replay(
    deal: Sequence[int], rules: Any, aces_start: bool, text: str, record: bool = False
) -> tuple[str | None, Table]:
    """Replay solution text from the deal under free play: (None if every play is legal and the game won, else
    why not; the table as it ended)."""
    t = Table(deal, rules, aces_start, record)
    t.log("start", foundations=[list(f) for f in t.foundations], stock=list(t.stock))
    try:
        plays = parse_solution(text)
    except ValueError as exc:
        return str(exc), t
    n = len(t.stock)
    points = set(play_points(n, rules))
    for k, (dealt, card, i) in enumerate(plays, start=1):
        where = f"play {k} ({format_play(dealt, card, i)})"
        if dealt < t.dealt:
            return f"{where}: {dealt} cards dealt, but {t.dealt} already are", t
        if dealt > n:
            return f"{where}: the stock holds only {n} cards", t
        if dealt not in points:
            return f"{where}: no plays are allowed after {dealt} cards dealt", t
        while t.dealt < dealt:
            t.deal_card()
        p = t.pile_of(card)
        if p is None:
            return f"{where}: {format_card(card)} is not on top of a pile", t
        if not t.takes(i, card):
            return f"{where}: foundation F{i + 1} does not take {format_card(card)}", t
        t.play(p, i)
    while t.dealt < n:
        t.deal_card()
    if not t.won():
        return f"not won: {t.ncards - t.on_foundations()} cards are not on the foundations", t
    t.log(WON, moves=t.moves)
    return None, t


def check_solution(deal: Sequence[int], rules: Any, aces_start: bool, text: str) -> str | None:
    """None if ``text`` replays from the deal to a win under free play; else why not."""
    cards = [int(c) for c in deal]
    if sorted(cards) != list(range(NCARDS)):
        return "the deal is not the 52 cards of the deck"
    return replay(cards, rules, aces_start, text)[0]


def trace_lines(events: list[Event], piles: int) -> list[str]:
    """The events of a recorded game in card text: each deal of a card to every pile, then its plays."""
    lines: list[str] = []
    foundations: list[list[int]] = []
    row: list[str] = []

    def flush() -> None:
        if row:
            lines.append("  deal " + " ".join(row))
            row.clear()

    for e in events:
        d = e.data
        if e.kind == "start":
            foundations = [list(f) for f in d["foundations"]]
            start = " ".join(f"F{i + 1}:{format_cards(f) or '-'}" for i, f in enumerate(foundations))
            lines.append(f"start: {start}; stock of {len(d['stock'])} cards, {piles} piles")
        elif e.kind == "deal":
            row.append(f"P{d['pile'] + 1}:{format_card(d['card'])}")
            if d["pile"] == piles - 1:  # a whole deal: one line
                flush()
        elif e.kind == "play":
            flush()
            i = d["foundation"]
            foundations[i].append(d["card"])
            lines.append(
                f"    play {format_card(d['card'])} from P{d['pile'] + 1} to F{i + 1} "
                f"(F{i + 1} up to {format_card(foundations[i][-1])}, {len(foundations[i])} cards)"
                f"  [{format_play(d['dealt'], d['card'], i)}]"
            )
        elif e.kind in (WON, BLOCKED):
            flush()
            left = NCARDS - sum(len(f) for f in foundations)
            lines.append(f"{e.kind}: {d['moves']} cards played, {left} left")
    flush()
    return lines
