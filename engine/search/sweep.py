"""The sweep: an exhaustive search by layers that no move goes back to, forgetting each finished layer.

Cards that are up stay up and a blocked card stays blocked, so the positions fall into layers by cards up and
cards no longer blocked; a layer once expanded is never reached again and its records are freed.  Where
every move in a layer undoes (``frees_levels``), levels inside a layer are freed too.  Waiting positions may
go to disk in sorted runs (engine/search/sweep_runs.py).  Proofs and measurements: docs/solvers.md, "The
sweep", "The sweep's records", "The sweep's runs".
"""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.search.control import (
    C_BEST,
    C_DONE,
    C_DONE_HERE,
    C_FREE,
    C_GEN,
    C_GOALC,
    C_GOALP,
    C_HIGH,
    C_HSIZE,
    C_LAYER,
    C_LBASE,
    C_NODES,
    C_NREC,
    C_OUTCOME,
    C_QEND,
    C_QHEAD,
    C_QLEV,
    C_QPREV,
    C_QTAIL,
    C_RUNMIN,
    C_SINK,
    C_SPILL,
    C_STOP,
    C_TOTAL,
    C_WANT,
    NEED_ROOM,
    RUNNING,
    grow_array,
)
from engine.search.encoding import decode_frame
from engine.search.expansion import KID_CHUNK, expansion_buffers, prepare_children
from engine.search.heap import index_heap_pop, index_heap_push
from engine.search.leaf import leaf_kernel
from engine.search.moves import accepts, gen_moves
from engine.search.position_table import GEN_MAX, big_table_full, find_h, lookup_insert_h, reinsert, words_hash
from engine.search.positions import O_FND, O_LEN, P_FRONTIER, P_NCOLS, P_WORRY, WIDTH, foundation_total
from engine.search.sweep_runs import NONE_WAITING

# The sweep's budget (docs/solvers.md, "The sweep"): at most SWEEP_LIVE x max_nodes positions held at once, at
# most SWEEP_TOTAL x max_nodes stored in all (each costs one expansion), every one with its parent link and move
# (8 bytes), SWEEP_LINK_BUFFER of them in memory, written out to a temporary file each time they fill it.
# 6 columns deal 279 (seed 99): unsolvable with 38.1 M live at most (sampled); unknown at 3 x 10^7; 3004 is won
# with 51.0 M live at most (sampled every 10^6 expansions: at most 52.0 M).  5.3 x 10^7 is what 2^26 slots hold
# at four fifths, and with 24-byte records (docs/solvers.md, "The sweep's records") the process's peak stays
# near 3 GiB.  A fraction: the room is int(SWEEP_LIVE x max_nodes).
SWEEP_LIVE = 5.3

SWEEP_LINK_BUFFER = 1 << 22  # 32 MiB of links; 2.5 x 10^8 positions write 2 GB to the file

SPILL_SHARE = 4
SPILL_KEEP = 4
SWEEP_LOAD_SHARE = 8
WANT_SPILL, WANT_LOAD = 1, 2  # ctl[C_WANT]: the sweep kernel returned for its waiting positions to go out, come in


def sweep_room(max_nodes: int) -> int:
    """The most live positions the sweep may hold at once under a budget of ``max_nodes``."""
    return max(1, int(SWEEP_LIVE * max_nodes))  # at least the root's


@leaf_kernel
def sweep_layer(st, rel, params):
    """The sweep's layer of position st (docs/solvers.md, "The sweep"): with u its cards up that can never come
    back (all of them, or under worrying back those of rank at most one above the lowest foundation) and S the
    set of the cards that are not blocked (a card is blocked when it lies on a card it could not be built on),
    (u + |S|) x 2^52 plus S as 52 bits.  No move the search makes lowers it."""
    blocked = np.int64(0)
    nblocked = np.int64(0)
    for i in range(params[P_NCOLS]):
        base = i * WIDTH
        for p in range(1, np.int64(st[O_LEN + i])):
            x = st[base + p]
            if not accepts(x, st[base + p - 1], rel, params):
                blocked |= np.int64(1) << np.int64(x)
                nblocked += 1
    up = np.int64(foundation_total(st))
    if params[P_WORRY] != 0:
        m = np.int64(min(min(st[O_FND], st[O_FND + 1]), min(st[O_FND + 2], st[O_FND + 3])))
        up = 0
        for s in range(4):
            up += min(np.int64(st[O_FND + s]), m + 1)
    return ((up + 52 - nblocked) << 52) | (((np.int64(1) << 52) - 1) ^ blocked)


@leaf_kernel
def sweep_drop(recs, lay, high, layer, table, gen, free):
    """Free every live record below ``layer`` (all expanded, none can be met again: the finished layers' and
    the levels of this one marked 0 by the sweep): each is marked (lay -1) and
    put on the free list threaded through its first word (the next free record + 1); the table is stamped anew
    with the records left.  Returns (records freed, the table's generation, the free list's head)."""
    freed = 0
    for e in range(high):
        u = lay[e]
        if 0 <= u < layer:
            lay[e] = -1
            recs[e, 0] = np.uint64(free + 1)
            free = e
            freed += 1
    gen += 1
    if gen > GEN_MAX:
        table[:] = 0
        gen = 1
    reinsert(recs, high, table, gen, lay)
    return freed, gen, free


@leaf_kernel
def sweep_store(
    q,
    q0,
    q1,
    pid,
    nlive,
    high,
    free,
    hsize,
    done,
    done_here,
    ntotal,
    gen,
    layer,
    max_live,
    total_cap,
    lbase,
    qprev,
    qtail,
    kids,
    encs,
    hashes,
    codes,
    rel,
    params,
    recs,
    lay,
    rid,
    heap,
    fifo,
    parent,
    code,
    table,
):
    """:func:`sweep_search`'s storing of children q..q1-1 of position number pid (prepared by prepare_children), the
    new ones into a free record or the next one, each to the end of the layer's queue (``fifo``, a ring from
    qprev to qtail) when it is in the layer being expanded, else to the heap; each keeps its number among all
    the positions stored (``rid``), and its parent's number and move go to the links (``parent``, ``code``) at its
    number less ``lbase``, the links written out before.  Returns (the next child, nlive, high,
    free, hsize, done, ntotal, gen, qtail, outcome): outcome UNKNOWN when a new child finds no room, NEED_ROOM
    when an array or the table must grow before child q is stored (the caller grows it and calls again from q),
    else RUNNING."""
    while q < q1:
        w = encs[q - q0]
        hv = hashes[q - q0]
        if nlive >= max_live and done > done_here:  # make room: free the finished layers now
            freed, gen, free = sweep_drop(recs, lay, high, layer, table, gen, free)
            nlive -= freed
            done = done_here
        if nlive >= max_live or ntotal >= total_cap:
            if find_h(w, hv, recs, table, gen)[1] < 0:  # new: it needs room there is not
                return q, nlive, high, free, hsize, done, ntotal, gen, qtail, UNKNOWN
            q += 1
            continue
        if (
            (free < 0 and (high >= recs.shape[0] or high >= lay.shape[0]))
            or ntotal - lbase >= parent.shape[0]
            or big_table_full(nlive, table.shape[0])
            or qtail - qprev >= fifo.shape[0]
        ):
            return q, nlive, high, free, hsize, done, ntotal, gen, qtail, NEED_ROOM
        slot, after = high, free  # a free record if there is one (its next read before it is written)
        if free >= 0:
            slot, after = free, np.int64(recs[free, 0]) - 1
        if lookup_insert_h(w, hv, recs, slot, table, gen)[1]:
            if slot == high:
                high += 1
            free = after
            lay[slot] = sweep_layer(kids[q - q0], rel, params)
            rid[slot] = ntotal
            parent[ntotal - lbase] = pid
            code[ntotal - lbase] = codes[q - q0]
            if lay[slot] == layer:  # the next level of the layer being expanded
                fifo[qtail % fifo.shape[0]] = slot
                qtail += 1
            else:
                hsize = index_heap_push(heap, hsize, lay, slot)
            nlive += 1
            ntotal += 1
        q += 1
    return q, nlive, high, free, hsize, done, ntotal, gen, qtail, RUNNING


@leaf_kernel
def sweep_load(keys, rids, inrecs, recs, lay, rid, heap, hsize, table, gen, free, high, nlive):
    """Positions read back from the sweep's runs (docs/solvers.md, "The sweep's runs") into free records or the
    next ones, each to the heap with its layer key and number, but for those already live (a copy met again after
    it went out, or in two runs): those are merged, the record in memory kept.  The arrays and the table must
    have room for all of them.  Returns (hsize, free, high, nlive)."""
    for i in range(keys.shape[0]):
        w = inrecs[i]
        slot, after = high, free
        if free >= 0:
            slot, after = free, np.int64(recs[free, 0]) - 1
        if lookup_insert_h(w, words_hash(w, recs.shape[1]), recs, slot, table, gen)[1]:
            if slot == high:
                high += 1
            free = after
            lay[slot] = keys[i]
            rid[slot] = rids[i]
            hsize = index_heap_push(heap, hsize, lay, slot)
            nlive += 1
    return hsize, free, high, nlive


@leaf_kernel
def level_cut(heap, h, lay, keep, counts):
    """The least layer key of the level (key >> 52, u + |S|, below 128) of the (h // keep)-th least entry of
    the sweep's heap ``heap[:h]`` (``counts``: int64[128], scratch): where a run starts (docs/solvers.md, "The
    sweep's runs").  By level, so that no key is copied to choose it."""
    counts[:] = 0
    for i in range(h):
        counts[lay[heap[i]] >> 52] += 1
    c, seen = 0, counts[0]
    while seen <= h // keep:
        c += 1
        seen += counts[c]
    return np.int64(c) << 52


@leaf_kernel
def split_at(heap, h, lay, cut):
    """Reorder ``heap[:h]`` in place: the entries with keys below ``cut`` first; returns how many they are."""
    k = 0
    for i in range(h):
        e = heap[i]
        if lay[e] < cut:
            heap[i] = heap[k]
            heap[k] = e
            k += 1
    return k


@leaf_kernel
def keys_of(idx, lay, keys):
    """``keys[i] = lay[idx[i]]``, without numpy's temporary index array."""
    for i in range(idx.shape[0]):
        keys[i] = lay[idx[i]]


@leaf_kernel
def mark(idx, lay, value):
    """``lay[idx[i]] = value`` for every i, without numpy's temporary index array."""
    for i in range(idx.shape[0]):
        lay[idx[i]] = value


@nb.njit(cache=True)
def _grow_ring(fifo, lo, hi):
    """The ring ``fifo`` (entry c at c mod its size) with entries lo..hi-1 kept, in a ring twice as large."""
    b = np.empty(2 * fifo.shape[0], dtype=fifo.dtype)
    for c in range(lo, hi):
        b[c % b.shape[0]] = fifo[c % fifo.shape[0]]
    return b


@nb.njit(cache=True)
def sweep_search(
    rel, params, recs, lay, rid, heap, fifo, parent, code, table, ctl, max_live, total_cap, flush_at, ref, frame
):
    """The sweep (docs/solvers.md, "The sweep") from the state in ctl until it is decided, ctl[C_NODES] reaches
    ctl[C_STOP], or the links in memory reach ``flush_at`` (the caller writes them out: :meth:`Workspace.spill`).

    Records 0..ctl[C_HIGH]-1 hold the live positions and the free ones (``lay``: each one's layer, -1 when free;
    ``rid``: its number among all the positions stored, which numbers its link, parent's number and move: in
    ``parent`` and ``code`` at that number less ctl[C_LBASE], the links already written out).  The live records
    not yet expanded wait in the layer's queue (``fifo``, a ring: level d - 1 from ctl[C_QPREV], d from
    ctl[C_QLEV], the next to expand at ctl[C_QHEAD], d + 1 from ctl[C_QEND] to ctl[C_QTAIL]) when they are in
    the layer being expanded (ctl[C_LAYER]), else in ``heap`` by layer, then record number.  Once the queue is
    empty, every record expanded so far is in a finished layer, and with P_FRONTIER so is level d - 1 once
    level d is expanded (marked with layer 0); they are freed (``sweep_drop``, a pass over the records and the
    table) when they are at least half the live ones, or when a new position needs their room.  UNSOLVABLE when
    the queue and the heap are empty; UNKNOWN when a new position
    would make more than ``max_live`` live (after freeing what can be freed) or ``total_cap`` stored in all.
    With the runs on (ctl[C_SPILL] > 0, the room kept free), it returns with ctl[C_WANT] set instead: WANT_SPILL
    when the room is nearly full and the heap holds enough to write out, WANT_LOAD at a layer's end when the
    least layer on disk (ctl[C_RUNMIN]) is due (docs/solvers.md, "The sweep's runs"; the caller does either
    and calls again).
    The records are told relative
    to the root ``ref`` through ``frame`` (:func:`sweep_frame`; docs/solvers.md, "The sweep's records").
    Returns the work arrays, which may have grown.
    """
    empty_out, mv, order, cur, kids, encs, codes, kinds, hashes = expansion_buffers()
    sink = np.uint64(0)
    nlive = ctl[C_NREC]
    high = ctl[C_HIGH]
    free = ctl[C_FREE]
    hsize = ctl[C_HSIZE]
    done = ctl[C_DONE]  # live records already expanded
    done_here = ctl[C_DONE_HERE]  # ... of them in the layer being expanded (the others can be freed)
    ntotal = ctl[C_TOTAL]
    lbase = ctl[C_LBASE]
    layer = ctl[C_LAYER]
    nodes = ctl[C_NODES]
    best = ctl[C_BEST]
    gen = ctl[C_GEN]
    stop = ctl[C_STOP]
    qprev, qlev, qhead, qend, qtail = ctl[C_QPREV], ctl[C_QLEV], ctl[C_QHEAD], ctl[C_QEND], ctl[C_QTAIL]
    outcome = RUNNING
    runmin = ctl[C_RUNMIN]  # the least layer waiting on disk (docs/solvers.md, "The sweep's runs")
    while outcome == RUNNING:
        if nodes >= stop or ntotal - lbase >= flush_at:
            break
        if ctl[C_SPILL] > 0 and nlive + ctl[C_SPILL] >= max_live:  # the room is nearly full
            if done > done_here:
                freed, gen, free = sweep_drop(recs, lay, high, layer, table, gen, free)
                nlive -= freed
                done = done_here
            if nlive + ctl[C_SPILL] >= max_live and SPILL_SHARE * hsize >= max_live:
                ctl[C_WANT] = WANT_SPILL  # the waiting positions out to disk: the caller writes them
                break
        if qhead == qend:  # a level is done, and the layer with it when the queue is empty
            if qhead == qtail:  # every record expanded so far is in a finished layer
                if runmin != NONE_WAITING and (hsize == 0 or lay[heap[0]] >= runmin):
                    ctl[C_WANT] = WANT_LOAD  # the next layer's positions on disk first: the caller reads them
                    break
                if hsize == 0:
                    outcome = UNSOLVABLE
                    break
                layer = lay[heap[0]]
                done_here = 0
                qprev = qlev = qhead = qend = qtail = 0
                while hsize > 0 and lay[heap[0]] == layer:  # the new layer's positions met so far: its level 0
                    if qtail >= fifo.shape[0]:
                        fifo = _grow_ring(fifo, 0, qtail)
                    first, hsize = index_heap_pop(heap, hsize, lay)
                    fifo[qtail] = first
                    qtail += 1
            elif params[P_FRONTIER] != 0:  # level d - 1 can be freed: no position of level d + 1 meets it
                for c in range(qprev, qlev):
                    lay[fifo[c % fifo.shape[0]]] = 0  # below every layer: sweep_drop frees it
                done_here -= qlev - qprev
            qprev, qlev, qend = qlev, qend, qtail
            if 2 * (done - done_here) >= nlive and done > done_here:  # the freeable are half the live: free them
                freed, gen, free = sweep_drop(recs, lay, high, layer, table, gen, free)
                nlive -= freed
                done = done_here
        e = fifo[qhead % fifo.shape[0]]
        qhead += 1
        decode_frame(recs[e], ref, frame, params, cur)
        nodes += 1
        done += 1
        done_here += 1
        pid = rid[e]
        nm = gen_moves(cur, rel, params, mv)
        for q0 in range(0, nm, KID_CHUNK):
            q1 = min(nm, q0 + KID_CHUNK)
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
                np.bool_(False),  # a bool, as best_first passes: one compiled version, not two
                rel,
                params,
                order,
                table,
                empty_out,
                ref,
                frame,
            )
            sink ^= touched
            best = max(best, f)
            if won >= 0:
                ctl[C_GOALP] = pid
                ctl[C_GOALC] = codes[won - q0]
                outcome = WON
                break
            q = q0
            while q < q1:  # stored by a leaf kernel, which stops where an array needs room (grown here)
                q, nlive, high, free, hsize, done, ntotal, gen, qtail, outcome = sweep_store(
                    q,
                    q0,
                    q1,
                    pid,
                    nlive,
                    high,
                    free,
                    hsize,
                    done,
                    done_here,
                    ntotal,
                    gen,
                    layer,
                    max_live,
                    total_cap,
                    lbase,
                    qprev,
                    qtail,
                    kids,
                    encs,
                    hashes,
                    codes,
                    rel,
                    params,
                    recs,
                    lay,
                    rid,
                    heap,
                    fifo,
                    parent,
                    code,
                    table,
                )
                if outcome != NEED_ROOM:
                    break
                outcome = RUNNING
                if qtail - qprev >= fifo.shape[0]:
                    fifo = _grow_ring(fifo, qprev, qtail)
                if free < 0 and (high >= recs.shape[0] or high >= lay.shape[0]):  # lay, rid, heap made together
                    cap = min(2 * high, max_live)
                    if high >= recs.shape[0]:
                        recs = grow_array(recs, high, cap)
                    if high >= lay.shape[0]:
                        lay = grow_array(lay, high, cap)
                        rid = grow_array(rid, high, cap)
                        heap = grow_array(heap, hsize, cap)
                if ntotal - lbase >= parent.shape[0]:  # more links than the buffer holds before they are written
                    parent = grow_array(parent, ntotal - lbase, 2 * parent.shape[0])
                    code = grow_array(code, ntotal - lbase, 2 * code.shape[0])
                if big_table_full(nlive, table.shape[0]):
                    table = np.zeros(table.shape[0] * 2, dtype=np.uint64)
                    gen = 1
                    reinsert(recs, high, table, gen, lay)
            if outcome != RUNNING:
                break
    ctl[C_NREC] = nlive
    ctl[C_HIGH] = high
    ctl[C_FREE] = free
    ctl[C_HSIZE] = hsize
    ctl[C_DONE] = done
    ctl[C_DONE_HERE] = done_here
    ctl[C_TOTAL] = ntotal
    ctl[C_LAYER] = layer
    ctl[C_NODES] = nodes
    ctl[C_BEST] = best
    ctl[C_GEN] = gen
    ctl[C_OUTCOME] = outcome
    ctl[C_SINK] = np.int64(sink & np.uint64(1))
    ctl[C_QPREV], ctl[C_QLEV], ctl[C_QHEAD], ctl[C_QEND], ctl[C_QTAIL] = qprev, qlev, qhead, qend, qtail
    return recs, lay, rid, heap, fifo, parent, code, table
