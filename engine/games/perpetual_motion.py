"""Perpetual Motion (Narcotic): rule switches, presets and the compiled batch kernel.

The rules are spelled out in ``engine/reference/perpetual_motion.py``, the
readable oracle; this module plays the same game on small integer arrays of
ranks, many deals per call, and must agree with the oracle deal by deal (the
differential test holds it to that on every switch combination).

Kernel layout: play depends on ranks only, so cards are ranks 0..12.  A pile is
a row of ``piles[4, 64]``: a sentinel that matches nothing at index 7, the cards
above it (bottom first, 8-byte aligned) and its height in ``h``; so the top is
always ``piles[p, 7 + h[p]]``, empty pile or not.  The stock is ``stock[0:n]``
read from the front, four cards (one uint32) a round.

Moves are table-driven: every decision depends only on which of the four top
ranks are equal, a 6-bit pattern, and the tables spell the rules out once per
pattern.  Under ``discard: dealt_four, cascade: false, move_unit: card`` (Clarke's
rules) a round is a pure function of the four cards dealt, and the kernel places
them straight into the piles with all four heights packed in one register.
Bottom-up gathers copy whole 64-bit words.

Cycle detection is exact and costs one comparison a pass.  The stock at the start
of each pass (52 bytes, zero padded) is seven 64-bit words.  A stock can only
repeat one of the same length, so each run of passes at one length (a phase) is
a sequence x0, x1 = f(x0), ... of one deterministic map f, and Brent's algorithm
finds its cycle: compare each stock with a checkpoint, and move the checkpoint
to the current stock whenever the distance to it reaches the next power of two.
The first match comes at exactly the cycle's length; the phase's stocks are kept
(sequential stores, cheap), so the first stock that repeats an earlier one is
then found by scanning them, and the game ends as if every stock had been looked
up in a table.  Brent can see a cycle some passes after it began; those passes
change nothing that is reported (a cycle has no discards), except at
``max_rounds``, where a hash table over the phase's stocks settles it exactly.
The phases are short (a few to a few dozen passes), so this beats hashing every
stock, which cost about 40 ns a pass.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numba as nb
import numpy as np

from engine.cards import DECK_52
from engine.deals import batch_of_deals, mix
from engine.games import perpetual_motion_solver as solver
from engine.outcomes import CAPPED, CYCLE, OUTCOMES, UNKNOWN, UNSOLVABLE, WON, SolverError
from engine.reference import perpetual_motion as reference
from engine.reference.events import play_one_by
from engine.registry import Column, GameSpec, PlayResult, new_columns
from engine.rules import RuleError, switch

GATHERS = ("pile4_bottom_up", "pile1_bottom_up", "pile1_top_down", "pile4_top_down")


@dataclass(frozen=True)
class PerpetualMotionRules:
    discard: str = switch(
        "dealt_four",
        "dealt_four: only four cards of a rank dealt together are discarded; "
        "pile_four: also a pile whose top four cards share a rank",
        choices=("dealt_four", "pile_four"),
    )
    cascade: bool = switch(
        False,
        "false: one round of moves judged on the tops after the deal; true: move until no move is left "
        "(forced play only: no effect under strategy: solver)",
    )
    move_unit: str = switch(
        "card", "card: move the top card; run: move the whole run of equal rank on top", choices=("card", "run")
    )
    direction: str = switch(
        "leftmost",
        "forced: onto the leftmost or the rightmost pile showing the same rank; solver: onto any such pile on "
        "that side; any (solver only): onto any other such pile",
        choices=("leftmost", "rightmost", "any"),
    )
    gather: str = switch(
        "pile4_bottom_up",
        "order in which the piles become the new stock (first listed is dealt first)",
        choices=GATHERS,
    )
    deal_direction: str = switch(
        "left_to_right",
        "order in which each round of four is dealt to the piles",
        choices=("left_to_right", "right_to_left"),
    )
    max_rounds: int = switch(
        100000,
        "passes through the stock before a game is stopped as capped (solver: the longest line searched)",
        lo=1,
        hi=2**31 - 1,
    )
    strategy: str = switch(
        "forced",
        "forced: the automaton (every move made as cascade and direction say; a repeated stock loses); "
        "solver: free play, a search over every choice of moves for a win",
        choices=("forced", "solver"),
    )
    max_nodes: int = switch(
        solver.MAX_NODES_DEFAULT,
        "solver: stocks the search may store before it answers unknown",
        lo=1,
        hi=solver.MAX_NODES_HI,
    )

    pass_beam: int = switch(
        solver.PASS_BEAM_DEFAULT,
        "solver: after a win, a search for a shorter line keeps this many stocks at each pass, the best by the "
        "guide (a beam over passes; 0: none)",
        lo=0,
        hi=1_000_000,
    )
    proof_work: int = switch(
        solver.PROOF_WORK_DEFAULT,
        "solver: positions the breadth-first proof of the fewest passes may generate after a win (0: no proof; "
        "rounds_lower then holds what the search proved on the way)",
        lo=0,
        hi=2**40,
    )

    def __post_init__(self) -> None:
        if self.direction == "any" and self.strategy != "solver":
            raise RuleError(
                "switch 'direction': value 'any' needs strategy: solver; "
                "with strategy: forced, allowed: leftmost, rightmost"
            )


PRESETS: dict[str, dict] = {
    "clarke": {},
    "masten": {"cascade": True, "gather": "pile1_bottom_up"},
    "pysolfc": {"discard": "pile_four", "cascade": True, "gather": "pile1_bottom_up"},
}
PRESET_SOURCES: dict[str, str] = {  # each preset, and the source it is named for
    "clarke": "Clarke 2009 (arXiv:0907.1955): the rules as he states them; 54.55% +/- 0.89%",
    "masten": (
        "Masten's 8.67% (quoted by BVS Solitaire; 8.6692% by Blake and Gent 2024): equal cards cascade, "
        "the gather from pile 1 bottom up"
    ),
    "pysolfc": "PySolFC's Perpetual Motion: masten, but four of a rank on one pile are discarded; no published figure",
}

_HIST0 = 1024  # initial capacity of the phase's stock history (grows by doubling)
_NONE = 255
_B = 7  # piles[p, _B] holds a sentinel (16 + p); a pile's cards sit at _B+1 .. _B+h[p], 8-byte aligned

# --- move tables -----------------------------------------------------------------
# Every move decision depends only on which of the four top ranks are equal: a 6-bit
# pattern with one bit per pair of piles.  The tables below spell the rules out once
# per pattern, so the hot loop looks the decision up instead of branching on ranks.
_PAIRS = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]


def _equal(pattern: int, p: int, q: int) -> bool:
    a, b = min(p, q), max(p, q)
    return bool(pattern >> _PAIRS.index((a, b)) & 1)


def _targets(p: int, rightmost: bool) -> list[int]:
    """Piles a card on p may move to, farthest first (as the reference's Table.target_side)."""
    return list(range(3, p, -1)) if rightmost else list(range(0, p))


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cascade = np.full((2, 64), _NONE, dtype=np.uint8)  # first move of a cascade step: src*4+dst
    snap_moves = np.full((2, 64, 3), _NONE, dtype=np.uint8)  # the moves judged on one snapshot
    snap_count = np.zeros((2, 64), dtype=np.uint8)
    for rightmost in (0, 1):
        for pat in range(64):
            for p in range(4):
                q = next((q for q in _targets(p, bool(rightmost)) if _equal(pat, p, q)), None)
                if q is not None:
                    cascade[rightmost, pat] = p * 4 + q
                    break
            for p in [2, 1, 0] if rightmost else [1, 2, 3]:
                q = next((q for q in _targets(p, bool(rightmost)) if _equal(pat, p, q)), None)
                if q is not None:
                    snap_moves[rightmost, pat, snap_count[rightmost, pat]] = p * 4 + q
                    snap_count[rightmost, pat] += 1
    return cascade, snap_moves, snap_count


_CASCADE, _SNAP_MOVES, _SNAP_COUNT = _build_tables()


def _build_destinations(snap_moves: np.ndarray, snap_count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each card of a round of four ends up after one snapshot round of single-card moves.

    Used when play is a pure function of each round of four (discard: dealt_four, cascade:
    false, move_unit: card): the snapshot is then exactly the four cards just dealt, no pile
    that receives a card is also a source, and all cards landing on one pile in a round share
    a rank, so the order they land in does not change the ranks the pile holds.

    Indexed by mode = 2 * rightmost + right_to_left and by the 6-bit pattern of the cards *in
    dealing order*: ``dest[mode, pat, k]`` is the pile of the k-th card dealt plus 4 times its
    offset among the cards landing on that pile; ``grow[mode, pat]`` is the number of cards each
    pile receives, packed one byte a pile, so the kernel keeps the four heights in one register,
    and in its sixth byte the moves the round makes (at most 3 a round, 39 a pass: no carry out).
    Unsigned entries let the compiler drop negative-index checks from the hot loop.
    """
    dest = np.zeros((4, 64, 4), dtype=np.uint8)
    grow = np.zeros((4, 64), dtype=np.uint64)
    for rightmost in (0, 1):
        for right_to_left in (0, 1):
            mode = 2 * rightmost + right_to_left
            order = [3, 2, 1, 0] if right_to_left else [0, 1, 2, 3]  # pile of the k-th card dealt
            for pat in range(64):
                # the same pattern seen pile by pile: pair (i, j) of dealing order -> piles
                pile_pat = 0
                for bit, (i, j) in enumerate(_PAIRS):
                    if pat >> bit & 1:
                        pi, pj = sorted((order[i], order[j]))
                        pile_pat |= 1 << _PAIRS.index((pi, pj))
                target = [0, 1, 2, 3]
                for j in range(snap_count[rightmost, pile_pat]):
                    mv = int(snap_moves[rightmost, pile_pat, j])
                    target[mv >> 2] = mv & 3
                landed = [0, 0, 0, 0]
                for k in range(4):
                    q = target[order[k]]
                    dest[mode, pat, k] = q + 4 * landed[q]
                    landed[q] += 1
                moves = int(snap_count[rightmost, pile_pat])
                grow[mode, pat] = sum(n << (8 * q) for q, n in enumerate(landed)) | (moves << _MOVES_SHIFT)
    return dest.reshape(-1), grow.reshape(-1)


_MOVES_SHIFT = 40  # where a round's moves sit in a _GROW entry
_DEST, _GROW = _build_destinations(_SNAP_MOVES, _SNAP_COUNT)


def _build_round_tables(dest: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tables that let the round-by-round path skip the arithmetic per card.

    ``pattern16[key]``: the 6-bit pattern (dealing order) of a round whose four ranks, 4 bits each,
    form ``key = r0 | r1 << 4 | r2 << 8 | r3 << 12``.  ``land[mode, pat, k]``: where card k lands,
    as the byte offset of its place in its pile when the pile is empty (low byte) and the shift that
    picks its pile's height out of the packed heights (high byte).
    """
    key = np.arange(1 << 16)
    r = [(key >> (4 * i)) & 15 for i in range(4)]
    pattern16 = np.zeros(1 << 16, dtype=np.uint8)
    for bit, (i, j) in enumerate(_PAIRS):
        pattern16 |= ((r[i] == r[j]).astype(np.uint8) << bit).astype(np.uint8)
    q = dest.astype(np.uint16) & 3
    offset = dest.astype(np.uint16) >> 2
    land = ((q << 6) + _B + 1 + offset) | ((q << 3) << 8)
    return pattern16, land.astype(np.uint16)


_PATTERN16, _LAND = _build_round_tables(_DEST)


_WORDS = 7  # the stock is 56 bytes (52 ranks, zero padded) viewed as seven 64-bit words


_K = np.array(
    [
        0x9E3779B97F4A7C15,
        0xC2B2AE3D27D4EB4F,
        0x165667B19E3779F9,
        0xD6E8FEB86659FD93,
        0xFF51AFD7ED558CCD,
        0xC4CEB9FE1A85EC53,
        0x94D049BB133111EB,
    ],
    dtype=np.uint64,
)


@nb.njit(cache=True, inline="always")
def _hash(words, base, n):
    """The stock in words[base : base+7] of length n: seven independent multiplies folded by one mix.

    Cheap, and good enough: a hit is verified word by word anyway.
    """
    x = np.uint64(n)
    for i in range(_WORDS):
        x ^= words[base + i] * _K[i]
    return mix(x)


@nb.njit(cache=True)
def _same_entry(hist, a, b):
    ba = np.uint64(a) << np.uint64(3)
    bb = np.uint64(b) << np.uint64(3)
    for i in range(_WORDS):
        if hist[ba + np.uint64(i)] != hist[bb + np.uint64(i)]:
            return False
    return True


@nb.njit(cache=True)
def _first_repeat(hist, nhist, period):
    """Entries 0..nhist-1 hold a sequence whose last entry repeats the one ``period`` before it, ``period``
    its least period: the index of the first entry that repeats an earlier one (mu + period)."""
    for i in range(nhist - period):
        if _same_entry(hist, i, i + period):
            return i + period
    return nhist - 1


@nb.njit(cache=True)
def _first_repeat_any(hist, nhist, n):
    """The first entry that repeats an earlier one and the distance back to it, or (-1, 0): a hash table
    over the whole history, used only when a game reaches max_rounds."""
    size = 16
    while size < 2 * nhist:
        size *= 2
    table = np.zeros(size, dtype=np.int64)
    mask = np.uint64(size - 1)
    for e in range(nhist):
        slot = _hash(hist, 8 * e, n) & mask
        while table[slot] != 0:
            f = table[slot] - 1
            if _same_entry(hist, f, e):
                return e, e - f
            slot = (slot + np.uint64(1)) & mask
        table[slot] = e + 1
    return -1, 0


@nb.njit(cache=True, inline="always")
def _pattern(t):
    a = t[0]
    b = t[1]
    c = t[2]
    d = t[3]
    return (
        np.int64(a == b)
        | (np.int64(a == c) << 1)
        | (np.int64(a == d) << 2)
        | (np.int64(b == c) << 3)
        | (np.int64(b == d) << 4)
        | (np.int64(c == d) << 5)
    )


@nb.njit(cache=True, inline="always")
def _pile_four(piles, h, t, p):
    """pile_four: drop the top four cards of pile p if they share a rank; return the cards removed."""
    if h[p] >= 4:
        k = _B + h[p]
        r = piles[p, k]
        if piles[p, k - 1] == r and piles[p, k - 2] == r and piles[p, k - 3] == r:
            h[p] -= 4
            t[p] = piles[p, k - 4]
            return 4
    return 0


@nb.njit(cache=True, inline="always")
def _move(piles, h, t, src, dst, run_unit):
    """Move the top card (or the top run of equal rank) from src onto dst; piles hold ranks only."""
    k = _B + h[src]
    r = piles[src, k]
    n = 1
    if run_unit:
        while piles[src, k - n] == r:  # the sentinel below the cards never equals a rank
            n += 1
    d = _B + h[dst]
    for i in range(1, n + 1):
        piles[dst, d + i] = r
    h[src] -= n
    h[dst] += n
    t[src] = piles[src, k - n]
    t[dst] = r


@nb.njit(cache=True)
def _play_batch(
    decks,
    pile_four,
    cascade,
    run_unit,
    rightmost,
    gather,
    right_to_left,
    max_rounds,
    cascade_table,
    snap_moves,
    snap_count,
    pattern16,
    land,
    grow,
    out_outcome,
    out_rounds,
    out_moves,
    out_left,
    out_cycle,
):
    ndeals = decks.shape[0]
    # piles[p, _B] is a sentinel (16 + p) that matches no rank and no other pile; the cards sit above it,
    # so the top is always piles[p, _B + h[p]], empty or not.
    piles = np.zeros((4, 64), dtype=np.uint8)
    flat = piles.reshape(256)  # the same piles, indexed (pile << 6) + slot in the round-by-round path
    pile_words = flat.view(np.uint64)  # pile p's cards start at word 8p + 1
    h = np.zeros(4, dtype=np.int64)
    t = np.zeros(4, dtype=np.int64)  # top rank (or sentinel) of each pile
    stock = np.zeros(8 * (_WORDS + 1), dtype=np.uint8)  # ranks; bytes past the stock's end stay zero
    words = stock.view(np.uint64)
    quads = stock.view(np.uint32)  # rounds of four cards
    # The stocks seen at the start of passes since the stock last changed length (the phase): entry e,
    # the stock of pass hist_first + e, is hist[8e .. 8e+6], and hmoves[e] the moves made before it.
    hist = np.zeros(8 * _HIST0, dtype=np.uint64)
    hmoves = np.zeros(_HIST0, dtype=np.int64)  # moves made before each remembered stock's pass
    ck = np.zeros(_WORDS, dtype=np.uint64)  # Brent's checkpoint
    nhist = 0
    power = 1
    lam = 0
    side = 1 if rightmost else 0
    mode = np.uint64(2 * side + (1 if right_to_left else 0))
    by_round = not pile_four and not cascade and not run_unit
    for p in range(4):
        piles[p, _B] = 16 + p
    for g in range(ndeals):
        for i in range(52):
            stock[i] = decks[g, i] % 13
        n = 52
        for p in range(4):
            h[p] = 0
            t[p] = 16 + p
        moves = 0
        rounds = 0
        hist_n = -1  # the stock length of the phase; -1 makes the first pass start a new one
        hist_first = 1
        outcome = CAPPED
        cycle_len = 0
        left = 52
        while True:
            # --- exact cycle detection on the stock at the start of the pass ---
            if n != hist_n:  # a new phase: a shorter stock cannot repeat a longer one, so start afresh
                hist_n = n
                hist_first = rounds + 1
                nhist = 0
                for i in range(_WORDS):
                    ck[i] = words[i]
                power = 1
                lam = 0
            else:
                lam += 1
            if nhist == hmoves.shape[0]:  # grow the history
                nh = np.zeros(2 * hist.shape[0], dtype=np.uint64)
                nh[: hist.shape[0]] = hist
                hist = nh
                nm = np.zeros(2 * nhist, dtype=np.int64)
                nm[:nhist] = hmoves
                hmoves = nm
            base = np.uint64(nhist) << np.uint64(3)
            for i in range(_WORDS):
                hist[base + np.uint64(i)] = words[i]
            hmoves[nhist] = moves
            nhist += 1
            first = -1  # phase index of the first stock that repeats an earlier one, if known yet
            period = 0
            if lam > 0:
                same = True
                for i in range(_WORDS):
                    if words[i] != ck[i]:
                        same = False
                        break
                if same:  # Brent: lam is the cycle's length; the first repeat is found in the history
                    period = lam
                    first = _first_repeat(hist, nhist, period)
                elif lam == power:
                    for i in range(_WORDS):
                        ck[i] = words[i]
                    power *= 2
                    lam = 0
            if first < 0 and rounds == max_rounds:  # Brent may not have caught it yet: look the hard way
                first, period = _first_repeat_any(hist, nhist, n)
            if first >= 0:
                outcome = CYCLE
                rounds = hist_first - 1 + first
                moves = hmoves[first]
                cycle_len = period
                break
            if rounds == max_rounds:
                outcome = CAPPED
                break
            rounds += 1
            # --- the pass ---
            won = False
            if by_round:  # play is a pure function of each round of four: table-driven, no moves to simulate
                hh = np.uint64(0)  # the four pile heights, one byte each
                for j in range(n >> 2):
                    x = quads[j]  # the next four cards, first dealt in the low byte
                    y = x | (x >> np.uint32(4))
                    pat = np.uint64(pattern16[(y & np.uint32(0xFF)) | ((y >> np.uint32(8)) & np.uint32(0xFF00))])
                    if pat == 63:  # four of a rank dealt together: discarded
                        left -= 4
                        if left == 0:
                            won = True
                            break
                        continue
                    row = (mode << np.uint64(6)) | pat
                    base = row << np.uint64(2)
                    e = np.uint64(land[base])
                    flat[(e & np.uint64(255)) + ((hh >> (e >> np.uint64(8))) & np.uint64(255))] = x & np.uint32(255)
                    e = np.uint64(land[base + np.uint64(1)])
                    flat[(e & np.uint64(255)) + ((hh >> (e >> np.uint64(8))) & np.uint64(255))] = (
                        x >> np.uint32(8)
                    ) & np.uint32(255)
                    e = np.uint64(land[base + np.uint64(2)])
                    flat[(e & np.uint64(255)) + ((hh >> (e >> np.uint64(8))) & np.uint64(255))] = (
                        x >> np.uint32(16)
                    ) & np.uint32(255)
                    e = np.uint64(land[base + np.uint64(3)])
                    flat[(e & np.uint64(255)) + ((hh >> (e >> np.uint64(8))) & np.uint64(255))] = x >> np.uint32(24)
                    hh += grow[row]
                moves += np.int64(hh >> np.uint64(_MOVES_SHIFT))  # the pass's moves rode in the sixth byte
                for p in range(4):
                    h[p] = np.int64((hh >> np.uint64(8 * p)) & np.uint64(255))
            else:
                pos = 0
                while pos < n:
                    for k in range(4):
                        p = 3 - k if right_to_left else k
                        c = stock[pos + k]
                        h[p] += 1
                        piles[p, _B + h[p]] = c
                        t[p] = c
                    pos += 4
                    pat = _pattern(t)
                    if pat == 63:  # the four just dealt share a rank: discard them, deal on
                        for p in range(4):
                            h[p] -= 1
                            t[p] = piles[p, _B + h[p]]
                        left -= 4
                        if left == 0:
                            won = True
                            break
                        continue
                    if pile_four:
                        for p in range(4):
                            left -= _pile_four(piles, h, t, p)
                        pat = _pattern(t)
                    if cascade:
                        while True:
                            mv = cascade_table[side, pat]
                            if mv == 255:
                                break
                            src = mv >> 2
                            dst = mv & 3
                            _move(piles, h, t, src, dst, run_unit)
                            moves += 1
                            if pile_four:
                                left -= _pile_four(piles, h, t, dst)
                            pat = _pattern(t)
                    else:
                        for j in range(snap_count[side, pat]):
                            mv = snap_moves[side, pat, j]
                            src = mv >> 2
                            dst = mv & 3
                            _move(piles, h, t, src, dst, run_unit)
                            moves += 1
                            if pile_four:
                                left -= _pile_four(piles, h, t, dst)
                    if left == 0:
                        won = True
                        break
            if won:
                outcome = WON
                break
            # --- gather: the piles become the new stock ---
            for i in range(_WORDS + 1):
                words[i] = 0
            n = 0
            for k in range(4):
                p = k if (gather == 1 or gather == 2) else 3 - k
                hp = h[p]
                if gather == 0 or gather == 1:  # bottom up: whole words, shifted into place
                    sh = np.uint64(8 * (n & 7))
                    back = np.uint64(63) - sh  # (v >> 1) >> back is v >> (64 - sh), and 0 when sh is 0
                    wi = n >> 3
                    for i in range((hp + 7) >> 3):
                        # bytes above the top card are stale: keep min(8, hp - 8i) bytes
                        keep = np.uint64(8 * max(8 - (hp - 8 * i), 0))
                        v = pile_words[8 * p + 1 + i] & (np.uint64(0xFFFFFFFFFFFFFFFF) >> keep)
                        words[wi + i] |= v << sh
                        words[wi + i + 1] |= (v >> np.uint64(1)) >> back
                else:  # top down: byte by byte
                    for i in range(hp):
                        stock[n + i] = piles[p, _B + hp - i]
                n += hp
                h[p] = 0
                t[p] = 16 + p
        out_outcome[g] = outcome
        out_rounds[g] = rounds
        out_moves[g] = moves
        out_left[g] = left
        out_cycle[g] = cycle_len


EXTRA_COLUMNS = (
    Column("cycle_length", "int32", "passes in the cycle the game fell into; 0 unless cycle"),
    Column("nodes", "int64", "solver: start-of-pass stocks the search expanded (0 under forced)"),
    Column("seconds", "float64", "solver: search time for the deal (not reproducible: depends on the machine)"),
    Column("rounds_optimal", "bool", "solver: true when the search proved no solution has fewer passes"),
    Column(
        "rounds_lower",
        "int32",
        "solver: the fewest passes any winning line can take, proven (rounds when rounds_optimal); 0 unless won",
    ),
    Column(
        "solution",
        "string",
        "solver: the winning line in the notation of engine/reference/perpetual_motion.py; empty unless won",
    ),
)


def _forced_rules(rules: PerpetualMotionRules) -> PerpetualMotionRules:
    return dataclasses.replace(rules, strategy="forced")


def _play_forced(decks: np.ndarray, rules: PerpetualMotionRules, out: dict[str, np.ndarray]) -> None:
    _play_batch(
        decks,
        rules.discard == "pile_four",
        bool(rules.cascade),
        rules.move_unit == "run",
        rules.direction == "rightmost",
        GATHERS.index(rules.gather),
        rules.deal_direction == "right_to_left",
        int(rules.max_rounds),
        _CASCADE,
        _SNAP_MOVES,
        _SNAP_COUNT,
        _PATTERN16,
        _LAND,
        _GROW,
        out["outcome"],
        out["rounds"],
        out["moves"],
        out["cards_left"],
        out["cycle_length"],
    )


def solve_one(
    deal: np.ndarray,
    rules: PerpetualMotionRules,
    ws: solver.Workspace | None = None,
    forced: tuple[int, int, int] | None = None,
) -> solver.Solved:
    """Free play on one deal: the solver's verdict, every win replayed by the reference (SolverError if refused).

    ``forced``: (won, rounds, cards_left) of the forced automaton on the same deal and switches, when the caller
    already has it (play_batch plays all deals forced first, in one kernel call)."""
    deal = np.asarray(deal, dtype=np.uint8)
    ws = ws or solver.Workspace()
    cards = [int(c) for c in deal]
    line = None
    if rules.direction != "any":
        if forced is None:
            one = new_columns(1, EXTRA_COLUMNS[:1])
            _play_forced(batch_of_deals(deal[None, :], 52), rules, one)
            forced = (int(one["outcome"][0]) == WON, int(one["rounds"][0]), int(one["cards_left"][0]))
        if forced[0]:
            if rules.discard == "pile_four" and not rules.cascade:
                # snapshot moves with pile_four: the forced line may not be a free line (solver docstring)
                line = reference.forced_solution(cards, _forced_rules(rules))
                if line is not None and reference.check_solution(cards, rules, line) is not None:
                    line = None
            else:  # a free line by construction (solver docstring); recorded only if the search needs it

                def line() -> str | None:
                    return reference.forced_solution(cards, _forced_rules(rules))

    result = solver.solve(deal, rules, ws, forced, line)
    if result.code == WON:
        why = reference.check_solution(cards, rules, result.solution)
        if why is not None:
            raise SolverError(f"perpetual_motion solver's solution refused by the reference: {why}")
    return result


def play_batch(decks: np.ndarray, rules: PerpetualMotionRules) -> dict[str, np.ndarray]:
    """Play every deal of ``decks`` (uint8[n, 52]) under ``rules``; one array per output column."""
    decks = batch_of_deals(decks, 52)
    out = new_columns(decks.shape[0], EXTRA_COLUMNS)
    if rules.strategy == "forced":
        _play_forced(decks, rules, out)
        return out
    forced = None
    if rules.direction != "any":
        forced = new_columns(decks.shape[0], EXTRA_COLUMNS[:1])
        _play_forced(decks, rules, forced)
    ws = solver.Workspace()
    for g in range(decks.shape[0]):
        f = (
            None
            if forced is None
            else (int(forced["outcome"][g]) == WON, int(forced["rounds"][g]), int(forced["cards_left"][g]))
        )
        r = solve_one(decks[g], rules, ws, f)
        out["outcome"][g] = r.code
        out["rounds"][g] = r.rounds
        out["moves"][g] = r.moves
        out["cards_left"][g] = r.cards_left
        out["nodes"][g] = r.nodes
        out["seconds"][g] = r.seconds
        out["rounds_optimal"][g] = r.rounds_optimal
        out["rounds_lower"][g] = r.rounds_lower
        out["solution"][g] = r.solution
    return out


_play_one_forced = play_one_by(reference)


def play_one(deal: np.ndarray, rules: PerpetualMotionRules, trace: bool = False) -> PlayResult:
    """One deal: forced play by the readable reference, or the solver's verdict with its solution replayed
    pass by pass by the reference."""
    if rules.strategy == "forced":
        result = _play_one_forced(deal, rules, trace)
        row = dict(result.row, nodes=0, seconds=0.0, rounds_optimal=False, rounds_lower=0, solution="")
        return PlayResult(row=row, trace=result.trace)
    r = solve_one(np.asarray(deal, dtype=np.uint8), rules)
    row = {
        "outcome": OUTCOMES[r.code],
        "won": r.code == WON,
        "rounds": r.rounds,
        "moves": r.moves,
        "cards_left": r.cards_left,
        "cycle_length": 0,
        "nodes": r.nodes,
        "seconds": r.seconds,
        "rounds_optimal": r.rounds_optimal,
        "rounds_lower": r.rounds_lower,
        "solution": r.solution,
    }
    lines: list[str] = []
    if trace:
        if r.code == WON:
            lines += reference.solution_trace([int(c) for c in deal], rules, r.solution)
            lines.append(f"solution: {r.solution}")
        verdict = {
            WON: "won",
            UNSOLVABLE: "unsolvable (every line of play searched)",
            UNKNOWN: "unknown (max_nodes or max_rounds reached)",
        }[r.code]
        proof = (
            ", fewest passes proven"
            if r.rounds_optimal
            else (f", at least {r.rounds_lower} passes needed (proven)" if r.code == WON else "")
        )
        lines.append(
            f"{verdict}: {r.rounds} passes, {r.moves} moves{proof}; {r.nodes} stocks expanded, {r.seconds:.3f} s"
        )
    return PlayResult(row=row, trace=lines)


def check_solution(deal: np.ndarray, rules: PerpetualMotionRules, text: str) -> str | None:
    """None if the reference replays ``text`` from ``deal`` to a win under free play; else why not."""
    return reference.check_solution([int(c) for c in deal], rules, text)


GAME = GameSpec(
    name="perpetual_motion",
    title="Perpetual Motion (Narcotic, Idiot's Delight)",
    doc="Deal four piles from the stock, discard fours of a rank, move equal ranks onto each other, "
    "gather the piles and go again, until every card is gone or the stock repeats.  strategy: solver "
    "searches free play (any sequence of legal moves after each deal) for a win.",
    deck=DECK_52,
    rules_type=PerpetualMotionRules,
    presets=PRESETS,
    preset_sources=PRESET_SOURCES,
    extra_columns=EXTRA_COLUMNS,
    play_batch=play_batch,
    play_one=play_one,
    outcomes=tuple(OUTCOMES[c] for c in (WON, CYCLE, CAPPED, UNSOLVABLE, UNKNOWN)),
    check_solution=check_solution,
)
