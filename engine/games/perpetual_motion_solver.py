"""Perpetual Motion under ``strategy: solver``: a search for a winning line of free play.

The free-play rules and the solution notation (the text of ``FREE_PLAY_RULES`` in
``engine/reference/perpetual_motion.py``, which replays every solution this module
reports; a test keeps the two identical):

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

Search (proofs and measurements: docs/solvers.md, "Perpetual Motion's solver"):
start-of-pass stocks, as ranks, are stored whole in the exact table of
``engine/search/position_table.py``; a stock stored is never expanded again.

* Forced line first: if the automaton wins in R passes, only shorter lines are
  looked for (``SHORTER_NODES`` stocks), else its line stands (under pile_four
  without cascade, only if the reference accepts it as a free line).
* Best-first search over start-of-pass stocks, ordered by a guide that never
  prunes (``GUIDE_WEIGHTS``); a stock is expanded by a beam over the pass
  (``BEAM``), and an expansion that fills a beam or a list is *truncated*.
  After a win, a beam over passes (``pass_beam`` stocks a depth) looks for a
  shorter line.
* ``won``: a line was found, and the reference replayed it.  ``unsolvable``:
  every stored stock expanded, none truncated, none held back by the pass cap;
  ``unknown`` otherwise (an exhaustive breadth-first search then gets a chance).
* ``rounds_lower``: the fewest passes a win can take, proven by that breadth-first
  search (after every win, within ``proof_work``) and ``passes_lower_bound``;
  ``rounds_optimal`` when the line found is that short.
* ``cards_left``: 0 when won, else the fewest cards at a pass start stored (or at
  the forced line's last); ``nodes``: stocks expanded, all phases (not forced).

Moves of a pass are kept as bytes ``round * 16 + source * 4 + target`` (piles
0..3); the Python side writes them in the notation.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numba as nb
import numpy as np

from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.search import position_table as ptab
from engine.search.heap import heap_pop, heap_push

KEY_WORDS = 4  # a stock: 64 nibbles (rank + 1), zero past its end
PW = 56  # room per pile
MAXMV = 96  # moves kept per pass per line; a longer line is truncated
BEAM = 24  # positions kept after each deal in a guided expansion
CAND = 4096  # positions generated after one deal (all parents together)
LOCAL = 48  # positions reachable by moves after one deal from one parent, kept in a guided expansion
EXACT_LOCAL = 2048  # the same in the exhaustive (proof) phase
EXACT_BEAM = 8192  # beam in the exhaustive (proof) phase
EXACT_CAND = 1 << 16
PROOF_NODES = 300  # stocks the breadth-first phase may expand when the guided search gave up
SHORTER_NODES = 20_000  # stocks stored looking for a line shorter than a forced win
PROOF_WORK = 400_000  # positions (after a move) that phase may generate in all
PASS_BEAM_DEFAULT = 50  # stocks kept at each pass by the search for a shorter line: the switch pass_beam's default
PROOF_WORK_DEFAULT = 10_000  # the proof of the fewest passes after a win: the switch proof_work's default ...
PROOF_PASSES = 3  # ... raised to PROOF_WORK for a line of at most this many passes (where a proof is in reach)
PROOF_CARDS = 16  # ... or a deal of at most this many cards (the curve: docs/solvers.md, "The fewest passes")

# params
(
    P_PILE_FOUR,
    P_RUN,
    P_DIR,
    P_GATHER,
    P_RTL,
    P_BEAM,
    P_CAND,
    P_LOCAL,
    P_MAXNODES,
    P_MAXPASS,
    P_W_LEFT,
    P_W_RUN,
    P_W_DEPTH,
    P_WORK,
    P_LEVEL_CAP,
) = range(15)
DIR_LEFT, DIR_RIGHT, DIR_ANY = 0, 1, 2
RUN_VALUE = np.array([0, 0, 3, 8, 20, 20, 20, 20], dtype=np.int64)


@nb.njit(cache=True, inline="always")
def _allowed(direction, p, q):
    if p == q:
        return False
    if direction == DIR_LEFT:
        return q < p
    if direction == DIR_RIGHT:
        return q > p
    return True


@nb.njit(cache=True)
def _pile_four(piles, hts, s, p):
    """discard: pile_four: drop the top four of pile p of state s if they share a rank; cards removed."""
    h = hts[s, p]
    if h >= 4:
        r = piles[s, p, h - 1]
        if piles[s, p, h - 2] == r and piles[s, p, h - 3] == r and piles[s, p, h - 4] == r:
            hts[s, p] = h - 4
            return 4
    return 0


@nb.njit(cache=True)
def _move(piles, hts, s, p, q, run_unit, pile_four):
    """Move pile p's top card (or run) onto pile q in state s; return the cards discarded."""
    h = hts[s, p]
    r = piles[s, p, h - 1]
    k = 1
    if run_unit:
        while k < h and piles[s, p, h - 1 - k] == r:
            k += 1
    d = hts[s, q]
    for i in range(k):
        piles[s, q, d + i] = r
    hts[s, q] = d + k
    hts[s, p] = h - k
    if pile_four:
        return _pile_four(piles, hts, s, q)
    return 0


@nb.njit(cache=True)
def _copy_state(sp, sh, sm, snm, sl, a, dp, dh, dm, dnm, dl, b):
    for p in range(4):
        h = sh[a, p]
        dh[b, p] = h
        for i in range(h):
            dp[b, p, i] = sp[a, p, i]
    for i in range(snm[a]):
        dm[b, i] = sm[a, i]
    dnm[b] = snm[a]
    dl[b] = sl[a]


@nb.njit(cache=True)
def _same_piles(ap, ah, a, bp, bh, b):
    for p in range(4):
        if ah[a, p] != bh[b, p]:
            return False
    for p in range(4):
        for i in range(ah[a, p]):
            if ap[a, p, i] != bp[b, p, i]:
                return False
    return True


@nb.njit(cache=True)
def _gather(piles, hts, s, gather, out):
    """The piles of state s gathered into out (ranks); returns the stock length."""
    n = 0
    for k in range(4):
        p = k if (gather == 1 or gather == 2) else 3 - k
        h = hts[s, p]
        if gather <= 1:
            for i in range(h):
                out[n + i] = piles[s, p, i]
        else:
            for i in range(h):
                out[n + i] = piles[s, p, h - 1 - i]
        n += h
    return n


@nb.njit(cache=True)
def _stock_guide(stock, n, params):
    """(cards left after the next pass's discards of aligned fours, run value); guides only."""
    quads = 0
    for j in range(n >> 2):
        r = stock[4 * j]
        if stock[4 * j + 1] == r and stock[4 * j + 2] == r and stock[4 * j + 3] == r:
            quads += 1
    runs = 0
    i = 0
    while i < n:
        k = 1
        while i + k < n and stock[i + k] == stock[i]:
            k += 1
        runs += RUN_VALUE[k]
        i += k
    return n - 4 * quads, runs


@nb.njit(cache=True)
def _piles_guide(piles, hts, s):
    v = 0
    for p in range(4):
        h = hts[s, p]
        i = 0
        while i < h:
            k = 1
            while i + k < h and piles[s, p, i + k] == piles[s, p, i]:
                k += 1
            v += RUN_VALUE[k]
            i += k
    return v


@nb.njit(cache=True)
def _all_fours(stock, n):
    """True when every round of the stock deals four cards of one rank: the only stocks a pass clears under
    discard: dealt_four (``passes_lower_bound`` in the reference proves it)."""
    for j in range(n >> 2):
        r = stock[4 * j]
        if stock[4 * j + 1] != r or stock[4 * j + 2] != r or stock[4 * j + 3] != r:
            return False
    return True


@nb.njit(cache=True)
def _pack(stock, n, key):
    for t in range(KEY_WORDS):
        key[t] = 0
    for i in range(n):
        key[i >> 4] |= np.uint64(stock[i] + 1) << np.uint64(4 * (i & 15))


@nb.njit(cache=True)
def _unpack(key, stock):
    n = 0
    for i in range(16 * KEY_WORDS):
        v = (key[i >> 4] >> np.uint64(4 * (i & 15))) & np.uint64(15)
        if v == 0:
            break
        stock[i] = np.uint8(v - 1)
        n += 1
    return n


class Work:
    """Arrays of one pass's expansion (kept between deals)."""

    def __init__(self, beam: int, cand: int, local: int) -> None:
        self.bp = np.zeros((beam, 4, PW), np.uint8)
        self.bh = np.zeros((beam, 4), np.int64)
        self.bm = np.zeros((beam, MAXMV), np.uint8)
        self.bnm = np.zeros(beam, np.int64)
        self.bl = np.zeros(beam, np.int64)
        self.cp = np.zeros((cand, 4, PW), np.uint8)
        self.ch = np.zeros((cand, 4), np.int64)
        self.cm = np.zeros((cand, MAXMV), np.uint8)
        self.cnm = np.zeros(cand, np.int64)
        self.cl = np.zeros(cand, np.int64)
        self.ckey = np.zeros(cand, np.int64)
        self.lp = np.zeros((local, 4, PW), np.uint8)
        self.lh = np.zeros((local, 4), np.int64)
        self.lm = np.zeros((local, MAXMV), np.uint8)
        self.lnm = np.zeros(local, np.int64)
        self.ll = np.zeros(local, np.int64)

    def arrays(self):
        return (
            self.bp,
            self.bh,
            self.bm,
            self.bnm,
            self.bl,
            self.cp,
            self.ch,
            self.cm,
            self.cnm,
            self.cl,
            self.ckey,
            self.lp,
            self.lh,
            self.lm,
            self.lnm,
            self.ll,
        )


@nb.njit(cache=True)
def _state_hash(piles, hts, s):
    h = np.uint64(0x84222325CBF29CE4)
    for p in range(4):
        h = (h ^ np.uint64(hts[s, p] + 64)) * np.uint64(0x9E3779B97F4A7C15)
        for i in range(hts[s, p]):
            h = (h ^ np.uint64(piles[s, p, i])) * np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(29)
    return h


@nb.njit(cache=True)
def _expand(
    stock,
    n,
    params,
    bp,
    bh,
    bm,
    bnm,
    bl,
    cp,
    ch,
    cm,
    cnm,
    cl,
    ckey,
    lp,
    lh,
    lm,
    lnm,
    ll,
    succ,
    succ_n,
    succ_mv,
    succ_nmv,
    win_mv,
    work,
):
    """Play one pass from ``stock`` (n ranks) every way the beam allows.

    Returns (won, number of successors, truncated, moves of the winning line).  Successor stocks go
    to succ[i, :succ_n[i]] with their pass's moves in succ_mv[i, :succ_nmv[i]]; a winning line's
    moves to win_mv.
    """
    pile_four = params[P_PILE_FOUR] != 0
    run_unit = params[P_RUN] != 0
    direction = params[P_DIR]
    gather = params[P_GATHER]
    rtl = params[P_RTL] != 0
    beam = min(params[P_BEAM], bp.shape[0])
    cand = min(params[P_CAND], cp.shape[0])
    local = min(params[P_LOCAL], lp.shape[0])
    truncated = False
    for p in range(4):
        bh[0, p] = 0
    bnm[0] = 0
    bl[0] = n  # cards left
    nbeam = 1
    rounds = n >> 2
    tmp = np.zeros(64, np.uint8)
    lhash = np.zeros(local, np.uint64)
    for j in range(rounds):
        nc = 0
        for b in range(nbeam):
            _copy_state(bp, bh, bm, bnm, bl, b, lp, lh, lm, lnm, ll, 0)
            for k in range(4):
                p = 3 - k if rtl else k
                lp[0, p, lh[0, p]] = stock[4 * j + k]
                lh[0, p] += 1
            r0 = stock[4 * j]
            if stock[4 * j + 1] == r0 and stock[4 * j + 2] == r0 and stock[4 * j + 3] == r0:
                for p in range(4):
                    lh[0, p] -= 1
                ll[0] -= 4
            elif pile_four:
                for p in range(4):
                    ll[0] -= _pile_four(lp, lh, 0, p)
            if ll[0] == 0:
                for i in range(lnm[0]):
                    win_mv[i] = lm[0, i]
                return True, 0, truncated, lnm[0]
            nl = 1
            lhash[0] = _state_hash(lp, lh, 0)
            i = 0
            while i < nl:
                for p in range(4):
                    hp = lh[i, p]
                    if hp == 0:
                        continue
                    r = lp[i, p, hp - 1]
                    for q in range(4):
                        if not _allowed(direction, p, q):
                            continue
                        hq = lh[i, q]
                        if hq == 0 or lp[i, q, hq - 1] != r:
                            continue
                        if lnm[i] >= MAXMV or nl >= local:
                            truncated = True
                            continue
                        work[0] += 1
                        if work[0] > params[P_WORK]:  # the search's budget of positions is spent
                            return False, 0, True, 0
                        _copy_state(lp, lh, lm, lnm, ll, i, lp, lh, lm, lnm, ll, nl)
                        ll[nl] -= _move(lp, lh, nl, p, q, run_unit, pile_four)
                        lm[nl, lnm[nl]] = np.uint8(j * 16 + p * 4 + q)
                        lnm[nl] += 1
                        if ll[nl] == 0:
                            for t in range(lnm[nl]):
                                win_mv[t] = lm[nl, t]
                            return True, 0, truncated, lnm[nl]
                        hn = _state_hash(lp, lh, nl)
                        dup = False
                        for e in range(nl):
                            if lhash[e] == hn and ll[e] == ll[nl] and _same_piles(lp, lh, e, lp, lh, nl):
                                dup = True
                                break
                        if not dup:
                            lhash[nl] = hn
                            nl += 1
                i += 1
            for e in range(nl):
                if nc >= cand:
                    truncated = True
                    break
                _copy_state(lp, lh, lm, lnm, ll, e, cp, ch, cm, cnm, cl, nc)
                if j == rounds - 1:
                    m = _gather(cp, ch, nc, gather, tmp)
                    left, runs = _stock_guide(tmp, m, params)
                    g = 64 * left - runs
                else:
                    g = 64 * (cl[nc]) - _piles_guide(cp, ch, nc)
                hsh = np.int64(_state_hash(cp, ch, nc) >> np.uint64(44))
                ckey[nc] = ((g + (1 << 20)) << 20) | hsh
                nc += 1
        # the best `beam` distinct positions go on
        order = np.argsort(ckey[:nc])
        nbeam = 0
        first_same = 0  # first selected entry with the current key
        for t in range(nc):
            c = order[t]
            if nbeam > 0 and ckey[c] == ckey[order[t - 1]]:
                dup = False
                for e in range(first_same, nbeam):
                    if _same_piles(bp, bh, e, cp, ch, c):
                        dup = True
                        break
                if dup:
                    continue
            else:
                first_same = nbeam
            if nbeam >= beam:
                truncated = True
                break
            _copy_state(cp, ch, cm, cnm, cl, c, bp, bh, bm, bnm, bl, nbeam)
            nbeam += 1
    ns = 0
    for b in range(nbeam):
        if ns >= succ.shape[0]:
            truncated = True
            break
        succ_n[ns] = _gather(bp, bh, b, gather, succ[ns])
        for i in range(bnm[b]):
            succ_mv[ns, i] = bm[b, i]
        succ_nmv[ns] = bnm[b]
        ns += 1
    return False, ns, truncated, 0


@nb.njit(cache=True, inline="always")
def _proven_through(d, clear_test, clearable_at):
    """The passes with no win proven once every stock of depth below d was expanded whole and every stock of
    depth d is stored (a budget ran out at depth d, or the least truncated expansion or the pass cap is at d):
    d; d + 1 with the aligned-fours test when no stock of depth d or less is all fours."""
    if clear_test and clearable_at > d:
        return d + 1
    return d


@nb.njit(cache=True)
def _grow_i64(a, n):
    b = np.zeros(max(2 * a.shape[0], n), a.dtype)
    b[: a.shape[0]] = a
    return b


@nb.njit(cache=True)
def _search(
    stock0,
    n0,
    params,
    breadth_first,
    max_expand,
    bp,
    bh,
    bm,
    bnm,
    bl,
    cp,
    ch,
    cm,
    cnm,
    cl,
    ckey,
    lp,
    lh,
    lm,
    lnm,
    ll,
    recs,
    table,
    gen,
    parent,
    depth,
    moff,
    mlen,
    arena,
    heap,
):
    """Search from stock0 for a win in at most params[P_MAXPASS] passes.

    breadth_first: order by passes (FIFO within a pass) instead of the guide; stop after max_expand
    expansions.  Returns (code, nodes, fewest cards left at a pass start, the winning node, moves of
    the winning pass (count), proven: passes with no win proven, arrays...).  code: WON, UNSOLVABLE
    (exhausted: no truncation and no stock held back by the pass cap), UNKNOWN.
    """
    max_nodes = params[P_MAXNODES]
    max_pass = params[P_MAXPASS]
    beam = bp.shape[0]
    succ = np.zeros((beam, 64), np.uint8)
    succ_n = np.zeros(beam, np.int64)
    succ_mv = np.zeros((beam, MAXMV), np.uint8)
    succ_nmv = np.zeros(beam, np.int64)
    win_mv = np.zeros(MAXMV, np.uint8)
    work = np.zeros(1, np.int64)
    stock = np.zeros(64, np.uint8)
    key = np.zeros(KEY_WORDS, np.uint64)
    _pack(stock0, n0, key)
    recs, table, _, _ = ptab.add(recs, table, np.int64(0), key, gen)  # generation gen: the table is empty
    nrec = 1
    parent[0] = -1
    depth[0] = 0
    moff[0] = 0
    mlen[0] = 0
    narena = 0
    hsize = heap_push(heap, 0, np.int64(0))
    best_left = n0
    nodes = 0
    truncated_at = np.int64(1) << 40  # the least depth of a truncated expansion
    cut = False  # a stock was held back by the pass cap
    out_of_budget = False
    proven = np.int64(1) << 40
    # under dealt_four a pass clears only a stock of aligned fours, so once every stock of depth d is stored
    # and none is one, no line of d + 1 passes wins either: the breadth-first phase proves one pass more
    clear_test = breadth_first and params[P_PILE_FOUR] == 0
    clearable_at = np.int64(1) << 40  # the least depth of a stored stock of aligned fours
    if clear_test and _all_fours(stock0, n0):
        clearable_at = 0
    level_cap = params[P_LEVEL_CAP]
    per_level = np.zeros(max_pass + 2 if level_cap > 0 else 1, np.int64)
    while hsize > 0:
        top, hsize = heap_pop(heap, hsize)
        idx = top & 0xFFFFFFFF
        d = depth[idx]
        if d >= max_pass:
            cut = True
            continue
        if level_cap > 0:  # the beam over passes: at most level_cap stocks expanded at each depth
            if per_level[d] >= level_cap:
                truncated_at = min(truncated_at, d)
                continue
            per_level[d] += 1
        if breadth_first and nodes >= max_expand:
            out_of_budget = True
            proven = min(proven, _proven_through(d, clear_test, clearable_at))
            break
        n = _unpack(recs[idx], stock)
        nodes += 1
        won, ns, trunc, nw = _expand(
            stock,
            n,
            params,
            bp,
            bh,
            bm,
            bnm,
            bl,
            cp,
            ch,
            cm,
            cnm,
            cl,
            ckey,
            lp,
            lh,
            lm,
            lnm,
            ll,
            succ,
            succ_n,
            succ_mv,
            succ_nmv,
            win_mv,
            work,
        )
        if won:
            proven = min(proven, d) if breadth_first else 0
            return (
                WON,
                nodes,
                0,
                idx,
                win_mv[:nw].copy(),
                min(proven, _proven_through(truncated_at, clear_test, clearable_at)),
                recs,
                table,
                parent,
                depth,
                moff,
                mlen,
                arena,
                heap,
            )
        if trunc:
            truncated_at = min(truncated_at, d)
        if work[0] > params[P_WORK]:
            out_of_budget = True
            proven = min(proven, _proven_through(d, clear_test, clearable_at))
            break
        for s in range(ns):
            m = succ_n[s]
            _pack(succ[s], m, key)
            if nrec >= max_nodes:
                if ptab.lookup(recs, table, key, gen) < 0:
                    out_of_budget = True
                    # stocks of depth d are not all expanded (but all are stored)
                    proven = min(proven, _proven_through(d, clear_test, clearable_at))
                    break
                continue
            recs, table, e, added = ptab.add(recs, table, nrec, key, gen)
            if not added:
                continue
            if nrec >= parent.shape[0]:
                parent = _grow_i64(parent, nrec + 1)
                depth = _grow_i64(depth, nrec + 1)
                moff = _grow_i64(moff, nrec + 1)
                mlen = _grow_i64(mlen, nrec + 1)
                heap = _grow_i64(heap, nrec + 1)
            if narena + succ_nmv[s] > arena.shape[0]:
                na = np.zeros(max(2 * arena.shape[0], narena + MAXMV), np.uint8)
                na[:narena] = arena[:narena]
                arena = na
            parent[nrec] = idx
            depth[nrec] = d + 1
            moff[nrec] = narena
            mlen[nrec] = succ_nmv[s]
            for t in range(succ_nmv[s]):
                arena[narena + t] = succ_mv[s, t]
            narena += succ_nmv[s]
            if m < best_left:
                best_left = m
            if clear_test and _all_fours(succ[s], m):
                clearable_at = min(clearable_at, d + 1)
            if breadth_first:
                prio = d + 1
            else:
                left, runs = _stock_guide(succ[s], m, params)
                guide = params[P_W_LEFT] * left - params[P_W_RUN] * runs
                if level_cap > 0:  # by passes, then by the guide within a pass
                    prio = (d + 1) * 8192 + guide + 4096
                else:
                    prio = guide + params[P_W_DEPTH] * (d + 1) + (1 << 20)
            hsize = heap_push(heap, hsize, (np.int64(prio) << 32) | nrec)
            nrec += 1
        if out_of_budget:
            break
    code = UNKNOWN
    if not out_of_budget and not cut and truncated_at > (np.int64(1) << 39):
        code = UNSOLVABLE
    if not breadth_first:
        # best-first stores a stock with the passes of the first line that reached it, not the fewest, so
        # the pass cap may have held back a stock reachable in fewer passes: nothing is proven unless the
        # search was exhaustive
        proven = max_pass if code == UNSOLVABLE else 0
    elif not out_of_budget:
        # every stock below the cap was expanded (unless truncated), and every stock at the cap is stored
        proven = min(proven, _proven_through(max_pass, clear_test, clearable_at))
    return (
        code,
        nodes,
        best_left,
        -1,
        win_mv[:0].copy(),
        min(proven, _proven_through(truncated_at, clear_test, clearable_at)),
        recs,
        table,
        parent,
        depth,
        moff,
        mlen,
        arena,
        heap,
    )


# --- Python side ------------------------------------------------------------------------

GUIDE_WEIGHTS = (64, 1, 256)  # cards left after the next pass, runs of equal rank, passes so far (256: measured, below)


def params_of(rules, beam: int, cand: int, local: int, max_pass: int, max_nodes: int, work: int) -> np.ndarray:
    gathers = ("pile4_bottom_up", "pile1_bottom_up", "pile1_top_down", "pile4_top_down")
    p = np.zeros(15, np.int64)
    p[P_PILE_FOUR] = rules.discard == "pile_four"
    p[P_RUN] = rules.move_unit == "run"
    p[P_DIR] = ("leftmost", "rightmost", "any").index(rules.direction)
    p[P_GATHER] = gathers.index(rules.gather)
    p[P_RTL] = rules.deal_direction == "right_to_left"
    p[P_BEAM] = beam
    p[P_CAND] = cand
    p[P_LOCAL] = local
    p[P_MAXNODES] = max_nodes
    p[P_MAXPASS] = max_pass
    p[P_W_LEFT], p[P_W_RUN], p[P_W_DEPTH] = GUIDE_WEIGHTS
    p[P_WORK] = work
    return p


class Workspace:
    """The search's arrays, kept between deals."""

    def __init__(self) -> None:
        self.guided = Work(BEAM, CAND, LOCAL)
        self.exact: Work | None = None
        self.recs, self.table = ptab.new_table(KEY_WORDS, 1 << 12)
        self.gen = 0  # the table's generation: each search takes the next
        n = 1 << 12
        self.parent = np.zeros(n, np.int64)
        self.depth = np.zeros(n, np.int64)
        self.moff = np.zeros(n, np.int64)
        self.mlen = np.zeros(n, np.int64)
        self.arena = np.zeros(1 << 16, np.uint8)
        self.heap = np.zeros(n, np.int64)

    def exact_work(self) -> Work:
        if self.exact is None:
            self.exact = Work(EXACT_BEAM, EXACT_CAND, EXACT_LOCAL)
        return self.exact


class Found:
    """One search's result: code, nodes, fewest cards left, proven (passes with no win), solution passes."""

    def __init__(self, code, nodes, best_left, proven, passes):
        self.code, self.nodes, self.best_left, self.proven, self.passes = code, nodes, best_left, proven, passes


def search(
    ranks: np.ndarray,
    rules,
    ws: Workspace,
    breadth_first: bool,
    max_pass: int,
    max_nodes: int,
    max_expand: int = 0,
    max_work: int = PROOF_WORK,
    level_cap: int = 0,
) -> Found:
    """One search from a stock of ranks (start of a pass); the solution as passes -> rounds -> moves.

    breadth_first: the exhaustive phase, within ``max_expand`` stocks expanded and ``max_work`` positions."""
    work = ws.exact_work() if breadth_first else ws.guided
    beam, cand, local = (EXACT_BEAM, EXACT_CAND, EXACT_LOCAL) if breadth_first else (BEAM, CAND, LOCAL)
    params = params_of(rules, beam, cand, local, max_pass, max_nodes, max_work if breadth_first else 1 << 62)
    params[P_LEVEL_CAP] = level_cap
    ranks = np.ascontiguousarray(ranks, dtype=np.uint8)
    ws.gen = ptab.next_gen(ws.table, ws.gen)
    res = _search(
        ranks,
        np.int64(len(ranks)),
        params,
        breadth_first,
        np.int64(max_expand),
        *work.arrays(),
        ws.recs,
        ws.table,
        np.int64(ws.gen),
        ws.parent,
        ws.depth,
        ws.moff,
        ws.mlen,
        ws.arena,
        ws.heap,
    )
    code, nodes, best_left, win_node, win_mv, proven = res[:6]
    ws.recs, ws.table, ws.parent, ws.depth, ws.moff, ws.mlen, ws.arena, ws.heap = res[6:]
    passes = None
    if code == WON:
        chain = [list(win_mv)]
        e = int(win_node)
        while ws.parent[e] >= 0:
            o, m = int(ws.moff[e]), int(ws.mlen[e])
            chain.append(list(ws.arena[o : o + m]))
            e = int(ws.parent[e])
        passes = []
        for mv in reversed(chain):
            rounds: list[list[tuple[int, int]]] = []
            for b in mv:
                j, s, d = int(b) >> 4, (int(b) >> 2) & 3, int(b) & 3
                while len(rounds) <= j:
                    rounds.append([])
                rounds[j].append((s, d))
            passes.append(rounds)
    return Found(int(code), int(nodes), int(best_left), int(proven), passes)


MAX_NODES_DEFAULT = 1_000_000
MAX_NODES_HI = 5_000_000  # about 350 MB per million stored stocks (measured), so under 2 GiB


def passes_lower_bound(ranks: np.ndarray, rules) -> int:
    """The reference's ``passes_lower_bound`` (proof there): 0 empty; 2 under dealt_four unless all fours; else 1."""
    n = len(ranks)
    if n == 0:
        return 0
    if rules.discard == "dealt_four" and not _all_fours(np.ascontiguousarray(ranks, dtype=np.uint8), np.int64(n)):
        return 2
    return 1


class Solved:
    """A deal decided under free play: the row's values and the solution text ("" unless won)."""

    def __init__(self, code, rounds, moves, cards_left, nodes, seconds, rounds_optimal, solution, rounds_lower):
        self.code, self.rounds, self.moves, self.cards_left = code, rounds, moves, cards_left
        self.nodes, self.seconds, self.rounds_optimal, self.solution = nodes, seconds, rounds_optimal, solution
        self.rounds_lower = rounds_lower  # passes a solution needs at least, proven (0 unless won)


_WARM = [False]


def _warm_up(rules) -> None:
    """Compile (or load from numba's cache) once, so no deal's ``seconds`` includes compilation."""
    if _WARM[0]:
        return
    _WARM[0] = True
    ws = Workspace()
    ranks = np.array([r for r in range(13) for _ in range(4)], np.uint8)
    search(ranks, rules, ws, True, 3, 100, 10)
    search(ranks, rules, ws, False, 3, 100)


def solve(
    deal: np.ndarray,
    rules,
    ws: Workspace,
    forced: tuple[int, int, int] | None,
    forced_line: str | Callable[[], str] | None,
) -> Solved:
    """Search one deal.  ``forced``: (won, rounds, cards_left) of the forced automaton on the same switches
    (None when there is none, as with direction: any); ``forced_line``: its line (or a function that records
    it) when it won and is a legal free line (see the module docstring), else None.  The caller replays the solution."""
    _warm_up(rules)
    ranks = np.asarray(deal, dtype=np.uint8) % 13
    max_rounds = int(rules.max_rounds)
    max_nodes = int(rules.max_nodes)
    R = forced[1] if (forced is not None and forced[0] and forced_line is not None) else 0
    forced_text = forced_line if isinstance(forced_line, str) or forced_line is None else None
    best_left = len(ranks) if forced is None else min(len(ranks), forced[2])
    limit = min(max_rounds, R - 1) if R else max_rounds
    t0 = time.perf_counter()
    nodes = 0
    passes = None
    optimal = False
    code = UNKNOWN
    proven = 0
    lower = 0
    proof_work = int(rules.proof_work)
    pass_beam = int(rules.pass_beam)
    if R == 1:
        code, optimal, lower = WON, True, 1
    else:
        # with a forced win in hand the search only looks for a shorter line, on a smaller budget
        f = search(ranks, rules, ws, False, limit, min(max_nodes, SHORTER_NODES) if R else max_nodes)
        nodes += f.nodes
        best_left = min(best_left, f.best_left)
        proven = f.proven
        if f.code == WON:
            code, passes = WON, f.passes
        elif R:
            code = WON
        elif f.code == UNSOLVABLE:
            code = UNSOLVABLE
        else:
            # the guided search gave up (truncated or out of budget): an exhaustive breadth-first search may
            # still settle a small position
            g = search(ranks, rules, ws, True, limit, max_nodes, PROOF_NODES, PROOF_WORK)
            nodes += g.nodes
            best_left = min(best_left, g.best_left)
            if g.code == WON:
                code, passes, proven = WON, g.passes, g.proven
            elif g.code == UNSOLVABLE:
                code = UNSOLVABLE
        if code == WON:
            found = len(passes) if passes is not None else R
            if pass_beam > 0 and found > 2:
                # a beam over passes: the best pass_beam stocks of each depth, for a line shorter than found
                b = search(ranks, rules, ws, False, found - 1, max_nodes, level_cap=pass_beam)
                nodes += b.nodes
                if b.code == WON:
                    passes = b.passes
                    found = len(passes)
            budget = proof_work
            if proof_work > 0 and (found <= PROOF_PASSES or len(ranks) <= PROOF_CARDS):
                budget = max(budget, PROOF_WORK)
            if found - 1 > proven and budget > 0:
                # the breadth-first proof: every line of fewer passes, in full, within a budget
                g = search(ranks, rules, ws, True, found - 1, max_nodes, max_nodes, budget)
                nodes += g.nodes
                if g.code == WON:
                    passes = g.passes
                    found = len(passes)
                proven = max(proven, g.proven)
            lower = min(found, max(proven + 1, passes_lower_bound(ranks, rules)))
            optimal = found == lower
    seconds = time.perf_counter() - t0
    if code != WON:
        return Solved(code, 0, 0, best_left, nodes, seconds, False, "", 0)
    if passes is None:  # the forced line stands
        text = forced_text if forced_text is not None else forced_line()
        rounds = R
    else:
        from engine.reference.perpetual_motion import format_solution

        text = format_solution(passes)
        rounds = len(passes)
    moves = len(text.replace(" / ", "").replace("-", "").replace(",", "")) // 2  # two digits a move
    return Solved(WON, rounds, moves, 0, nodes, seconds, optimal, text, lower)
