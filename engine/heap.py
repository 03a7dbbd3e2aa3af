"""A binary min-heap of int64 keys in a plain array, for the best-first searches (numba-callable).

The searches pack a priority and a record index into one key (priority in the high bits), so the heap only ever
compares integers; the caller keeps the size and grows the array.
"""

from __future__ import annotations

import numba as nb


@nb.njit(cache=True)
def heap_push(heap, size, key):
    """Add ``key`` to the heap ``heap[:size]``; returns the new size (``heap`` must have room for it)."""
    i = size
    heap[i] = key
    while i > 0:
        par = (i - 1) >> 1
        if heap[par] <= heap[i]:
            break
        t = heap[par]
        heap[par] = heap[i]
        heap[i] = t
        i = par
    return size + 1


@nb.njit(cache=True)
def heap_pop(heap, size):
    """Remove the smallest key of ``heap[:size]``; returns (that key, the new size)."""
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    i = 0
    while True:
        a = 2 * i + 1
        if a >= size:
            break
        b = a + 1
        c = a if (b >= size or heap[a] <= heap[b]) else b
        if heap[i] <= heap[c]:
            break
        t = heap[c]
        heap[c] = heap[i]
        heap[i] = t
        i = c
    return top, size
