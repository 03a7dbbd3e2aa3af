"""Winning lines: read back from the tables, replayed with their safe moves, and shortened.

``solution_line`` follows parent links from a goal to the root; ``replay_line`` turns a kernel's moves into
the full line with the safe moves the closure made; ``shortcut_line`` removes the detours a depth-first line
keeps (docs/solvers.md, "Short lines").  Every line is replayed by the reference before it is reported.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.search.control import CODE_MASK
from engine.search.encoding import encode_position
from engine.search.moves import apply_code, apply_move, gen_moves
from engine.search.position_table import find_h, lookup_insert_h, words_hash
from engine.search.positions import MAXCOLS, REC_WORDS, STATE_SIZE, STATE_WORDS
from engine.search.safe_moves import play_safe_moves


@nb.njit(cache=True)
def solution_line(start, rel, params, parent, mcode, goal_parent, goal_code):
    """The winning line from position ``start`` (as given, before safe moves), safe moves included."""
    plen = 0 if goal_parent == -1 else 1
    e = goal_parent
    while e > 0:
        plen += 1
        e = parent[e]
    path = np.zeros(plen, dtype=np.int64)
    if goal_parent != -1:
        path[plen - 1] = goal_code
        e = goal_parent
        k = plen - 2
        while e > 0:
            path[k] = mcode[e] & CODE_MASK
            k -= 1
            e = parent[e]
    return replay_line(start, rel, params, path)


@nb.njit(cache=True)
def replay_line(start, rel, params, path):
    """The line that plays the codes ``path`` from ``start`` (as given, before safe moves), with the safe moves
    the search made after each (under ``params``: every ready card, in the streamlined search) put in."""
    plen = path.shape[0]
    out = np.zeros(plen + 64, dtype=np.int64)  # at most 52 safe moves in all
    rs = start.copy()
    nout = play_safe_moves(rs, rel, params, out, 0)
    for k in range(plen):
        apply_code(rs, path[k], params)
        out[nout] = path[k]
        nout += 1
        nout = play_safe_moves(rs, rel, params, out, nout)
    return out[:nout].copy()


@nb.njit(cache=True)
def shortcut_line(start, rel, params, codes):
    """A winning line from ``start`` never longer than ``codes`` (a line as :func:`solution_line` gives it): from
    each closed position of the line, a move that reaches, with its safe moves, a position further along
    (the same up to the order of columns and cells) replaces the codes in between (docs/solvers.md, "Short
    lines").  Codes name cards, so the rest of the line plays on from the position reached."""
    n = codes.shape[0]
    recs = np.zeros((n + 1, REC_WORDS), dtype=np.uint64)
    last = np.zeros(n + 1, dtype=np.int64)  # record -> the last line position that is this position
    tsize = 16
    while tsize < 4 * (n + 1):
        tsize *= 2
    table = np.zeros(tsize, dtype=np.uint64)
    enc = np.zeros(REC_WORDS, dtype=np.uint64)
    order = np.zeros(MAXCOLS, dtype=np.int64)
    ps = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
    ps[:STATE_SIZE] = start[:STATE_SIZE]
    nrec = 0
    for k in range(n + 1):
        encode_position(ps, params, enc, order)
        e, inserted = lookup_insert_h(enc, words_hash(enc, REC_WORDS), recs, nrec, table, 1)
        if inserted:
            nrec += 1
        last[e] = k
        if k < n:
            apply_code(ps, codes[k], params)
    empty_out = np.zeros(0, dtype=np.int64)
    mv = np.zeros(2048, dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    nout = 0
    ps[:STATE_SIZE] = start[:STATE_SIZE]
    ch = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
    i = 0
    while i < n:
        best_j, best_q = i + 1, -1
        ch[:] = ps
        if play_safe_moves(ch, rel, params, empty_out, 0) == 0:  # closed: no safe move pending
            nm = gen_moves(ps, rel, params, mv)
            for q in range(nm):
                ch[:] = ps
                apply_move(ch, mv[q], params)
                k = play_safe_moves(ch, rel, params, empty_out, 0)
                encode_position(ch, params, enc, order)
                e = find_h(enc, words_hash(enc, REC_WORDS), recs, table, 1)[1]
                if e >= 0 and last[e] - i > 1 + k and last[e] > best_j:
                    best_j, best_q = last[e], q
        if best_q >= 0:  # the move, then its safe moves, as the line's codes
            out[nout] = apply_move(ps, mv[best_q], params)
            nout = play_safe_moves(ps, rel, params, out, nout + 1)
        else:
            apply_code(ps, codes[i], params)
            out[nout] = codes[i]
            nout += 1
        i = best_j
    return out[:nout].copy()
