"""Rows of 64-bit words in a file, packed: compressed in blocks, sorted by their first word, read back by range.

The sweep on disk (engine/disk_sweep.py) keeps the positions waiting for higher layers in files that are written
once, read in order and searched by key, and on its largest deals those files are most of its disk: FreeCell
with 6 columns deal 2478 filled 60 GB in one layer.  Its rows are far from random: the key (first word) is the
same for runs of rows, a record's last word is mostly zero, the links rise.  Compressed column by column in
blocks of ``BLOCK_ROWS`` rows with zstd at level 1 (pyarrow's codec), each column as its eight byte planes (all
the rows' lowest bytes, then the next...) so that the bytes its values share lie together, 2478's pending rows
take 12.6 bytes a row where they held 48 (40 without the hash, which the sweep drops and recomputes; 14.5 by
columns without the planes), and the links the sweep keeps (one word a position, read back only along a won
line) 2.7 of 8.  An index of each block's place and last key lets a reader find a key's rows by a binary search
over blocks, reading one block, not a row per step.

A finished file holds: the blocks, one after the other; the footer (block offsets, cumulative row counts, last
keys: arrays of ``nblocks + 1``, ``nblocks + 1`` and ``nblocks`` words); the footer's offset, the width and the
magic word, 8 bytes each.  A file that is only appended to (the links) is read through the writer's own index
instead (``PackedWriter.index``, ``PackedRows.from_index``), with no footer.
"""

from __future__ import annotations

import os
from typing import IO

import numpy as np
import pyarrow as pa

BLOCK_ROWS = 1 << 16  # rows a block holds (the last one fewer)
MAGIC = int.from_bytes(b"PATPACK1", "little")
_CODEC = pa.Codec("zstd", compression_level=1)


def _encode(rows: np.ndarray) -> bytes:
    """A block: its rows as byte planes, column by column, compressed."""
    m, width = rows.shape
    planes = np.ascontiguousarray(rows.T).view(np.uint8).reshape(width, m, 8).transpose(0, 2, 1)
    return _CODEC.compress(np.ascontiguousarray(planes), asbytes=True)


def _decode(data: bytes, m: int, width: int) -> np.ndarray:
    """The ``m`` rows of a block (:func:`_encode`)."""
    raw = np.frombuffer(_CODEC.decompress(data, m * width * 8, asbytes=True), dtype=np.uint8)
    cols = np.ascontiguousarray(raw.reshape(width, 8, m).transpose(0, 2, 1)).view(np.uint64)
    return cols.reshape(width, m).T


class PackedFileError(OSError):
    """A file that is not a whole packed rows file: unfinished, cut short, or not the rows it should hold."""


def _pread(f: IO[bytes], size: int, at: int) -> bytes:
    """``size`` bytes of ``f`` from ``at`` (a short read is an error: the file is not whole)."""
    out = bytearray()
    while len(out) < size:
        got = os.pread(f.fileno(), min(size - len(out), 1 << 30), at + len(out))
        if not got:
            raise PackedFileError(f"a packed rows file ended early: {len(out)} of {size} bytes read at {at}")
        out += got
    return bytes(out)


class PackedWriter:
    """Rows ``width`` words wide appended to ``f`` block by block, from its start or, given ``index`` (a
    writer's ``index()``), after the blocks it names (the file is cut there).  Only rows sorted by their first word
    across every ``add`` can be searched by key."""

    def __init__(
        self, f: IO[bytes], width: int, block_rows: int = 0, index: tuple[list[int], list[int]] | None = None
    ) -> None:
        self.f, self.width = f, width
        self.block_rows = block_rows or BLOCK_ROWS
        self.buf: list[np.ndarray] = []
        self.inbuf = 0
        self.offsets, self.ends = index if index is not None else ([0], [0])
        self.offsets, self.ends = list(self.offsets), list(self.ends)
        self.lasts: list[int] = []  # each block's last key
        f.truncate(self.offsets[-1])
        f.seek(self.offsets[-1])

    def add(self, rows: np.ndarray) -> None:
        """Rows to append.  Those not yet in a block are held as copies, never as views of the caller's arrays
        (a view of a column would keep its whole array alive)."""
        if rows.shape[0] == 0:
            return
        if rows.shape[1] != self.width:
            raise ValueError(f"PackedWriter: rows of {rows.shape[1]} words; allowed: {self.width}")
        self.inbuf += rows.shape[0]
        if self.inbuf < self.block_rows:
            self.buf.append(rows.copy())
            return
        rows = np.concatenate(self.buf + [rows]) if self.buf else rows
        full = rows.shape[0] - rows.shape[0] % self.block_rows
        for lo in range(0, full, self.block_rows):
            self._block(rows[lo : lo + self.block_rows])
        self.buf = [rows[full:].copy()] if full < rows.shape[0] else []
        self.inbuf = rows.shape[0] - full

    def _block(self, rows: np.ndarray) -> None:
        data = _encode(rows)
        self.f.write(data)
        self.offsets.append(self.offsets[-1] + len(data))
        self.ends.append(self.ends[-1] + rows.shape[0])
        self.lasts.append(int(rows[-1, 0]))

    def flush(self) -> None:
        """Write the rows held as a block (of fewer rows, if so)."""
        if self.inbuf:
            self._block(np.concatenate(self.buf) if len(self.buf) > 1 else self.buf[0])
            self.buf, self.inbuf = [], 0
        self.f.flush()

    def index(self) -> tuple[list[int], list[int]]:
        """The blocks written: their offsets and cumulative row counts (after ``flush``, every row added)."""
        return list(self.offsets), list(self.ends)

    def finish(self) -> int:
        """Write what is left and the footer; returns the rows written."""
        self.flush()
        if len(self.lasts) != len(self.offsets) - 1:
            raise ValueError("PackedWriter: a writer resumed from an index cannot write a footer")
        footer = b"".join(np.array(a, dtype=np.uint64).tobytes() for a in (self.offsets, self.ends, self.lasts))
        self.f.write(footer)
        self.f.write(np.array([self.offsets[-1], self.width, MAGIC], dtype=np.uint64).tobytes())
        self.f.flush()
        return self.ends[-1]


class PackedRows:
    """A packed file's rows, read by range and searched by their first word.  The block last read is kept.  Reads
    are positional (``os.pread``), so threads may read one file at once."""

    def __init__(self, f: IO[bytes]) -> None:
        self.f = f
        size = os.fstat(f.fileno()).st_size
        if size < 24:
            raise PackedFileError("a packed rows file without its footer")
        at, width, magic = (int(x) for x in np.frombuffer(_pread(f, 24, size - 24), dtype=np.uint64))
        if magic != MAGIC:
            raise PackedFileError("not a packed rows file (or not finished)")
        nb = (size - 24 - at) // 8 - 2  # the footer holds 3 nblocks + 2 words
        if nb < 0 or nb % 3:
            raise PackedFileError("a packed rows file's footer is damaged")
        nb //= 3
        words = np.frombuffer(_pread(f, size - 24 - at, at), dtype=np.uint64)
        self._index(width, words[: nb + 1], words[nb + 1 : 2 * nb + 2], words[2 * nb + 2 :])

    @classmethod
    def from_index(cls, f: IO[bytes], width: int, index: tuple[list[int], list[int]]) -> PackedRows:
        """The rows of the blocks a writer's ``index()`` names (not searchable by key)."""
        self = cls.__new__(cls)
        self.f = f
        self._index(width, np.array(index[0]), np.array(index[1]), None)
        return self

    def _index(self, width: int, offsets: np.ndarray, ends: np.ndarray, lasts: np.ndarray | None) -> None:
        self.width = width
        self.offsets = offsets.astype(np.int64)
        self.ends = ends.astype(np.int64)
        self.lasts = lasts
        self.n = int(self.ends[-1])
        self._cached = (-1, np.zeros((0, width), dtype=np.uint64))

    def _block(self, b: int) -> np.ndarray:
        cached = self._cached  # one read of it: threads may read one file at once (engine/disk_sweep.py)
        if cached[0] != b:
            lo, hi = int(self.offsets[b]), int(self.offsets[b + 1])
            m = int(self.ends[b + 1] - self.ends[b])
            cached = (b, _decode(_pread(self.f, hi - lo, lo), m, self.width))
            self._cached = cached
        return cached[1]

    def read(self, lo: int, hi: int) -> np.ndarray:
        """Rows lo..hi-1, a new array."""
        out = np.empty((hi - lo, self.width), dtype=np.uint64)
        at = lo
        while at < hi:
            b = int(np.searchsorted(self.ends, at, side="right")) - 1
            s, e = int(self.ends[b]), int(self.ends[b + 1])
            m = min(hi, e) - at
            out[at - lo : at - lo + m] = self._block(b)[at - s : at - s + m]
            at += m
        return out

    def key(self, i: int) -> int:
        """Row i's first word."""
        b = int(np.searchsorted(self.ends, i, side="right")) - 1
        return int(self._block(b)[i - int(self.ends[b]), 0])

    def first_above(self, lo: int, key: int) -> int:
        """The first row from ``lo`` on whose first word is above ``key`` (``n`` if none): the first block whose
        last key is above it, then within that block."""
        b = int(np.searchsorted(self.lasts, np.uint64(key), side="right"))
        if b == len(self.lasts):
            return self.n
        s = int(self.ends[b])
        at = s + int(np.searchsorted(self._block(b)[:, 0], np.uint64(key), side="right"))
        return max(at, lo)
