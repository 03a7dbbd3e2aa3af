"""What a worker does with one work unit: make its deals, play them, write one Parquet file.

Runs the same way in-process (serial backend) and in a Ray worker.  The table
is built from ``GameSpec.columns()`` alone, so every game's columns come out of
``play_batch`` without any change here.
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from engine.deals import microsoft_deal, parse_deal, seeded_deals
from engine.outcomes import OUTCOMES, WON
from engine.registry import GameSpec, get_game
from pipeline.run_files import SUMMARY_KEY, write_part
from pipeline.run_store import PartStamp
from pipeline.work_units import UnitTask

_OUTCOME_STRINGS = pa.array(OUTCOMES, type=pa.string())


@dataclass
class UnitSummary:
    """The small answer a unit sends back to the driver."""

    key: str
    variant: str
    count: int
    wins: int
    outcome_counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    host: str = ""
    node: str = ""  # the Ray node id that played it ("" on the serial backend)
    first: int = 0  # the unit's deal range (its first and last deal index)
    last: int = -1
    # the written part's stamp (pipeline.run_store.PartStamp), set once it is written; plain fields, so that
    # 10^5 summaries cross from Ray workers as cheaply as before
    sha256: str = ""
    size: int = 0
    mtime_ns: int | None = None

    def record(self) -> dict:
        """The unit's line in units.jsonl; before the part is written (no stamp yet), its ``patience.summary``.

        The stamp (``sha256``, ``bytes``, ``mtime_ns``) is in the log only: a file cannot hold its own hash.
        """
        rec = {
            "key": self.key,
            "variant": self.variant,
            "count": self.count,
            "first": self.first,
            "last": self.last,
            "wins": self.wins,
            "outcomes": self.outcome_counts,
            "seconds": round(self.seconds, 4),
            "host": self.host,
            "node": self.node,
        }
        if self.sha256:
            rec.update(sha256=self.sha256, bytes=self.size, mtime_ns=self.mtime_ns)
        return rec


def _node_id() -> str:
    """The Ray node of the task playing this unit, or "" outside a Ray task: the serial backend records no node,
    even in a process that has Ray initialised (cheap: no import when Ray is not loaded)."""
    import sys

    ray = sys.modules.get("ray")
    if ray is None or not ray.is_initialized():
        return ""
    try:
        context = ray.get_runtime_context()
        return (context.get_node_id() or "") if context.get_task_id() is not None else ""
    except Exception:  # noqa: BLE001 - the node is a record, never a reason to fail a unit
        return ""


def make_decks(game: GameSpec, task: UnitTask) -> tuple[np.ndarray, np.ndarray]:
    """The unit's deals (uint8[count, ncards]) and their indices (int64[count])."""
    u = task.unit
    if task.source_kind == "seeded":
        decks = seeded_deals(game.deck, task.seed, u.first, u.count)
        return decks, np.arange(u.first, u.first + u.count, dtype=np.int64)
    if task.source_kind == "file":
        decks = np.stack(
            [parse_deal(line, game.deck, where=f"deal {u.position + i}") for i, line in enumerate(task.deal_lines)]
        )
        return decks, np.arange(u.position, u.position + u.count, dtype=np.int64)
    if task.source_kind == "microsoft":
        return np.stack([microsoft_deal(n) for n in task.numbers]), np.asarray(task.numbers, dtype=np.int64)
    raise ValueError(f"unknown deal source {task.source_kind!r}")


def to_table(game: GameSpec, deal: np.ndarray, columns: dict[str, np.ndarray], metadata: dict[str, str]) -> pa.Table:
    """The per-deal table of DESIGN section 6 (``variant`` comes from the partition folder)."""
    codes = np.asarray(columns["outcome"], dtype=np.uint8)
    if codes.size and int(codes.max()) >= len(OUTCOMES):
        raise ValueError(f"{game.name}: outcome code {int(codes.max())} is not in engine.outcomes.OUTCOMES")
    arrays = {
        "deal": pa.array(deal, type=pa.int64()),
        "outcome": _OUTCOME_STRINGS.take(pa.array(codes, type=pa.uint8())),
        "won": pa.array(codes == WON, type=pa.bool_()),
    }
    for name, dtype in game.columns().items():
        if name == "outcome":
            continue
        values = np.asarray(columns[name])
        if values.shape != codes.shape:
            raise ValueError(f"{game.name}: column {name!r} has shape {values.shape}, expected {codes.shape}")
        if dtype == "string":
            arrays[name] = pa.array(values.tolist(), type=pa.string())
        else:
            arrays[name] = pa.array(values.astype(dtype, copy=False), type=pa.from_numpy_dtype(np.dtype(dtype)))
    table = pa.table(arrays)
    return table.replace_schema_metadata({k.encode(): v.encode() for k, v in metadata.items()})


def _fault(task: UnitTask) -> None:
    """Test-only faults (PATIENCE_TEST_FAULT on the driver); never set in normal runs.

    ``die_once:PATH``  the first worker to get here exits hard (a dead worker Ray must retry);
    ``raise:PATH``     raise as the engine would (must not be retried); PATH counts attempts;
    ``sleep:SECONDS``  slow every unit down (so a test can kill a run part way).
    """
    kind, _, arg = task.fault.partition(":")
    if kind == "die_once":
        try:
            fd = os.open(arg, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.close(fd)
        os._exit(17)
    if kind == "raise":
        with open(arg, "a") as f:
            f.write(task.unit.key + "\n")
        raise RuntimeError(f"test fault: engine failure in {task.unit.key}")
    if kind == "sleep":
        time.sleep(float(arg))


def run_unit(task: UnitTask) -> UnitSummary:
    """Play one unit and write its file; returns a small summary."""
    t0 = time.perf_counter()
    if task.fault:
        _fault(task)
    game = get_game(task.game)
    decks, deal = make_decks(game, task)
    columns = game.play_batch(decks, task.rules)
    codes = np.asarray(columns["outcome"], dtype=np.uint8)
    counts = np.bincount(codes, minlength=len(OUTCOMES))
    summary = UnitSummary(
        key=task.unit.key,
        variant=task.unit.variant,
        count=task.unit.count,
        wins=int(counts[WON]),
        outcome_counts={OUTCOMES[i]: int(c) for i, c in enumerate(counts) if c},
        host=socket.gethostname(),
        node=_node_id(),
        first=task.unit.first,
        last=task.unit.last,
    )
    summary.seconds = time.perf_counter() - t0  # playing; the write below is not counted
    table = to_table(
        game,
        deal,
        columns,
        {**task.metadata, "patience.unit": task.unit.key, SUMMARY_KEY: json.dumps(summary.record())},
    )
    # a path or a storage URI (pipeline.run_store); the stamp is hashed from the bytes as they are written
    stamp: PartStamp = write_part(task.run_dir, task.unit.relpath, table)
    summary.sha256, summary.size, summary.mtime_ns = stamp.sha256, stamp.size, stamp.mtime_ns
    return summary


class UnitError(RuntimeError):
    """A unit of a several-unit Ray task failed: names it (``key``) and says why in one line (``text``)."""

    def __init__(self, key: str, text: str):
        super().__init__(key, text)
        self.key, self.text = key, text

    def __str__(self) -> str:
        return f"{self.key}: {self.text}"


def run_units(tasks: list[UnitTask]) -> list[UnitSummary]:
    """Several units in one call: what a Ray task runs when units are tiny (their per-task cost is shared).

    The parts of the units before a failing one are written; resume finds them by listing.
    """
    out = []
    for task in tasks:
        try:
            out.append(run_unit(task))
        except Exception as exc:  # noqa: BLE001 - named and passed on; never retried (see executors)
            raise UnitError(task.unit.key, f"{type(exc).__name__}: {exc}") from None
    return out


def warm_up(game: str, rules) -> str:
    """Load what a unit needs in this worker: the game's engine (imports, compiled kernels: one seeded
    deal played) and the Parquet writer (imported on a unit's first write otherwise)."""
    import pyarrow.parquet  # noqa: F401 - the import is the point

    spec = get_game(game)
    spec.play_batch(seeded_deals(spec.deck, 0, 0, 1), rules)
    return socket.gethostname()
