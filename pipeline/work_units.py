"""Work units: every variant x deal range of a study, as a pure function of the study.

Nothing lists the units.  The deal source is cut into *chunks* of ``batch_size``
deals (the last one shorter); chunk ``c`` of variant ``v`` is unit number
``c * V + v`` (V variants), so units are ordered chunk by chunk, every variant
within a chunk, and all variants progress together (their running win rates
stay comparable).  :class:`UnitPlan` counts them, finds the i-th, streams
them, and says which unit a part file's name belongs to, all without building
a list: ``patience validate`` of 10^7 units costs nothing, and the driver,
resume and ``patience verify`` walk them in flat memory.

A unit names its deals by position in the study's deal source; what travels to
a worker (:class:`UnitTask`) is only the rules, the seed and the index range,
or for a deals file the unit's own slice of deal lines, or for Microsoft deals
the unit's deal numbers.  Workers generate the deals themselves, so no large
arrays travel and a deal never depends on the worker or the batch size.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import quote

import numpy as np


@dataclass(frozen=True)
class WorkUnit:
    variant: str
    position: int  # position of the unit's first deal in the deal source
    count: int
    first: int  # deal index of the first deal (the `deal` column)
    last: int  # deal index of the last deal

    @property
    def key(self) -> str:
        return f"{self.variant}/part-{self.first}-{self.last}"

    @property
    def relpath(self) -> str:
        """Where its Parquet file lives inside the run folder (hive partition on ``variant``)."""
        return f"{variant_dir(self.variant)}/{part_name(self.first, self.last)}"


@lru_cache(maxsize=4096)
def variant_dir(variant: str) -> str:
    """``variant=<name>``, percent-encoded the way hive partitioning encodes values (pyarrow, polars decode it)."""
    return "variant=" + quote(variant, safe="")


def part_name(first: int, last: int) -> str:
    return f"part-{first}-{last}.parquet"


PART_NAME = re.compile(r"part-(\d+)-(\d+)\.parquet")


class UnitPlan:
    """The units of a study (anything with ``source``, ``batch_size`` and ``variants``), computed, never stored."""

    def __init__(self, study: Any):
        self.source = study.source
        self.batch_size = int(study.batch_size)
        self.variants: list[str] = list(study.variants)
        self.deals = int(self.source.count)
        self.chunks = -(-self.deals // self.batch_size)
        self._variant_number = {name: i for i, name in enumerate(self.variants)}

    def __len__(self) -> int:
        return self.chunks * len(self.variants)

    @property
    def total_deals(self) -> int:
        """Deals over all variants (every variant plays every deal)."""
        return self.deals * len(self.variants)

    def chunk_span(self, chunk: int) -> tuple[int, int, int, int]:
        """(position, count, first, last) of chunk ``chunk``."""
        position = chunk * self.batch_size
        count = min(self.batch_size, self.deals - position)
        return position, count, self.source.deal_index(position), self.source.deal_index(position + count - 1)

    def unit(self, chunk: int, variant: int) -> WorkUnit:
        position, count, first, last = self.chunk_span(chunk)
        return WorkUnit(self.variants[variant], position, count, first, last)

    def __getitem__(self, i: int) -> WorkUnit:
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.unit(i // len(self.variants), i % len(self.variants))

    def __iter__(self) -> Iterator[WorkUnit]:
        return self.units()

    def units(self, skip: np.ndarray | None = None) -> Iterator[WorkUnit]:
        """Every unit in order; ``skip[v, c]`` true leaves out chunk c of variant v (finished on resume)."""
        names = self.variants
        for c in range(self.chunks):
            if skip is not None and skip[:, c].all():
                continue
            position, count, first, last = self.chunk_span(c)
            for v, name in enumerate(names):
                if skip is None or not skip[v, c]:
                    yield WorkUnit(name, position, count, first, last)

    def locate(self, variant: str, first: int, last: int) -> tuple[int, int] | None:
        """(variant number, chunk) of the unit whose part is ``variant=<variant>/part-<first>-<last>``, else None."""
        v = self._variant_number.get(variant)
        if v is None:
            return None
        src = self.source
        if src.kind == "microsoft":
            numbers = src.numbers  # sorted
            position = int(np.searchsorted(numbers, first))
            if position >= len(numbers) or int(numbers[position]) != first:
                return None
        else:
            position = first
        if position % self.batch_size or not 0 <= position < self.deals:
            return None
        chunk = position // self.batch_size
        if self.chunk_span(chunk)[3] != last:
            return None
        return v, chunk

    def locate_key(self, key: str) -> tuple[int, int] | None:
        """Like :meth:`locate`, from a unit key ``<variant>/part-<first>-<last>``."""
        variant, _, rest = key.rpartition("/")
        m = re.fullmatch(r"part-(\d+)-(\d+)", rest)
        return self.locate(variant, int(m.group(1)), int(m.group(2))) if m else None

    def grid(self) -> np.ndarray:
        """A fresh all-false bool[V, chunks]: one byte per unit, the only per-unit state the driver keeps."""
        return np.zeros((len(self.variants), self.chunks), dtype=bool)


def count_units(study: Any) -> int:
    return len(UnitPlan(study))


@dataclass(frozen=True)
class UnitTask:
    """Everything a worker needs for one unit; small by construction."""

    unit: WorkUnit
    game: str
    rules: Any  # the game's frozen rules record
    source_kind: str  # "seeded", "file" or "microsoft"
    seed: int | None
    deal_lines: tuple[str, ...] | None  # deals file: this unit's lines
    numbers: tuple[int, ...] | None  # Microsoft: this unit's deal numbers
    run_dir: str
    metadata: dict[str, str]  # Parquet key-value metadata (study, variant, rules, engine version)
    fault: str | None = None  # test-only fault switch (see pipeline.worker)


def make_task(study: Any, unit: WorkUnit, run_dir: str, metadata: dict[str, str], fault: str | None = None) -> UnitTask:
    src = study.source
    lines = numbers = None
    if src.kind == "file":
        lines = src.lines[unit.position : unit.position + unit.count]
    elif src.kind == "microsoft":
        numbers = tuple(int(x) for x in src.numbers[unit.position : unit.position + unit.count])
    return UnitTask(
        unit=unit,
        game=study.game.name,
        rules=study.variants[unit.variant].rules,
        source_kind=src.kind,
        seed=src.seed,
        deal_lines=lines,
        numbers=numbers,
        run_dir=run_dir,
        metadata=metadata,
        fault=fault,
    )
