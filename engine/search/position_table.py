"""The one exact position table of every solver: each position stored whole, never just its hash.

A solver's ``unsolvable``, a proven fewest passes and a "lost" memo all rest on "this position was seen before,
so its future is already accounted for".  A table that kept only hashes could confuse two positions on a
collision and so turn a winnable deal into a wrong ``unsolvable``.  Here a position is a fixed number of 64-bit
words (``recs.shape[1]``: the game's packed position), stored whole in ``recs``; the hash only chooses where a
probe starts and a tag that lets it skip most other positions, and a match is always confirmed on every word.
Two positions are never confused, whatever the hash does: it can only make probes longer.

Layout (docs/solvers.md, "The table"): ``recs[i]`` is the i-th position added, so a caller keeps per-position
data (a parent, a pass number) in arrays indexed the same way.  ``table`` is open addressing with linear
probing, one uint64 per slot::

    generation (12 bits) << 52 | tag (20 high bits of the hash) << 32 | record index (32 bits)

A slot belongs to the search of generation ``gen`` when its stamp is ``gen``; any other stamp (0 in a new
table) is a free slot.  So a table is reused between deals without clearing: the next search takes the next
generation (:func:`next_gen`), and only after ``GEN_MAX`` of them is it cleared once.  A table is kept at most
half full (the open solitaires' line search and sweep: four fifths from ``BIG_TABLE`` slots on); it grows by
doubling, its records entered again under the current generation (:func:`rehash`, :func:`grown`).

Two ways to use it:

* kernels that manage their own room (the open solitaires, Aces Up, four piles) probe with
  :func:`find_h` and insert with :func:`put` or :func:`lookup_insert_h`, growing with :func:`grown` or
  :func:`rehash` when :func:`must_grow` (or :func:`big_table_full`) says so; a caller that passes the hash
  (``words_hash(w, KEY_WORDS)`` with its record width as a constant) lets the hash loop unroll;
* :func:`add` and :func:`lookup` (Perpetual Motion, Amazons' start-of-pass positions) grow by themselves and
  return the arrays they now use.

The record index is what a solver sees (a node's number, its parent's); it depends only on the order positions
are added, never on the table's size, hash or generation, so every solver's nodes, outcomes and lines are the
same whatever the table does.  All functions but :func:`new_table` are numba-compiled, for other kernels.
(Amazons' within-pass memo is not a table of positions kept for the search and stays apart: its two-word keys
in its slots are faster than this table's records, measured in docs/solvers.md, "The table".)
"""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.search.leaf import leaf_kernel

GEN_MAX = 4095  # the largest generation stamp (12 bits)

# The open solitaires' line search and sweep let their table double when half full, but from BIG_TABLE slots
# (512 MiB) on only when four fifths full: King Albert's line search (room 5 x 10^7) then keeps its positions in
# 512 MiB, not 1 GiB (the measurement: docs/solvers.md, "The table").
BIG_TABLE = 1 << 26


def new_table(words: int, capacity: int = 1 << 12) -> tuple[np.ndarray, np.ndarray]:
    """Empty ``(recs, table)`` for positions of ``words`` 64-bit words: ``capacity`` records (rounded up to a
    power of two) and twice as many slots, every slot free for any generation from 1."""
    cap = 1
    while cap < capacity:
        cap *= 2
    return np.zeros((cap, words), dtype=np.uint64), np.zeros(2 * cap, dtype=np.uint64)


@nb.njit(cache=True)
def next_gen(table: np.ndarray, gen: int) -> int:
    """The generation of the next search on ``table`` after one of ``gen``: ``gen + 1``, or 1 with the table
    cleared once ``GEN_MAX`` is passed (from kernels and from Python)."""
    gen += 1
    if gen > GEN_MAX:
        table[:] = 0
        gen = 1
    return gen


@nb.njit(cache=True, inline="always")
def words_hash(w, n):
    """A well-mixed 64-bit hash of the first ``n`` 64-bit words of ``w`` (a probe's first slot and its tag
    depend on it, nothing else).  Callers pass their record width as a constant where they can, so that the
    loop unrolls."""
    h = np.uint64(0x84222325CBF29CE4)
    for t in range(n):
        h = (h ^ w[t]) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    return h


@nb.njit(cache=True, inline="always")
def find_h(w, h, recs, table, gen):
    """Probe for position w of hash h: (its slot or the free slot where it would go, its record index or -1,
    the stamp and tag an entry for it carries)."""
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
            for t in range(recs.shape[1]):
                if recs[e, t] != w[t]:
                    same = False
                    break
            if same:
                return slot, e, want
        slot = (slot + 1) & mask


@nb.njit(cache=True, inline="always")
def put(w, slot, want, recs, nrec, table):
    """Store position w as record nrec in the free slot ``slot`` that :func:`find_h` gave with ``want``."""
    table[slot] = (want << np.uint64(32)) | np.uint64(nrec)
    for t in range(recs.shape[1]):
        recs[nrec, t] = w[t]


@nb.njit(cache=True, inline="always")
def lookup_insert_h(w, h, recs, nrec, table, gen):
    """Find position w of hash h; insert it as record nrec if absent (room is the caller's care).
    Returns (index, inserted)."""
    slot, e, want = find_h(w, h, recs, table, gen)
    if e >= 0:
        return e, False
    put(w, slot, want, recs, nrec, table)
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
def rehash(recs, nrec, tsize, gen):
    """A new table of tsize slots holding records 0..nrec-1 under generation ``gen``."""
    table = np.zeros(tsize, dtype=np.uint64)
    reinsert(recs, nrec, table, gen, np.zeros(0, dtype=np.int64))
    return table


@nb.njit(cache=True, inline="always")
def must_grow(recs, table, nrec):
    """Is there no room for record nrec: the records full, or the table more than half full with it?"""
    return nrec >= recs.shape[0] or 2 * (nrec + 1) > table.shape[0]


@nb.njit(cache=True, inline="always")
def big_table_full(nrec, tsize):
    """Must the open solitaires' line search's or sweep's table double before record nrec goes in (BIG_TABLE)?"""
    return 2 * (nrec + 1) > tsize and (tsize < BIG_TABLE or 5 * (nrec + 1) > 4 * tsize)


@nb.njit(cache=True)
def grown(recs, table, nrec, gen):
    """Room for record nrec: the records doubled when full, the table doubled (rehashed under ``gen``) when it
    would be more than half full.  Returns the arrays now in use."""
    if nrec >= recs.shape[0]:
        bigger = np.zeros((2 * recs.shape[0], recs.shape[1]), dtype=np.uint64)
        bigger[:nrec] = recs[:nrec]
        recs = bigger
    if 2 * (nrec + 1) > table.shape[0]:
        table = rehash(recs, nrec, 2 * table.shape[0], gen)
    return recs, table


@nb.njit(cache=True)
def lookup(recs, table, key, gen):
    """The record index of ``key`` in generation ``gen``, or -1 when it was never added."""
    return find_h(key, words_hash(key, key.shape[0]), recs, table, gen)[1]


@nb.njit(cache=True)
def add(recs, table, nrec, key, gen):
    """Add ``key`` under generation ``gen`` unless present.  Returns ``(recs, table, index, added)``; a new key
    gets index ``nrec``.  The caller counts the records and passes on the arrays returned, new ones after a
    growth."""
    h = words_hash(key, key.shape[0])
    slot, e, want = find_h(key, h, recs, table, gen)
    if e >= 0:
        return recs, table, e, False
    if must_grow(recs, table, nrec):
        recs, table = grown(recs, table, nrec, gen)
        slot, e, want = find_h(key, h, recs, table, gen)
    put(key, slot, want, recs, nrec, table)
    return recs, table, np.int64(nrec), True
