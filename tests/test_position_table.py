"""The one exact position table (engine/search/position_table.py) against a Python dict: positions that share a
hash, a slot or a tag stay apart, growth keeps every position, a new generation empties the table, and the
record indices are the order of first insertion."""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.search import position_table as pt


@nb.njit(cache=True)
def _add_all(recs, table, keys, gen):
    n = 0
    idx = np.zeros(keys.shape[0], dtype=np.int64)
    for i in range(keys.shape[0]):
        recs, table, e, added = pt.add(recs, table, n, keys[i], gen)
        if added:
            n += 1
        idx[i] = e
    return recs, table, n, idx


@nb.njit(cache=True)
def _insert_all(recs, table, keys, gen, hashes):
    """As a kernel that keeps its own room does it: find_h, then must_grow/grown, then put.  ``hashes[i]`` is the
    hash given for key i (0: words_hash of the key)."""
    n = 0
    idx = np.zeros(keys.shape[0], dtype=np.int64)
    for i in range(keys.shape[0]):
        w = keys[i]
        h = hashes[i] if hashes[i] != 0 else pt.words_hash(w, w.shape[0])
        slot, e, want = pt.find_h(w, h, recs, table, gen)
        if e < 0:
            if pt.must_grow(recs, table, n):
                recs, table = pt.grown(recs, table, n, gen)
                slot, e, want = pt.find_h(w, h, recs, table, gen)
            pt.put(w, slot, want, recs, n, table)
            e = n
            n += 1
        idx[i] = e
    return recs, table, n, idx


def _first_seen(keys: np.ndarray) -> dict[tuple, int]:
    first: dict[tuple, int] = {}
    for k in keys:
        first.setdefault(tuple(int(x) for x in k), len(first))
    return first


def _check(recs, table, gen, keys, n, idx, absent) -> None:
    first = _first_seen(keys)
    assert n == len(first)
    assert [first[tuple(int(x) for x in k)] for k in keys] == idx.tolist()
    for k, e in first.items():
        assert pt.lookup(recs, table, np.array(k, dtype=np.uint64), gen) == e
        assert recs[e].tolist() == list(k)
    for k in absent:
        assert pt.lookup(recs, table, np.array(k, dtype=np.uint64), gen) == -1


def test_table_agrees_with_a_python_dict_through_growth() -> None:
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 40, size=(5000, 3)).astype(np.uint64)  # many repeats
    recs, table = pt.new_table(3, capacity=4)
    recs, table, n, idx = _add_all(recs, table, keys, 1)
    assert table.shape[0] >= 2 * n and recs.shape[0] >= n
    _check(recs, table, 1, keys, n, idx, [(99, 99, 99)])


def test_keys_in_one_probe_chain_are_told_apart() -> None:
    """A table with 2 slots: every key collides, and only the full comparison keeps them apart."""
    recs, table = pt.new_table(2, capacity=1)
    keys = np.array([[1, 2], [2, 1], [1, 2], [0, 0], [2, 1]], dtype=np.uint64)
    recs, table, n, idx = _add_all(recs, table, keys, 1)
    assert n == 3 and idx.tolist() == [0, 1, 0, 2, 1]


def test_positions_with_one_hash_share_slot_and_tag_and_stay_apart() -> None:
    """Every key given the same hash: the same first slot and the same 20-bit tag (room enough that the table
    never grows, as a growth would enter each record again at its own hash)."""
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 6, size=(400, 2)).astype(np.uint64)
    recs, table = pt.new_table(2, capacity=64)
    same = np.full(keys.shape[0], 0xDEADBEEF12345678, dtype=np.uint64)
    recs, table, n, idx = _insert_all(recs, table, keys, 3, same)
    assert table.shape[0] == 128
    first = _first_seen(keys)
    assert n == len(first) and [first[tuple(int(x) for x in k)] for k in keys] == idx.tolist()
    tags = {int(x) >> 32 for x in table if int(x) >> 52 == 3}
    assert len(tags) == 1  # one stamp and tag for every entry: only the records tell them apart
    for k, e in first.items():
        assert pt.find_h(np.array(k, dtype=np.uint64), np.uint64(same[0]), recs, table, 3)[1] == e


def test_generations_empty_the_table_without_clearing_it() -> None:
    """Each generation sees only its own positions, records numbered from 0 again; growth inside a later
    generation keeps that generation's positions; past GEN_MAX the table is cleared and generation 1 is new."""
    rng = np.random.default_rng(11)
    recs, table = pt.new_table(4, capacity=8)
    gen = 0
    for round_ in range(6):
        gen = pt.next_gen(table, gen)
        keys = rng.integers(0, 30 + 200 * round_, size=(300 + 400 * round_, 4)).astype(np.uint64)
        recs, table, n, idx = _insert_all(recs, table, keys, gen, np.zeros(keys.shape[0], dtype=np.uint64))
        mine = _first_seen(keys)
        others = {tuple(int(x) for x in k) for k in rng.integers(10_000, 20_000, size=(50, 4))}
        _check(recs, table, gen, keys, n, idx, sorted(others - set(mine)))
    stale = table.copy()
    gen = pt.next_gen(table, pt.GEN_MAX)
    assert gen == 1 and not table.any() and stale.any()
    assert pt.lookup(recs, table, recs[0].copy(), 1) == -1


def test_reinsert_and_rehash_enter_the_records_again_under_one_generation() -> None:
    rng = np.random.default_rng(3)
    keys = np.unique(rng.integers(0, 1 << 40, size=(500, 2)).astype(np.uint64), axis=0)
    recs = keys.copy()
    table = pt.rehash(recs, recs.shape[0], 2048, 5)
    assert {int(x) >> 52 for x in table if x} == {5}
    for e in range(recs.shape[0]):
        assert pt.lookup(recs, table, recs[e].copy(), 5) == e
        assert pt.lookup(recs, table, recs[e].copy(), 6) == -1
    lay = np.where(np.arange(recs.shape[0]) % 3 == 0, -1, 0).astype(np.int64)  # the sweep's free records
    pt.reinsert(recs, recs.shape[0], table, 6, lay)
    for e in range(recs.shape[0]):
        assert pt.lookup(recs, table, recs[e].copy(), 6) == (-1 if e % 3 == 0 else e)


def test_lookup_insert_h_numbers_positions_in_order_of_first_insertion() -> None:
    rng = np.random.default_rng(13)
    keys = rng.integers(0, 25, size=(300, 6)).astype(np.uint64) % np.uint64(3)
    recs = np.zeros((keys.shape[0], 6), dtype=np.uint64)
    table = np.zeros(1024, dtype=np.uint64)
    n, idx = 0, []
    for k in keys:
        e, inserted = pt.lookup_insert_h(k, np.uint64(pt.words_hash(k, 6)), recs, n, table, 2)
        n += bool(inserted)
        idx.append(int(e))
    first = _first_seen(keys)
    assert n == len(first) and idx == [first[tuple(int(x) for x in k)] for k in keys]


def test_room() -> None:
    recs, table = pt.new_table(1, capacity=4)
    assert recs.shape == (4, 1) and table.shape == (8,)
    assert not pt.must_grow(recs, table, 3) and pt.must_grow(recs, table, 4)
    assert pt.must_grow(recs, np.zeros(4, dtype=np.uint64), 2)
