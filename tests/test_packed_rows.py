"""Packed rows (engine/packed_rows.py): what is written is read back, by any range, and searched by key."""

from __future__ import annotations

import tempfile

import numpy as np
import pytest

from engine.search.packed_rows import PackedRows, PackedWriter


@pytest.mark.parametrize("n", [0, 1, 6, 7, 8, 50, 1_000])
def test_rows_come_back_by_any_range_and_key(n):
    """Rows sorted by their first word, added in lots of any size, come back whole by every range (across the
    blocks of 7 rows), and each row's key and the first row above any key from any row on are numpy's."""
    rng = np.random.default_rng(n)
    rows = rng.integers(0, 2**63, size=(n, 4), dtype=np.uint64)
    rows[:, 0] = np.sort(rng.integers(0, 20, size=n)).astype(np.uint64)
    with tempfile.TemporaryFile() as f:
        w = PackedWriter(f, 4, 7)
        i = 0
        while i < n:
            m = int(rng.integers(1, 20))
            w.add(rows[i : i + m])
            i += m
        assert w.finish() == n
        p = PackedRows(f)
        assert p.n == n and p.width == 4
        step = max(1, n // 40)
        for lo in range(0, n + 1, step):
            for hi in range(lo, n + 1, step + 2):
                assert (p.read(lo, hi) == rows[lo:hi]).all()
        assert [p.key(i) for i in range(n)] == rows[:, 0].tolist()
        for lo in range(0, n + 1, step):
            for key in range(21):
                want = lo + int(np.searchsorted(rows[lo:, 0], np.uint64(key), side="right"))
                assert p.first_above(lo, key) == want


def test_rows_like_the_sweeps_take_fewer_bytes():
    """A constant key, a word mostly zero and rising links (the sweep's pending rows) pack to well under their
    raw size; random words do not grow by more than the blocks' framing."""
    rng = np.random.default_rng(0)
    n = 100_000
    rows = np.zeros((n, 4), dtype=np.uint64)
    rows[:, 0] = 5
    rows[:, 1] = rng.integers(0, 2**63, size=n, dtype=np.uint64)
    rows[:, 3] = np.cumsum(rng.integers(0, 1_000, size=n)).astype(np.uint64)
    with tempfile.TemporaryFile() as f:
        w = PackedWriter(f, 4)
        w.add(rows)
        w.finish()
        assert f.tell() < 0.4 * rows.nbytes
        assert (PackedRows(f).read(0, n) == rows).all()
    noise = rng.integers(0, 2**63, size=(n, 4), dtype=np.uint64)
    noise[:, 0] = np.sort(noise[:, 0])
    with tempfile.TemporaryFile() as f:
        w = PackedWriter(f, 4)
        w.add(noise)
        w.finish()
        assert f.tell() < 1.01 * noise.nbytes


def test_a_file_not_finished_or_of_other_rows_is_refused():
    """A reader refuses a file without the footer (a writer stopped before ``finish``), and rows of another
    width are refused by the writer."""
    with tempfile.TemporaryFile() as f:
        w = PackedWriter(f, 3, 4)
        w.add(np.zeros((10, 3), dtype=np.uint64))
        f.flush()
        with pytest.raises(OSError, match="not a packed rows file|without its footer"):
            PackedRows(f)
        with pytest.raises(ValueError, match="allowed: 3"):
            w.add(np.zeros((1, 2), dtype=np.uint64))
