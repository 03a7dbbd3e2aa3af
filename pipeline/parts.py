"""A run's part files read part by part: paired win/loss states joined on ``deal`` in flat memory.

``patience compare`` pairs two variants (or one variant in two runs) deal by
deal.  Loading whole columns would cost about 9 bytes a deal, 40 GB at 10^9
deals per variant; instead each side is a sorted list of *blocks* (one part
file, or several whose deal ranges overlap) and a merge join walks them in
deal order, holding only the blocks that cover the current range:

* the deal range of a part comes from its Parquet footer (the ``deal``
  column's statistics), so planning the walk reads no rows;
* the baseline's blocks are read in order; every other side keeps a
  :class:`Cursor` that loads its blocks as the baseline's range reaches them
  and drops them once passed.  Variants of one run share their unit ranges, so
  each baseline part meets exactly one part of each variant; two runs with
  different batch sizes work the same way, holding a few parts at a time.
* a deal is counted once: baseline blocks are disjoint, so each baseline deal
  belongs to one block, and is paired with the other side's deal of the same
  index (if any) inside that block's range.

Only ``deal`` and ``outcome`` are read (``outcome`` as its dictionary codes);
``solution`` and every other column stay on disk.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.errors import BadInput

LOST, WON, UNKNOWN = 0, 1, 2  # per-deal states used for pairing (pipeline.paired uses the same codes)
READ_THREADS = 2  # background readers: one block ahead on every side


@dataclass(frozen=True)
class Part:
    path: Path | str  # a local Path, or what pyarrow opens with ``filesystem`` (object storage)
    lo: int  # smallest deal index in the file
    hi: int  # largest
    rows: int
    filesystem: object = None


@dataclass
class Block:
    """Parts whose deal ranges overlap (normally exactly one part): read and sorted together."""

    parts: list[Part]
    lo: int
    hi: int


def variant_folders(run_dir) -> dict[str, list[tuple[Path | str, object]]]:
    """variant name -> its completed parts as (path, pyarrow file system), for every variant with a part.

    The parts :func:`pipeline.store.run_parts` lists (the one listing every reader uses: strays are left
    out with a warning, a damaged part ends the command); variants in the study's order.
    """
    from pipeline.store import run_parts

    listing = run_parts(run_dir)
    store, fs = listing.store, listing.store.filesystem
    where = (lambda rel: Path(store.read_path(rel))) if fs is None else store.read_path  # noqa: E731
    return {name: [(where(p.rel), fs) for p in parts] for name, parts in listing.by_variant().items()}


def _deal_range(path: Path | str, filesystem=None) -> tuple[int, int, int]:
    """(lo, hi, rows) of a part from its footer; reads the ``deal`` column only if statistics are missing."""
    import pyarrow.parquet as pq

    meta = pq.read_metadata(path, filesystem=filesystem)
    rows = meta.num_rows
    if rows == 0:
        return (0, -1, 0)
    names = meta.schema.names
    if "deal" not in names:
        raise BadInput(f"RUN_DIR: part {path} has no `deal` column; allowed: parts written by `patience run`")
    col = names.index("deal")
    lo, hi = None, None
    for g in range(meta.num_row_groups):
        stats = meta.row_group(g).column(col).statistics
        if stats is None or not stats.has_min_max or meta.row_group(g).num_rows == 0:
            lo = None
            break
        lo = stats.min if lo is None else min(lo, stats.min)
        hi = stats.max if hi is None else max(hi, stats.max)
    if lo is None:
        deals = pq.read_table(path, columns=["deal"], filesystem=filesystem).column("deal").to_numpy()
        lo, hi = int(deals.min()), int(deals.max())
    return (int(lo), int(hi), rows)


def blocks_of(files: list[tuple[Path | str, object]]) -> list[Block]:
    """A variant's parts (from :func:`variant_folders`) as disjoint blocks in deal order (overlapping parts
    merged into one block)."""
    parts = []
    for path, fs in files:
        lo, hi, rows = _deal_range(path, fs)
        if rows:
            parts.append(Part(path, lo, hi, rows, fs))
    parts.sort(key=lambda p: (p.lo, p.hi))
    blocks: list[Block] = []
    for p in parts:
        if blocks and p.lo <= blocks[-1].hi:
            blocks[-1].parts.append(p)
            blocks[-1].hi = max(blocks[-1].hi, p.hi)
        else:
            blocks.append(Block([p], p.lo, p.hi))
    return blocks


def _states_of_part(path: Path | str, filesystem=None) -> tuple[np.ndarray, np.ndarray]:
    """(deal indices, states) of one part file, in file order."""
    import pyarrow.parquet as pq

    # ParquetFile, not read_table: no dataset discovery per file (about half the time on small parts)
    with pq.ParquetFile(path, read_dictionary=["outcome"], filesystem=filesystem) as f:
        table = f.read(columns=["deal", "outcome"])
    deals = table.column("deal").to_numpy()
    outcome = table.column("outcome").combine_chunks()
    words = outcome.dictionary.to_pylist()
    table_of = np.array([WON if w == "won" else UNKNOWN if w == "unknown" else LOST for w in words] or [LOST],
                        dtype=np.int8)
    codes = outcome.indices.fill_null(0).to_numpy()
    states = table_of[codes]
    if outcome.null_count:  # a missing outcome is neither won nor unknown: lost, as a comparison of strings says
        states[outcome.is_null().to_numpy(zero_copy_only=False)] = LOST
    return deals, states


def read_block(block: Block, where: str, variant: str) -> tuple[np.ndarray, np.ndarray]:
    """(sorted deal indices, states) of a block; BadInput when a deal appears twice."""
    pieces = [_states_of_part(p.path) if p.filesystem is None else _states_of_part(p.path, p.filesystem)
              for p in block.parts]
    deals = pieces[0][0] if len(pieces) == 1 else np.concatenate([d for d, _ in pieces])
    states = pieces[0][1] if len(pieces) == 1 else np.concatenate([s for _, s in pieces])
    steps = np.diff(deals)
    if deals.size > 1 and not (steps > 0).all():
        order = np.argsort(deals, kind="stable")
        deals, states = deals[order], states[order]
        if not (np.diff(deals) > 0).all():
            raise BadInput(f"{where}: variant {variant!r} holds some deal twice; "
                           "allowed: a run folder written by `patience run` (rerun with --fresh)")
    return deals, states


class ReadAhead:
    """Reads blocks on a background thread before they are needed (pyarrow decodes without the GIL), so
    reading overlaps the pairing; at most a few blocks are in flight, so memory stays flat."""

    def __init__(self, pool):
        self.pool = pool
        self.pending: dict[int, object] = {}

    def want(self, block: Block, where: str, variant: str) -> None:
        if self.pool is not None and id(block) not in self.pending:
            self.pending[id(block)] = self.pool.submit(read_block, block, where, variant)

    def get(self, block: Block, where: str, variant: str) -> tuple[np.ndarray, np.ndarray]:
        future = self.pending.pop(id(block), None)
        return future.result() if future is not None else read_block(block, where, variant)


class Cursor:
    """One side of the merge join: hands out (deals, states) for increasing deal ranges."""

    def __init__(self, blocks: list[Block], where: str, variant: str, reader: ReadAhead | None = None):
        self.blocks, self.where, self.variant = blocks, where, variant
        self.reader = reader or ReadAhead(None)
        self.next = 0
        self.loaded: deque[tuple[Block, np.ndarray, np.ndarray]] = deque()

    def prefetch(self, lo: int, hi: int) -> None:
        """Start reading the blocks a later ``take(lo, hi)`` will load."""
        k = self.next
        while k < len(self.blocks) and self.blocks[k].lo <= hi:
            if self.blocks[k].hi >= lo:
                self.reader.want(self.blocks[k], self.where, self.variant)
            k += 1

    def take(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """Deals in [lo, hi] (sorted) and their states; later calls must not ask for a smaller ``lo``."""
        while self.loaded and self.loaded[0][0].hi < lo:
            self.loaded.popleft()
        while self.next < len(self.blocks) and self.blocks[self.next].lo <= hi:
            block = self.blocks[self.next]
            self.next += 1
            if block.hi >= lo:  # a block wholly before the range pairs with nothing: never read
                self.loaded.append((block, *self.reader.get(block, self.where, self.variant)))
        if not self.loaded:
            return np.empty(0, np.int64), np.empty(0, np.int8)
        if len(self.loaded) == 1:
            deals, states = self.loaded[0][1], self.loaded[0][2]
        else:
            deals = np.concatenate([d for _, d, _ in self.loaded])
            states = np.concatenate([s for _, _, s in self.loaded])
        i, j = np.searchsorted(deals, lo, "left"), np.searchsorted(deals, hi, "right")
        return deals[i:j], states[i:j]


def pair_counts(baseline: np.ndarray, variant: np.ndarray) -> np.ndarray:
    """3x3 counts [baseline state, variant state] over paired deals (states LOST, WON, UNKNOWN)."""
    return np.bincount(3 * baseline.astype(np.int64) + variant.astype(np.int64), minlength=9).reshape(3, 3)


def _pair(da: np.ndarray, sa: np.ndarray, db: np.ndarray, sb: np.ndarray) -> np.ndarray:
    if da.size == db.size and np.array_equal(da, db):  # the usual case: the same unit in both
        return pair_counts(sa, sb)
    _, ia, ib = np.intersect1d(da, db, assume_unique=True, return_indices=True)
    return pair_counts(sa[ia], sb[ib])


def paired_counts(baseline: tuple[list[Block], str, str],
                  others: list[tuple[list[Block], str, str]]) -> list[np.ndarray]:
    """3x3 state counts of the baseline against each other side, in one pass over the baseline.

    Each side is (blocks, where, variant name); ``where`` names the run in error messages.
    """
    from concurrent.futures import ThreadPoolExecutor

    blocks, where, name = baseline
    totals = [np.zeros((3, 3), dtype=np.int64) for _ in others]
    if not others:
        return totals
    with ThreadPoolExecutor(max_workers=READ_THREADS, thread_name_prefix="patience-read") as pool:
        reader = ReadAhead(pool)
        cursors = [Cursor(*o, reader=reader) for o in others]
        for i, block in enumerate(blocks):
            if i + 1 < len(blocks):  # the next range, read while this one is paired
                upcoming = blocks[i + 1]
                reader.want(upcoming, where, name)
                for cursor in cursors:
                    cursor.prefetch(upcoming.lo, upcoming.hi)
            da, sa = reader.get(block, where, name)
            for k, cursor in enumerate(cursors):
                db, sb = cursor.take(block.lo, block.hi)
                if db.size:
                    totals[k] += _pair(da, sa, db, sb)
    return totals
