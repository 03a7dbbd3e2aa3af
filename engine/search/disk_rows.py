"""Rows of uint64 words in memory or in packed files, as the sweep on disk (engine/search/disk_sweep.py) keeps them.

Every row is a run of uint64 words: a level's (record, hash), a candidate's (record, hash, link), a pending
position's (layer key, record, hash, link); nw is the record's width in words.  The hash always follows the record,
at column ``hcol``; in files it is left out and put back as the rows are read (:func:`unpacked`).  This module holds
where those files go (:class:`Files`), rows sorted by bucket (:class:`Part`, :func:`bucket_sort`), the positions
waiting for a higher layer (:class:`Pending`), the deduplication of candidates against old rows (:func:`fresh`) and
the file of every stored position's link (:class:`Links`).  The search that uses them, and why it is sound, is in
disk_sweep.py; what packing saves: docs/solvers.md, "The sweep on disk: design".
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from typing import IO

import numba as nb
import numpy as np

from engine.search.packed_rows import BLOCK_ROWS, PackedFileError, PackedRows, PackedWriter
from engine.search.position_table import words_hash

NBUCKETS = 256  # a record's bucket: the top 8 bits of its hash (the slots below use the low bits)
BUCKET_SHIFT = 56
FAN_IN = 8  # pending files merged at once (Pending)
PACK_BLOCK = BLOCK_ROWS  # rows of a file's compressed blocks (engine/packed_rows.py)


@nb.njit(cache=True, nogil=True)
def unpacked(packed, hcol, rec0):
    """Rows as read from a packed file (``RowsWriter``), with their hash put back at column ``hcol``: the hash is
    a function of the record (``words_hash`` of its words, columns rec0..hcol-1, as ``_expand`` and the root's
    encoding make it), so a file need not hold it."""
    out = np.empty((packed.shape[0], packed.shape[1] + 1), dtype=np.uint64)
    for r in range(packed.shape[0]):
        for t in range(hcol):
            out[r, t] = packed[r, t]
        out[r, hcol] = words_hash(packed[r, rec0:], hcol - rec0)
        for t in range(hcol, packed.shape[1]):
            out[r, t + 1] = packed[r, t]
    return out


class RowsWriter:
    """A new file of rows ``width`` words wide, the hash at column ``hcol`` left out, packed: compressed in blocks
    (engine/packed_rows.py: pending rows of 6 columns' deal 2478 take 12.6 bytes where they held 48)."""

    def __init__(self, files: Files, width: int, hcol: int) -> None:
        self.file = files.new()
        self.cols = [t for t in range(width) if t != hcol]
        self.out = PackedWriter(self.file, width - 1, PACK_BLOCK)

    def add(self, rows: np.ndarray) -> None:
        self.out.add(rows[:, self.cols])

    def finish(self) -> IO[bytes]:
        self.out.finish()
        return self.file


class Rows:
    """Rows ``width`` words wide, their record at columns rec0..hcol-1 and its hash at ``hcol``: in memory, or in a
    packed file (``RowsWriter``)."""

    def __init__(
        self,
        width: int,
        rows: np.ndarray | None,
        file: IO[bytes] | None,
        hcol: int,
        rec0: int = 0,
        n: int | None = None,
        what: str = "file",
    ) -> None:
        """``n``: the rows a file must hold (its footer says how many it does; ``what`` names it if they differ)."""
        self.width, self.rows, self.file, self.hcol, self.rec0 = width, rows, file, hcol, rec0
        self.packed = PackedRows(file) if file is not None else None
        if self.packed is not None and n is not None and self.packed.n != n:
            raise PackedFileError(f"{what} holds {self.packed.n} rows, not {n}")

    def read(self, lo: int, hi: int) -> np.ndarray:
        """Rows lo..hi-1."""
        if self.rows is not None:
            return self.rows[lo:hi]
        return unpacked(self.packed.read(lo, hi), self.hcol, self.rec0)

    def write(self, files: Files, lo: int) -> IO[bytes]:
        """Rows from ``lo`` on, in memory, as a new packed file."""
        w = RowsWriter(files, self.width, self.hcol)
        w.add(self.rows[lo:])
        return w.finish()

    def close(self) -> None:
        if self.file is not None:
            close_file(self.file)
        self.rows = self.file = self.packed = None


class Part(Rows):
    """Rows sorted by bucket (their hash's top bits), with the row where each bucket starts (``starts[b]``;
    ``starts[NBUCKETS]`` is the row count)."""

    def __init__(
        self, starts: np.ndarray, width: int, rows: np.ndarray | None, file: IO[bytes] | None, hcol: int
    ) -> None:
        super().__init__(width, rows, file, hcol, n=int(starts[-1]), what="a level's file")
        self.starts = starts

    @property
    def n(self) -> int:
        return int(self.starts[-1])

    def buckets(self, b0: int, b1: int) -> np.ndarray:
        """The rows of buckets b0..b1-1."""
        return self.read(int(self.starts[b0]), int(self.starts[b1]))


ROWS_PREFIX, ROWS_SUFFIX = "rows-", ".u64"  # a checkpoint directory's files of rows


class Files:
    """Where the sweep's files go.  With no directory, unlinked temporary files: the system frees them when they are
    closed, or when the process ends however it ends.  With one (a checkpoint's), named files in it, each removed
    when the sweep closes it unless the checkpoint on disk names it (``pinned``): those stay until a newer
    checkpoint no longer names them (disk_sweep's save), or the sweep ends decided."""

    def __init__(self, directory: str | None = None) -> None:
        self.directory = directory
        self.pinned: set[str] = set()
        self.held = 0  # bytes of files the sweep is done with, kept only for the checkpoint (disk_sweep's HELD_MAX)

    def new(self) -> IO[bytes]:
        if self.directory is None:
            f = tempfile.TemporaryFile(prefix="patience-disk-sweep-")
        else:
            fd, path = tempfile.mkstemp(prefix=ROWS_PREFIX, suffix=ROWS_SUFFIX, dir=self.directory)
            os.close(fd)
            f = self.open(path)
        return f

    def open(self, path: str) -> IO[bytes]:
        """A named file of the sweep's, read and written."""
        f = open(path, "r+b")
        f.sweep_path, f.sweep_files = path, self
        return f


def close_file(f: IO[bytes]) -> None:
    path = getattr(f, "sweep_path", None)
    if path is not None and path in f.sweep_files.pinned:
        f.sweep_files.held += os.fstat(f.fileno()).st_size
        path = None
    f.close()
    if path is not None:
        os.unlink(path)


TEMP = Files()


@nb.njit(cache=True, nogil=True)
def bucket_sort(rows, hcol):
    """``rows`` sorted by bucket (a counting sort: stable) and each bucket's row count."""
    counts = np.zeros(NBUCKETS, dtype=np.int64)
    for r in range(rows.shape[0]):
        counts[rows[r, hcol] >> np.uint64(BUCKET_SHIFT)] += 1
    at = np.zeros(NBUCKETS, dtype=np.int64)
    for b in range(1, NBUCKETS):
        at[b] = at[b - 1] + counts[b - 1]
    out = np.empty_like(rows)
    for r in range(rows.shape[0]):
        b = rows[r, hcol] >> np.uint64(BUCKET_SHIFT)
        out[at[b]] = rows[r]
        at[b] += 1
    return out, counts


class PartWriter:
    """A part made from lots of rows (the hash at column ``hcol``) each sorted by bucket, each lot's buckets no
    lower than the lot's before: in memory until it passes ``memory_rows``, then written out as it comes, so that
    it is never all in memory."""

    def __init__(self, width: int, hcol: int, memory_rows: int, files: Files = TEMP) -> None:
        self.width, self.hcol, self.memory_rows, self.files = width, hcol, memory_rows, files
        self.lots: list[np.ndarray] = []
        self.counts = np.zeros(NBUCKETS, dtype=np.int64)
        self.out: RowsWriter | None = None
        self.n = 0

    def add(self, rows: np.ndarray, counts: np.ndarray) -> None:
        self.counts += counts
        if self.out is None and self.n + rows.shape[0] > self.memory_rows:
            self.out = RowsWriter(self.files, self.width, self.hcol)
            for lot in self.lots:
                self.out.add(lot)
            self.lots = []
        if self.out is not None:
            self.out.add(rows)
        else:
            self.lots.append(rows)
        self.n += rows.shape[0]

    def done(self) -> Part:
        starts = np.zeros(NBUCKETS + 1, dtype=np.int64)
        starts[1:] = np.cumsum(self.counts)
        if self.out is not None:
            return Part(starts, self.width, None, self.out.finish(), self.hcol)
        rows = np.concatenate(self.lots) if self.lots else np.zeros((0, self.width), dtype=np.uint64)
        return Part(starts, self.width, rows, None, self.hcol)


def bucketed_part(rows: np.ndarray, hcol: int, memory_rows: int, files: Files = TEMP) -> Part:
    """A part of ``rows`` (their hash at column ``hcol``), sorted by bucket here, written out when more than
    ``memory_rows``."""
    w = PartWriter(rows.shape[1], hcol, memory_rows, files)
    w.add(*bucket_sort(rows, hcol))
    return w.done()


class Chunk(Rows):
    """Pending rows sorted by layer key (column 0), from ``cursor`` on still waiting."""

    def __init__(self, rows: np.ndarray | None, file: IO[bytes] | None, n: int, width: int) -> None:
        super().__init__(width, rows, file, width - 2, 1, n=n, what="a pending file")
        self.n, self.cursor = n, 0
        self.tier = 0  # a file's merges (Pending)

    def left(self) -> int:
        return self.n - self.cursor

    def key(self, i: int) -> int:
        if self.rows is not None:
            return int(self.rows[i, 0])
        return self.packed.key(i)

    def past(self, key: int) -> int:
        """The first row from the cursor on whose key is above ``key``."""
        if self.rows is not None:
            return self.cursor + int(np.searchsorted(self.rows[self.cursor :, 0], np.uint64(key), side="right"))
        return self.packed.first_above(self.cursor, key)  # one block read


def by_key(parts: list[np.ndarray]) -> np.ndarray:
    """Rows sorted by layer key (column 0), stable (timsort: sorted runs merge in linear time)."""
    rows = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return rows[np.argsort(rows[:, 0], kind="stable")]


class Pending:
    """Positions waiting for a higher layer, as chunks of rows sorted by layer key; taken layer by layer, least
    key first.  Chunks in memory are merged two by two as a binary counter does (a chunk is merged into the one
    before once it is at least half its size: at most about log2 of them), copies of a position merged as they
    meet (one kept: any copy's link is a real parent's), and written out as one chunk once they pass
    ``memory_rows``.  Files are merged by tiers, ``FAN_IN`` at once, a range of keys at a time (so that a deal
    whose positions reach the higher layers by many paths does not keep every path's copy on disk): a file
    written from memory is of tier 0, and ``FAN_IN`` files of one tier make one of the next.  A row is so
    rewritten about log_FAN_IN of the files' count times, not log2: merging files two by two took a third of
    FreeCell 6 columns deal 3499's time (py-spy), and FAN_IN 8 writes 27% fewer rows in all on deal 2478's first
    3x10^7 positions with 2^19 rows in memory.  Copies in files not yet merged are dropped when their layer is
    taken, with the level they make (disk_sweep's ``make_level``), so merging less never changes what is stored."""

    def __init__(self, width: int, memory_rows: int, files: Files = TEMP) -> None:
        self.width, self.memory_rows, self.store = width, memory_rows, files
        self.memory: list[Chunk] = []
        self.files: list[Chunk] = []
        self.written = 0  # rows written out in all

    def _merged(self, parts: list[np.ndarray]) -> np.ndarray:
        """The rows of ``parts``, one copy of each position, sorted by key."""
        rows = parts[0] if len(parts) == 1 else np.concatenate(parts)
        rows = rows[fresh(rows[:, 1:], np.zeros((0, self.width - 1), dtype=np.uint64), self.width - 3)]
        return by_key([rows])

    def add(self, rows: np.ndarray) -> None:
        if rows.shape[0] == 0:
            return
        self.memory.append(Chunk(by_key([rows]), None, rows.shape[0], self.width))
        while len(self.memory) > 1 and 2 * self.memory[-1].left() >= self.memory[-2].left():
            b, a = self.memory.pop(), self.memory.pop()
            rows = self._merged([a.rows[a.cursor :], b.rows[b.cursor :]])
            self.memory.append(Chunk(rows, None, rows.shape[0], self.width))
        if sum(c.left() for c in self.memory) > self.memory_rows:
            rows = self._merged([c.rows[c.cursor :] for c in self.memory])
            self.memory = []
            w = RowsWriter(self.store, self.width, self.width - 2)
            w.add(rows)
            self.files.append(Chunk(None, w.finish(), rows.shape[0], self.width))
            self.written += rows.shape[0]
            while True:
                tier, run = self.files[-1].tier, 1  # the last files of the last one's tier
                while run < len(self.files) and self.files[-run - 1].tier == tier:
                    run += 1
                if run < FAN_IN:
                    break
                merged = self._merge_files(self.files[-run:])
                merged.tier = tier + 1
                del self.files[-run:]
                self.files.append(merged)

    def _merge_files(self, chunks: list[Chunk]) -> Chunk:
        """One chunk of every row waiting in ``chunks`` (closed), copies of a position merged, a range of keys
        at a time: the keys below the least of the chunks' keys ``piece`` rows on (fewer than ``piece`` rows from
        each chunk), or when that is the least key, that key's rows alone (written through as they are, in
        pieces, when more than ``memory_rows``)."""
        w, n = RowsWriter(self.store, self.width, self.width - 2), 0
        piece = max(1, self.memory_rows // len(chunks))

        def put(rows: np.ndarray) -> None:
            nonlocal n
            w.add(rows)
            n += rows.shape[0]

        while True:
            live = [c for c in chunks if c.left() > 0]
            if not live:
                break
            least = min(c.key(c.cursor) for c in live)
            cuts = [c.key(c.cursor + piece - 1) for c in live if c.left() > piece]
            upto = min(cuts) - 1 if cuts and min(cuts) > least else least if cuts else None
            ends = [c.n if upto is None else c.past(upto) for c in live]
            if sum(e - c.cursor for c, e in zip(live, ends, strict=True)) > self.memory_rows:  # one key, too many rows
                for c, e in zip(live, ends, strict=True):
                    for lo in range(c.cursor, e, piece):
                        put(c.read(lo, min(e, lo + piece)))
            else:
                put(self._merged([c.read(c.cursor, e) for c, e in zip(live, ends, strict=True)]))
            for c, e in zip(live, ends, strict=True):
                c.cursor = e
        for c in chunks:
            c.close()
        self.written += n
        return Chunk(None, w.finish(), n, self.width)

    def least(self) -> int | None:
        """The least key waiting, or None."""
        return min((c.key(c.cursor) for c in self.memory + self.files), default=None)

    def count(self, key: int) -> int:
        """How many rows of ``key`` (the least waiting) wait, copies counted (a block read a file)."""
        return sum(c.past(key) - c.cursor for c in self.memory + self.files)

    def take(self, key: int, piece: int) -> Iterator[np.ndarray]:
        """Every row of ``key`` (the least waiting), in pieces of at most ``piece`` rows."""
        for c in self.memory + self.files:
            end = c.past(key)
            while c.cursor < end:
                m = min(end - c.cursor, piece)
                yield c.read(c.cursor, c.cursor + m)
                c.cursor += m
        for c in self.memory + self.files:
            if c.left() == 0:
                c.close()
        self.memory = [c for c in self.memory if c.left() > 0]
        self.files = [c for c in self.files if c.left() > 0]

    def close(self) -> None:
        for c in self.memory + self.files:
            c.close()
        self.memory, self.files = [], []


def bucket_groups(counts: np.ndarray, most: int) -> list[tuple[int, int]]:
    """Buckets 0..NBUCKETS-1 cut into runs of consecutive buckets of at most ``most`` rows each (a bucket larger
    than that alone)."""
    if int(counts.sum()) <= most:
        return [(0, NBUCKETS)]
    out, b0, rows = [], 0, 0
    for b in range(NBUCKETS):
        if b > b0 and rows + int(counts[b]) > most:
            out.append((b0, b))
            b0, rows = b, 0
        rows += int(counts[b])
    out.append((b0, NBUCKETS))
    return out


def joined(arrays: list[np.ndarray], width: int) -> np.ndarray:
    """One array of the rows of ``arrays``, in order."""
    if not arrays:
        return np.zeros((0, width), dtype=np.uint64)
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


@nb.njit(cache=True, nogil=True)
def fresh(cand, old, nw):
    """Which candidates (rows: record, hash, ...) are new: not among the ``old`` rows' records nor an earlier
    candidate's.  An open-addressing set of row numbers (old rows first, then the candidates kept), slots by the
    hash's low bits, each slot holding 31 other bits of the hash beside its row number, so that a probe reads a
    row only when those bits match (most probes that miss then touch the slots alone: 20% less time than reading
    every row probed, on 8 M candidates against 8 M old rows, though whole sweeps of 6 columns deals 220 and 2478,
    with smaller groups, took about the same); a match is confirmed on the record, word by word.
    Returns a boolean mask over the candidates."""
    total = old.shape[0] + cand.shape[0]
    if total >= 1 << 32:
        raise ValueError("fresh: more than 2^32 rows at once")
    size = 16
    while size < 2 * total:
        size *= 2
    mask = np.uint64(size - 1)
    slots = np.full(size, -1, dtype=np.int64)
    for r in range(old.shape[0]):
        h = old[r, nw]
        s = h & mask
        while slots[s] >= 0:
            s = (s + np.uint64(1)) & mask
        slots[s] = (np.int64((h >> np.uint64(25)) & np.uint64(0x7FFFFFFF)) << np.int64(32)) | np.int64(r)
    keep = np.zeros(cand.shape[0], dtype=np.bool_)
    for j in range(cand.shape[0]):
        h = cand[j, nw]
        s = h & mask
        tag = np.int64((h >> np.uint64(25)) & np.uint64(0x7FFFFFFF))
        found = False
        while slots[s] >= 0:
            v = slots[s]
            if v >> np.int64(32) == tag:
                e = v & np.int64(0xFFFFFFFF)
                same = True
                for t in range(nw):
                    x = old[e, t] if e < old.shape[0] else cand[e - old.shape[0], t]
                    if x != cand[j, t]:
                        same = False
                        break
                if same:
                    found = True
                    break
            s = (s + np.uint64(1)) & mask
        if not found:
            slots[s] = (tag << np.int64(32)) | np.int64(old.shape[0] + j)
            keep[j] = True
    return keep


class Links:
    """Every stored position's link, by number, appended to a file packed (engine/packed_rows.py: about 2.7 bytes a
    link against 8 on 6 columns' deal 2478), from ``index`` on when resumed from a checkpoint."""

    def __init__(
        self, files: Files = TEMP, file: IO[bytes] | None = None, index: tuple[list[int], list[int]] | None = None
    ) -> None:
        self.file = file if file is not None else files.new()
        self.out = PackedWriter(self.file, 1, PACK_BLOCK, index)
        self.reader: PackedRows | None = None

    def add(self, links: np.ndarray) -> None:
        self.out.add(links.reshape(-1, 1))
        self.reader = None

    def index(self) -> tuple[list[int], list[int]]:
        """The blocks written, every link added in them (for a checkpoint)."""
        self.out.flush()
        return self.out.index()

    def get(self, i: int) -> int:
        if self.reader is None:
            self.reader = PackedRows.from_index(self.file, 1, self.index())
        return int(self.reader.read(i, i + 1)[0, 0])

    def close(self) -> None:
        close_file(self.file)
