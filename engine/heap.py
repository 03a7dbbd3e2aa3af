"""A binary min-heap of int64 keys in a plain array, for the best-first searches (numba-callable).

The searches pack a priority and a record index into one key (priority in the high bits), so the heap only ever
compares integers; the caller keeps the size and grows the array.
"""

from __future__ import annotations

import numba as nb

from engine.leaf import leaf_kernel


@leaf_kernel
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


@leaf_kernel
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


@nb.njit(cache=True, inline="always")
def _before(keys, a, b):
    return keys[a] < keys[b] or (keys[a] == keys[b] and a < b)


@leaf_kernel
def index_heap_push(heap, size, keys, i):
    """Add index ``i`` to the heap ``heap[:size]`` of indices ordered by (keys[index], index); returns the new size.
    The keys stay in their own array (an index's key must not change while it waits), so an entry costs only
    the index's width."""
    j = size
    while j > 0:
        par = (j - 1) >> 1
        if _before(keys, heap[par], i):
            break
        heap[j] = heap[par]
        j = par
    heap[j] = i
    return size + 1


@leaf_kernel
def index_heap_pop(heap, size, keys):
    """Remove the first index of ``heap[:size]`` (see :func:`index_heap_push`); returns (that index, the new size)."""
    top = heap[0]
    size -= 1
    if size == 0:
        return top, size
    last = heap[size]
    j = 0
    while True:
        a = 2 * j + 1
        if a >= size:
            break
        c = a
        if a + 1 < size and _before(keys, heap[a + 1], heap[a]):
            c = a + 1
        if _before(keys, last, heap[c]):
            break
        heap[j] = heap[c]
        j = c
    heap[j] = last
    return top, size
