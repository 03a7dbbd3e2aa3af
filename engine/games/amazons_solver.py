"""Amazons' solver: free play searched for the fewest passes (``strategy: solver``).

Free play, ``strategy: solver`` (the reading is the same as in the reference):
after each row dealt, including the last, possibly partial, row of a pass, the
player may make any sequence of legal plays, each optional.  An Ace goes where
``ace_placement`` puts it (no Ace limit: k is 4); a Queen under
``queen_any_column`` goes to any foundation that takes it, the player choosing;
any other card to the foundation above its column when that foundation takes it.
Every other switch keeps its meaning; ``loss_rule`` and ``idle_passes`` have no
effect.  Outcomes: ``won`` (the fewest passes, proven), ``unsolvable`` (no
line of play wins), ``unknown`` (``max_nodes`` stored positions or
``max_rounds`` passes were not enough).  ``rounds`` is the passes of the
solution (the least possible) or, when not won, the passes searched;
``cards_left`` the fewest cards left in any position the search reached, and
``moves`` = 28 - ``cards_left`` (a won game plays all 28 cards).

The search: breadth first by passes from start-of-pass positions (the stock in
order and the foundations), each stored whole (no collision can merge two), and
inside a pass depth first (``_pass_search``) with an exact memo.  Duplicates are
not searched again; every stored position is tested once for a win in its next
pass (``MODE_WIN_TEST``: a walk stops when a card just dealt can never be played
before the pass ends, ``_dead``), each level before it is expanded, so the first
win has the fewest passes; ``MODE_FIND`` rebuilds the winning line, which the
reference replays.  The four points and their proofs: docs/solvers.md,
"Amazons' solver".

Memory: under 2 GiB at the default ``max_nodes`` of 10 million (the figures:
docs/solvers.md, "Amazons' solver").
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numba as nb
import numpy as np

from engine.cards import DECK_AMAZONS, format_card
from engine.outcomes import OUTCOMES, UNKNOWN, UNSOLVABLE, WON, SolverError
from engine.reference import amazons as reference
from engine.reference.amazons import GATHERS, NCARDS
from engine.search import position_table as pt

if TYPE_CHECKING:
    from engine.games.amazons import AmazonsRules

TABLE_GEN = 1  # the start-of-pass positions' table (engine/search/position_table.py) is new for each search
# (passed as np.int64(TABLE_GEN), and the root's record index as np.int64(0): a literal 0 or 1 would make numba
# compile the table's functions once more, for that constant)


# Kernel rule flags for the solver: one int64 vector.
R_ANY_SUIT, R_QUEEN_ANY, R_OWN_COLUMN, R_SKIP, R_GATHER = range(5)
MODE_EXPAND, MODE_WIN_TEST, MODE_FIND = 0, 1, 2
# _pass_search's results
PASS_DONE, PASS_WON, PASS_FOUND, PASS_FULL = 0, 1, 2, 3
DEAL_ACTION = 16  # an action code: 0..15 is a play q * 4 + i (column Cq's top to Fi), 16 deals the next row
KEY_WORDS = 3  # a start-of-pass position: 28 cards x 5 bits, foundation heights and suits
WORK_SIZE = 360
DEAD_PRUNING = True


@nb.njit(cache=True, inline="always")
def _fpack(fh, fs, any_suit):
    """Foundations as 20 bits: heights (3 bits each), then suits (2 bits each) kept only where they matter."""
    x = np.uint64(0)
    for i in range(4):
        x |= np.uint64(fh[i]) << np.uint64(3 * i)
        if not any_suit and 0 < fh[i] < 7:
            x |= np.uint64(fs[i]) << np.uint64(12 + 2 * i)
    return x


@nb.njit(cache=True, inline="always")
def _dead(c, q, col, hq, stock, fh, fs, any_suit, queen_any):
    """Card c has just been dealt onto column Cq (holding col[0:hq], c on top).  True when c can never be
    played in the rest of this pass (so the pass cannot be won): the module docstring's proof."""
    st = c % 7
    if st == 0 or (queen_any and st == 6):
        return False
    s = c // 7
    if fh[q] > st:  # its place on F_q is already taken (or F_q is complete)
        return True
    if any_suit:
        return False
    if fh[q] > 0 and fs[q] != s:
        return True
    for i in range(4):
        if i != q and 0 < fh[i] < 7 and fs[i] == s:
            return True
    for h in range(hq - 1):  # a lower card of its suit beneath it: that one can never come out first
        x = stock[col[h]]
        if x // 7 == s and x % 7 < st:
            return True
    return False


@nb.njit(cache=True, inline="always")
def _mix2(k0, k1):
    """A well-mixed 64-bit hash of two words (only where a probe starts depends on it)."""
    h = (k0 ^ (k0 >> np.uint64(31))) * np.uint64(0x9E3779B97F4A7C15)
    h = (h ^ k1 ^ (k1 >> np.uint64(29))) * np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(32))


@nb.njit(cache=True)
def _memo_grown(mkeys, mstamp, gen):
    """The memo doubled, holding the keys of generation ``gen``."""
    cap = mstamp.shape[0]
    nk = np.zeros((2 * cap, 2), dtype=np.uint64)
    ns = np.zeros(2 * cap, dtype=np.int32)
    m2 = 2 * cap - 1
    for e in range(cap):
        if mstamp[e] == gen:
            s = np.int64(_mix2(mkeys[e, 0], mkeys[e, 1]) & np.uint64(m2))
            while ns[s] == gen:
                s = (s + 1) & m2
            ns[s] = gen
            nk[s, 0] = mkeys[e, 0]
            nk[s, 1] = mkeys[e, 1]
    return nk, ns


@nb.njit(cache=True, inline="always")
def _memo_insert(mkeys, mstamp, gen, k0, k1):
    """Add the within-pass key (k0, k1) to the memo of generation ``gen`` (room is the caller's care):
    True if it was not there yet."""
    m = mstamp.shape[0] - 1
    s = np.int64(_mix2(k0, k1) & np.uint64(m))
    while mstamp[s] == gen:
        if mkeys[s, 0] == k0 and mkeys[s, 1] == k1:
            return False
        s = (s + 1) & m
    mstamp[s] = gen
    mkeys[s, 0] = k0
    mkeys[s, 1] = k1
    return True


@nb.njit(cache=True, inline="always")
def _loc_set(k0, k1, p, v):
    """Set the 3-bit field of stock index p (0: not in a column, q + 1: in column Cq) in the key words."""
    if p < 21:
        sh = np.uint64(3 * p)
        k0 = (k0 & ~(np.uint64(7) << sh)) | (np.uint64(v) << sh)
    else:
        sh = np.uint64(3 * (p - 21))
        k1 = (k1 & ~(np.uint64(7) << sh)) | (np.uint64(v) << sh)
    return k0, k1


@nb.njit(cache=True)
def _pass_search(
    stock,
    n,
    fh,
    fs,
    rules,
    mode,
    target,
    cur,
    recs,
    table,
    nrec,
    parent,
    max_nodes,
    mkeys,
    mstamp,
    gen,
    path,
    work,
    key,
):
    """Depth-first search over the positions inside one pass from a start-of-pass position.

    mode EXPAND: add every distinct end-of-pass position (after the gather) to the position table as a
    child of record ``cur``; PASS_FULL if that would store more than ``max_nodes``.  mode WIN_TEST: is
    there a line that wins in this pass (dead cards pruned)?  mode FIND: a line that ends the pass in the
    position whose key is ``target``.  ``path[0:len]`` gets the actions of the line found (WON/FOUND).

    Returns (result, path length, fewest cards left seen, complete foundations then, recs, table, nrec,
    parent, mkeys, mstamp).  ``fh``/``fs`` are restored on return.
    """
    any_suit = rules[R_ANY_SUIT] != 0
    queen_any = rules[R_QUEEN_ANY] != 0
    own_column = rules[R_OWN_COLUMN] != 0
    skip = rules[R_SKIP] != 0
    gather = rules[R_GATHER]
    # work arrays, slices of ``work`` (int64[WORK_SIZE]) so that no call allocates
    col = work[0:112].reshape((4, NCARDS))  # stock indices, bottom first
    colof = work[112:140]  # the column each dealt stock index went to
    ch = work[140:144]
    act = work[144:204]  # next action to try at each depth
    lead = work[204:264]  # the action that led to each depth
    leadm = work[264:324]  # cards dealt by it (a deal), or the stock index played
    child = work[324:352]
    fh_saved = work[352:356]
    fs_saved = work[356:360]
    for i in range(4):
        ch[i] = 0
        fh_saved[i] = fh[i]
        fs_saved[i] = fs[i]
    total = 0
    for i in range(4):
        total += fh[i]
    best_left = NCARDS - total
    best_done = 0
    for i in range(4):
        if fh[i] == 7:
            best_done += 1
    pos = 0
    k0 = np.uint64(0)
    k1 = np.uint64(0)
    count = 0
    result = PASS_DONE
    plen = 0
    depth = 0
    act[0] = DEAL_ACTION  # nothing can be played before the first row
    while depth >= 0:
        a = act[depth]
        if a > DEAL_ACTION:
            if depth == 0:
                break
            # undo the action that led here
            b = lead[depth]
            if b == DEAL_ACTION:
                m = leadm[depth]
                for t in range(m):
                    p = pos - 1 - t
                    ch[colof[p]] -= 1
                    k0, k1 = _loc_set(k0, k1, p, 0)
                pos -= m
            else:
                q = b >> 2
                i = b & 3
                p = leadm[depth]
                col[q, ch[q]] = p
                ch[q] += 1
                fh[i] -= 1
                total -= 1
                k0, k1 = _loc_set(k0, k1, p, q + 1)
            depth -= 1
            continue
        if a < DEAL_ACTION:
            # plays: actions q * 4 + i; a card with one possible foundation tries it and moves on to C(q+1)
            q = a >> 2
            if ch[q] == 0:
                act[depth] = (q + 1) << 2
                continue
            p = col[q, ch[q] - 1]
            c = stock[p]
            st = c % 7
            if st == 0:  # an Ace: where ace_placement puts it
                act[depth] = (q + 1) << 2
                i = -1
                if own_column and fh[q] == 0:
                    i = q
                else:
                    for t in range(4):
                        if fh[t] == 0:
                            i = t
                            break
                if i < 0:
                    continue
            elif queen_any and st == 6:  # a Queen free to go to any foundation that takes it
                act[depth] = a + 1
                i = a & 3
                if not (fh[i] == 6 and (any_suit or fs[i] == c // 7)):
                    continue
            else:
                act[depth] = (q + 1) << 2
                i = q
                if not (fh[q] == st and (any_suit or fs[q] == c // 7)):
                    continue
            a = q * 4 + i
            ch[q] -= 1
            if fh[i] == 0:
                fs[i] = c // 7
            fh[i] += 1
            total += 1
            k0, k1 = _loc_set(k0, k1, p, 0)
            if NCARDS - total < best_left:
                best_left = NCARDS - total
                best_done = 0
                for t in range(4):
                    if fh[t] == 7:
                        best_done += 1
            if total == NCARDS:
                for t in range(1, depth + 1):
                    path[t - 1] = lead[t]
                path[depth] = a
                plen = depth + 1
                result = PASS_WON
                break
            kk1 = k1 | (np.uint64(pos) << np.uint64(21)) | (_fpack(fh, fs, any_suit) << np.uint64(26))
            if 2 * (count + 1) > mstamp.shape[0]:
                mkeys, mstamp = _memo_grown(mkeys, mstamp, gen)
            added = _memo_insert(mkeys, mstamp, gen, k0, kk1)
            count += added
            if not added:
                ch[q] += 1
                fh[i] -= 1
                total -= 1
                k0, k1 = _loc_set(k0, k1, p, q + 1)
                continue
            depth += 1
            act[depth] = 0
            lead[depth] = a
            leadm[depth] = p
            continue
        # a == DEAL_ACTION
        act[depth] = a + 1
        if pos == n:
            if mode == MODE_WIN_TEST:
                continue
            # the gather: the end-of-pass position
            m = 0
            for qq in range(4):
                q = qq if (gather == 1 or gather == 2) else 3 - qq
                if gather == 0 or gather == 1:
                    for h in range(ch[q]):
                        child[m] = stock[col[q, h]]
                        m += 1
                else:
                    for h in range(ch[q] - 1, -1, -1):
                        child[m] = stock[col[q, h]]
                        m += 1
            _pack_position(child, m, fh, fs, any_suit, key)
            if mode == MODE_FIND:
                if key[0] == target[0] and key[1] == target[1] and key[2] == target[2]:
                    for t in range(1, depth + 1):
                        path[t - 1] = lead[t]
                    path[depth] = DEAL_ACTION
                    plen = depth + 1
                    result = PASS_FOUND
                    break
                continue
            if nrec >= max_nodes:
                if pt.lookup(recs, table, key, np.int64(TABLE_GEN)) < 0:
                    result = PASS_FULL
                    break
                continue
            recs, table, e, added = pt.add(recs, table, nrec, key, np.int64(TABLE_GEN))
            if added:
                if nrec >= parent.shape[0]:
                    bigger = np.zeros(2 * parent.shape[0], dtype=np.int64)
                    bigger[:nrec] = parent[:nrec]
                    parent = bigger
                parent[nrec] = cur
                nrec += 1
            continue
        # deal the next row to the active columns, left to right
        m = 0
        dead = False
        for q in range(4):
            if m == n - pos:
                break
            if skip and fh[q] == 7:
                continue
            p = pos + m
            col[q, ch[q]] = p
            colof[p] = q
            ch[q] += 1
            k0, k1 = _loc_set(k0, k1, p, q + 1)
            m += 1
            if mode == MODE_WIN_TEST and not dead and DEAD_PRUNING:
                dead = _dead(stock[p], q, col[q], ch[q], stock, fh, fs, any_suit, queen_any)
        pos += m
        kk1 = k1 | (np.uint64(pos) << np.uint64(21)) | (_fpack(fh, fs, any_suit) << np.uint64(26))
        added = False
        if not dead:
            if 2 * (count + 1) > mstamp.shape[0]:
                mkeys, mstamp = _memo_grown(mkeys, mstamp, gen)
            added = _memo_insert(mkeys, mstamp, gen, k0, kk1)
            count += added
        if not added:
            for t in range(m):
                p = pos - 1 - t
                ch[colof[p]] -= 1
                k0, k1 = _loc_set(k0, k1, p, 0)
            pos -= m
            continue
        depth += 1
        act[depth] = 0
        lead[depth] = DEAL_ACTION
        leadm[depth] = m
    for i in range(4):
        fh[i] = fh_saved[i]
        fs[i] = fs_saved[i]
    return result, plen, best_left, best_done, count, recs, table, nrec, parent, mkeys, mstamp


@nb.njit(cache=True, inline="always")
def _pack_position(stock, n, fh, fs, any_suit, key):
    """A start-of-pass position as KEY_WORDS words: stock cards 5 bits each (12 a word), then the foundations."""
    key[0] = 0
    key[1] = 0
    key[2] = 0
    for p in range(n):
        key[p // 12] |= np.uint64(stock[p]) << np.uint64(5 * (p % 12))
    key[2] |= _fpack(fh, fs, any_suit) << np.uint64(20)


@nb.njit(cache=True, inline="always")
def _unpack_position(rec, stock, fh, fs):
    """The inverse of _pack_position; returns the stock length (the cards not on the foundations)."""
    f = rec[2] >> np.uint64(20)
    total = 0
    for i in range(4):
        fh[i] = np.int64((f >> np.uint64(3 * i)) & np.uint64(7))
        fs[i] = np.int64((f >> np.uint64(12 + 2 * i)) & np.uint64(3))
        total += fh[i]
    n = NCARDS - total
    for p in range(n):
        stock[p] = np.int64((rec[p // 12] >> np.uint64(5 * (p % 12))) & np.uint64(31))
    return n


@nb.njit(cache=True)
def _solve(stock0, n0, fh0, fs0, rules, max_nodes, max_rounds, mkeys, mstamp, gen):
    """Breadth-first search by passes from one start-of-pass position (the module docstring).

    Returns (outcome, rounds, nodes, fewest cards left, complete foundations then, the winning record,
    its winning pass's actions, recs, nrec, parent, mkeys, mstamp, gen).
    """
    any_suit = rules[R_ANY_SUIT] != 0
    recs = np.zeros((1 << 12, KEY_WORDS), dtype=np.uint64)
    table = np.zeros(1 << 13, dtype=np.uint64)
    parent = np.zeros(1 << 12, dtype=np.int64)
    key = np.zeros(KEY_WORDS, dtype=np.uint64)
    stock = np.zeros(NCARDS, dtype=np.int64)
    fh = np.zeros(4, dtype=np.int64)
    fs = np.zeros(4, dtype=np.int64)
    path = np.zeros(64, dtype=np.int64)
    wpath = np.zeros(64, dtype=np.int64)
    wlen = 0
    _pack_position(stock0, n0, fh0, fs0, any_suit, key)
    recs, table, e, added = pt.add(recs, table, np.int64(0), key, np.int64(TABLE_GEN))
    parent[0] = -1
    nrec = 1
    best_left = n0
    best_done = 0
    for i in range(4):
        if fh0[i] == 7:
            best_done += 1
    winner = -1
    nodes = 0
    level = 0
    lo = 0
    hi = 1
    if n0 == 0:
        return (
            WON,
            0,
            0,
            0,
            best_done,
            0,
            wpath,
            0,
            recs,
            nrec,
            parent,
            mkeys,
            mstamp,
            gen,
            np.zeros(3, dtype=np.int64),
        )
    outcome = UNSOLVABLE
    target = np.zeros(KEY_WORDS, dtype=np.uint64)
    work = np.zeros(WORK_SIZE, dtype=np.int64)
    pkey = np.zeros(KEY_WORDS, dtype=np.uint64)
    inner_test = 0
    inner_expand = 0
    expanded = 0
    # the root: does it win in pass 1?
    gen += 1
    res, plen, bl, bd, cnt, recs, table, nrec, parent, mkeys, mstamp = _pass_search(
        stock0,
        n0,
        fh0,
        fs0,
        rules,
        MODE_WIN_TEST,
        target,
        0,
        recs,
        table,
        nrec,
        parent,
        max_nodes,
        mkeys,
        mstamp,
        np.int32(gen),
        path,
        work,
        pkey,
    )
    nodes += 1
    inner_test += cnt
    if bl < best_left:
        best_left = bl
        best_done = bd
    if res == PASS_WON:
        winner = 0
        wlen = plen
        wpath[:plen] = path[:plen]
    # Invariant at the top of the loop: every position stored so far (levels 0..level+1 as they are made)
    # has been tested for a win in its next pass, and none wins; levels below ``level`` are expanded.
    while winner < 0:
        test_children = level + 2 <= max_rounds
        onf = np.zeros(hi - lo, dtype=np.int64)
        for idx in range(lo, hi):
            f = recs[idx, 2] >> np.uint64(20)
            t = 0
            for i in range(4):
                t += np.int64((f >> np.uint64(3 * i)) & np.uint64(7))
            onf[idx - lo] = -t
        order = np.argsort(onf, kind="mergesort")  # fullest foundations first: a win tends to come early
        for r in range(hi - lo):
            idx = lo + order[r]
            n = _unpack_position(recs[idx], stock, fh, fs)
            gen += 1
            if gen >= 2**31 - 2:
                mstamp[:] = 0
                gen = 1
            first_new = nrec
            res, plen, bl, bd, cnt, recs, table, nrec, parent, mkeys, mstamp = _pass_search(
                stock,
                n,
                fh,
                fs,
                rules,
                MODE_EXPAND,
                target,
                idx,
                recs,
                table,
                nrec,
                parent,
                max_nodes,
                mkeys,
                mstamp,
                np.int32(gen),
                path,
                work,
                pkey,
            )
            inner_expand += cnt
            expanded += 1
            if bl < best_left:
                best_left = bl
                best_done = bd
            if res == PASS_FULL:
                outcome = UNKNOWN
                break
            if res == PASS_WON:
                outcome = 255  # the win test missed a win: a bug, reported by the caller
                break
            if not test_children:
                continue
            for c in range(first_new, nrec):
                n = _unpack_position(recs[c], stock, fh, fs)
                gen += 1
                if gen >= 2**31 - 2:
                    mstamp[:] = 0
                    gen = 1
                res, plen, bl, bd, cnt, recs, table, nrec, parent, mkeys, mstamp = _pass_search(
                    stock,
                    n,
                    fh,
                    fs,
                    rules,
                    MODE_WIN_TEST,
                    target,
                    c,
                    recs,
                    table,
                    nrec,
                    parent,
                    max_nodes,
                    mkeys,
                    mstamp,
                    np.int32(gen),
                    path,
                    work,
                    pkey,
                )
                nodes += 1
                inner_test += cnt
                if bl < best_left:
                    best_left = bl
                    best_done = bd
                if res == PASS_WON:
                    winner = c
                    wlen = plen
                    wpath[:plen] = path[:plen]
                    break
            if winner >= 0:
                break
        level += 1
        if outcome != UNSOLVABLE:
            break
        if winner >= 0:
            outcome = WON
            level += 1  # the winner is at level ``level``; its pass is one more
            break
        lo = hi
        hi = nrec
        if lo == hi:
            break  # no new position: unsolvable
        if not test_children:
            outcome = UNKNOWN  # positions remain, but a win would need more than max_rounds passes
            break
    if winner == 0:
        outcome = WON
        level = 1
    stats = np.array([expanded, inner_expand, inner_test], dtype=np.int64)
    return (
        outcome,
        level,
        nodes,
        best_left,
        best_done,
        winner,
        wpath,
        wlen,
        recs,
        nrec,
        parent,
        mkeys,
        mstamp,
        gen,
        stats,
    )


def _code(card: int) -> int:
    """A card as the kernel's code: suit * 7 + build step."""
    return (card // 13) * 7 + reference.step(card)


def _card(code: int) -> int:
    """The inverse of _code."""
    st = code % 7
    return (code // 7) * 13 + (0 if st == 0 else st + 5)


def solver_params(rules: AmazonsRules) -> np.ndarray:
    return np.array(
        [
            rules.build == "any_suit",
            bool(rules.queen_any_column),
            rules.ace_placement == "own_column",
            bool(rules.skip_completed_columns),
            GATHERS.index(rules.gather),
        ],
        dtype=np.int64,
    )


class Workspace:
    """The within-pass memo, kept between deals (its generation stamp clears it in O(1))."""

    def __init__(self) -> None:
        self.mkeys = np.zeros((1 << 12, 2), dtype=np.uint64)
        self.mstamp = np.zeros(1 << 12, dtype=np.int32)
        self.gen = 0
        self.stats = np.zeros(3, dtype=np.int64)  # last search: positions expanded, inner positions there, in tests


@dataclass(frozen=True)
class Solved:
    """One search: its verdict and figures, and for a win the solution text (already replayed)."""

    outcome: int
    rounds: int
    nodes: int
    cards_left: int
    foundations_done: int
    seconds: float
    solution: str

    def row(self) -> dict:
        won = self.outcome == WON
        return {
            "outcome": OUTCOMES[self.outcome],
            "won": won,
            "rounds": self.rounds,
            "moves": NCARDS - self.cards_left,
            "cards_left": self.cards_left,
            "foundations_done": self.foundations_done,
            "aces_allowed": 4,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "rounds_optimal": won,
            "solution": self.solution,
        }


_WARM = [False]


def _warm_up(rules: AmazonsRules) -> None:
    """Compile (or load from numba's cache) once, so no deal's ``seconds`` includes compilation."""
    if _WARM[0]:
        return
    _WARM[0] = True
    solve_position([int(c) for c in DECK_AMAZONS], [[], [], [], []], dataclasses.replace(rules, max_nodes=10))


def _pass_text(stock: list[int], fh: list[int], actions: np.ndarray, rules: AmazonsRules) -> str:
    """One pass's actions (kernel codes) in the solution notation."""
    cols: list[list[int]] = [[], [], [], []]
    fh = list(fh)
    pos = row = 0
    groups: list[tuple[int, list[str]]] = []
    for a in actions:
        a = int(a)
        if a == DEAL_ACTION:
            if pos == len(stock):
                break
            row += 1
            for q in range(4):
                if pos == len(stock):
                    break
                if rules.skip_completed_columns and fh[q] == 7:
                    continue
                cols[q].append(stock[pos])
                pos += 1
            continue
        q, i = a >> 2, a & 3
        c = cols[q].pop()
        fh[i] += 1
        token = format_card(_card(c))
        if rules.queen_any_column and c % 7 == 6:
            token += f">F{i + 1}"
        if groups and groups[-1][0] == row:
            groups[-1][1].append(token)
        else:
            groups.append((row, [token]))
    return " ".join(f"{r}:{','.join(t)}" for r, t in groups) or "-"


def solve_position(
    stock: list[int], foundations: list[list[int]], rules: AmazonsRules, ws: Workspace | None = None
) -> Solved:
    """Search free play from a start-of-pass position (stock in card codes, foundations card by card).

    A win's solution text is replayed by the reference from this position before it is returned; a refusal
    raises SolverError.
    """
    ws = ws or Workspace()
    params = solver_params(rules)
    stock0 = np.zeros(NCARDS, dtype=np.int64)
    stock0[: len(stock)] = [_code(c) for c in stock]
    fh0 = np.array([len(f) for f in foundations], dtype=np.int64)
    fs0 = np.array([f[0] // 13 if f else 0 for f in foundations], dtype=np.int64)
    t0 = time.perf_counter()
    (
        outcome,
        rounds,
        nodes,
        left,
        done,
        winner,
        wpath,
        wlen,
        recs,
        nrec,
        parent,
        ws.mkeys,
        ws.mstamp,
        ws.gen,
        ws.stats,
    ) = _solve(
        stock0, len(stock), fh0, fs0, params, int(rules.max_nodes), int(rules.max_rounds), ws.mkeys, ws.mstamp, ws.gen
    )
    text = ""
    if outcome == 255:
        raise SolverError("the one-pass win test missed a win that the full expansion found")
    if outcome == WON and rounds > 0:
        chain = [int(winner)]
        while parent[chain[-1]] >= 0:
            chain.append(int(parent[chain[-1]]))
        chain.reverse()
        texts = []
        st = np.zeros(NCARDS, dtype=np.int64)
        fh = np.zeros(4, dtype=np.int64)
        fs = np.zeros(4, dtype=np.int64)
        path = np.zeros(64, dtype=np.int64)
        for a, b in zip(chain, chain[1:] + [None], strict=True):
            n = _unpack_position(recs[a], st, fh, fs)
            if b is None:
                actions = wpath[:wlen]
            else:
                ws.gen += 1
                res, plen, *_rest, ws.mkeys, ws.mstamp = _pass_search(
                    st,
                    n,
                    fh,
                    fs,
                    params,
                    MODE_FIND,
                    recs[b].copy(),
                    a,
                    recs,
                    np.zeros(2, np.uint64),
                    nrec,
                    parent,
                    0,
                    ws.mkeys,
                    ws.mstamp,
                    np.int32(ws.gen),
                    path,
                    np.zeros(WORK_SIZE, np.int64),
                    np.zeros(KEY_WORDS, np.uint64),
                )
                if res != PASS_FOUND:
                    raise SolverError(f"no line of play found from stored position {a} to its child {b}")
                actions = path[:plen]
            texts.append(_pass_text([int(c) for c in st[:n]], [int(x) for x in fh], actions, rules))
        text = " / ".join(texts)
    seconds = time.perf_counter() - t0
    if outcome == WON:
        why = _check_from(stock, foundations, rules, text)
        if why is not None:
            raise SolverError(f"the reference refuses the solver's solution {text!r}: {why}")
    return Solved(
        int(outcome),
        int(rounds),
        int(nodes),
        0 if outcome == WON else int(left),
        4 if outcome == WON else int(done),
        seconds,
        text,
    )


def _check_from(stock: list[int], foundations: list[list[int]], rules: AmazonsRules, text: str) -> str | None:
    if not any(foundations):
        return reference.check_solution(stock, rules, text)
    return reference.check_solution_from(stock, foundations, rules, text)


def solve_deal(deal: np.ndarray, rules: AmazonsRules, ws: Workspace | None = None) -> Solved:
    _warm_up(rules)
    return solve_position([int(c) for c in deal], [[], [], [], []], rules, ws)


def check_solution(deal: np.ndarray, rules: AmazonsRules, text: str) -> str | None:
    """The reference's verdict on a solution text (None: it wins the deal, every play legal)."""
    return reference.check_solution([int(c) for c in deal], rules, text)


def solve_batch(decks: np.ndarray, rules: AmazonsRules, out: dict[str, np.ndarray]) -> None:
    """Search every deal of ``decks`` into the output columns ``out`` (the game's play_batch under solver)."""
    ws = Workspace()
    _warm_up(rules)
    for g in range(decks.shape[0]):
        row = solve_deal(decks[g], rules, ws).row()
        out["outcome"][g] = OUTCOMES.index(row["outcome"])
        for k in (
            "rounds",
            "moves",
            "cards_left",
            "foundations_done",
            "aces_allowed",
            "nodes",
            "seconds",
            "rounds_optimal",
            "solution",
        ):
            out[k][g] = row[k]
