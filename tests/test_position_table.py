"""The exact position table: keys that share a hash stay apart, growth keeps every key, lookups agree with a set."""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.search import position_table as pt


@nb.njit(cache=True)
def _add_all(recs, slots, keys):
    n = 0
    idx = np.zeros(keys.shape[0], dtype=np.int64)
    for i in range(keys.shape[0]):
        recs, slots, e, added = pt.add(recs, slots, n, keys[i])
        if added:
            n += 1
        idx[i] = e
    return recs, slots, n, idx


def test_table_agrees_with_a_python_dict_through_growth() -> None:
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 40, size=(5000, 3)).astype(np.uint64)  # many repeats
    recs, slots = pt.new_table(3, capacity=4)
    recs, slots, n, idx = _add_all(recs, slots, keys)
    first: dict[tuple, int] = {}
    for k in keys:
        first.setdefault(tuple(int(x) for x in k), len(first))
    assert n == len(first)
    assert [first[tuple(int(x) for x in k)] for k in keys] == idx.tolist()
    for k, e in first.items():
        assert pt.lookup(recs, slots, np.array(k, dtype=np.uint64)) == e
        assert recs[e].tolist() == list(k)
    assert pt.lookup(recs, slots, np.array([99, 99, 99], dtype=np.uint64)) == -1


def test_keys_in_one_probe_chain_are_told_apart() -> None:
    """A table with 2 slots: every key collides, and only the full comparison keeps them apart."""
    recs, slots = pt.new_table(2, capacity=1)
    keys = np.array([[1, 2], [2, 1], [1, 2], [0, 0], [2, 1]], dtype=np.uint64)
    recs, slots, n, idx = _add_all(recs, slots, keys)
    assert n == 3 and idx.tolist() == [0, 1, 0, 2, 1]
