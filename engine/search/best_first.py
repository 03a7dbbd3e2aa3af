"""The best-first search: the guide and the long guide (the same kernel, different room).

Positions wait in a heap ordered by the guide; from SECOND_AT stored positions on, a second heap in the
second order takes turns with it.  Every stored position is expanded once, and ``unsolvable`` needs both
heaps empty, so the search is exhaustive (docs/solvers.md, "Two orders, one table").  In the depth-first
order (ORDER_DEPTH_FIRST) the same kernel is the retry and the probe.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.outcomes import UNSOLVABLE, WON
from engine.search.control import (
    C_BEST,
    C_GEN,
    C_GOALC,
    C_GOALP,
    C_HSIZE,
    C_HSIZE2,
    C_NODES,
    C_NREC,
    C_ORDER,
    C_OUTCOME,
    C_SECOND_AT,
    C_SECOND_ON,
    C_SEEN_GEN,
    C_SINK,
    C_STOP,
    CODE_MASK,
    DEPTH_SHIFT,
    EXPANDED,
    NEED_ROOM,
    ORDER_DEPTH_FIRST,
    RUNNING,
    grow_array,
)
from engine.search.encoding import ORDER_SCRATCH, decode_position, encode_record
from engine.search.expansion import KID_CHUNK, expansion_buffers, prepare_children, store_children
from engine.search.guide import guide_value, key2_waiting
from engine.search.heap import heap_pop, heap_push
from engine.search.moves import gen_moves
from engine.search.position_table import lookup_insert_h, rehash
from engine.search.positions import P_MAXNODES, REC_WORDS, foundation_total
from engine.search.safe_moves import play_safe_moves


@nb.njit(cache=True)
def best_first_start(st0, rel, params, recs, parent, mcode, heap, table, gen, ctl, ref, frame):
    """Close the root under safe moves, store it (as the sweep's record when ``frame`` is not empty), and set
    ctl for :func:`best_first_search` (st0 is modified)."""
    empty_out = np.zeros(0, dtype=np.int64)
    play_safe_moves(st0, rel, params, empty_out, 0)
    best = foundation_total(st0)
    ctl[C_NODES] = 0
    ctl[C_BEST] = best
    ctl[C_GOALP] = -2
    ctl[C_GOALC] = -1
    ctl[C_GEN] = gen
    ctl[C_HSIZE2] = 0
    ctl[C_SECOND_ON] = 0
    if best == 52:
        ctl[C_GOALP] = -1
        ctl[C_OUTCOME] = WON
        ctl[C_NREC] = 0
        ctl[C_HSIZE] = 0
        return
    enc = np.zeros(REC_WORDS, dtype=np.uint64)
    order = np.zeros(ORDER_SCRATCH, dtype=np.int64)
    hv = encode_record(st0, params, enc, order, ref, frame)
    lookup_insert_h(enc, hv, recs, 0, table, gen)
    parent[0] = -1
    mcode[0] = CODE_MASK  # the root's move is never read
    ctl[C_NREC] = 1
    ctl[C_HSIZE] = heap_push(heap, 0, (np.int64(guide_value(st0, rel, params)) << 32) | (0xFFFFFFFF - 0))
    ctl[C_OUTCOME] = RUNNING


@nb.njit(cache=True)
def best_first_search(rel, params, recs, parent, mcode, heap, heap2, table, ctl, seen):
    """Best-first search from the state in ctl until it is decided or ctl[C_NODES] reaches ctl[C_STOP].

    ctl[C_OUTCOME] becomes WON, UNSOLVABLE (heaps empty: every reachable position expanded) or UNKNOWN
    (max_nodes stored and a new one found), or stays RUNNING (paused; call again to go on).  Returns the work
    arrays, which may have grown.
    """
    max_nodes = params[P_MAXNODES]
    empty_out, mv, order, cur, kids, encs, codes, kinds, hashes = expansion_buffers()
    sink = np.uint64(0)
    hsize = ctl[C_HSIZE]
    hsize2 = ctl[C_HSIZE2]
    nrec = ctl[C_NREC]
    nodes = ctl[C_NODES]
    best = ctl[C_BEST]
    gen = ctl[C_GEN]
    stamp = ctl[C_SEEN_GEN]
    depth_first = ctl[C_ORDER] == ORDER_DEPTH_FIRST
    stop = ctl[C_STOP]
    second_at = ctl[C_SECOND_AT]
    second = ctl[C_SECOND_ON] != 0
    outcome = RUNNING
    while outcome == RUNNING:
        if nodes >= stop:
            break
        if not second and second_at > 0 and nrec >= second_at and not depth_first:
            # start the second order: every position waiting in the first heap waits in the second too, as
            # not novel, in the guide's order, ahead of the positions stored later that are not novel either
            if heap2.shape[0] < recs.shape[0]:
                heap2 = np.empty(recs.shape[0], dtype=np.int64)
            hsize2 = 0
            for t in range(hsize):
                k = heap[t]
                hsize2 = heap_push(heap2, hsize2, key2_waiting(k >> 32, 0xFFFFFFFF - (k & 0xFFFFFFFF)))
            second = True
        # take turns; a position already expanded through the other heap is skipped
        idx = -1
        use2 = second and (nodes & 1) == 1
        while idx < 0 and (hsize > 0 or hsize2 > 0):
            if (use2 and hsize2 > 0) or hsize == 0:
                key, hsize2 = heap_pop(heap2, hsize2)
            else:
                key, hsize = heap_pop(heap, hsize)
            e = 0xFFFFFFFF - (key & 0xFFFFFFFF)
            if (mcode[e] & EXPANDED) == 0:
                idx = e
        if idx < 0:
            outcome = UNSOLVABLE
            break
        mcode[idx] |= EXPANDED
        decode_position(recs[idx], params, cur)
        nodes += 1
        dchild = (np.int64(mcode[idx]) >> DEPTH_SHIFT) + 1
        nm = gen_moves(cur, rel, params, mv)
        for q0 in range(0, nm, KID_CHUNK):
            q1 = min(nm, q0 + KID_CHUNK)
            # every child of the chunk closed and encoded first, its table slot read at once: the cache misses
            # of the children's probes then overlap instead of coming one after another
            f, won, touched = prepare_children(
                cur,
                mv,
                q0,
                q1,
                kids,
                encs,
                hashes,
                codes,
                kinds,
                depth_first,
                rel,
                params,
                order,
                table,
                empty_out,
                cur,
                empty_out,
            )
            sink ^= touched
            best = max(best, f)
            if won >= 0:
                ctl[C_GOALP] = idx
                ctl[C_GOALC] = codes[won - q0]
                outcome = WON
                break
            q = q0
            while q < q1:  # stored by a leaf kernel, which stops where an array needs room (grown here)
                q, nrec, hsize, hsize2, outcome = store_children(
                    q,
                    q0,
                    q1,
                    idx,
                    dchild,
                    nrec,
                    hsize,
                    hsize2,
                    gen,
                    stamp,
                    depth_first,
                    second,
                    kids,
                    encs,
                    hashes,
                    codes,
                    kinds,
                    rel,
                    params,
                    recs,
                    parent,
                    mcode,
                    heap,
                    heap2,
                    table,
                    seen,
                )
                if outcome != NEED_ROOM:
                    break
                outcome = RUNNING
                if nrec >= recs.shape[0] or nrec >= parent.shape[0]:  # recs may be larger (the sweep's)
                    cap = min(2 * nrec, max_nodes)
                    if nrec >= recs.shape[0]:
                        recs = grow_array(recs, nrec, cap)
                    if nrec >= parent.shape[0]:  # made together with mcode and the heap
                        parent = grow_array(parent, nrec, cap)
                        mcode = grow_array(mcode, nrec, cap)
                        heap = grow_array(heap, hsize, cap)
                if second and nrec >= heap2.shape[0]:
                    heap2 = grow_array(heap2, hsize2, min(2 * nrec, max_nodes))
                if 2 * (nrec + 1) > table.shape[0]:
                    table = rehash(recs, nrec, table.shape[0] * 2, 1)
                    gen = 1
            if outcome != RUNNING:
                break
    ctl[C_HSIZE] = hsize
    ctl[C_HSIZE2] = hsize2
    ctl[C_SECOND_ON] = 1 if second else 0
    ctl[C_NREC] = nrec
    ctl[C_NODES] = nodes
    ctl[C_BEST] = best
    ctl[C_GEN] = gen
    ctl[C_OUTCOME] = outcome
    ctl[C_SINK] = np.int64(sink & np.uint64(1))
    return recs, parent, mcode, heap, heap2, table
