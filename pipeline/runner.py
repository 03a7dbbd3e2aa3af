"""The driver of ``patience run``: check the output folder, plan, skip finished units, run, record.

Order matters for "bad input writes nothing": the study is already validated,
then the output folder is judged (:func:`pipeline.store.check_out_dir`), and
only then is anything created.  The driver holds one small summary per unit
(never rows), keeps ``run.json`` current, and draws the progress bar.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import socket
import sys
import time
from dataclasses import dataclass
from importlib import metadata as _md
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from engine import ENGINE_VERSION
from pipeline.config import Study
from pipeline.errors import RunFailed
from pipeline.executors import UnitFailed, make_executor
from pipeline.plan import WorkUnit, make_task, plan_units
from pipeline.store import (
    check_out_dir,
    clear_run,
    clear_tmp,
    part_complete,
    read_manifest,
    write_manifest,
)

FAULT_ENV = "PATIENCE_TEST_FAULT"  # test-only fault switch, see pipeline.unit._fault
MANIFEST_EVERY = 1.0  # seconds between manifest rewrites while running (at least)
PACKAGES = ("numpy", "numba", "pyarrow", "polars", "ray", "typer", "rich", "pyyaml", "pydantic")


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def package_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = _md.version(name)
        except _md.PackageNotFoundError:
            pass
    return out


@dataclass
class RunOutcome:
    out_dir: Path
    units_total: int
    units_skipped: int
    units_run: int
    seconds: float


class _DealsPerSecond(ProgressColumn):
    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} deals/s" if speed else "- deals/s", style="cyan")


class _StudyProgress(Progress):
    """A progress bar with one more line: each variant's running win rate."""

    def __init__(self, rates, *columns, **kwargs):
        self._rates = rates  # before super().__init__, which renders once
        super().__init__(*columns, **kwargs)

    def get_renderables(self):
        yield from super().get_renderables()
        yield self._rates()


class _Tally:
    """Running deals and wins per variant, for the progress line."""

    def __init__(self, variants: list[str]):
        self.deals = dict.fromkeys(variants, 0)
        self.wins = dict.fromkeys(variants, 0)

    def add(self, variant: str, deals: int, wins: int) -> None:
        self.deals[variant] += deals
        self.wins[variant] += wins

    def text(self, shown: int = 6) -> Text:
        parts = []
        for name in list(self.deals)[:shown]:
            n = self.deals[name]
            parts.append(f"{name} {100 * self.wins[name] / n:.2f}%" if n else f"{name} -")
        more = len(self.deals) - shown
        if more > 0:
            rates = [self.wins[v] / self.deals[v] for v in self.deals if self.deals[v]]
            span = f", win rates {100 * min(rates):.1f}%..{100 * max(rates):.1f}%" if rates else ""
            parts.append(f"(+{more} more variants{span})")
        return Text("win rate: " + "  ".join(parts), style="green")


def run_study(
    study: Study,
    out_dir: Path,
    *,
    backend: str = "ray",
    address: str | None = None,
    num_cpus: int | None = None,
    fresh: bool = False,
    console: Console | None = None,
) -> RunOutcome:
    if console is None:
        console = Console(stderr=True)
        if not console.is_terminal:  # a log file or a pipe: rich would assume 80 columns and wrap the bar
            console.width = max(console.width, 120)
    fingerprint = study.fingerprint()
    action = check_out_dir(out_dir, fingerprint, study.fingerprint_fields(), fresh)  # BadInput: nothing written
    executor = make_executor(backend, address, num_cpus)  # BadInput for an unknown backend
    units = plan_units(study)
    finished = {u.key for u in units if action == "resume" and part_complete(out_dir, u.relpath, u.count, u.key)}
    if len(finished) == len(units):  # rerunning a finished run: nothing to play, so start no backend
        executor = make_executor("serial")

    try:  # before anything is written: a cluster that cannot be joined leaves no trace
        executor.__enter__()
    except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; the message is what matters
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RunFailed(f"cannot start the {backend} backend ({address or 'local'}): {first}") from None
    try:
        return _run(study, out_dir, executor, action, fingerprint, backend, console, units, finished)
    finally:
        executor.__exit__(None, None, None)


def _run(study: Study, out_dir: Path, executor, action: str, fingerprint: str, backend: str,
         console: Console, units: list[WorkUnit], finished: set[str]) -> RunOutcome:
    old: dict[str, Any] = {}
    if action == "resume":
        old = read_manifest(out_dir)
    elif action == "fresh":
        clear_run(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    clear_tmp(out_dir)

    old_units = {u.get("key"): u for u in old.get("units", [])}
    unit_state: dict[str, dict[str, Any]] = {}
    for u in units:
        entry = {"key": u.key, "variant": u.variant, "first": u.first, "last": u.last, "count": u.count,
                 "file": u.relpath, "state": "pending"}
        if u.key in finished:
            prev = old_units.get(u.key, {})
            entry.update({k: prev[k] for k in ("wins", "outcomes", "seconds", "host") if k in prev}, state="done")
        unit_state[u.key] = entry

    manifest: dict[str, Any] = {
        "patience_manifest": 1,
        "study": study.name,
        "game": study.game.name,
        "config_file": str(Path(study.config_path).resolve()),
        "config_text": study.config_text,
        "config": study.resolved(),
        "fingerprint": fingerprint,
        "fingerprint_fields": study.fingerprint_fields(),
        "seed": study.source.seed,
        "outcomes": list(study.game.outcomes),
        "columns": {"deal": "int64", "outcome": "string", "won": "bool",
                    **{k: v for k, v in study.game.columns().items() if k != "outcome"}},
        "deal_source": study.source.describe(),
        "engine_version": ENGINE_VERSION,
        "packages": package_versions(),
        "host": socket.gethostname(),
        "argv": sys.argv,
        "created": old.get("created", _now()),
        "started": _now(),
        "finished": None,
        "status": "running",
        "executor": {"backend": backend},
        "units": list(unit_state.values()),
    }
    write_manifest(out_dir, manifest)

    part_metadata_base = {
        "patience.study": study.name,
        "patience.game": study.game.name,
        "patience.engine_version": ENGINE_VERSION,
        "patience.deal_source": json.dumps(study.source.describe()),
    }

    def metadata_for(u: WorkUnit) -> dict[str, str]:
        v = study.variants[u.variant]
        return {**part_metadata_base, "patience.variant": u.variant, "patience.rules": json.dumps(v.rules_dict())}

    fault = os.environ.get(FAULT_ENV) or None
    todo = [u for u in units if u.key not in finished]
    tasks = (make_task(study, u, str(out_dir), metadata_for(u), fault) for u in todo)

    tally = _Tally(list(study.variants))
    for u in units:
        if u.key in finished and "wins" in unit_state[u.key]:
            tally.add(u.variant, u.count, unit_state[u.key]["wins"])
    total_deals = sum(u.count for u in units)
    done_deals = sum(u.count for u in units if u.key in finished)
    done_units = len(finished)

    t0 = time.perf_counter()
    last_write, write_cost = 0.0, 0.0
    progress = _StudyProgress(
        tally.text,
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[units]} units"),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} deals"),
        _DealsPerSecond(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
        refresh_per_second=4,  # the driver shares the machine with the workers
    )
    try:
        with progress:
            # A rerun with nothing left to play keeps the record of the executor that played it.
            manifest["executor"] = executor.describe() if todo or "executor" not in old else old["executor"]
            bar = progress.add_task(study.name, total=total_deals, completed=done_deals,
                                    units=f"{done_units}/{len(units)}")
            for summary in executor.map(tasks):
                entry = unit_state[summary.key]
                entry.update(state="done", wins=summary.wins, outcomes=summary.outcome_counts,
                             seconds=round(summary.seconds, 4), host=summary.host)
                tally.add(summary.variant, summary.count, summary.wins)
                done_units += 1
                progress.update(bar, advance=summary.count, units=f"{done_units}/{len(units)}")
                # Rewrite run.json now and then; with very many units the rewrite itself costs,
                # so keep it under ~5% of the driver's time.
                if time.perf_counter() - last_write > max(MANIFEST_EVERY, 20 * write_cost):
                    w0 = time.perf_counter()
                    write_manifest(out_dir, manifest)
                    last_write = time.perf_counter()
                    write_cost = last_write - w0
    except UnitFailed as exc:
        unit_state[exc.key]["state"] = "failed"
        unit_state[exc.key]["error"] = str(exc)
        manifest.update(status="failed", finished=_now(), error=f"{exc.key}: {exc}")
        write_manifest(out_dir, manifest)
        raise RunFailed(
            f"work unit {exc.key} failed: {exc}; the {done_units} finished units stay in {out_dir} "
            "(rerun the same command to resume)"
        ) from None
    except BaseException as exc:
        manifest.update(status="interrupted", finished=_now(), error=type(exc).__name__)
        write_manifest(out_dir, manifest)
        raise
    manifest.update(status="complete", finished=_now())
    write_manifest(out_dir, manifest)
    clear_tmp(out_dir)
    return RunOutcome(out_dir, len(units), len(finished), len(todo), time.perf_counter() - t0)
