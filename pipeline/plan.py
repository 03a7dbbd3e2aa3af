"""Plan: every variant x deal range becomes a small work unit.

A unit names its deals by position in the study's deal source; what travels to
a worker (:class:`UnitTask`) is only the rules, the seed and the index range,
or for a deals file the unit's own slice of deal lines, or for Microsoft deals
the unit's deal numbers.  Workers generate the deals themselves, so no large
arrays travel and a deal never depends on the worker or the batch size.

Units are ordered chunk by chunk, every variant within a chunk, so all
variants progress together (their running win rates stay comparable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from pipeline.config import Study


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
        return f"{variant_dir(self.variant)}/part-{self.first}-{self.last}.parquet"


def variant_dir(variant: str) -> str:
    """``variant=<name>``, percent-encoded the way hive partitioning encodes values (pyarrow, polars decode it)."""
    return "variant=" + quote(variant, safe="")


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
    fault: str | None = None  # test-only fault switch (see pipeline.unit)


def plan_units(study: Study) -> list[WorkUnit]:
    units = []
    n, bs = study.source.count, study.batch_size
    for position in range(0, n, bs):
        count = min(bs, n - position)
        first = study.source.deal_index(position)
        last = study.source.deal_index(position + count - 1)
        for name in study.variants:
            units.append(WorkUnit(variant=name, position=position, count=count, first=first, last=last))
    return units


def make_task(study: Study, unit: WorkUnit, run_dir: str, metadata: dict[str, str], fault: str | None = None) -> UnitTask:
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
