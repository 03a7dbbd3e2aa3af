"""The depth-first searches of one line at a time: the streamlined, colour and line searches.

One kernel keeps the current line as a stack of positions and their untried moves.  With streamliners
(``P_EAGER``: every ready card up at once; ``P_SUITS``: positions told apart by colour and rank only) its
wins count but its running out proves nothing (docs/solvers.md, "The streamlined search", "The colour
search").  With ``P_LINE`` and no streamliner it is the line search: moves in Solvitaire's order, the line
kept as 48-byte records, exhaustive (docs/solvers.md, "The line search").
"""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.search.control import (
    C_BEST,
    C_DEPTH,
    C_GEN,
    C_NODES,
    C_NREC,
    C_OUTCOME,
    C_STOP,
    NEED_ROOM,
    RUNNING,
    grow_array,
)
from engine.search.encoding import decode_position, encode_position
from engine.search.expansion import expansion_buffers
from engine.search.guide import move_kind
from engine.search.leaf import leaf_kernel
from engine.search.moves import apply_move, gen_moves
from engine.search.position_table import big_table_full, find_h, lookup_insert_h, rehash, words_hash
from engine.search.positions import (
    DST_CELL,
    DST_FND,
    DST_SHIFT,
    MAXCELLS,
    MAXCOLS,
    NOCARD,
    O_CELL,
    O_LEN,
    P_LINE,
    P_MAXNODES,
    P_NCELLS,
    P_NCOLS,
    P_RESERVE,
    P_SUITS,
    POS_SHIFT,
    REC_WORDS,
    SRC_CELL,
    SRC_MASK,
    STATE_SIZE,
    STATE_WORDS,
    WIDTH,
    WORRY_MOVE,
    foundation_total,
    is_red,
)
from engine.search.safe_moves import play_safe_moves

DFS_DEPTH, DFS_MOVES = 1 << 17, 1 << 23  # the longest line it follows, and the moves waiting along it

LINE_DEPTH, LINE_MOVES = 1 << 22, 1 << 25


@nb.njit(cache=True, inline="always")
def by_colour(st, params, red):
    """Position st with every card replaced by its colour and rank (black 0..12, red 13..25), into red: the
    streamlined search's key (docs/solvers.md, "The streamlined search"); foundations are left out."""
    w, v = st.view(np.uint64), red.view(np.uint64)
    for t in range(STATE_WORDS):
        v[t] = w[t]
    for i in range(params[P_NCOLS]):
        for p in range(np.int64(st[O_LEN + i])):
            c = st[i * WIDTH + p]
            red[i * WIDTH + p] = 13 * np.uint8(is_red(c)) + c % 13
    for j in range(params[P_NCELLS]):
        c = st[O_CELL + j]
        if c != NOCARD:
            red[O_CELL + j] = 13 * np.uint8(is_red(c)) + c % 13


@nb.njit(cache=True, inline="always")
def _dfs_key(st, params, red, enc, order):
    """The streamlined search's table key of position st, into enc (words): its canonical record (encode_position),
    of its cards' colours and ranks only under P_SUITS (red is scratch)."""
    if params[P_SUITS] != 0:
        by_colour(st, params, red)
        encode_position(red, params, enc, order)
    else:
        encode_position(st, params, enc, order)


@leaf_kernel
def _dfs_push_moves(st, rel, params, mv, smv, top):
    """The moves of position st onto the move stack smv from ``top``, by kind (move_kind: to a foundation,
    out of a cell, onto a card, into an empty column, into a cell, played back), each kind in the order made;
    returns the new top, or -1 if the stack is full."""
    nm = gen_moves(st, rel, params, mv)
    if top + nm > smv.shape[0]:
        return np.int64(-1)
    for kind in range(6):
        for q in range(nm):
            if move_kind(mv[q], st) == kind:
                smv[top] = mv[q]
                top += 1
    return top


@nb.njit(cache=True, inline="always")
def _pile_above(st, j, i):
    """Does column j come before column i in Solvitaire's order of piles: the longer first, then by their cards
    from the bottom, the higher first (identical columns, which only empty ones can be, by index)?"""
    a, b = st[O_LEN + j], st[O_LEN + i]
    if a != b:
        return a > b
    for p in range(np.int64(a)):
        x, y = st[j * WIDTH + p], st[i * WIDTH + p]
        if x != y:
            return x > y
    return j < i


@nb.njit(cache=True, inline="always")
def _cell_above(st, j, i):
    """Does cell j come before cell i in Solvitaire's order: the higher card first, the empty cells last?"""
    x, y = st[O_CELL + j], st[O_CELL + i]
    xv = np.int64(-1) if x == NOCARD else np.int64(x)
    yv = np.int64(-1) if y == NOCARD else np.int64(y)
    return xv > yv or (xv == yv and j < i)


@nb.njit(cache=True, inline="always")
def _line_rank(m, st, pos, cpos, last, reserve):
    """The rank at which Solvitaire generates move m from position st (it tries the last generated first), or
    -1 for a move the line search leaves out: the card moved last, if no safe move followed, is neither sent to
    a cell or a foundation nor taken out of the cell it entered (docs/solvers.md, "The line search").

    Solvitaire's order (game_state.legal_moves.cpp), with piles and cells in its order (pos, cpos: 0 first):
    column to cell; foundation card played back (by suit, then target); reserve to column; column to column (by
    source, then target); cell to column (by cell, then target); to a foundation (the columns, then the cells
    or the reserve)."""
    big = np.int64(1) << 12
    if (m & WORRY_MOVE) != 0:
        return big // 2 + (m & 15) * 16 + pos[(m >> 8) & 255]
    src = m & SRC_MASK
    dst = m >> DST_SHIFT
    if src >= SRC_CELL:
        if st[O_CELL + src - SRC_CELL] == last:
            return np.int64(-1)
        if dst == DST_FND:
            return 3 * big + 16 + cpos[src - SRC_CELL]
        if reserve:
            return 3 * big // 4 + cpos[src - SRC_CELL] * 16 + pos[dst]
        return 2 * big + cpos[src - SRC_CELL] * 16 + pos[dst]
    card = st[src * WIDTH + ((m >> POS_SHIFT) & 63)]
    if dst == DST_FND:
        return np.int64(-1) if card == last else 3 * big + pos[src]
    if dst == DST_CELL:
        return np.int64(-1) if card == last else pos[src]
    return big + pos[src] * 16 + pos[dst]


@leaf_kernel
def _line_push_moves(st, rel, params, mv, smv, top, last, pos, cpos, keys):
    """The line search's moves of position st onto the move stack smv from ``top``, the one to try first at
    the top (_line_rank: Solvitaire's order reversed), the left-out ones dropped; returns the new top, or -1 if
    the stack is full.  pos (MAXCOLS), cpos (MAXCELLS) and keys (as long as mv) are scratch."""
    nm = gen_moves(st, rel, params, mv)
    if top + nm > smv.shape[0]:
        return np.int64(-1)
    for i in range(params[P_NCOLS]):
        pos[i] = 0
        for j in range(params[P_NCOLS]):
            if j != i and _pile_above(st, j, i):
                pos[i] += 1
    for i in range(params[P_NCELLS]):
        cpos[i] = 0
        for j in range(params[P_NCELLS]):
            if j != i and _cell_above(st, j, i):
                cpos[i] += 1
    n = 0
    for q in range(nm):
        r = _line_rank(mv[q], st, pos, cpos, last, params[P_RESERVE] != 0)
        if r >= 0:
            mv[n] = mv[q]
            keys[n] = r
            n += 1
    for a in range(1, n):  # by rank, the highest first; equal ranks keep the order made
        k, m = keys[a], mv[a]
        b = a - 1
        while b >= 0 and keys[b] < k:
            keys[b + 1] = keys[b]
            mv[b + 1] = mv[b]
            b -= 1
        keys[b + 1] = k
        mv[b + 1] = m
    for q in range(n):
        smv[top + q] = mv[q]
    return top + n


@nb.njit(cache=True)
def depth_first_search(rel, params, recs, table, sst, smv, sbase, snext, scode, ctl):
    """The streamlined search (docs/solvers.md): depth first, one line at a time, as Solvitaire searches.

    sst[d] is the position at depth d of the line being followed (sst[0] the root, closed), its untried moves
    smv[snext[d]:sbase[d + 1]], and scode[d] the move made from it.  A position enters the table when the line first
    reaches it (not when it is generated, as in :func:`best_first_search`), so a move not yet tried from one
    position may still be followed when the line meets its position deeper down.  Runs until decided or ctl[C_NODES]
    reaches ctl[C_STOP]: WON (the line is scode[0..ctl[C_DEPTH]]), UNSOLVABLE (every move of the root tried: with
    P_EAGER or P_SUITS this proves nothing, and the caller says unknown), UNKNOWN (max_nodes positions visited and a
    new one met, or the line or the move stack full).  The line is followed by a leaf kernel
    (:func:`depth_first_run`); the records and the table grow here when it asks, and are returned.
    """
    empty_out, mv, order, cur, kids, encs, codes, kinds, hashes = expansion_buffers()
    red = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
    par = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
    pos = np.zeros(MAXCOLS, dtype=np.int64)
    cpos = np.zeros(MAXCELLS, dtype=np.int64)
    keys = np.zeros(mv.shape[0], dtype=np.int64)
    max_nodes = params[P_MAXNODES]
    while True:
        outcome = depth_first_run(
            rel,
            params,
            recs,
            table,
            sst,
            smv,
            sbase,
            snext,
            scode,
            ctl,
            empty_out,
            mv,
            order,
            cur,
            par,
            red,
            encs[0],
            pos,
            cpos,
            keys,
        )
        if outcome != NEED_ROOM:
            break
        nrec = ctl[C_NREC]
        if nrec >= recs.shape[0]:
            recs = grow_array(recs, nrec, min(2 * nrec, max_nodes))
        if big_table_full(nrec, table.shape[0]):
            table = rehash(recs, nrec, table.shape[0] * 2, 1)
            ctl[C_GEN] = 1
    ctl[C_OUTCOME] = outcome
    return recs, table


@leaf_kernel
def depth_first_run(
    rel,
    params,
    recs,
    table,
    sst,
    smv,
    sbase,
    snext,
    scode,
    ctl,
    empty_out,
    mv,
    order,
    cur,
    par,
    red,
    enc,
    pos,
    cpos,
    keys,
):
    """:func:`depth_first_search`'s line, followed from the state in ctl; returns the outcome, or NEED_ROOM (the
    move being
    tried is put back) when the records or the table must grow before a new position goes in.  The rest are
    scratch: cur and par two positions, red one (_dfs_key), enc a record (words), pos, cpos and keys
    _line_push_moves'."""
    max_nodes = params[P_MAXNODES]
    sst_w, par_w, cur_w = sst.view(np.uint64), par.view(np.uint64), cur.view(np.uint64)  # once, not a node
    line = params[P_LINE] != 0
    par_at = np.int64(-1)  # the line search's position at depth par_at, decoded into par
    depth = ctl[C_DEPTH]
    nrec = ctl[C_NREC]
    nodes = ctl[C_NODES]
    best = ctl[C_BEST]
    gen = ctl[C_GEN]
    stop = ctl[C_STOP]
    outcome = RUNNING
    while True:
        if nodes >= stop:
            break
        if snext[depth] == sbase[depth + 1]:  # every move from here tried
            if depth == 0:
                outcome = UNSOLVABLE
                break
            depth -= 1
            continue
        m = smv[snext[depth]]
        snext[depth] += 1
        if depth + 2 >= sst.shape[0]:
            outcome = UNKNOWN
            break
        if line:  # the line holds records: the position is decoded (in canonical order, as its moves were made)
            if par_at != depth:
                decode_position(sst_w[depth], params, par)
                par_at = depth
            ch = cur
            for t in range(STATE_WORDS):
                cur_w[t] = par_w[t]
        else:
            ch = sst[depth + 1]
            for t in range(STATE_WORDS):
                sst_w[depth + 1, t] = sst_w[depth, t]
        code = apply_move(ch, m, params)
        nauto = play_safe_moves(ch, rel, params, empty_out, 0)
        f = foundation_total(ch)
        best = max(best, f)
        scode[depth] = code
        if f == 52:
            outcome = WON
            break
        _dfs_key(ch, params, red, enc, order)
        w = enc
        hv = words_hash(w, REC_WORDS)
        if find_h(w, hv, recs, table, gen)[1] >= 0:
            continue  # visited: its line was followed from there
        if nrec >= max_nodes:
            outcome = UNKNOWN
            break
        if nrec >= recs.shape[0] or big_table_full(nrec, table.shape[0]):
            snext[depth] -= 1  # tried again once there is room
            outcome = NEED_ROOM
            break
        lookup_insert_h(w, hv, recs, nrec, table, gen)
        nrec += 1
        nodes += 1
        if line:
            for t in range(REC_WORDS):
                sst_w[depth + 1, t] = enc[t]
            decode_position(sst_w[depth + 1], params, ch)
            last = np.int64(-1) if nauto > 0 or (m & WORRY_MOVE) != 0 else code // 64
            top = _line_push_moves(ch, rel, params, mv, smv, sbase[depth + 1], last, pos, cpos, keys)
            par, cur = cur, par  # the child, decoded, is the next position the line expands
            par_w, cur_w = cur_w, par_w
            par_at = depth + 1
        else:
            top = _dfs_push_moves(ch, rel, params, mv, smv, sbase[depth + 1])
        if top < 0:
            outcome = UNKNOWN
            break
        depth += 1
        snext[depth] = sbase[depth]
        sbase[depth + 1] = top
    ctl[C_DEPTH] = depth
    ctl[C_NREC] = nrec
    ctl[C_NODES] = nodes
    ctl[C_BEST] = best
    ctl[C_GEN] = gen
    return outcome


@nb.njit(cache=True)
def depth_first_start(st0, rel, params, recs, table, gen, sst, smv, sbase, snext, ctl):
    """Close the root (as sst[0]), store it and push its moves: ctl set for :func:`depth_first_search`."""
    empty_out = np.zeros(0, dtype=np.int64)
    line = params[P_LINE] != 0
    if line:  # the line holds records (depth_first_search): the root is closed and decoded in a position of its own
        st0 = st0.copy()
    else:
        sst[0, :STATE_SIZE] = st0[:STATE_SIZE]
        st0 = sst[0]
    play_safe_moves(st0, rel, params, empty_out, 0)
    ctl[C_NODES] = 0
    ctl[C_BEST] = foundation_total(st0)
    ctl[C_GEN] = gen
    ctl[C_DEPTH] = 0
    ctl[C_NREC] = 0
    ctl[C_OUTCOME] = RUNNING
    if ctl[C_BEST] == 52:
        ctl[C_OUTCOME] = WON
        ctl[C_DEPTH] = -1  # the line is empty
        return
    red = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
    enc = np.zeros(REC_WORDS, dtype=np.uint64)
    order = np.zeros(MAXCOLS, dtype=np.int64)
    _dfs_key(st0, params, red, enc, order)
    lookup_insert_h(enc, words_hash(enc, REC_WORDS), recs, 0, table, gen)
    ctl[C_NREC] = 1
    ctl[C_NODES] = 1
    mv = np.zeros(2048, dtype=np.int64)
    sbase[0] = 0
    snext[0] = 0
    if line:
        sst_w = sst.view(np.uint64)
        sst_w[0, :] = enc
        ch = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
        decode_position(sst_w[0], params, ch)
        sbase[1] = _line_push_moves(
            ch,
            rel,
            params,
            mv,
            smv,
            np.int64(0),  # typed as the call in the loop types them: one compiled version, not two
            np.int64(-1),
            np.zeros(MAXCOLS, dtype=np.int64),
            np.zeros(MAXCELLS, dtype=np.int64),
            np.zeros(mv.shape[0], dtype=np.int64),
        )
    else:
        sbase[1] = _dfs_push_moves(st0, rel, params, mv, smv, 0)
