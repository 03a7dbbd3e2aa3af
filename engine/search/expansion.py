"""One expansion's children: made, closed under safe moves, encoded, looked up and stored together.

``prepare_children`` applies a chunk of KID_CHUNK moves, closes each child, encodes it and finds it in the
table (their probes overlap); ``store_children`` stores the new ones with their parent link and pushes them
on the heaps.  The best-first search and the sweeps share it.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.outcomes import UNKNOWN
from engine.search.control import DEPTH_MAX, DEPTH_SHIFT, NEED_ROOM, RUNNING
from engine.search.encoding import ORDER_SCRATCH, encode_record
from engine.search.guide import guide_value, key2, key_depth_first, move_kind
from engine.search.heap import heap_push
from engine.search.leaf import leaf_kernel
from engine.search.moves import apply_move
from engine.search.position_table import find_h, lookup_insert_h
from engine.search.positions import P_MAXNODES, REC_WORDS, STATE_WORDS, foundation_total
from engine.search.safe_moves import play_safe_moves

KID_CHUNK = 64  # children handled together (their table probes overlap)


@nb.njit(cache=True, inline="always")
def expansion_buffers():
    """The scratch arrays of one expansion loop: (no safe-move log, moves, column order, the position expanded,
    a chunk of children, their encodings (words), move codes, move kinds and hashes)."""
    return (
        np.zeros(0, dtype=np.int64),
        np.zeros(2048, dtype=np.int64),
        np.zeros(ORDER_SCRATCH, dtype=np.int64),
        np.zeros(STATE_WORDS * 8, dtype=np.uint8),
        np.zeros((KID_CHUNK, STATE_WORDS * 8), dtype=np.uint8),
        np.zeros((KID_CHUNK, REC_WORDS), dtype=np.uint64),
        np.zeros(KID_CHUNK, dtype=np.int64),
        np.zeros(KID_CHUNK, dtype=np.int64),
        np.zeros(KID_CHUNK, dtype=np.uint64),
    )


@leaf_kernel
def prepare_children(
    cur, mv, q0, q1, kids, encs, hashes, codes, kinds, with_kinds, rel, params, order, table, empty_out, ref, frame
):
    """Children q0..q1-1 of position cur (moves mv): each made, closed under safe moves, encoded and hashed into
    row q - q0 of kids, encs, hashes, codes (and the move kinds, if asked), and its table slot read at once, so
    the cache misses of the chunk's probes overlap instead of coming one after another.  Returns (the most
    cards up among them, the first won child's q or -1, the bits read: kept so the reads are not dropped).
    The records are the sweep's (``encode_frame``) when ``frame`` is not empty."""
    cur_w = cur.view(np.uint64)
    kids_w = kids.view(np.uint64)  # once, not a view a child
    mask = np.uint64(table.shape[0] - 1)
    best = 0
    sink = np.uint64(0)
    for q in range(q0, q1):
        ch = kids[q - q0]
        ch_w = kids_w[q - q0]
        for t in range(STATE_WORDS):  # a word loop: much faster than numba's ch[:] = cur
            ch_w[t] = cur_w[t]
        if with_kinds:
            kinds[q - q0] = move_kind(mv[q], cur)
        codes[q - q0] = apply_move(ch, mv[q], params)
        play_safe_moves(ch, rel, params, empty_out, 0)
        f = foundation_total(ch)
        if f > best:
            best = f
        if f == 52:
            return best, q, sink
        hv = encode_record(ch, params, encs[q - q0], order, ref, frame)
        hashes[q - q0] = hv
        sink ^= table[np.int64(hv & mask)]
    return best, np.int64(-1), sink


@leaf_kernel
def store_children(
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
):
    """Store children q..q1-1 of record idx (prepared by prepare_children into row q - q0 of kids, encs,
    hashes, codes, kinds) that are new, with their parent link, move word and heap keys.  Returns (the next
    child, nrec, hsize, hsize2, outcome): outcome UNKNOWN when a new child finds max_nodes stored, NEED_ROOM
    when an array or the table must grow before child q is stored (the caller grows it and calls again from
    q), else RUNNING."""
    max_nodes = params[P_MAXNODES]
    while q < q1:
        w = encs[q - q0]
        hv = hashes[q - q0]
        if nrec >= max_nodes:
            # is it new? only then does the budget matter
            if find_h(w, hv, recs, table, gen)[1] < 0:
                return q, nrec, hsize, hsize2, UNKNOWN
            q += 1
            continue
        if (
            nrec >= recs.shape[0]
            or nrec >= parent.shape[0]
            or (second and nrec >= heap2.shape[0])
            or 2 * (nrec + 1) > table.shape[0]
        ):
            return q, nrec, hsize, hsize2, NEED_ROOM
        e, inserted = lookup_insert_h(w, hv, recs, nrec, table, gen)
        if inserted:
            parent[nrec] = idx
            mcode[nrec] = codes[q - q0] | (min(dchild, DEPTH_MAX - 1) << DEPTH_SHIFT)
            if depth_first:
                hsize = heap_push(heap, hsize, key_depth_first(dchild, kinds[q - q0], nrec))
            else:
                h = np.int64(guide_value(kids[q - q0], rel, params))
                hsize = heap_push(heap, hsize, (h << 32) | (0xFFFFFFFF - nrec))
                if second:
                    hsize2 = heap_push(heap2, hsize2, key2(kids[q - q0], h, nrec, params, seen, stamp))
            nrec += 1
        q += 1
    return q, nrec, hsize, hsize2, RUNNING
