"""The sweep with its levels on disk: an exhaustive search of an open solitaire whose positions live in files.

The sweep (engine/open_solitaire.py, "The sweep") expands a deal's positions by *layers* that no move goes back
to, and within a layer breadth first, finding duplicates through a table in memory.  Some deals reach more
positions than any table in 4 GiB holds (FreeCell with 6 columns, seed 99 deal 3499: one level of one layer is
157.4 M positions, 3.8 GB of records alone).  This search makes the same layers and levels, but finds
duplicates the way Korf's external-memory searches do, *delayed*: a level's children are written out, and only
once the whole level is expanded are they sorted into buckets by hash and each bucket deduplicated in memory
against the same bucket of the levels they could repeat.  Memory then holds one group of buckets at a time,
however large the level.

Claim (soundness): ``unsolvable`` only when every position reached has been expanded, so the positions stored
are closed under the search's moves, hold the root and no won position, and the verdict is the plain exhaustive
search's.  Proof, by the sweep's own two facts (its docstring proves both):

* no move lowers the layer key (``_sweep_layer``), so once a layer begins, every position of a lower layer has
  been expanded and every position of this layer met so far waits among the *pending* positions: level 0 is all
  of them, deduplicated among themselves, and none can have been stored before (it would have this layer's key);
* a child of level d in the same layer is in a level already made, or in level d + 1.  Where every move within a
  layer can be undone (``frontier``: empty columns take any card, no reserve, no worrying back), it is in level
  d - 1, d or d + 1, so the candidates are checked against levels d - 1 and d only; elsewhere against every level
  of the layer so far.  Either way a candidate kept is a position not stored before: each position of the layer
  is stored, and expanded, once.

A position is always found again exactly (the records are compared word by word; the hash only chooses its
bucket and its slot), so no position is ever wrongly taken for one stored: the search may take more time or disk
than the sweep in memory, never give another verdict.  ``won`` comes with the line: every position stored has a
number and a link (its parent's number and the move), written in number order to a file of 8 bytes each and read
back along the winning line only; the line is replayed by the kernel from the deal, and the caller's checker
replays it again.

Files: the candidates of a level and every level larger than ``memory_rows`` positions are written to temporary
files (unlinked: the system frees them when closed), sorted by bucket, each with its bucket offsets; so are the
pending positions of higher layers, sorted by layer key, once those in memory pass ``memory_rows``.  A layer's
levels are closed as soon as no candidate can meet them again (two levels on, or at the layer's end).
"""

from __future__ import annotations

import heapq
import os
import tempfile
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import IO

import numba as nb
import numpy as np

from engine import open_solitaire as osol
from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.position_table import words_hash

NBUCKETS = 256  # a record's bucket: the top 8 bits of its hash (the slots below use the low bits)
BUCKET_SHIFT = 56
CODE_BITS = 12  # a link: parent number << CODE_BITS | the move's code (codes are below 2^12: CODE_MASK)
NO_PARENT = np.uint64(np.iinfo(np.uint64).max)  # the root's link
OUT_ROWS = 1 << 16  # children the expansion kernel writes before it returns to have them filed
PIECE = 1 << 16  # records of a level read and expanded at once
MEMORY_ROWS = 1 << 22  # rows of one kind (candidates, a level, pending positions) kept in memory before files
DEDUP_ROWS = 1 << 24  # candidates and old records deduplicated together at most (one group of buckets; at least
# one bucket, however large)


@dataclass
class _Part:
    """Rows sorted by bucket: (links,) records and hashes, in memory or in a temporary file, with the row where
    each bucket starts (``starts[b]``; ``starts[NBUCKETS]`` is the row count)."""

    starts: np.ndarray
    dtype: np.dtype
    rows: np.ndarray | None = None  # in memory
    file: IO[bytes] | None = None  # or written out

    @property
    def n(self) -> int:
        return int(self.starts[-1])

    def read(self, lo: int, hi: int) -> np.ndarray:
        """Rows lo..hi-1."""
        if self.rows is not None:
            return self.rows[lo:hi]
        size = self.dtype.itemsize
        return np.frombuffer(os.pread(self.file.fileno(), (hi - lo) * size, lo * size), dtype=self.dtype)

    def buckets(self, b0: int, b1: int) -> np.ndarray:
        """The rows of buckets b0..b1-1."""
        return self.read(int(self.starts[b0]), int(self.starts[b1]))

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
        self.rows = self.file = None


def _buckets_of(rows: np.ndarray) -> np.ndarray:
    return (rows["hash"] >> np.uint64(BUCKET_SHIFT)).astype(np.int64)


class _PartWriter:
    """A part made from rows that come sorted by bucket (each lot's buckets no lower than the lot's before): in
    memory until it passes ``memory_rows``, then written out as it comes, so that it is never all in memory."""

    def __init__(self, dtype: np.dtype, memory_rows: int) -> None:
        self.dtype, self.memory_rows = dtype, memory_rows
        self.lots: list[np.ndarray] = []
        self.counts = np.zeros(NBUCKETS, dtype=np.int64)
        self.file: IO[bytes] | None = None
        self.n = 0

    def add(self, rows: np.ndarray) -> None:
        self.counts += np.bincount(_buckets_of(rows), minlength=NBUCKETS)
        if self.file is None and self.n + rows.shape[0] > self.memory_rows:
            self.file = tempfile.TemporaryFile(prefix="patience-disk-sweep-")
            for lot in self.lots:
                self.file.write(lot.tobytes())
            self.lots = []
        if self.file is not None:
            self.file.write(rows.tobytes())
        else:
            self.lots.append(rows)
        self.n += rows.shape[0]

    def done(self) -> _Part:
        starts = np.zeros(NBUCKETS + 1, dtype=np.int64)
        starts[1:] = np.cumsum(self.counts)
        if self.file is not None:
            self.file.flush()
            return _Part(starts, self.dtype, file=self.file)
        rows = np.concatenate(self.lots) if self.lots else np.zeros(0, dtype=self.dtype)
        return _Part(starts, self.dtype, rows=rows)


def _part(rows: np.ndarray, memory_rows: int) -> _Part:
    """A part of ``rows`` (with field "hash"), sorted by bucket here, written out when more than
    ``memory_rows``."""
    w = _PartWriter(rows.dtype, memory_rows)
    w.add(rows[np.argsort(_buckets_of(rows), kind="stable")])
    return w.done()


class _Chunk:
    """Pending rows sorted by key, from ``cursor`` on still waiting: in memory, or written out."""

    def __init__(self, rows: np.ndarray | None, file: IO[bytes] | None, n: int, dtype: np.dtype) -> None:
        self.rows, self.file, self.n, self.dtype, self.cursor = rows, file, n, dtype, 0

    def key(self, i: int) -> int:
        if self.rows is not None:
            return int(self.rows["key"][i])
        return int.from_bytes(os.pread(self.file.fileno(), 8, i * self.dtype.itemsize), "little", signed=True)

    def past(self, key: int) -> int:
        """The first row from the cursor on whose key is above ``key``."""
        if self.rows is not None:
            return self.cursor + int(np.searchsorted(self.rows["key"][self.cursor:], key, side="right"))
        lo, hi = self.cursor, self.n  # a binary search, 8 bytes read a step
        while lo < hi:
            mid = (lo + hi) // 2
            if self.key(mid) <= key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def read(self, lo: int, hi: int) -> np.ndarray:
        if self.rows is not None:
            return self.rows[lo:hi]
        size = self.dtype.itemsize
        return np.frombuffer(os.pread(self.file.fileno(), (hi - lo) * size, lo * size), dtype=self.dtype)

    def left(self) -> int:
        return self.n - self.cursor

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
        self.rows = self.file = None


class _Pending:
    """Positions waiting for a higher layer, as chunks of (key, record, hash, link) sorted by key; taken layer
    by layer, least key first.  The chunks in memory are merged two by two as a binary counter does (a chunk is
    merged into the one before once it is at least half its size: at most about log2 of them), and all written
    out as one chunk once they pass ``memory_rows``."""

    def __init__(self, dtype: np.dtype, memory_rows: int) -> None:
        self.dtype, self.memory_rows = dtype, memory_rows
        self.memory: list[_Chunk] = []
        self.files: list[_Chunk] = []
        self.written = 0  # rows written out in all

    def _sorted(self, parts: list[np.ndarray]) -> np.ndarray:
        rows = np.concatenate(parts)
        return rows[np.argsort(rows["key"], kind="stable")]  # timsort: sorted runs merge in linear time

    def add(self, rows: np.ndarray) -> None:
        if rows.shape[0] == 0:
            return
        self.memory.append(_Chunk(self._sorted([rows]), None, rows.shape[0], self.dtype))
        while len(self.memory) > 1 and 2 * self.memory[-1].left() >= self.memory[-2].left():
            b, a = self.memory.pop(), self.memory.pop()
            rows = self._sorted([a.rows[a.cursor:], b.rows[b.cursor:]])
            self.memory.append(_Chunk(rows, None, rows.shape[0], self.dtype))
        if sum(c.left() for c in self.memory) > self.memory_rows:
            rows = self._sorted([c.rows[c.cursor:] for c in self.memory])
            self.memory = []
            f = tempfile.TemporaryFile(prefix="patience-disk-sweep-pending-")
            f.write(rows.tobytes())
            f.flush()
            self.files.append(_Chunk(None, f, rows.shape[0], self.dtype))
            self.written += rows.shape[0]

    def least(self) -> int | None:
        """The least key waiting, or None."""
        return min((c.key(c.cursor) for c in self.memory + self.files), default=None)

    def take(self, key: int, piece: int):
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


def _groups(counts: np.ndarray, most: int) -> list[tuple[int, int]]:
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


@nb.njit(cache=True)
def _expand(recs, i0, first_id, ref, frame, rel, params, out_recs, out_keys, out_links, out_hash):
    """Expand records i0.. of ``recs`` (numbered first_id + i), their children into the out arrays (record,
    layer key, link, hash) until the records end or the out arrays might not hold the next one's children.
    Returns (the next record, children written, the most cards up, the winning record's number or -1 and the
    winning move's code)."""
    empty_out, mv, order, cur, kids, encs, codes, kinds, hashes = osol._expansion_buffers()
    table = np.zeros(1, dtype=np.uint64)
    nw = frame[osol.F_WORDS]
    n = 0
    best = 0
    i = i0
    while i < recs.shape[0]:
        if n + mv.shape[0] > out_recs.shape[0]:
            break
        osol._decode_frame(recs[i], ref, frame, params, cur)
        nm = osol._gen_moves(cur, rel, params, mv)
        for q0 in range(0, nm, osol.KID_CHUNK):
            q1 = min(nm, q0 + osol.KID_CHUNK)
            f, won, _ = osol._prepare_children(cur, mv, q0, q1, kids, encs, hashes, codes, kinds, False, rel,
                                                params, order, table, empty_out, ref, frame)
            best = max(best, f)
            if won >= 0:
                return i, n, best, first_id + i, codes[won - q0]
            for q in range(q0, q1):
                w = encs[q - q0].view(np.uint64)
                for t in range(nw):
                    out_recs[n, t] = w[t]
                out_keys[n] = osol._sweep_layer(kids[q - q0], rel, params)
                out_links[n] = (np.uint64(first_id + i) << np.uint64(CODE_BITS)) | np.uint64(codes[q - q0])
                out_hash[n] = hashes[q - q0]
                n += 1
        i += 1
    return i, n, best, np.int64(-1), np.int64(0)


@nb.njit(cache=True)
def _fresh(cand, cand_hash, old, nw):
    """Which candidates are new: not among ``old`` (records) nor an earlier candidate.  An open-addressing
    set of row numbers (old rows first, then the candidates kept), slots by the hash's low bits, records
    compared word by word.  Returns a boolean mask over the candidates."""
    total = old.shape[0] + cand.shape[0]
    size = 16
    while size < 2 * total:
        size *= 2
    mask = np.uint64(size - 1)
    slots = np.full(size, -1, dtype=np.int64)
    for r in range(old.shape[0]):
        s = words_hash(old[r], nw) & mask
        while slots[s] >= 0:
            s = (s + np.uint64(1)) & mask
        slots[s] = r
    keep = np.zeros(cand.shape[0], dtype=np.bool_)
    for j in range(cand.shape[0]):
        s = cand_hash[j] & mask
        found = False
        while slots[s] >= 0:
            e = slots[s]
            row = old[e] if e < old.shape[0] else cand[e - old.shape[0]]
            same = True
            for t in range(nw):
                if row[t] != cand[j, t]:
                    same = False
                    break
            if same:
                found = True
                break
            s = (s + np.uint64(1)) & mask
        if not found:
            slots[s] = old.shape[0] + j
            keep[j] = True
    return keep


@dataclass
class DiskSweepResult:
    """The verdict (WON, UNSOLVABLE or UNKNOWN), positions expanded and stored, the most cards up, the winning
    line's codes from the start (the safe moves in: :func:`engine.open_solitaire._replay`) and what went to
    disk."""

    outcome: int
    nodes: int
    stored: int
    best: int
    codes: np.ndarray
    written: int
    peak_level: int


class _Links:
    """Every stored position's link, by number: in memory until ``memory_rows``, then appended to a file."""

    def __init__(self, memory_rows: int) -> None:
        self.file = tempfile.TemporaryFile(prefix="patience-disk-sweep-links-")
        self.buf: list[np.ndarray] = []
        self.inbuf = 0
        self.flushed = 0
        self.memory_rows = memory_rows

    def add(self, links: np.ndarray) -> None:
        self.buf.append(np.ascontiguousarray(links, dtype=np.uint64))
        self.inbuf += links.shape[0]
        if self.inbuf > self.memory_rows:
            self.flush()

    def flush(self) -> None:
        for b in self.buf:
            self.file.write(b.tobytes())
        self.flushed += self.inbuf
        self.buf, self.inbuf = [], 0
        self.file.flush()

    def get(self, i: int) -> int:
        if i >= self.flushed:
            self.flush()
        return int.from_bytes(os.pread(self.file.fileno(), 8, 8 * i), "little")

    def close(self) -> None:
        self.file.close()


def disk_sweep(start: np.ndarray, rel: np.ndarray, params: np.ndarray, frontier: bool, total_cap: int,
               memory_rows: int = MEMORY_ROWS, dedup_rows: int = DEDUP_ROWS,
               progress: Callable[..., None] | None = None, stop: Callable[[], bool] | None = None) -> DiskSweepResult:
    """The sweep with its levels on disk (module docstring) from position ``start`` under ``params`` (the sweep's:
    single cards, no streamliners), until decided or ``total_cap`` positions are stored (then UNKNOWN).
    ``frontier``: every move within a layer can be undone (engine/open_solitaire.py, ``_frontier``).
    ``progress``, if given, is called at each level's end with (layer key, level, its positions, expanded,
    stored, rows written out); ``stop``, if given, is asked after each piece of a level is expanded, and when it
    answers true the search ends UNKNOWN (``max_seconds``)."""
    root = np.zeros(osol.STATE_WORDS * 8, dtype=np.uint8)
    root[:osol.STATE_SIZE] = start[:osol.STATE_SIZE]
    osol._closure(root, rel, params, np.zeros(0, dtype=np.int64), 0)
    if osol._foundation_total(root) == 52:
        return DiskSweepResult(WON, 0, 1, 52, np.zeros(0, dtype=np.int64), 0, 1)
    frame = np.zeros(osol.FRAME_SIZE, dtype=np.int64)
    if osol._sweep_frame(root, rel, params, frame) > 2 or frame[osol.F_WORDS] > osol.REC_WORDS:
        raise AssertionError("the sweep's record cannot hold these rules' positions")
    nw = int(frame[osol.F_WORDS])
    enc = np.zeros(osol.REC_BYTES, dtype=np.uint8)
    order = np.zeros(osol.ORDER_SCRATCH, dtype=np.int64)
    hv = osol._encode_record(root, params, enc, order, root, frame)
    level_dtype = np.dtype([("rec", "<u8", (nw,)), ("hash", "<u8")])
    cand_dtype = np.dtype([("rec", "<u8", (nw,)), ("hash", "<u8"), ("link", "<u8")])
    pend_dtype = np.dtype([("key", "<i8"), ("rec", "<u8", (nw,)), ("hash", "<u8"), ("link", "<u8")])
    out_recs = np.zeros((OUT_ROWS, nw), dtype=np.uint64)
    out_keys = np.zeros(OUT_ROWS, dtype=np.int64)
    out_links = np.zeros(OUT_ROWS, dtype=np.uint64)
    out_hash = np.zeros(OUT_ROWS, dtype=np.uint64)
    links = _Links(memory_rows)
    pending = _Pending(pend_dtype, memory_rows)
    first = np.zeros(1, dtype=pend_dtype)
    first["key"] = osol._sweep_layer(root, rel, params)
    first["rec"][0] = enc.view(np.uint64)[:nw]
    first["hash"] = hv
    first["link"] = NO_PARENT
    pending.add(first)
    stored = nodes = best = written = peak_level = 0
    levels: list[tuple[_Part, int]] = []  # the layer's levels kept for deduplication: (part, first number)
    outcome, goal = UNSOLVABLE, (-1, 0)

    def make_level(parts: list[_Part]) -> tuple[_Part, int]:
        """Candidates (parts sorted by bucket) deduplicated, bucket group by bucket group, against the kept
        levels; the new ones numbered and linked in the order written, as one part sorted by bucket."""
        nonlocal stored, written
        counts = np.zeros(NBUCKETS, dtype=np.int64)
        for p in [p for p in parts] + [lv for lv, _ in levels]:
            counts += np.diff(p.starts)
        out = _PartWriter(level_dtype, memory_rows)
        for b0, b1 in _groups(counts, dedup_rows):
            cand = np.concatenate([p.buckets(b0, b1) for p in parts] or [np.zeros(0, cand_dtype)])
            if cand.shape[0]:
                old = np.concatenate([lv.buckets(b0, b1)["rec"] for lv, _ in levels]
                                     or [np.zeros((0, nw), np.uint64)])
                new = cand[_fresh(np.ascontiguousarray(cand["rec"]), np.ascontiguousarray(cand["hash"]),
                                  np.ascontiguousarray(old), nw)]
                new = new[np.argsort(_buckets_of(new), kind="stable")]
                links.add(new["link"])
                rows_out = np.zeros(new.shape[0], dtype=level_dtype)
                rows_out["rec"], rows_out["hash"] = new["rec"], new["hash"]
                out.add(rows_out)
        for p in parts:
            p.close()
        part = out.done()
        if part.file is not None:
            written += part.n
        first_id = stored
        stored += part.n
        return part, first_id

    try:
        while outcome == UNSOLVABLE:
            layer = pending.least()
            if layer is None:
                break  # every position stored was expanded: unsolvable
            for lv, _ in levels:
                lv.close()
            levels = []
            parts: list[_Part] = []
            for rows in pending.take(layer, memory_rows):
                c = np.zeros(rows.shape[0], dtype=cand_dtype)
                c["rec"], c["hash"], c["link"] = rows["rec"], rows["hash"], rows["link"]
                parts.append(_part(c, memory_rows))
            level = make_level(parts)
            depth = 0
            while level[0].n > 0:
                if stored > total_cap:
                    outcome = UNKNOWN
                    level[0].close()
                    break
                levels.append(level)
                peak_level = max(peak_level, level[0].n)
                part, first_id = level
                same: list[np.ndarray] = []
                same_rows = 0
                cparts: list[_Part] = []
                higher: list[np.ndarray] = []
                higher_rows = 0
                for lo in range(0, part.n, PIECE):
                    recs = np.ascontiguousarray(part.read(lo, min(part.n, lo + PIECE))["rec"])
                    i = 0
                    while i < recs.shape[0]:
                        i1, n, b, won_id, won_code = _expand(recs, i, first_id + lo, root, frame, rel, params,
                                                             out_recs, out_keys, out_links, out_hash)
                        nodes += i1 - i + (1 if won_id >= 0 else 0)
                        best = max(best, int(b))
                        if won_id >= 0:
                            outcome, goal = WON, (int(won_id), int(won_code))
                            break
                        i = i1
                        if n and out_keys[:n].min() < layer:
                            raise AssertionError("a move lowered the sweep's layer key")
                        here = out_keys[:n] == layer
                        c = np.zeros(int(here.sum()), dtype=cand_dtype)
                        c["rec"], c["hash"], c["link"] = out_recs[:n][here], out_hash[:n][here], out_links[:n][here]
                        same.append(c)
                        same_rows += c.shape[0]
                        up = ~here
                        h = np.zeros(int(up.sum()), dtype=pend_dtype)
                        h["key"], h["rec"], h["hash"], h["link"] = (out_keys[:n][up], out_recs[:n][up],
                                                                    out_hash[:n][up], out_links[:n][up])
                        higher.append(h)
                        higher_rows += h.shape[0]
                        if same_rows > memory_rows:
                            cparts.append(_part(np.concatenate(same), 0))
                            written += same_rows
                            same, same_rows = [], 0
                        if higher_rows > memory_rows:
                            pending.add(np.concatenate(higher))
                            higher, higher_rows = [], 0
                    if outcome == WON:
                        break
                    if stop is not None and stop():
                        outcome = UNKNOWN
                        break
                if outcome != UNSOLVABLE:
                    for p in cparts:
                        p.close()
                    break
                if higher:
                    pending.add(np.concatenate(higher))
                if same:
                    cparts.append(_part(np.concatenate(same), memory_rows))
                if frontier and len(levels) > 2:
                    levels.pop(0)[0].close()  # two levels on: no candidate can meet it (module docstring)
                level = make_level(cparts)
                depth += 1
                if progress is not None:
                    progress(layer, depth, level[0].n, nodes, stored, written + pending.written)
        codes = np.zeros(0, dtype=np.int64)
        if outcome == WON:
            path = [goal[1]]
            e = goal[0]
            while True:
                link = links.get(e)
                if link == int(NO_PARENT):
                    break
                path.append(link & ((1 << CODE_BITS) - 1))
                e = link >> CODE_BITS
            codes = osol._replay(start, rel, params, np.array(path[::-1], dtype=np.int64))
        return DiskSweepResult(outcome, nodes, stored, best, codes, written + pending.written, peak_level)
    finally:
        for lv, _ in levels:
            lv.close()
        pending.close()
        links.close()

