"""The driver of ``patience run``: check the output folder, lock it, find finished units, run, record.

Order matters for "bad input writes nothing": the study is already validated,
then the output folder is judged (:func:`pipeline.integrity.judge_out_dir`), then
locked (one run per folder, :class:`pipeline.run_files.RunLock`) and judged again
under the lock, and only then is anything else created.

The driver keeps no per-unit state beyond one byte per unit (which units are
done, a bool[variants, chunks] grid; while a resume checks the finished parts,
also the unit log's latest line of each unit, about 90 bytes a unit:
pipeline.integrity) and the bounded window the executor has in flight: units
are computed from the study (:class:`UnitPlan`) and streamed, each finished
unit's summary goes to the running tallies (progress bar,
per-variant win rates, run.json totals) and to ``units.jsonl``, and run.json
(config, rules, provenance, totals) stays small whatever the number of units.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import signal
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata as _md
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from engine import ENGINE_VERSION
from pipeline.config import Study
from pipeline.errors import BadInput, RunFailed
from pipeline.executors import ClusterLost, UnitFailed, make_executor
from pipeline.faults import SpaceReserve, first_signal
from pipeline.integrity import (
    FINGERPRINT_KEY,
    HASHES_NOTE,
    RunIdentity,
    UnitRecords,
    judge_out_dir,
    redo_note,
    scan_finished,
    totals_problems,
)
from pipeline.run_files import (
    MANIFEST,
    TMP_DIR,
    UNIT_LOG,
    clear_run,
    clear_tmp,
    manifest_bytes,
    read_manifest,
    run_lock,
    unit_log,
    write_manifest,
)
from pipeline.run_store import open_run, storage_problem
from pipeline.work_units import UnitPlan, make_task

FAULT_ENV = "PATIENCE_TEST_FAULT"  # test-only fault switch, see pipeline.worker._fault
MANIFEST_EVERY = 1.0  # seconds between manifest rewrites while running (at least)
RESERVE_MARGIN = 1 << 20  # bytes kept free beyond two run.json copies: the unit log's last chunk (pipeline.faults)
PACKAGES = ("numpy", "numba", "pyarrow", "polars", "ray", "typer", "rich", "pyyaml", "pydantic")


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


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
    seconds: float  # the playing phase: executor ready (workers warm) -> last unit recorded
    startup: float = 0.0  # starting or joining the backend and warming its workers


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
    """Running deals, wins and outcome counts per variant: the progress line and run.json's totals."""

    def __init__(self, variants: list[str]):
        self.deals = dict.fromkeys(variants, 0)
        self.wins = dict.fromkeys(variants, 0)
        self.outcomes: dict[str, dict[str, int]] = {v: {} for v in variants}
        self.units = 0

    def add(self, variant: str, deals: int, wins: int, outcomes: dict[str, int] | None = None, units: int = 1) -> None:
        self.deals[variant] += deals
        self.wins[variant] += wins
        self.units += units
        mine = self.outcomes[variant]
        for name, n in (outcomes or {}).items():
            mine[name] = mine.get(name, 0) + n

    def totals(self, plan: UnitPlan) -> dict[str, Any]:
        return {
            "units": len(plan),
            "units_done": self.units,
            "deals": plan.total_deals,
            "deals_done": sum(self.deals.values()),
            "variants": {
                v: {"deals": self.deals[v], "wins": self.wins[v], "outcomes": self.outcomes[v]} for v in self.deals
            },
        }

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


def _finished_units(
    out_dir, plan: UnitPlan, tally: _Tally, study: Study, thorough: bool, say: Callable[[str], None]
) -> tuple[np.ndarray, list[dict[str, Any]], UnitRecords]:
    """Resume: the done grid from the part files that are this run's, unchanged (pipeline.integrity.scan_finished:
    a damaged or foreign part is played again), their summaries added to ``tally`` from the unit log.

    Returns (done, lines to log: parts the log missed, recovered from their footers, or stamps refreshed, and the
    unit log's records).
    """
    scan = scan_finished(out_dir, plan, RunIdentity.of_study(study), thorough=thorough)
    for variant, units, deals, wins, outcomes in scan.totals():
        tally.add(variant, deals, wins, outcomes, units=units)
    note = redo_note(scan, out_dir)
    if note:
        say(note)
    return scan.done, scan.to_log, scan.records


def run_study(
    study: Study,
    out_dir: Path | str,
    *,
    backend: str = "ray",
    address: str | None = None,
    num_cpus: int | None = None,
    fresh: bool = False,
    repair: bool = False,
    console: Console | None = None,
) -> RunOutcome:
    """Play the study into ``out_dir``, resuming what is done there.  ``repair``: hash every finished part (not
    only those whose size or time changed) and rebuild a run.json that records another config when the parts
    are this study's (pipeline.integrity.judge_out_dir); a run.json that is missing or unreadable is rebuilt
    without it."""
    if console is None:
        console = Console(stderr=True)
        if not console.is_terminal:  # a log file or a pipe: rich would assume 80 columns and wrap the bar
            console.width = max(console.width, 120)
    fingerprint = study.fingerprint()
    out_dir = open_run(out_dir, "option --out")  # a local folder, or an object-storage prefix (pipeline.run_store)
    if not out_dir.local:  # bucket, endpoint and credentials checked before anything runs (BadInput)
        out_dir.preflight("option --out", writing=True)
    judge_out_dir(out_dir, study, fresh, repair)  # BadInput: nothing written

    def say(text: str) -> None:  # shown above the progress bar (the cluster waits for a worker node, ...)
        console.print(Text(text, style="yellow"), soft_wrap=True)  # one line; as Text: [brackets] are not markup

    executor = make_executor(backend, address, num_cpus, on_wait=say)  # BadInput for an unknown backend
    with run_lock(out_dir):  # BadInput when another run holds the folder
        # Judged again under the lock: the run that held it may have changed the folder.
        action, note = judge_out_dir(out_dir, study, fresh, repair)
        if note:
            say(note)
        plan = UnitPlan(study)
        tally = _Tally(plan.variants)
        if action in ("resume", "repair"):
            done, recovered, records = _finished_units(out_dir, plan, tally, study, repair or action == "repair", say)
            if action == "resume":
                for problem in totals_problems(read_manifest(out_dir), records)[:1]:
                    say(f"{problem}: rebuilt from the unit log")
            del records  # the tallies hold what a resume needs
        else:
            done, recovered = plan.grid(), []
        if tally.units == len(plan):  # rerunning a finished run: nothing to play, so start no backend
            executor = make_executor("serial")

        t0 = time.perf_counter()
        try:  # before anything is written: a cluster that cannot be joined leaves no trace
            executor.__enter__()
        except BadInput:
            raise
        except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; the message is what matters
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise RunFailed(f"cannot start the {backend} backend ({address or 'local'}): {first}") from None
        try:
            if tally.units < len(plan):
                first = next(iter(study.variants.values()))
                executor.warm_up(study.game.name, first.rules)
            startup = time.perf_counter() - t0
            outcome = _run(
                study, out_dir, executor, action, fingerprint, backend, console, plan, done, tally, recovered
            )
            outcome.startup = startup
            return outcome
        finally:
            executor.__exit__(None, None, None)
            # Now that every worker is gone: a part a worker was writing when Ray shut it down (an interrupt of
            # the driver alone) was never renamed into place, so it is dropped here rather than by the next run.
            clear_tmp(out_dir)


def _start_records(out_dir, manifest: dict[str, Any]) -> SpaceReserve | _NoReserve:
    """Write the first run.json of a run and, on a local disk, keep room for its last (pipeline.faults).

    BadInput (exit 2) when the disk is full or read-only: nothing of the run is written then, and an earlier
    run.json stays as it was, so a folder never says "running" for a run that did not start."""
    if not out_dir.local:
        write_manifest(out_dir, manifest)  # RunFailed with one line on object storage
        return _NoReserve()
    size = 2 * len(manifest_bytes(manifest)) + RESERVE_MARGIN
    try:
        reserve = SpaceReserve(out_dir.root / TMP_DIR, size)
    except OSError as exc:
        raise BadInput(
            f"option --out: {out_dir}: cannot keep {size // 1024:,} KiB free for the run's records "
            f"({storage_problem(exc)}); allowed: a folder on a file system with room"
        ) from None
    try:
        write_manifest(out_dir, manifest)
    except OSError as exc:
        reserve.free()
        raise _no_room(out_dir, MANIFEST, exc) from None
    return reserve


def _no_room(out_dir, name: str, exc: OSError) -> BadInput:
    return BadInput(
        f"option --out: {out_dir}: cannot write {name} ({storage_problem(exc)}); "
        "allowed: a folder on a writable file system with room"
    )


class _NoReserve:
    def free(self) -> None:
        pass


def _end_records(out_dir, manifest: dict[str, Any], log, reserve, totals: dict[str, Any]) -> str:
    """Close the unit log and write how the run ended, with the reserve given back first (a full disk).

    Returns "" or, when even so run.json could not be written, a clause for the one line the user is shown."""
    reserve.free()
    manifest["totals"] = totals
    try:
        log.close()
    except OSError:
        pass  # the lines it held are recovered from the parts' footers at the next resume
    try:
        write_manifest(out_dir, manifest)
    except (OSError, RunFailed) as exc:
        return f"; {MANIFEST} could not be updated ({storage_problem(exc)})"
    return ""


def _run(
    study: Study,
    out_dir: Path,
    executor,
    action: str,
    fingerprint: str,
    backend: str,
    console: Console,
    plan: UnitPlan,
    done: np.ndarray,
    tally: _Tally,
    recovered: list[dict[str, Any]],
) -> RunOutcome:
    old: dict[str, Any] = {}
    if action == "resume":
        old = read_manifest(out_dir)
    elif action == "repair":  # run.json is rebuilt: keep what can still be read of it
        try:
            old = read_manifest(out_dir)
        except BadInput:
            old = {}
        old = old if isinstance(old, dict) and old.get("fingerprint") == fingerprint else {}
    elif action == "fresh":
        clear_run(out_dir)
    out_dir.make_root()
    clear_tmp(out_dir)

    skipped = tally.units
    manifest: dict[str, Any] = {
        "patience_manifest": 2,
        "study": study.name,
        "game": study.game.name,
        "config_file": str(Path(study.config_path).resolve()),
        "config_text": study.config_text,
        "config": study.resolved(),
        "fingerprint": fingerprint,
        "fingerprint_fields": study.fingerprint_fields(),
        "seed": study.source.seed,
        "outcomes": list(study.game.outcomes),
        "columns": {
            "deal": "int64",
            "outcome": "string",
            "won": "bool",
            **{k: v for k, v in study.game.columns().items() if k != "outcome"},
        },
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
        # Units are a function of the config (pipeline.work_units); these say where their records are.
        "parts": "variant=<name>/part-<first>-<last>.parquet, one per work unit, its summary in the "
        "footer's patience.summary",
        "unit_log": "units.jsonl",
        "part_hashes": HASHES_NOTE,
        "totals": tally.totals(plan),
    }
    if action == "repair" or "repaired" in old:
        manifest["repaired"] = _now() if action == "repair" else old["repaired"]
    new_log = out_dir.local and not (out_dir.root / UNIT_LOG).exists()
    try:
        log = unit_log(out_dir)
    except OSError as exc:
        raise _no_room(out_dir, UNIT_LOG, exc) from None
    try:
        reserve = _start_records(out_dir, manifest)  # BadInput on a full or read-only disk: run.json unchanged
    except BaseException:
        log.close()
        if new_log:  # nothing of a run that did not start is left behind
            (out_dir.root / UNIT_LOG).unlink(missing_ok=True)
        raise

    part_metadata_base = {
        "patience.study": study.name,
        "patience.game": study.game.name,
        "patience.engine_version": ENGINE_VERSION,
        "patience.deal_source": json.dumps(study.source.describe()),
        FINGERPRINT_KEY: fingerprint,  # whose part it is: pipeline.integrity.footer_problem
    }
    metadata = {
        name: {**part_metadata_base, "patience.variant": name, "patience.rules": json.dumps(v.rules_dict())}
        for name, v in study.variants.items()
    }  # one dict per variant, shared by its units

    fault = os.environ.get(FAULT_ENV) or None
    todo = len(plan) - skipped
    run_dir = str(out_dir)
    tasks = (make_task(study, u, run_dir, metadata[u.variant], fault) for u in plan.units(skip=done))

    t0 = time.perf_counter()
    last_write = 0.0
    done_units = skipped
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
        for rec in recovered:  # parts a killed driver never logged: logged now, so the next resume is quick
            log.append(rec)
        with progress:
            # A rerun with nothing left to play keeps the record of the executor that played it.
            manifest["executor"] = executor.describe() if todo or "executor" not in old else old["executor"]
            bar = progress.add_task(
                study.name,
                total=plan.total_deals,
                completed=sum(tally.deals.values()),
                units=f"{done_units}/{len(plan)}",
            )
            for summary in executor.map(tasks):
                log.append(summary.record())
                tally.add(summary.variant, summary.count, summary.wins, summary.outcome_counts)
                done_units += 1
                progress.update(bar, advance=summary.count, units=f"{done_units}/{len(plan)}")
                now = time.perf_counter()
                if now - last_write > MANIFEST_EVERY:  # the log's chunk and run.json's totals, about once a second
                    log.flush()
                    manifest["totals"] = tally.totals(plan)
                    write_manifest(out_dir, manifest)
                    last_write = now
        log.close()  # inside the try: a full disk here still ends the run as failed
    except (UnitFailed, ClusterLost, OSError, RunFailed) as exc:
        if isinstance(exc, UnitFailed):
            what = f"work unit {exc.key} failed: {exc}"
            manifest["failed_unit"] = {"key": exc.key, "error": str(exc)}
        elif isinstance(exc, OSError):  # the driver's own records (run.json, units.jsonl): a full disk
            what = f"cannot write the run's records in {out_dir}: {storage_problem(exc)}"
        else:  # ClusterLost; RunFailed: object storage refused the unit log or run.json
            what = str(exc)
        manifest.update(status="failed", finished=_now(), error=what)
        lost = _end_records(out_dir, manifest, log, reserve, tally.totals(plan))
        raise RunFailed(
            f"{what}; the {done_units} finished units stay in {out_dir} (rerun the same command to resume){lost}"
        ) from None
    except BaseException as exc:
        signum = first_signal()  # Ray may hand a SIGTERM on as a plain KeyboardInterrupt: name the signal
        error = signal.Signals(signum).name if signum is not None else type(exc).__name__
        manifest.update(status="interrupted", finished=_now(), error=error)
        _end_records(out_dir, manifest, log, reserve, tally.totals(plan))
        raise
    manifest.update(status="complete", finished=_now(), totals=tally.totals(plan))
    reserve.free()  # room for the last run.json, however full the disk is now
    try:
        write_manifest(out_dir, manifest)
    except (OSError, RunFailed) as exc:
        raise RunFailed(
            f"every unit of {out_dir} is played, but {MANIFEST} could not be updated ({storage_problem(exc)}); "
            "rerun the same command to record the end"
        ) from None
    clear_tmp(out_dir)
    return RunOutcome(out_dir, len(plan), skipped, done_units - skipped, time.perf_counter() - t0)
