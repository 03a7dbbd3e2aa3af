"""The open solitaires' position table: open addressing over records, with generation stamps.

One uint64 per slot: a 12-bit generation, a 20-bit tag from the hash and the record's index.  A new search
takes the next generation instead of clearing the table; a match is always confirmed on the whole record, so
two positions are never confused (docs/solvers.md, "The table").  The generic table for the other solvers
is engine/search/position_table.py; this one is kept apart for the stamps and the tags (docs/solvers.md).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.search.leaf import leaf_kernel
from engine.search.position_table import words_hash
from engine.search.positions import REC_WORDS


# --- the position table: exact, one uint64 entry per slot ---------------------------
# entry = gen << 52 | tag << 32 | record index: a slot belongs to this search when its generation stamp is the
# current one (so the table is reused between deals without clearing); the 20-bit tag (high bits of the hash)
# lets a probe skip most other positions without reading their records; a match is always confirmed by
# comparing the whole 64-byte record, so two positions are never confused.
GEN_MAX = 4095


@nb.njit(cache=True, inline="always")
def find_h(w, h, recs, table, gen):
    """Probe for position w of hash h: (its slot or the free slot where it would go, its record index or -1,
    its stamp)."""
    mask = table.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    g = np.uint64(gen)
    want = (g << np.uint64(20)) | ((h >> np.uint64(44)) & np.uint64(0xFFFFF))
    while True:
        ent = table[slot]
        if (ent >> np.uint64(52)) != g:
            return slot, np.int64(-1), want
        if (ent >> np.uint64(32)) == want:
            e = np.int64(ent & np.uint64(0xFFFFFFFF))
            same = True
            for t in range(recs.shape[1]):  # REC_WORDS, or the sweep's frame[F_WORDS]
                if recs[e, t] != w[t]:
                    same = False
                    break
            if same:
                return slot, e, want
        slot = (slot + 1) & mask


@nb.njit(cache=True, inline="always")
def find_record(w, recs, table, gen):
    return find_h(w, words_hash(w, REC_WORDS), recs, table, gen)


@nb.njit(cache=True)
def lookup_insert(w, recs, nrec, table, gen):
    """Find position w in the table; insert it as record nrec if absent.  Returns (index, inserted)."""
    return lookup_insert_h(w, words_hash(w, REC_WORDS), recs, nrec, table, gen)


@nb.njit(cache=True, inline="always")
def lookup_insert_h(w, h, recs, nrec, table, gen):
    slot, e, want = find_h(w, h, recs, table, gen)
    if e >= 0:
        return e, False
    table[slot] = (want << np.uint64(32)) | np.uint64(nrec)
    for t in range(recs.shape[1]):
        recs[nrec, t] = w[t]
    return np.int64(nrec), True


@leaf_kernel
def reinsert(recs, nrec, table, gen, lay):
    """Enter records 0..nrec-1 into the table under generation ``gen`` (slots of any other stamp count as free),
    but for those whose ``lay`` is negative (the sweep's free records; ``lay`` may be shorter than nrec)."""
    mask = table.shape[0] - 1
    g = np.uint64(gen)
    for e in range(nrec):
        if e < lay.shape[0] and lay[e] < 0:
            continue
        h = words_hash(recs[e], recs.shape[1])
        s = np.int64(h & np.uint64(mask))
        while (table[s] >> np.uint64(52)) == g:
            s = (s + 1) & mask
        want = (g << np.uint64(20)) | ((h >> np.uint64(44)) & np.uint64(0xFFFFF))
        table[s] = (want << np.uint64(32)) | np.uint64(e)


@nb.njit(cache=True)
def rehash(recs, nrec, tsize):
    """A new table of tsize slots (generation 1) holding records 0..nrec-1."""
    table = np.zeros(tsize, dtype=np.uint64)
    reinsert(recs, nrec, table, 1, np.zeros(0, dtype=np.int64))
    return table


# The one-line-at-a-time searches' and the sweep's table doubles when half full, but from BIG_TABLE slots (512 MiB)
# on only when four fifths full: King Albert's line search (room 5 x 10^7) then keeps its positions in 512 MiB,
# not 1 GiB.  Measured on seed 99 deal 1856, the line search alone filling that room: peak 3,344 MiB against 3,633,
# and 381 s of solving against 388 (longer probes, no slower; three quarters then, and 5 x 10^7 fit in either);
# deal 490, unsolvable, in the same 47,401,245 positions.  The sweep's room of 5.3 x 10^7 live positions fits in
# 512 MiB of table the same way (at 0.79).
BIG_TABLE = 1 << 26


@nb.njit(cache=True, inline="always")
def big_table_full(nrec, tsize):
    """Must the one-line-at-a-time searches' or the sweep's table double before record nrec goes in (BIG_TABLE)?"""
    return 2 * (nrec + 1) > tsize and (tsize < BIG_TABLE or 5 * (nrec + 1) > 4 * tsize)
