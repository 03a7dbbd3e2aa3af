"""A binary min-heap of int64 keys in a plain array, for the best-first searches (numba-callable).

The searches pack a priority and a record index into one key (priority in the high bits), so the heap only ever
compares integers; the caller keeps the size and grows the array.
"""

from __future__ import annotations

import numba as nb

from engine.search.leaf import leaf_kernel


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


@nb.njit(cache=True, inline="always")
def _pair_before(keys, idx, a, b):
    return keys[a] < keys[b] or (keys[a] == keys[b] and idx[a] < idx[b])


@nb.njit(cache=True, inline="always")
def _pair_swap(keys, idx, a, b):
    k, i = keys[a], idx[a]
    keys[a], idx[a] = keys[b], idx[b]
    keys[b], idx[b] = k, i


SORT_STACK = 128  # bounds the quicksort keeps: 2 x 64 levels, each at most half the one before


@leaf_kernel
def sort_pairs(keys, idx, stack):
    """Sort ``keys`` and ``idx`` together, in place, by (key, index).  So sorted, ``idx`` is a valid heap of
    :func:`index_heap_push` over those keys (a sorted array is a heap).  An in-place quicksort (median of three;
    the larger side waits on ``stack``, int64[SORT_STACK], the smaller is sorted first, so at most 64 wait;
    insertion sort below 16 entries): it takes no memory beyond the two arrays, and the same input gives the
    same order on every machine."""
    top = 0
    lo, hi = 0, keys.shape[0] - 1
    while True:
        while hi - lo >= 16:
            mid = (lo + hi) >> 1
            if _pair_before(keys, idx, mid, lo):
                _pair_swap(keys, idx, mid, lo)
            if _pair_before(keys, idx, hi, lo):
                _pair_swap(keys, idx, hi, lo)
            if _pair_before(keys, idx, hi, mid):
                _pair_swap(keys, idx, hi, mid)
            _pair_swap(keys, idx, mid, hi - 1)  # the pivot, the median of three, waits at hi - 1
            pk, pi = keys[hi - 1], idx[hi - 1]
            i, j = lo, hi - 1
            while True:
                i += 1
                while keys[i] < pk or (keys[i] == pk and idx[i] < pi):
                    i += 1
                j -= 1
                while pk < keys[j] or (pk == keys[j] and pi < idx[j]):
                    j -= 1
                if i >= j:
                    break
                _pair_swap(keys, idx, i, j)
            _pair_swap(keys, idx, i, hi - 1)
            if i - lo < hi - i:  # the smaller side first; the larger waits
                stack[top], stack[top + 1] = i + 1, hi
                hi = i - 1
            else:
                stack[top], stack[top + 1] = lo, i - 1
                lo = i + 1
            top += 2
        for a in range(lo + 1, hi + 1):  # insertion sort of the short range left
            b = a
            while b > lo and _pair_before(keys, idx, b, b - 1):
                _pair_swap(keys, idx, b, b - 1)
                b -= 1
        if top == 0:
            return
        top -= 2
        lo, hi = stack[top], stack[top + 1]
