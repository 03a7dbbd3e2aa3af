"""Aces Up (Idiot's Delight, Firing Squad), written to read like the rules.

This is the oracle the compiled kernel in ``engine/games/aces_up.py`` is held
to, deal by deal, the checker every solver win is replayed by, and the source
of ``patience play aces_up --trace``.  It favours clarity over speed.

The rules, with every disputed point a switch (see ``AcesUpRules``):

* 52 cards, Aces high (A above K).  Four piles P1..P4.  The deal is the stock,
  first card dealt first; a *deal* puts the next four cards one on each pile,
  P1 to P4, empty piles included.  The first deal is made at once; 13 deals in
  all, no redeal (one pass through the stock).
* *Discard*: a pile's top card may be discarded when the top card of another
  pile is of the same suit and higher.  (So when two or more top cards share a
  suit, every one but the highest may go.)  An Ace is never discarded.
* *Fill*: the top card of a pile may be moved into an empty pile (a *space*).
  ``fill_from: aces``: only an Ace may fill a space.  ``move_lone_card``: may a
  pile's only card fill a space (false: the source pile must hold two or more).
  The piles are not interchangeable: the next deal puts its first card on P1,
  so which pile a card lies in matters, and so does a lone card's move.
* A deal is made "when nothing more is done":
  - ``discards: forced``: while a discard is possible, only discards may be made
    (no fill, no deal).  Which discard first does not matter (the closure of
    discards is unique: ``discard_closure``).  ``optional``: any discard may be
    made or left.
  - ``fill: compulsory``: no deal while a space could be filled from a pile of
    two or more cards (with ``fill_from`` allowing the card).  A lone card's
    move never counts toward the compulsion: it leaves a space behind, so with
    it counted a table of fewer than four cards could never be dealt to.
    ``optional``: the player may deal with spaces left.
  - ``fill: immediate`` (only with ``discards: forced``): the discards are made
    by the game in order -- the first top card from P1 to P4 that may go, then
    again from P1 -- and a space is filled as soon as it appears: while a
    space could be filled from a pile of two or more cards, only such fills
    are legal (no discard, no deal); the player chooses the card and the space.
    Here the order of the discards matters (which pile empties first decides
    when a fill interrupts them), and it is fixed.  This is the reading that
    reproduces Masten's 11.57% (with the discards in any order, the same rule
    won 11,906 of 100,000 seeded deals, as many as ``compulsory`` wins).
* Won when only Aces are left: ``win: four_aces`` -- the moment the 48 other
  cards are discarded;
  ``one_ace_per_pile`` (PySolFC's test) -- the 48 are discarded and each pile
  holds exactly one card, an Ace (so the stock is empty).  Whenever the 48 are gone with fills allowed,
  fills of the Aces reach one per pile, so the two tests win the same deals
  under every strategy here; they differ in the moves counted.  Either way a
  win follows the 13th deal: a suit's King goes only by its Ace, so every Ace
  is dealt before the last card of its suit goes, and the stock is empty.
* Lost (``blocked``) when the stock is empty and no move is left to make.

Strategy ``greedy`` (a fixed automaton, the same in the kernel):

1. If the game is won, stop.  (Under ``fill: immediate``, a fill that is due
   is made next, as in 3.)
2. Discard: scan P1..P4 and discard the first top card that may go; repeat
   from 1.  (The greedy discards whenever it can, under both ``discards``.)
3. Fill: if a space exists and some pile of two or more cards has a top card
   that may fill it (``fill_from``), move one into the leftmost space: an Ace
   first; else a card whose removal lets the card under it be discarded at
   once (judged on the tops after the move); else the top of the tallest
   pile; the leftmost pile on ties.  Repeat from 1.  (The greedy fills
   whenever it can, under both ``fill`` values, and never moves a lone card.)
4. Deal if the stock has cards; else the game is lost.

So under greedy only ``fill_from`` and ``win`` matter; the other switches are
free-play rules.

Free play, ``strategy: solver``: any sequence of legal moves (discards, fills,
lone-card moves where allowed, deals) as the switches above allow; ``won`` when
some sequence wins, ``unsolvable`` when none does.

Columns: ``rounds`` is 1 for every deal (the stock is passed once, with no
redeal; a game with a single pass still has one; the deals of four made
would say nothing more, as every game deals all 13); ``moves`` counts
discards and fills; ``cards_left`` the cards not discarded (piles and
stock), 4 for a win.  Under ``solver`` a deal not won reports ``moves`` 0 and
the fewest ``cards_left`` any line of play reached.

Solution notation (``check_solution`` replays it, ``solution_lines`` shows
it): the deals' phases in order, separated by `` / ``; phase k holds the moves
made after deal k, ``-`` when none.  A move is a card: ``5H`` discards the 5 of
hearts (on top of some pile); ``KS>3`` moves the King of spades (on top of a
pile) into the empty pile P3.  Every move is written, forced discards
included.  The last phase ends with the game won.  Example:
``- / 5H 9H / QS>2 3S / ...``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import CardError, format_card, format_cards, parse_card
from engine.reference.events import Event

WON, BLOCKED = "won", "blocked"
NPILES = 4


def value(card: int) -> int:
    """Rank with Aces high: 2 = 1, ..., K = 12, A = 13."""
    r = card % 13
    return 13 if r == 0 else r


def suit(card: int) -> int:
    return card // 13


def is_ace(card: int) -> bool:
    return card % 13 == 0


@dataclass
class Outcome:
    outcome: str
    moves: int
    cards_left: int
    events: list[Event] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "won": self.outcome == WON,
            "rounds": 1,
            "moves": self.moves,
            "cards_left": self.cards_left,
            "nodes": 0,
            "seconds": 0.0,
            "solution": "",
        }


class Table:
    """The stock and the four piles, with the elementary actions and the legality of each move."""

    def __init__(self, deal: Sequence[int], rules: Any, record: bool = False) -> None:
        if len(deal) % NPILES:
            raise ValueError("a deal's length must be a multiple of four")
        self.rules = rules
        self.stock: list[int] = list(deal)
        self.piles: list[list[int]] = [[] for _ in range(NPILES)]
        self.non_aces = sum(1 for c in deal if not is_ace(c))
        self.discarded = 0
        self.deals = 0
        self.moves = 0
        self.record = record
        self.events: list[Event] = []

    def log(self, kind: str, **data: Any) -> None:
        if self.record:
            self.events.append(Event(kind, data))

    # --- what the table looks like -------------------------------------------------

    def top(self, j: int) -> int | None:
        return self.piles[j][-1] if self.piles[j] else None

    def cards_left(self) -> int:
        return len(self.stock) + sum(len(p) for p in self.piles)

    def spaces(self) -> list[int]:
        return [j for j in range(NPILES) if not self.piles[j]]

    def won(self) -> bool:
        if self.discarded != self.non_aces:
            return False
        return self.rules.win == "four_aces" or all(len(p) == 1 and is_ace(p[0]) for p in self.piles)

    # --- legality --------------------------------------------------------------------

    def higher_on_top(self, j: int) -> int | None:
        """A pile other than Pj whose top card is of Pj's top card's suit and higher, or None."""
        c = self.top(j)
        if c is None:
            return None
        for k in range(NPILES):
            t = self.top(k)
            if k != j and t is not None and suit(t) == suit(c) and value(t) > value(c):
                return k
        return None

    def may_discard(self, j: int) -> bool:
        return self.higher_on_top(j) is not None

    def discards(self) -> list[int]:
        """The piles whose top card may be discarded now."""
        return [j for j in range(NPILES) if self.may_discard(j)]

    def may_fill_from(self, j: int, lone_too: bool) -> bool:
        """May the top card of Pj fill a space (leaving the discard rule aside)?"""
        p = self.piles[j]
        if not p or (len(p) == 1 and not (lone_too and self.rules.move_lone_card)):
            return False
        return self.rules.fill_from == "any" or is_ace(p[-1])

    def fill_is_due(self) -> bool:
        """Could a space be filled from a pile of two or more cards (what ``fill: compulsory`` demands)?"""
        return bool(self.spaces()) and any(self.may_fill_from(j, False) for j in range(NPILES))

    def immediate_fill_due(self) -> bool:
        """Under ``fill: immediate``: must a space be filled before anything else?"""
        return self.rules.fill == "immediate" and self.fill_is_due()

    def why_not_discard(self, j: int) -> str | None:
        if not self.may_discard(j):
            return "no higher card of its suit on top"
        if self.immediate_fill_due():
            return "a space must be filled first (fill: immediate)"
        if self.rules.fill == "immediate" and self.discards()[0] != j:
            return f"P{self.discards()[0] + 1}'s top card goes first (fill: immediate: discards in order)"
        return None

    def why_not_fill(self, j: int, e: int) -> str | None:
        c = self.top(j)
        if c is None:
            return f"P{j + 1} is empty"
        if self.piles[e]:
            return f"P{e + 1} is not empty"
        if self.immediate_fill_due():
            if len(self.piles[j]) < 2 or not self.may_fill_from(j, False):
                return "a space must be filled from a pile of two or more cards first (fill: immediate)"
            return None
        if self.rules.discards == "forced" and self.discards():
            return "a discard is possible (discards: forced)"
        if len(self.piles[j]) == 1 and not self.rules.move_lone_card:
            return f"{format_card(c)} is alone in P{j + 1} (move_lone_card: false)"
        if self.rules.fill_from == "aces" and not is_ace(c):
            return f"{format_card(c)} is not an Ace (fill_from: aces)"
        return None

    def why_not_deal(self) -> str | None:
        if not self.stock:
            return "the stock is empty"
        if self.rules.discards == "forced" and self.discards():
            return "a discard is possible (discards: forced)"
        if self.rules.fill != "optional" and self.fill_is_due():
            return f"a space can be filled (fill: {self.rules.fill})"
        return None

    def legal_moves(self) -> list[tuple]:
        """Every legal free-play move: ("discard", j), ("fill", j, e), ("deal",).  None once won."""
        if self.won():
            return []
        moves: list[tuple] = [("discard", j) for j in self.discards() if self.why_not_discard(j) is None]
        moves += [
            ("fill", j, e) for j in range(NPILES) for e in self.spaces() if j != e and self.why_not_fill(j, e) is None
        ]
        if self.why_not_deal() is None:
            moves.append(("deal",))
        return moves

    # --- actions ---------------------------------------------------------------------

    def deal(self) -> None:
        cards = self.stock[:NPILES]
        del self.stock[:NPILES]
        for j, c in enumerate(cards):
            self.piles[j].append(c)
        self.deals += 1
        self.log("deal", number=self.deals, cards=cards)

    def discard(self, j: int) -> None:
        k = self.higher_on_top(j)
        c = self.piles[j].pop()
        self.discarded += 1
        self.moves += 1
        self.log("discard", card=c, pile=j, by=self.top(k), by_pile=k)

    def fill(self, j: int, e: int) -> None:
        c = self.piles[j].pop()
        self.piles[e].append(c)
        self.moves += 1
        self.log("fill", card=c, source=j, target=e)

    def apply(self, move: tuple) -> None:
        if move[0] == "discard":
            self.discard(move[1])
        elif move[0] == "fill":
            self.fill(move[1], move[2])
        else:
            self.deal()

    def discard_closure(self) -> None:
        """Discard until no discard is possible, P1..P4 first.

        The result does not depend on the order: a top card that may be discarded stays so while it is on
        top, since its witness (a higher top card of its suit) can only leave by being discarded itself,
        which needs a still higher top card of the suit, which witnesses it too; and nothing else covers a
        top card between deals.  So every maximal sequence of discards removes the same cards."""
        while True:
            js = self.discards()
            if not js:
                return
            self.discard(js[0])

    def key(self) -> tuple:
        """The whole position: cards dealt and the piles in order (the discards follow from these)."""
        return self.deals, tuple(tuple(p) for p in self.piles)


# --- the greedy automaton ------------------------------------------------------------------


def greedy_fill(t: Table) -> tuple[int, int] | None:
    """The greedy's fill (source, leftmost space), or None: an Ace first, then a card whose removal lets the
    card under it be discarded at once, then the tallest pile; leftmost on ties."""
    spaces = t.spaces()
    if not spaces:
        return None
    e = spaces[0]
    best, best_key = None, None
    for j in range(NPILES):
        if not t.may_fill_from(j, False):
            continue
        c = t.piles[j][-1]
        under = t.piles[j][-2]
        tops = [t.top(k) for k in range(NPILES) if k != j and t.top(k) is not None] + [c]
        uncovers = any(suit(x) == suit(under) and value(x) > value(under) for x in tops)
        key = (is_ace(c), uncovers, len(t.piles[j]))
        if best_key is None or key > best_key:
            best, best_key = j, key
    return None if best is None else (best, e)


def play(deal: Sequence[int], rules: Any, record: bool = False) -> Outcome:
    """Play one deal by the greedy automaton; with ``record`` keep the events for a trace."""
    t = Table(deal, rules, record)
    t.deal()
    while True:
        if t.won():
            t.log(WON, deals=t.deals)
            return Outcome(WON, t.moves, t.cards_left(), t.events)
        if t.immediate_fill_due():  # fill: immediate: a space is filled before any further discard
            t.fill(*greedy_fill(t))
            continue
        js = t.discards()
        if js:
            t.discard(js[0])
            continue
        f = greedy_fill(t)
        if f is not None:
            t.fill(*f)
            continue
        if t.stock:
            t.deal()
            continue
        t.log(BLOCKED, deals=t.deals, left=t.cards_left())
        return Outcome(BLOCKED, t.moves, t.cards_left(), t.events)


def _piles_text(piles: Sequence[Sequence[int]]) -> str:
    return "  ".join(f"P{j + 1}:[{format_cards(p)}]" for j, p in enumerate(piles))


def trace_lines(events: Sequence[Event], deal: Sequence[int]) -> list[str]:
    """The events of a recorded game in card text, deal by deal, with the piles after each deal's moves."""
    lines: list[str] = []
    piles: list[list[int]] = [[] for _ in range(NPILES)]
    pending = False

    def show() -> None:
        lines.append("    piles " + _piles_text(piles))

    for e in events:
        d = e.data
        if e.kind == "deal":
            if pending:
                show()
            for j, c in enumerate(d["cards"]):
                piles[j].append(c)
            lines.append(
                f"deal {d['number']}: " + " ".join(f"P{j + 1}:{format_card(c)}" for j, c in enumerate(d["cards"]))
            )
            pending = True
        elif e.kind == "discard":
            piles[d["pile"]].pop()
            lines.append(
                f"  discard {format_card(d['card'])} from P{d['pile'] + 1} "
                f"({format_card(d['by'])} on P{d['by_pile'] + 1} is higher)"
            )
        elif e.kind == "fill":
            piles[d["source"]].pop()
            piles[d["target"]].append(d["card"])
            lines.append(f"  fill P{d['target'] + 1} with {format_card(d['card'])} from P{d['source'] + 1}")
        elif e.kind == WON:
            show()
            lines.append(f"won after {d['deals']} deals: only the Aces are left")
        elif e.kind == BLOCKED:
            show()
            lines.append(f"blocked: the stock is empty, no move left, {d['left']} cards left")
    return lines


# --- free play: solutions --------------------------------------------------------------------


def parse_move(token: str) -> tuple[int, int | None]:
    """``5H`` -> (card, None) a discard; ``KS>3`` -> (card, pile index) a fill."""
    if ">" in token:
        card, target = token.split(">", 1)
        if target not in ("1", "2", "3", "4"):
            raise ValueError(f"bad pile {target!r} in {token!r} (expected 1..4)")
        return parse_card(card), int(target) - 1
    return parse_card(token), None


def parse_solution(text: str) -> list[list[tuple[int, int | None]]]:
    """The phases of a solution text, each a list of moves (card, target pile or None for a discard)."""
    phases = []
    for number, part in enumerate(text.split("/"), start=1):
        tokens = part.split()
        if not tokens:
            raise ValueError(f"phase {number} is empty (write - for a deal with no move after it)")
        if tokens == ["-"]:
            phases.append([])
            continue
        try:
            phases.append([parse_move(t) for t in tokens])
        except CardError as exc:
            raise ValueError(f"phase {number}: {exc}") from None
    return phases


def _find_top(t: Table, card: int) -> int | None:
    return next((j for j in range(NPILES) if t.top(j) == card), None)


def replay_solution(deal: Sequence[int], rules: Any, text: str, record: bool = False) -> tuple[Table, str | None]:
    """Play a solution text from the deal, every move checked: (the table, why refused or None)."""
    t = Table(deal, rules, record)
    try:
        phases = parse_solution(text)
    except ValueError as exc:
        return t, str(exc)
    for number, moves in enumerate(phases, start=1):
        if number > 1:
            why = t.why_not_deal()
            if why is not None:
                return t, f"deal {number}: not allowed: {why}"
        t.deal()
        for card, target in moves:
            if t.won():
                return t, f"deal {number}: the game was already won before {format_card(card)}"
            j = _find_top(t, card)
            if j is None:
                return t, f"deal {number}: {format_card(card)} is not on top of a pile"
            if target is None:
                why = t.why_not_discard(j)
                if why is not None:
                    return t, f"deal {number}: {format_card(card)} may not be discarded ({why})"
                t.discard(j)
            else:
                why = t.why_not_fill(j, target)
                if why is not None:
                    return t, f"deal {number}: {format_card(card)}>{target + 1} is not allowed: {why}"
                t.fill(j, target)
        if t.won():
            if number != len(phases):
                return t, f"won after deal {number}, but the solution goes on"
            t.log(WON, deals=t.deals)
            return t, None
    return t, f"not won: {t.cards_left()} cards left after the last phase"


def check_solution(deal: Sequence[int], rules: Any, text: str) -> str | None:
    """None when ``text`` wins the deal under free play, every move legal; else why it is refused."""
    return replay_solution([int(c) for c in deal], rules, text)[1]


def solution_lines(deal: Sequence[int], rules: Any, text: str) -> list[str]:
    """A solution replayed deal by deal: cards dealt, discards, fills, the piles after each deal's moves."""
    deal = [int(c) for c in deal]
    t, why = replay_solution(deal, rules, text, record=True)
    lines = trace_lines(t.events, deal)
    if why is not None:
        lines.append(f"refused: {why}")
    return lines


def solution_text(phases: Sequence[Sequence[tuple[int, int | None]]]) -> str:
    """Phases of moves (card, target pile or None) as solution text."""
    out = []
    for moves in phases:
        out.append(" ".join(format_card(c) if e is None else f"{format_card(c)}>{e + 1}" for c, e in moves) or "-")
    return " / ".join(out)


# --- a deliberately plain exhaustive search -------------------------------------------------


def exhaustive_search(deal: Sequence[int], rules: Any, max_positions: int | None = None) -> tuple[str, str]:
    """Depth-first search over every legal move (every discard order, every fill and lone-card move, every
    space as target), positions stored whole in a set, nothing else pruned.  Returns (won, solution text),
    (unsolvable, "") or (unknown, "") when more than ``max_positions`` positions would be stored."""
    t0 = Table(list(deal), rules)
    t0.deal()
    seen = {t0.key()}
    # Each entry: a table and the moves that reached it, as solution phases.
    stack: list[tuple[Table, list[list[tuple[int, int | None]]]]] = [(t0, [[]])]
    while stack:
        t, phases = stack.pop()
        if t.won():
            return WON, solution_text(phases)
        for move in t.legal_moves():
            u = Table.__new__(Table)
            u.__dict__.update(t.__dict__)
            u.stock = list(t.stock)
            u.piles = [list(p) for p in t.piles]
            u.record = False
            u.events = []
            if move[0] == "deal":
                u.deal()
                p = [*phases, []]
            else:
                c = u.top(move[1])
                u.apply(move)
                p = [*phases[:-1], [*phases[-1], (c, None if move[0] == "discard" else move[2])]]
            k = u.key()
            if k in seen:
                continue
            seen.add(k)
            if max_positions is not None and len(seen) > max_positions:
                return "unknown", ""
            stack.append((u, p))
    return "unsolvable", ""
