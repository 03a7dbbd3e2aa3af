"""An exact set of positions for the searches: every key stored in full, never just its hash.

A solver's ``unsolvable`` and a proven minimum of passes both rest on "this
position was seen before, so its future is already accounted for".  A table
that kept only hashes could confuse two positions on a collision and so turn a
winnable deal into a wrong ``unsolvable``.  Here a key is a fixed number of
64-bit words (``recs.shape[1]``, the game's packed position), stored whole; the
hash only chooses where to start probing, and a probe compares every word.

Layout: ``recs[i]`` is the i-th key added (so a caller can keep per-position
data, such as a parent index or a pass number, in arrays indexed the same way);
``slots`` is an open-addressing table (linear probing) of record index + 1, 0
when free, kept at most half full.  Both grow by doubling inside :func:`add`,
which returns the arrays it now uses.  All functions are numba-compiled and are
meant to be called from other kernels.
"""

from __future__ import annotations

import numba as nb
import numpy as np


def new_table(words: int, capacity: int = 1 << 12) -> tuple[np.ndarray, np.ndarray]:
    """Empty ``(recs, slots)`` for keys of ``words`` 64-bit words; ``capacity`` is rounded up to a power of two."""
    cap = 1
    while cap < capacity:
        cap *= 2
    return np.zeros((cap, words), dtype=np.uint64), np.zeros(2 * cap, dtype=np.int64)


@nb.njit(cache=True, inline="always")
def words_hash(w, n):
    """A well-mixed 64-bit hash of the first ``n`` 64-bit words of ``w`` (only a probe's starting slot, and in
    the open solitaires' table a tag, depend on it).  The one hash of every exact position table: this module's,
    the open solitaires' (``engine/search/``) and Aces Up's, which pass their record's word count as a
    constant so that the loop unrolls."""
    h = np.uint64(0x84222325CBF29CE4)
    for t in range(n):
        h = (h ^ w[t]) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    return h


@nb.njit(cache=True, inline="always")
def key_hash(key):
    """The hash of a whole key (all its words)."""
    return words_hash(key, key.shape[0])


@nb.njit(cache=True, inline="always")
def _probe(recs, slots, key):
    """(slot holding key, its record index) or (the free slot where it would go, -1)."""
    mask = slots.shape[0] - 1
    s = np.int64(key_hash(key) & np.uint64(mask))
    words = key.shape[0]
    while slots[s] != 0:
        e = slots[s] - 1
        same = True
        for t in range(words):
            if recs[e, t] != key[t]:
                same = False
                break
        if same:
            return s, e
        s = (s + 1) & mask
    return s, np.int64(-1)


@nb.njit(cache=True)
def lookup(recs, slots, key):
    """The record index of ``key``, or -1 when it was never added."""
    return _probe(recs, slots, key)[1]


@nb.njit(cache=True)
def _grown(recs, slots, nrec):
    """Double the records (and the slots, rehashed) so that one more key fits at most half full."""
    if nrec == recs.shape[0]:
        bigger = np.zeros((2 * recs.shape[0], recs.shape[1]), dtype=np.uint64)
        bigger[:nrec] = recs[:nrec]
        recs = bigger
    if 2 * (nrec + 1) > slots.shape[0]:
        slots = np.zeros(2 * slots.shape[0], dtype=np.int64)
        mask = slots.shape[0] - 1
        for e in range(nrec):
            s = np.int64(key_hash(recs[e]) & np.uint64(mask))
            while slots[s] != 0:
                s = (s + 1) & mask
            slots[s] = e + 1
    return recs, slots


@nb.njit(cache=True)
def add(recs, slots, nrec, key):
    """Add ``key`` unless present.  Returns ``(recs, slots, index, added)``; a new key gets index ``nrec``.

    The caller counts the records (``nrec``) and passes on the arrays returned, which are new ones
    after a growth.
    """
    s, e = _probe(recs, slots, key)
    if e >= 0:
        return recs, slots, e, False
    if nrec == recs.shape[0] or 2 * (nrec + 1) > slots.shape[0]:
        recs, slots = _grown(recs, slots, nrec)
        s, e = _probe(recs, slots, key)
    slots[s] = nrec + 1
    for t in range(key.shape[0]):
        recs[nrec, t] = key[t]
    return recs, slots, np.int64(nrec), True
