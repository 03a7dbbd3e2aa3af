"""Eight Day Clock, or Rondo: rule switches, presets and the compiled batch kernel.

The rules are spelled out in ``engine/reference/eight_day_clock.py``, the
readable oracle; this module plays the same game on small integer words, many
deals per call, and must agree with the oracle deal by deal
(``tests/test_eight_day_clock.py`` holds it to that on every combination of the
switches).  The game has no choices, so it has no solver and no ``strategy``.

The readings (the same in both implementations; the reasons behind some of
them: docs/solvers.md, "Eight Day Clock"):

* The deal: card i of the deal (0-based) goes to pile P(i mod 13 + 1), four
  rounds of thirteen, so pile Ph holds, bottom to top, cards h-1, h+12, h+25,
  h+38 of the deal; the last thirteen dealt are the tops.  Pile Ph wants rank h
  (A=1 .. Q=12 at twelve o'clock, K=13 in the centre, P13).  After P12 comes P13,
  then P1.
* A pile is *open* when it holds cards and its top card is not its hour; cards
  are taken from open piles only.  "The next open pile after Ph" looks at
  P(h+1), ..., round the clock, and last at Ph itself.
* Opening (``start``): ``first_open`` takes the top card of the first open pile
  from P1; ``pile1`` takes the top card of P1 whatever it shows.
* A step: the card in hand, taken last from Pt, goes under the next open pile Pq
  after Pt, and Pq's top card is taken into the hand (one move).
* Empty piles (``empty_pile``): ``pass``: never open, play passes them by;
  ``fill``: the card in hand goes into the first empty pile it would pass and
  stays there, and play goes on by taking the top card of the next open pile
  after it; ``fill_own``: the same for a card of that pile's own rank only.  A
  fill is not a move; the take after it is.
* The full clock: a card in hand, no pile open, all thirteen piles showing their
  hour.  The card in hand is set aside and the thirteen tops are discarded.  The
  set-aside card goes under the pile of its rank unless that pile shows its hour
  (an empty pile does not), else under the next open pile after it (under
  ``fill``, open or empty); if no pile can take it, it stays in hand and the
  clock is full again (another discard).  Then ``after_discard``:
  ``placed_pile``: take the top card of the pile where it was placed (a step);
  ``after_last_taken``: take from the next open pile after the last pile taken
  from before the full clock; ``first_open``: from the first open pile from P1;
  ``after_placed_pile``: from the next open pile after the one where it was placed.
* Under ``placed_pile`` no pile is ever empty before the third discard, and
  ``empty_pile`` changes nothing.
* Won at the third discard (play stops; its set-aside card is not placed).  Lost
  (``cycle``) at the first move whose state (the piles as ranks, the rank in
  hand, the pile it came from) repeats a state of the same stretch between
  discards; ``blocked`` when no pile is open yet the clock is not full (an empty
  pile, every other showing its hour).  A full clock with an empty hand (at the
  deal, or after a set-aside card is placed) is a discard with nothing set aside
  (also after a fill that leaves no pile open), and play goes on from the first
  open pile from P1.
* Preset ``masten``: ``after_discard: after_last_taken, empty_pile: fill_own``
  (start ``first_open``, Masten's own; see PRESETS and ``configs/eight_day_clock.yaml``).
* ``rounds``: times round the clock, 1 from the opening plus 1 for each move
  whose pile comes at or before the pile of the move before.  ``moves``: cards
  taken from pile tops.  ``discards`` 0..3; ``cards_left`` = 52 - 13 x discards
  (13 on a win).  ``cycle_length``: moves between the two visits of the
  repeated state (0 unless ``cycle``).

Kernel layout (a pile is one 64-bit word of 4-bit ranks) and the exact cycle
detection, which needs no table: docs/solvers.md, "Eight Day Clock".
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from engine.cards import DECK_52
from engine.deals import batch_of_deals
from engine.outcomes import BLOCKED, CYCLE, OUTCOMES, WON
from engine.reference import eight_day_clock as reference
from engine.reference.events import play_one_by
from engine.registry import Column, GameSpec, new_columns
from engine.rules import switch

AFTER_DISCARD = ("placed_pile", "after_last_taken", "first_open", "after_placed_pile")
STARTS = ("first_open", "pile1")
EMPTY_PILE = ("pass", "fill", "fill_own")
NCARDS = 52
NPILES = 13
WIN_DISCARDS = 3


@dataclass(frozen=True)
class EightDayClockRules:
    after_discard: str = switch(
        "placed_pile",
        "where play goes on after a discard, once the set-aside card is placed: placed_pile: take the top of the "
        "pile it went under; after_last_taken: from the next open pile after the last one taken from; "
        "first_open: from the first open pile from P1; after_placed_pile: from the next open pile after the "
        "one it went under",
        choices=AFTER_DISCARD,
    )
    start: str = switch(
        "first_open",
        "the opening: first_open: take the top of the first pile not showing its "
        "hour, from P1; pile1: take the top of P1 whatever it shows",
        choices=STARTS,
    )
    empty_pile: str = switch(
        "pass",
        "an empty pile (never under after_discard: placed_pile): pass: play passes it by; fill: the card in hand "
        "goes into it and stays, and the next open pile's top is taken; fill_own: the same, for a card of its "
        "own rank only",
        choices=EMPTY_PILE,
    )


# masten: of the twelve readings with Masten's own start (first_open), the one whose win rate agrees with his
# 1 in 107 on 1,000,000 deals (9,360 won: 0.936%, 1 in 106.8, Wilson 95% [0.917%, 0.955%], seed 2009; the next
# nearest, empty_pile: fill, 0.962% [0.943%, 0.981%], does not): play goes on after a discard from the pile after
# the last one taken from, and a card whose own pile is empty goes into it.  With start: pile1 the same two
# switches agree as well (0.935%): the opening hardly matters.
PRESETS: dict[str, dict] = {"masten": {"after_discard": "after_last_taken", "empty_pile": "fill_own"}}
PRESET_SOURCES: dict[str, str] = {  # each preset, and the source it is named for
    "masten": "Masten's 1 in 107 (solitairewinrates.com): of the readings with his start, the one that agrees"
}


def _lowest_bit_table() -> np.ndarray:
    t = np.full(1 << NPILES, -1, dtype=np.int8)
    for m in range(1, 1 << NPILES):
        t[m] = (m & -m).bit_length() - 1
    return t


_LOWEST = _lowest_bit_table()
_ALL = (1 << NPILES) - 1


@nb.njit(cache=True, inline="always")
def _is_open(word, h):
    return word != 0 and (word & 15) != h + 1


@nb.njit(cache=True, inline="always")
def _open_mask(w):
    m = 0
    for h in range(NPILES):
        if _is_open(w[h], h):
            m |= 1 << h
    return m


@nb.njit(cache=True, inline="always")
def _set_open(m, w, h):
    """The open mask with pile h's bit brought up to date."""
    if _is_open(w[h], h):
        return m | (1 << h)
    return m & ~(1 << h)


@nb.njit(cache=True, inline="always")
def _open_from(m, h, lowest):
    """The first open pile among h, h+1, ..., round the clock (h in 0..12), or -1."""
    rot = ((m >> h) | (m << (NPILES - h))) & _ALL
    if rot == 0:
        return -1
    q = h + lowest[rot]
    return q - NPILES if q >= NPILES else q


@nb.njit(cache=True, inline="always")
def _full(w):
    for h in range(NPILES):
        if (w[h] & 15) != h + 1:
            return False
    return True


_4 = np.uint64(4)
_15 = np.uint64(15)


@nb.njit(cache=True, inline="always")
def _empty_mask(w):
    e = 0
    for h in range(NPILES):
        if w[h] == 0:
            e |= 1 << h
    return e


@nb.njit(cache=True, inline="always")
def _take(w, sz, m, e, s):
    """Take the top card of pile s into the empty hand, nothing put under: (rank, open mask, empty mask)."""
    r = np.int64(w[s] & _15)
    w[s] >>= _4
    sz[s] -= 1
    if w[s] == 0:
        e |= 1 << s
    return r, _set_open(m, w, s), e


@nb.njit(cache=True, inline="always")
def _put(w, sz, m, e, p, r):
    """Put rank r under pile p, nothing taken: (open mask, empty mask)."""
    w[p] |= np.uint64(r) << np.uint64(4 * sz[p])
    sz[p] += 1
    return _set_open(m, w, p), e & ~(1 << p)


@nb.njit(cache=True, inline="always")
def _move(w, sz, m, e, r, t, fill, lowest):
    """The next move from rank r in hand, taken last from pile t: (kind, r, t, m, e, wrapped).

    kind 0: a move was made (a step; or, under fill/fill_own, a fill and then a take); 1: no pile takes the card
    (nothing changed); 2: the card filled an empty pile and no pile is open to take from (the hand is empty).
    """
    cand = m
    if e != 0:
        if fill == 1:
            cand |= e
        elif fill == 2:
            cand |= e & (1 << (r - 1))
    q = _open_from(cand, 0 if t == NPILES - 1 else t + 1, lowest)
    if q < 0:
        return 1, r, t, m, e, 0
    if w[q] != 0:  # a step: under the pile, its top card into the hand
        x = w[q] | (np.uint64(r) << np.uint64(4 * sz[q]))
        w[q] = x >> _4
        return 0, np.int64(x & _15), q, _set_open(m, w, q), e, 1 if q <= t else 0
    m, e = _put(w, sz, m, e, q, r)  # a fill: the card stays in the empty pile
    s = _open_from(m, 0 if q == NPILES - 1 else q + 1, lowest)
    if s < 0:
        return 2, 0, t, m, e, 0
    r, m, e = _take(w, sz, m, e, s)
    return 0, r, s, m, e, 1 if s <= t else 0


@nb.njit(cache=True, inline="always")
def _same(a, b):
    for h in range(NPILES):
        if a[h] != b[h]:
            return False
    return True


@nb.njit(cache=True, inline="always")
def _discard(w, sz):
    for h in range(NPILES):
        w[h] >>= _4
        sz[h] -= 1


@nb.njit(cache=True)
def _first_bad_deal(decks):
    """The index of the first row that is not a permutation of the 52-card pack, or -1."""
    for g in range(decks.shape[0]):
        seen = np.uint64(0)
        for i in range(NCARDS):
            c = decks[g, i]
            if c >= NCARDS:
                return g
            bit = np.uint64(1) << np.uint64(c)
            if seen & bit:
                return g
            seen |= bit
    return -1


@nb.njit(cache=True)
def _play_batch(
    decks, start_pile1, after, fill, lowest, out_outcome, out_rounds, out_moves, out_left, out_discards, out_cycle
):
    ndeals = decks.shape[0]
    w = np.zeros(NPILES, dtype=np.uint64)  # the piles: 4-bit ranks, top in the lowest nibble
    sz = np.zeros(NPILES, dtype=np.int64)  # their heights
    ck = np.zeros(NPILES, dtype=np.uint64)  # Brent's checkpoint; in the replay, copy A's piles
    sz_a = np.zeros(NPILES, dtype=np.int64)  # copy A's heights
    s0 = np.zeros(NPILES, dtype=np.uint64)  # the stretch's first state
    sz0 = np.zeros(NPILES, dtype=np.int64)
    for g in range(ndeals):
        for h in range(NPILES):
            w[h] = 0
            sz[h] = 4
        for i in range(NCARDS):  # card i to pile i mod 13; later cards on top
            h = i % NPILES
            w[h] = (w[h] << _4) | np.uint64(decks[g, i] % 13 + 1)
        m = _open_mask(w)  # open piles
        e = 0  # empty piles
        r = 0  # rank in hand, 0: none
        t = -1  # pile of the last take
        moves = 0
        rounds = 1
        discards = 0
        origin = 0  # with an empty hand, the next card is taken from the first open pile at or after this one
        fresh = True  # the next move starts a stretch (Brent restarts there)
        ck_r = 0
        ck_t = 0
        s0_r = 0
        s0_t = 0
        s0_m = 0
        s0_e = 0
        moves0 = 0
        rounds0 = 0
        power = 1
        lam = 1
        outcome = CYCLE
        cycle = 0
        just_moved = False  # a move was made before the loop: go straight to the cycle rule
        if start_pile1:
            r, m, e = _take(w, sz, m, e, 0)
            t = 0
            moves = 1
            just_moved = True
        while True:
            if just_moved:
                just_moved = False
            elif r == 0:
                s = _open_from(m, origin, lowest)
                if s < 0:
                    if not _full(w):
                        outcome = BLOCKED
                        break
                    _discard(w, sz)  # a full clock with an empty hand: nothing is set aside
                    m = _open_mask(w)
                    e = _empty_mask(w)
                    discards += 1
                    if discards == WIN_DISCARDS:
                        outcome = WON
                        break
                    fresh = True
                    origin = 0
                    continue
                r, m, e = _take(w, sz, m, e, s)
                if t >= 0 and s <= t:
                    rounds += 1
                t = s
                moves += 1
            else:
                kind, r, t2, m, e, wrapped = _move(w, sz, m, e, r, t, fill, lowest)
                if kind == 2:
                    origin = 0  # no pile is open: the clock is full (a discard) or play is blocked
                    continue
                if kind == 1:
                    if not _full(w):
                        outcome = BLOCKED
                        break
                    # the full clock: set the card aside, discard the tops, place the card
                    _discard(w, sz)
                    m = _open_mask(w)
                    e = _empty_mask(w)
                    discards += 1
                    if discards == WIN_DISCARDS:
                        outcome = WON
                        break
                    fresh = True
                    h = r - 1
                    if w[h] == 0 or (w[h] & _15) != h + 1:
                        p = h  # its own pile does not show its hour
                    else:
                        p = _open_from((m | e) if fill == 1 else m, 0 if h == NPILES - 1 else h + 1, lowest)
                    if p < 0:
                        continue  # the card stays aside: the clock is full again
                    if after == 0 and w[p] != 0:  # placed_pile: a step onto p
                        x = w[p] | (np.uint64(r) << np.uint64(4 * sz[p]))
                        r = np.int64(x & _15)
                        w[p] = x >> _4
                        m = _set_open(m, w, p)
                        if p <= t:
                            rounds += 1
                        t = p
                        moves += 1
                    else:
                        m, e = _put(w, sz, m, e, p, r)
                        r = 0
                        if after == 1:
                            origin = 0 if t == NPILES - 1 else t + 1
                        elif after == 2:
                            origin = 0
                        else:
                            origin = 0 if p == NPILES - 1 else p + 1
                        continue
                else:
                    rounds += wrapped
                    t = t2
                    moves += 1
            # --- a move was made: the cycle rule (Brent, restarted at each stretch's first move) ---
            if fresh:
                fresh = False
                for h in range(NPILES):
                    ck[h] = w[h]
                    s0[h] = w[h]
                    sz0[h] = sz[h]
                ck_r = r
                ck_t = t
                s0_r = r
                s0_t = t
                s0_m = m
                s0_e = e
                moves0 = moves
                rounds0 = rounds
                power = 1
                lam = 1
                continue
            if r == ck_r and t == ck_t and _same(w, ck):
                # lam is the cycle's length.  Find the first repeat: copy A from the stretch's first state,
                # copy B lam moves ahead of it; move both until they meet (mu moves).
                for h in range(NPILES):
                    ck[h] = s0[h]
                    sz_a[h] = sz0[h]
                    w[h] = s0[h]
                    sz[h] = sz0[h]
                ra, ta, ma, ea = s0_r, s0_t, s0_m, s0_e
                rb, tb, mb, eb = s0_r, s0_t, s0_m, s0_e
                rounds = rounds0
                for _ in range(lam):
                    kind, rb, tb, mb, eb, wrapped = _move(w, sz, mb, eb, rb, tb, fill, lowest)
                    rounds += wrapped
                mu = 0
                while not (ra == rb and ta == tb and _same(ck, w)):
                    kind, ra, ta, ma, ea, wrapped = _move(ck, sz_a, ma, ea, ra, ta, fill, lowest)
                    kind, rb, tb, mb, eb, wrapped = _move(w, sz, mb, eb, rb, tb, fill, lowest)
                    rounds += wrapped
                    mu += 1
                moves = moves0 + mu + lam
                cycle = lam
                outcome = CYCLE
                break
            if power == lam:
                for h in range(NPILES):
                    ck[h] = w[h]
                ck_r = r
                ck_t = t
                power *= 2
                lam = 0
            lam += 1
        out_outcome[g] = outcome
        out_rounds[g] = rounds
        out_moves[g] = moves
        out_left[g] = NCARDS - NPILES * discards
        out_discards[g] = discards
        out_cycle[g] = cycle


EXTRA_COLUMNS = (
    Column("discards", "int8", "full clocks reached, 13 cards discarded at each (0..3; 3 is a win)"),
    Column("cycle_length", "int32", "moves between the two visits of the repeated state (0 unless cycle)"),
)


def play_batch(decks: np.ndarray, rules: EightDayClockRules) -> dict[str, np.ndarray]:
    """Play every deal of ``decks`` (uint8[n, 52]) under ``rules``; one array per output column."""
    decks = batch_of_deals(decks, NCARDS)
    bad = _first_bad_deal(decks)
    if bad >= 0:
        raise ValueError(f"deal {bad} is not a permutation of the 52-card pack: {decks[bad].tolist()}")
    out = new_columns(decks.shape[0], EXTRA_COLUMNS)
    _play_batch(
        decks,
        rules.start == "pile1",
        AFTER_DISCARD.index(rules.after_discard),
        EMPTY_PILE.index(rules.empty_pile),
        _LOWEST,
        out["outcome"],
        out["rounds"],
        out["moves"],
        out["cards_left"],
        out["discards"],
        out["cycle_length"],
    )
    return out


play_one = play_one_by(reference)


GAME = GameSpec(
    name="eight_day_clock",
    title="Eight Day Clock, or Rondo (Masten, solitairewinrates.com)",
    doc="13 face-up piles of 4 round a clock, pile h wanting rank h; the top card of the first pile not showing "
    "its hour goes under the next such pile, whose top card goes on, and so on; when every pile shows its hour "
    "the 13 tops are discarded.  Won after three discards, lost when a state repeats.  No choices at all.  "
    "rounds: times round the clock; moves: cards taken from pile tops.",
    deck=DECK_52,
    rules_type=EightDayClockRules,
    presets=PRESETS,
    preset_sources=PRESET_SOURCES,
    extra_columns=EXTRA_COLUMNS,
    play_batch=play_batch,
    play_one=play_one,
    outcomes=tuple(OUTCOMES[c] for c in (WON, CYCLE, BLOCKED)),
)
