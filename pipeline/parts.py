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
``solution`` and every other column stay on disk.  Parts ``patience run``
wrote are cheaper still (their footer names their unit, so their rows are
their deals in order, :func:`_deal_range`): ``deal`` is not read at all, and
when every side is laid out alike (variants of one run, :func:`aligned`) the
sides' ``outcome`` columns are streamed side by side by polars, row for row,
instead of opening the files one by one.
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
    in_order: bool = False  # deals lo..hi, each once, in file order (see _deal_range): ``deal`` need not be read


@dataclass
class Block:
    """Parts whose deal ranges overlap (normally exactly one part): read and sorted together."""

    parts: list[Part]
    lo: int
    hi: int


def variant_folders(run_dir) -> dict[str, list[tuple[Path | str, object]]]:
    """variant name -> its completed parts as (path, pyarrow file system), for every variant with a part.

    The parts :func:`pipeline.run_files.run_parts` lists (the one listing every reader uses: strays are left
    out with a warning, a damaged part ends the command); variants in the study's order.
    """
    from pipeline.run_files import run_parts

    listing = run_parts(run_dir)
    store, fs = listing.store, listing.store.filesystem
    where = (lambda rel: Path(store.read_path(rel))) if fs is None else store.read_path  # noqa: E731
    return {name: [(where(p.rel), fs) for p in parts] for name, parts in listing.by_variant().items()}


def _deal_range(path: Path | str, filesystem=None) -> tuple[int, int, int, bool]:
    """(lo, hi, rows, in order) of a part from its footer; reads ``deal`` only if statistics are missing.

    "In order" is a part ``patience run`` wrote for a seeded or file deal source: its footer names its
    unit (``patience.unit``) and source, and such a unit's rows are its deals ``first..last``, each once,
    in that order (``pipeline.worker.make_decks``; ``patience verify`` checks it).  Then ``rows == hi - lo
    + 1`` and the deal column is ``arange(lo, hi + 1)``, so the pairing need not read it: the ``deal``
    column is most of the bytes a comparison would read (it does not compress).  Any other part
    (Microsoft numbers, a hand-made file) is read whole as before.
    """
    import json

    import pyarrow.parquet as pq

    meta = pq.read_metadata(path, filesystem=filesystem)
    rows = meta.num_rows
    if rows == 0:
        return (0, -1, 0, False)
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
        return (lo, hi, rows, False)
    kv = meta.metadata or {}
    in_order = False
    if b"patience.unit" in kv and rows == int(hi) - int(lo) + 1:
        try:
            in_order = json.loads(kv.get(b"patience.deal_source", b"{}")).get("kind") in ("seeded", "file")
        except (ValueError, AttributeError):
            in_order = False
    return (int(lo), int(hi), rows, in_order)


def blocks_of(files: list[tuple[Path | str, object]]) -> list[Block]:
    """A variant's parts (from :func:`variant_folders`) as disjoint blocks in deal order (overlapping parts
    merged into one block)."""
    parts = []
    for path, fs in files:
        lo, hi, rows, in_order = _deal_range(path, fs)
        if rows:
            parts.append(Part(path, lo, hi, rows, fs, in_order))
    parts.sort(key=lambda p: (p.lo, p.hi))
    blocks: list[Block] = []
    for p in parts:
        if blocks and p.lo <= blocks[-1].hi:
            blocks[-1].parts.append(p)
            blocks[-1].hi = max(blocks[-1].hi, p.hi)
        else:
            blocks.append(Block([p], p.lo, p.hi))
    return blocks


def column_ranges(files: list[tuple[Path | str, object]], columns: list[str]) -> dict[str, tuple[int, int]]:
    """column -> (smallest, largest value) over the given parts (``variant_folders``' lists), from the
    Parquet footers' statistics alone, for the integer columns among ``columns``.  A column that some part
    lacks, or gives no statistics for, is left out: the caller reads its rows instead."""
    import pyarrow.parquet as pq

    lo: dict[str, int] = {}
    hi: dict[str, int] = {}
    missing: set[str] = set()
    for path, fs in files:
        meta = pq.read_metadata(path, filesystem=fs)
        names = meta.schema.names
        for c in columns:
            if c in missing:
                continue
            if c not in names:
                missing.add(c)
                continue
            k = names.index(c)
            for g in range(meta.num_row_groups):
                group = meta.row_group(g)
                if group.num_rows == 0:
                    continue
                chunk = group.column(k)
                stats = chunk.statistics
                if stats is None or not stats.has_min_max or chunk.physical_type not in ("INT32", "INT64", "BOOLEAN"):
                    missing.add(c)
                    break
                a, b = int(stats.min), int(stats.max)
                lo[c] = min(lo.get(c, a), a)
                hi[c] = max(hi.get(c, b), b)
    return {c: (lo[c], hi[c]) for c in columns if c in lo and c not in missing}


def _states_of_part(path: Path | str, filesystem=None, first: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(deal indices, states) of one part file, in file order; ``first``: the part is in order from that
    deal (``Part.in_order``), so only ``outcome`` is read."""
    import pyarrow.parquet as pq

    # ParquetFile, not read_table: no dataset discovery per file (about half the time on small parts)
    with pq.ParquetFile(path, read_dictionary=["outcome"], filesystem=filesystem) as f:
        table = f.read(columns=["outcome"] if first is not None else ["deal", "outcome"], use_threads=False)
    if first is not None:
        deals = np.arange(first, first + table.num_rows, dtype=np.int64)
    else:
        deals = table.column("deal").to_numpy()
    outcome = table.column("outcome").combine_chunks()
    words = outcome.dictionary.to_pylist()
    table_of = np.array(
        [WON if w == "won" else UNKNOWN if w == "unknown" else LOST for w in words] or [LOST], dtype=np.int8
    )
    codes = outcome.indices.fill_null(0).to_numpy()
    states = table_of[codes]
    if outcome.null_count:  # a missing outcome is neither won nor unknown: lost, as a comparison of strings says
        states[outcome.is_null().to_numpy(zero_copy_only=False)] = LOST
    return deals, states


def read_block(block: Block, where: str, variant: str) -> tuple[np.ndarray, np.ndarray]:
    """(sorted deal indices, states) of a block; BadInput when a deal appears twice."""
    pieces = [_states_of_part(p.path, p.filesystem, first=p.lo if p.in_order else None) for p in block.parts]
    deals = pieces[0][0] if len(pieces) == 1 else np.concatenate([d for d, _ in pieces])
    states = pieces[0][1] if len(pieces) == 1 else np.concatenate([s for _, s in pieces])
    steps = np.diff(deals)
    if deals.size > 1 and not (steps > 0).all():
        order = np.argsort(deals, kind="stable")
        deals, states = deals[order], states[order]
        if not (np.diff(deals) > 0).all():
            raise BadInput(
                f"{where}: variant {variant!r} holds some deal twice; "
                "allowed: a run folder written by `patience run` (rerun with --fresh)"
            )
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


def paired_counts(
    baseline: tuple[list[Block], str, str], others: list[tuple[list[Block], str, str]]
) -> list[np.ndarray]:
    """3x3 state counts of the baseline against each other side, in one pass over the baseline.

    Each side is (blocks, where, variant name); ``where`` names the run in error messages.
    """
    from concurrent.futures import ThreadPoolExecutor

    blocks, where, name = baseline
    totals = [np.zeros((3, 3), dtype=np.int64) for _ in others]
    if not others:
        return totals
    if aligned(blocks, [o[0] for o in others]):
        try:
            for first in range(0, len(others), ALIGNED_GROUP):
                group = others[first : first + ALIGNED_GROUP]
                for k, counts in enumerate(_aligned_counts(blocks, [o[0] for o in group])):
                    totals[first + k] += counts
            return totals
        except OutOfOrder:
            totals = [np.zeros((3, 3), dtype=np.int64) for _ in others]
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


# --- sides laid out alike: streams instead of a join ----------------------------------------------------

ALIGNED_GROUP = 8  # other sides streamed beside the baseline at once (each is one streaming query)


def aligned(base: list[Block], others: list[list[Block]]) -> bool:
    """Whether every side is the same deal ranges, one local part each, every part in order (``Part.in_order``):
    variants of one run always are.  Then the sides' rows, read part after part, are the same deals row for
    row, and pairing needs no deal index at all."""

    def layout(blocks: list[Block]):
        if not all(len(b.parts) == 1 and b.parts[0].in_order and b.parts[0].filesystem is None for b in blocks):
            return None
        return [(b.lo, b.hi) for b in blocks]

    mine = layout(base)
    return bool(mine) and all(layout(o) == mine for o in others)  # no parts at all: nothing to stream


def _state_stream(blocks: list[Block]):
    """Each row's state (LOST, WON, UNKNOWN as in :func:`_states_of_part`), part after part in deal order, in
    batches: one polars streaming scan of ``outcome`` (much cheaper per file than opening each one)."""
    import polars as pl

    outcome = pl.col("outcome")
    state = (
        pl.when(outcome == "won")
        .then(pl.lit(WON, pl.Int8))
        .when(outcome == "unknown")
        .then(pl.lit(UNKNOWN, pl.Int8))
        .otherwise(pl.lit(LOST, pl.Int8))
        .alias("s")
    )
    lf = pl.scan_parquet([str(b.parts[0].path) for b in blocks], hive_partitioning=False)
    # Batches may come out of order (seen with polars 2.1 when no read column is selected): each carries its
    # rows' positions, checked, so a stream is only ever used in file order.
    position = 0
    for df in lf.with_row_index("_i").select("_i", state).collect_batches(maintain_order=True):
        if df.height == 0:
            continue
        at = df["_i"].to_numpy()
        if at[0] != position or not (np.diff(at) == 1).all():
            raise OutOfOrder
        position += df.height
        yield df["s"].to_numpy().copy()  # a copy: the batch's memory goes with it


class OutOfOrder(Exception):
    """A stream's batches did not come in file order: pair part by part instead."""


def _aligned_counts(base: list[Block], others: list[list[Block]]) -> list[np.ndarray]:
    """3x3 counts of the baseline against each aligned side (:func:`aligned`), by zipping the state streams."""
    streams = [_state_stream(blocks) for blocks in [base, *others]]
    expected = sum(b.hi - b.lo + 1 for b in base)
    buffers = [np.empty(0, np.int8) for _ in streams]
    totals = [np.zeros((3, 3), dtype=np.int64) for _ in others]
    seen = 0
    while True:
        for i, stream in enumerate(streams):
            if buffers[i].size == 0:
                buffers[i] = next(stream, buffers[i])
        m = min(b.size for b in buffers)
        if m == 0:
            break
        for k in range(len(others)):
            totals[k] += pair_counts(buffers[0][:m], buffers[k + 1][:m])
        buffers = [b[m:] for b in buffers]
        seen += m
    if seen != expected or any(b.size for b in buffers):  # the footers said otherwise: files changed under us
        raise RuntimeError("a run's part files changed while they were compared; run the command again")
    return totals
