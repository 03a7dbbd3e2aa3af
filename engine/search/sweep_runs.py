"""The sweep's waiting positions kept on disk (docs/solvers.md, "The sweep's runs").

When the sweep's room fills and most of it is positions waiting in higher layers, the highest of them are written
out here as a *run*: the records sorted by layer key, each with its layer key and its number among the positions
stored (which numbers its link).  Before the sweep starts a layer, every waiting position of that layer must be
back in memory, so the kernel returns whenever the least layer on disk is no higher than the least in its heap,
and :meth:`WaitingRuns.take` reads every run's entries up to a bound, in order: a merge of sorted runs.

Each run is two unlinked temporary files (freed by the system when closed): the keys (int64), searched for a
bound by binary search, 8 bytes read a step, and the numbers and records; both are read with plain reads, never
mapped (pages of a mapped file that were read count in the process's resident memory), so that only what is taken
comes into memory, a piece at a time.  A run is closed as soon as all of it has been taken.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

import numpy as np

NONE_WAITING = np.iinfo(np.int64).max  # the least layer on disk when nothing is


def first_above(key: Callable[[int], int], lo: int, hi: int, upto: int) -> int:
    """The first i in lo..hi-1 with ``key(i)`` above ``upto`` (hi if none), the keys ascending: a binary search,
    one key read a step."""
    while lo < hi:
        mid = (lo + hi) // 2
        if key(mid) <= upto:
            lo = mid + 1
        else:
            hi = mid
    return lo


@dataclass
class _Run:
    n: int  # entries
    key_file: IO[bytes]  # int64 layer keys, ascending
    data: IO[bytes]  # (int32 number, the record's words) per entry, in the keys' order
    cursor: int = 0  # entries before it have been taken

    @property
    def left(self) -> int:
        return self.n - self.cursor

    def key(self, i: int) -> int:
        """Entry i's key, read on its own (the keys are never mapped: pages of a mapped file read count in the
        process's resident memory)."""
        return int.from_bytes(os.pread(self.key_file.fileno(), 8, 8 * i), "little", signed=True)

    def past(self, upto: int) -> int:
        """The first entry from the cursor on whose key is above ``upto`` (n if none): a binary search, one
        read of 8 bytes a step."""
        return first_above(self.key, self.cursor, self.n, upto)

    def keys(self, i: int, m: int) -> np.ndarray:
        """Keys i..i+m-1."""
        return np.frombuffer(os.pread(self.key_file.fileno(), 8 * m, 8 * i), dtype="<i8").astype(np.int64)


class WaitingRuns:
    """The runs of one sweep (records ``words`` words wide), and what has gone through them."""

    def __init__(self, words: int) -> None:
        self.words = words
        self.dtype = np.dtype([("rid", "<i4"), ("rec", "<u8", (words,))])
        self.runs: list[_Run] = []
        self.written = 0  # entries written out in all
        self.taken = 0  # ... and read back
        self.spills = 0  # runs written
        self._open: tuple[IO[bytes], IO[bytes], int, int] | None = None  # the run being written: files, size, last key

    def write_part(self, keys: np.ndarray, rids: np.ndarray, recs: np.ndarray, last: bool) -> None:
        """Write the next part of a run (a run is written a part at a time, so that only a part of it is ever
        copied out of the records at once): ``keys`` ascending, and no lower than the part before; ``rids`` and
        the rows of ``recs`` go with them.  ``last`` ends the run."""
        if self._open is None:
            self._open = (
                tempfile.TemporaryFile(prefix="patience-sweep-keys-"),
                tempfile.TemporaryFile(prefix="patience-sweep-run-"),
                0,
                np.iinfo(np.int64).min,
            )
        key_file, data, n, prev = self._open
        m = int(keys.shape[0])
        if m:
            assert keys[0] >= prev and np.all(keys[1:] >= keys[:-1]), "a run's keys must be sorted"
            key_file.write(np.ascontiguousarray(keys, dtype=np.int64).tobytes())
            rows = np.empty(m, dtype=self.dtype)
            rows["rid"] = rids
            rows["rec"] = recs
            data.write(rows.tobytes())
            self._open = (key_file, data, n + m, int(keys[-1]))
            n += m
        if not last:
            return
        self._open = None
        if n == 0:
            key_file.close()
            data.close()
            return
        key_file.flush()
        data.flush()
        self.runs.append(_Run(n, key_file, data))
        self.written += n
        self.spills += 1

    def least(self) -> int:
        """The least layer key waiting on disk (NONE_WAITING when none is)."""
        return min((r.key(r.cursor) for r in self.runs), default=NONE_WAITING)

    def waiting(self) -> int:
        """How many entries wait on disk (every copy of a position counts: they merge only when read back)."""
        return sum(r.left for r in self.runs)

    def bound(self, chunk: int) -> int:
        """A layer key to take up to: every entry of the least layer, and of the layers after it as many as keep
        each run's share under ``chunk`` entries.  For a run with more than ``chunk`` left, every key below its
        chunk-th one lies within its next ``chunk`` entries, so taking keys below the least such key takes at
        most ``chunk`` from each run; but never less than the whole least layer."""
        least = self.least()
        cuts = [r.key(r.cursor + chunk - 1) - 1 for r in self.runs if r.left > chunk]
        return max(least, min(cuts)) if cuts else NONE_WAITING

    def count(self, upto: int) -> int:
        """How many entries have keys at most ``upto``."""
        return sum(r.past(upto) - r.cursor for r in self.runs)

    def take(self, upto: int, piece: int = 1 << 20) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Read every entry with key at most ``upto`` back, run after run, in pieces of at most ``piece`` entries
        (keys, numbers, records; each run's ascending), so that only a piece is in memory at once; the runs
        left empty are closed once all is read."""
        for r in self.runs:
            n = r.past(upto) - r.cursor
            while n > 0:
                m = min(n, piece)
                size = self.dtype.itemsize
                rows = np.frombuffer(os.pread(r.data.fileno(), m * size, r.cursor * size), dtype=self.dtype)
                keys = r.keys(r.cursor, m)
                r.cursor += m
                n -= m
                self.taken += m
                yield keys, rows["rid"], np.ascontiguousarray(rows["rec"])
        for r in [r for r in self.runs if r.left == 0]:
            self._close(r)
        self.runs = [r for r in self.runs if r.left > 0]

    @staticmethod
    def _close(r: _Run) -> None:
        r.key_file.close()
        r.data.close()

    def close(self) -> None:
        """Drop every run (their disk space is freed with them)."""
        for r in self.runs:
            self._close(r)
        self.runs = []
        if self._open is not None:
            self._open[0].close()
            self._open[1].close()
            self._open = None
