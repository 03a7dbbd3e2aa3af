"""Perpetual Motion (Narcotic): rule switches, presets and the compiled batch kernel.

The rules are spelled out in ``engine/reference/perpetual_motion.py``, the
readable oracle; this module plays the same game on small integer arrays of
ranks, many deals per call, and must agree with the oracle deal by deal (the
differential test holds it to that on every switch combination).

Kernel layout: a pile is a row of ``piles[4, 52]`` (ranks, bottom first) with
its height in ``h``; the stock is ``stock[0:n]`` read from the front.  Cycle
detection is exact: the stock at the start of each pass is packed into four
64-bit words (4 bits a rank), hashed into a small open-addressing table, and a
hash hit is confirmed word by word.  Only stocks of the current length are kept,
since a stock can only repeat one of the same length.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from engine.cards import DECK_52
from engine.deals import _readonly
from engine.outcomes import CAPPED, CYCLE, OUTCOMES, WON
from engine.reference import perpetual_motion as reference
from engine.registry import Column, GameSpec, PlayResult
from engine.rules import switch

GATHERS = ("pile4_bottom_up", "pile1_bottom_up", "pile1_top_down", "pile4_top_down")


@dataclass(frozen=True)
class PerpetualMotionRules:
    discard: str = switch(
        "dealt_four",
        "dealt_four: only four cards of a rank dealt together are discarded; "
        "pile_four: also a pile whose top four cards share a rank",
        choices=("dealt_four", "pile_four"),
    )
    cascade: bool = switch(False, "false: one round of moves judged on the tops after the deal; true: move until no move is left")
    move_unit: str = switch("card", "card: move the top card; run: move the whole run of equal rank on top", choices=("card", "run"))
    direction: str = switch(
        "leftmost", "which way cards move: onto the leftmost or the rightmost pile showing the same rank",
        choices=("leftmost", "rightmost"),
    )
    gather: str = switch("pile4_bottom_up", "order in which the piles become the new stock (first listed is dealt first)", choices=GATHERS)
    deal_direction: str = switch("left_to_right", "order in which each round of four is dealt to the piles", choices=("left_to_right", "right_to_left"))
    max_rounds: int = switch(100000, "passes through the stock before a game is stopped as capped", lo=1, hi=2**31 - 1)


PRESETS: dict[str, dict] = {
    "clarke": {},
    "masten": {"cascade": True, "gather": "pile1_bottom_up"},
    "pysolfc": {"discard": "pile_four", "cascade": True, "gather": "pile1_bottom_up"},
}

_HIST0 = 1024  # initial capacity of the per-game stock history (grows by doubling)
_TABLE0 = 2048  # initial open-addressing table size (power of two, kept under half full)


@nb.njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, inline="always")
def _pile_four(piles, h, p):
    """pile_four: drop the top four cards of pile p if they share a rank; return cards removed."""
    k = h[p]
    if k >= 4:
        r = piles[p, k - 1]
        if piles[p, k - 2] == r and piles[p, k - 3] == r and piles[p, k - 4] == r:
            h[p] = k - 4
            return 4
    return 0


@nb.njit(cache=True, inline="always")
def _move(piles, h, src, dst, run_unit):
    """Move the top card (or top run of equal rank) from src onto dst."""
    k = h[src]
    n = 1
    if run_unit:
        r = piles[src, k - 1]
        while n < k and piles[src, k - 1 - n] == r:
            n += 1
    d = h[dst]
    for i in range(n):
        piles[dst, d + i] = piles[src, k - n + i]
    h[src] = k - n
    h[dst] = d + n


@nb.njit(cache=True, inline="always")
def _farthest_match(piles, h, p, r, rightmost):
    """The farthest pile on p's target side whose current top has rank r, or -1."""
    if rightmost:
        for q in range(3, p, -1):
            if h[q] > 0 and piles[q, h[q] - 1] == r:
                return q
    else:
        for q in range(0, p):
            if h[q] > 0 and piles[q, h[q] - 1] == r:
                return q
    return -1


@nb.njit(cache=True)
def _play_batch(decks, pile_four, cascade, run_unit, rightmost, gather, right_to_left, max_rounds,
                out_outcome, out_rounds, out_moves, out_left, out_cycle):
    ndeals = decks.shape[0]
    piles = np.zeros((4, 56), dtype=np.uint8)
    h = np.zeros(4, dtype=np.int64)
    stock = np.zeros(52, dtype=np.uint8)
    snap = np.zeros(4, dtype=np.int64)
    order = np.empty(4, dtype=np.int64)
    for k in range(4):
        order[k] = 3 - k if right_to_left else k
    hist = np.zeros((_HIST0, 4), dtype=np.uint64)
    hist_pass = np.zeros(_HIST0, dtype=np.int64)
    table = np.full(_TABLE0, -1, dtype=np.int64)
    for g in range(ndeals):
        for i in range(52):
            stock[i] = decks[g, i] % 13
        n = 52
        for p in range(4):
            h[p] = 0
        moves = 0
        rounds = 0
        nhist = 0
        hist_n = -1  # stock length the history holds
        outcome = CAPPED
        cycle_len = 0
        left = 52
        while True:
            # --- exact cycle detection on the stock at the start of the pass ---
            if n != hist_n:
                nhist = 0
                hist_n = n
                table[:] = -1
            w0 = np.uint64(0)
            w1 = np.uint64(0)
            w2 = np.uint64(0)
            w3 = np.uint64(0)
            for i in range(n):
                v = np.uint64(stock[i]) << np.uint64(4 * (i & 15))
                wi = i >> 4
                if wi == 0:
                    w0 |= v
                elif wi == 1:
                    w1 |= v
                elif wi == 2:
                    w2 |= v
                else:
                    w3 |= v
            hv = _mix(w0 ^ _mix(w1 ^ _mix(w2 ^ _mix(w3 + np.uint64(n)))))
            mask = table.shape[0] - 1
            slot = np.int64(hv & np.uint64(mask))
            found = -1
            while table[slot] >= 0:
                e = table[slot]
                if hist[e, 0] == w0 and hist[e, 1] == w1 and hist[e, 2] == w2 and hist[e, 3] == w3:
                    found = e
                    break
                slot = (slot + 1) & mask
            if found >= 0:
                outcome = CYCLE
                cycle_len = rounds + 1 - hist_pass[found]
                break
            if rounds == max_rounds:
                outcome = CAPPED
                break
            rounds += 1
            # remember this stock
            if nhist == hist.shape[0]:
                nh = np.zeros((2 * nhist, 4), dtype=np.uint64)
                nh[:nhist] = hist
                hist = nh
                np_ = np.zeros(2 * nhist, dtype=np.int64)
                np_[:nhist] = hist_pass
                hist_pass = np_
            hist[nhist, 0] = w0
            hist[nhist, 1] = w1
            hist[nhist, 2] = w2
            hist[nhist, 3] = w3
            hist_pass[nhist] = rounds
            table[slot] = nhist
            nhist += 1
            if 2 * nhist > table.shape[0]:
                table = np.full(2 * table.shape[0], -1, dtype=np.int64)
                mask = table.shape[0] - 1
                for e in range(nhist):
                    x = _mix(hist[e, 0] ^ _mix(hist[e, 1] ^ _mix(hist[e, 2] ^ _mix(hist[e, 3] + np.uint64(n)))))
                    s = np.int64(x & np.uint64(mask))
                    while table[s] >= 0:
                        s = (s + 1) & mask
                    table[s] = e
            # --- the pass ---
            pos = 0
            won = False
            while pos < n:
                for k in range(4):
                    p = order[k]
                    piles[p, h[p]] = stock[pos + k]
                    h[p] += 1
                a = stock[pos]
                pos += 4
                if stock[pos - 3] == a and stock[pos - 2] == a and stock[pos - 1] == a:
                    for p in range(4):
                        h[p] -= 1
                    left -= 4
                    if left == 0:
                        won = True
                        break
                    continue
                if pile_four:
                    for p in range(4):
                        left -= _pile_four(piles, h, p)
                if cascade:
                    while True:
                        moved = False
                        for p in range(4):
                            if h[p] == 0:
                                continue
                            q = _farthest_match(piles, h, p, piles[p, h[p] - 1], rightmost)
                            if q >= 0:
                                _move(piles, h, p, q, run_unit)
                                moves += 1
                                if pile_four:
                                    left -= _pile_four(piles, h, q)
                                moved = True
                                break
                        if not moved:
                            break
                else:
                    for p in range(4):
                        snap[p] = piles[p, h[p] - 1] if h[p] > 0 else -1
                    for k in range(3):
                        p = 1 + k if not rightmost else 2 - k
                        r = snap[p]
                        if r < 0:
                            continue
                        q = -1
                        if rightmost:
                            for j in range(3, p, -1):
                                if snap[j] == r:
                                    q = j
                                    break
                        else:
                            for j in range(0, p):
                                if snap[j] == r:
                                    q = j
                                    break
                        if q >= 0:
                            _move(piles, h, p, q, run_unit)
                            moves += 1
                            if pile_four:
                                left -= _pile_four(piles, h, q)
                if left == 0:
                    won = True
                    break
            if won:
                outcome = WON
                break
            # --- gather: the piles become the new stock ---
            n = 0
            for k in range(4):
                p = k if (gather == 1 or gather == 2) else 3 - k
                if gather == 0 or gather == 1:  # bottom up
                    for i in range(h[p]):
                        stock[n] = piles[p, i]
                        n += 1
                else:  # top down
                    for i in range(h[p] - 1, -1, -1):
                        stock[n] = piles[p, i]
                        n += 1
                h[p] = 0
        out_outcome[g] = outcome
        out_rounds[g] = rounds
        out_moves[g] = moves
        out_left[g] = left
        out_cycle[g] = cycle_len


def play_batch(decks: np.ndarray, rules: PerpetualMotionRules) -> dict[str, np.ndarray]:
    """Play every deal of ``decks`` (uint8[n, 52]) under ``rules``; one array per output column."""
    decks = _readonly(decks)
    if decks.ndim != 2 or decks.shape[1] != 52:
        raise ValueError(f"decks must be uint8[n, 52], got shape {decks.shape}")
    n = decks.shape[0]
    out = {
        "outcome": np.empty(n, dtype=np.uint8),
        "rounds": np.empty(n, dtype=np.int32),
        "moves": np.empty(n, dtype=np.int32),
        "cards_left": np.empty(n, dtype=np.int16),
        "cycle_length": np.empty(n, dtype=np.int32),
    }
    _play_batch(
        decks,
        rules.discard == "pile_four",
        bool(rules.cascade),
        rules.move_unit == "run",
        rules.direction == "rightmost",
        GATHERS.index(rules.gather),
        rules.deal_direction == "right_to_left",
        int(rules.max_rounds),
        out["outcome"], out["rounds"], out["moves"], out["cards_left"], out["cycle_length"],
    )
    return out


def play_one(deal: np.ndarray, rules: PerpetualMotionRules, trace: bool = False) -> PlayResult:
    """One deal by the readable reference, with its trace in card text when asked."""
    result = reference.play([int(c) for c in deal], rules, record=trace)
    return PlayResult(row=result.row(), trace=reference.trace_lines(result) if trace else [])


GAME = GameSpec(
    name="perpetual_motion",
    title="Perpetual Motion (Narcotic, Idiot's Delight)",
    doc="Deal four piles from the stock, discard fours of a rank, move equal ranks onto each other, "
    "gather the piles and go again, until every card is gone or the stock repeats.",
    deck=DECK_52,
    rules_type=PerpetualMotionRules,
    presets=PRESETS,
    extra_columns=(Column("cycle_length", "int32", "passes in the cycle the game fell into; 0 unless cycle"),),
    play_batch=play_batch,
    play_one=play_one,
    outcomes=tuple(OUTCOMES[c] for c in (WON, CYCLE, CAPPED)),
)
