"""Results on disk (DESIGN section 6): Parquet parts, the ``run.json`` manifest, resume.

Layout of a run folder::

    run.json                                  manifest (driver only): config, rules, provenance, totals
    units.jsonl                               per-unit summaries, appended by the driver in whole lines
    run.lock                                  held while a run is in progress (host, pid)
    variant=<encoded name>/part-<first>-<last>.parquet
    _tmp/<random>.tmp                         files being written

A part is written under ``_tmp/`` (outside every ``variant=`` folder, with no
``.parquet`` suffix, and ``_``-prefixed so pyarrow's dataset discovery skips it)
and renamed into place: a reader never sees half a file, and a file that exists
is complete.  Resume therefore lists the part files (:func:`list_parts`, names
only).

run.json does not grow with the number of units.  Each unit's summary (rows,
wins, outcome counts, seconds, host, Ray node) is written twice where it
scales: into its part's own Parquet key-value metadata (``patience.summary``,
by the worker, so it can never disagree with the rows) and as one JSON line of
``units.jsonl`` (by the driver, buffered and appended a chunk of whole lines
at a time with one ``write`` on an ``O_APPEND`` descriptor, so a killed driver
leaves at most a torn last line, which readers skip).  The log is what resume
reads to restore the running tallies quickly; a part missing from it (the
driver died between the worker's rename and its next chunk) is summarised from
its footer instead.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.errors import BadInput, RunFailed, StorageError
from pipeline.storage import RunStore, first_line, open_run

MANIFEST = "run.json"
UNIT_LOG = "units.jsonl"
LOCK = "run.lock"
TMP_DIR = "_tmp"
PARTS_GLOB = "variant=*/*.parquet"
SUMMARY_KEY = "patience.summary"


def write_part(run_dir: Path, relpath: str, table) -> None:
    """Write one unit's table to ``_tmp`` then rename it into ``relpath`` (atomic on one file system)."""
    if not (run_dir / MANIFEST).is_file():
        # The driver writes run.json before any unit runs; not seeing it means this
        # worker does not share the driver's storage (e.g. --out on a local disk of a cluster).
        raise StorageError(
            f"worker on host {socket.gethostname()} cannot see the run folder {run_dir} (no {MANIFEST}); "
            "on a cluster --out must be shared storage every node can reach"
        )
    import pyarrow.parquet as pq

    tmp = run_dir / TMP_DIR / f"{uuid.uuid4().hex}.tmp"
    final = run_dir / relpath
    try:
        tmp.parent.mkdir(exist_ok=True)
        final.parent.mkdir(exist_ok=True)
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, final)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise StorageError(f"worker on host {socket.gethostname()} cannot write {final}: {exc}") from None


def part_complete(run_dir: Path, relpath: str, count: int, key: str) -> bool:
    """True when the unit's file exists and its footer holds its ``count`` rows and its key."""
    import pyarrow.parquet as pq

    path = run_dir / relpath
    if not path.is_file():
        return False
    try:
        meta = pq.read_metadata(path)
    except Exception:  # noqa: BLE001 - any unreadable file is simply not a finished unit
        return False
    kv = meta.metadata or {}
    return meta.num_rows == count and kv.get(b"patience.unit", b"").decode() == key


def read_manifest(run_dir) -> dict[str, Any]:
    """The run's run.json (``run_dir``: a path, a URI or a RunStore).  BadInput when missing or unreadable."""
    store = open_run(run_dir)
    try:
        data = store.read_bytes(MANIFEST)
    except OSError as exc:
        raise BadInput(f"{store.where(MANIFEST)}: cannot be read ({first_line(exc)}); "
                       "allowed: a run folder written by `patience run`") from None
    if data is None:
        raise BadInput(f"{store.where()}: not a run folder (no {MANIFEST}); allowed: a folder written by `patience run`")
    try:
        return json.loads(data)
    except ValueError as exc:
        raise BadInput(f"{store.where(MANIFEST)}: cannot be read as a manifest ({exc}); "
                       "allowed: a run.json written by `patience run`") from None


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Atomically replace run.json (readers see the old or the new one, never half)."""
    tmp = run_dir / TMP_DIR / f"manifest-{uuid.uuid4().hex}.tmp"
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(json.dumps(manifest, indent=1, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, run_dir / MANIFEST)


def check_out_dir(out: Path, fingerprint: str, fingerprint_fields: dict[str, Any], fresh: bool) -> str:
    """Decide what to do with ``out`` before anything is written.

    Returns "new" (missing or empty), "resume" (a run of the same resolved config)
    or "fresh" (a run to clear first).  BadInput when ``out`` is a file, holds
    something that is not a run, or holds a different run and ``fresh`` is off.
    """
    if out.exists() and not out.is_dir():
        raise BadInput(f"option --out: {out} is a file; allowed: a folder (new, empty, or an earlier run of this study)")
    if not out.exists() or not any(e.name != LOCK for e in out.iterdir()):
        return "new"
    if not (out / MANIFEST).is_file():
        raise BadInput(
            f"option --out: {out} is not empty and holds no {MANIFEST}; allowed: a new or empty folder, or an earlier run"
        )
    try:
        old = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old = {}
    if old.get("fingerprint") == fingerprint:
        return "fresh" if fresh else "resume"
    if fresh:
        return "fresh"
    old_fields = old.get("fingerprint_fields", {})
    differ = [k for k in fingerprint_fields if old_fields.get(k) != fingerprint_fields[k]] or ["manifest"]
    raise BadInput(
        f"option --out: {out} holds a run of a different config ({', '.join(differ)} differ); "
        "allowed: the same config to resume, --fresh to clear it, or another --out"
    )


def clear_run(out: Path) -> None:
    """Remove what a run wrote (manifest, parts, temp files) and nothing else."""
    for entry in out.iterdir():
        if entry.name in (MANIFEST, UNIT_LOG, TMP_DIR) or entry.name.startswith("variant="):
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()


def clear_tmp(out: Path) -> None:
    """Drop temp files a killed run left behind (they were never renamed into place)."""
    shutil.rmtree(out / TMP_DIR, ignore_errors=True)


# --- resume: listing parts, the unit log -------------------------------------------------------


def list_parts(run_dir: Path) -> Iterator[tuple[str, int, int]]:
    """(variant, first, last) of every ``variant=*/part-<first>-<last>.parquet``, from names alone."""
    from urllib.parse import unquote

    from pipeline.work_units import PART_NAME

    try:
        folders = [e for e in os.scandir(run_dir) if e.name.startswith("variant=") and e.is_dir()]
    except FileNotFoundError:
        return
    for folder in folders:
        variant = unquote(folder.name[len("variant="):])
        match = PART_NAME.fullmatch
        for entry in os.scandir(folder.path):
            m = match(entry.name)
            if m:
                yield variant, int(m.group(1)), int(m.group(2))


def part_summary(path: Path, key: str, count: int) -> dict[str, Any] | None:
    """A finished part's summary from its footer; None unless it holds ``count`` rows of unit ``key``.

    Parts written before summaries moved into the footer have no ``patience.summary``: their
    outcome column is counted instead.
    """
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        kv = pf.metadata.metadata or {}
        if pf.metadata.num_rows != count or kv.get(b"patience.unit", b"").decode() != key:
            return None
        if SUMMARY_KEY.encode() in kv:
            return json.loads(kv[SUMMARY_KEY.encode()])
        outcomes = pf.read(columns=["outcome"]).column("outcome").value_counts().to_pylist()
    except Exception:  # noqa: BLE001 - any unreadable file is simply not a finished unit
        return None
    counts = {d["values"]: d["counts"] for d in outcomes}
    return {"key": key, "count": count, "wins": counts.get("won", 0), "outcomes": counts}


def read_unit_log(run_dir: Path) -> Iterator[dict[str, Any]]:
    """The summaries in ``units.jsonl`` in the order written (a torn or damaged line is skipped)."""
    path = run_dir / UNIT_LOG
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return
    with f:
        for line in f:
            if not line.endswith(b"\n"):
                break  # the torn tail of a killed driver
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and "key" in rec:
                yield rec


class UnitLog:
    """Append-only ``units.jsonl``: lines are buffered and written in chunks, each one ``write`` of whole lines."""

    def __init__(self, run_dir: Path, every: float = 1.0):
        self.path = run_dir / UNIT_LOG
        self.every = every
        self._lines: list[bytes] = []
        self._last = time.monotonic()
        self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        self._cut_torn_tail()

    def _cut_torn_tail(self) -> None:
        """A killed driver may have left half a line: cut it, so the next chunk starts on a line of its own."""
        size = os.fstat(self._fd).st_size
        if size == 0 or os.pread(self._fd, 1, size - 1) == b"\n":
            return
        block = 1 << 16
        end = size
        while end > 0:
            start = max(0, end - block)
            nl = os.pread(self._fd, end - start, start).rfind(b"\n")
            if nl >= 0:
                os.ftruncate(self._fd, start + nl + 1)
                return
            end = start
        os.ftruncate(self._fd, 0)

    def append(self, record: dict[str, Any]) -> None:
        self._lines.append(json.dumps(record, separators=(",", ":")).encode() + b"\n")
        if time.monotonic() - self._last >= self.every:
            self.flush()

    def flush(self) -> None:
        if self._lines:
            data = b"".join(self._lines)
            written = os.write(self._fd, data)
            while written < len(data):  # a short write (rare on local disks): finish the chunk
                written += os.write(self._fd, data[written:])
            self._lines.clear()
        self._last = time.monotonic()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            os.close(self._fd)


# --- one run per folder --------------------------------------------------------------------------


class RunLock:
    """``run.lock`` in the run folder, held (``flock``) for the whole run and naming its host and pid.

    The kernel drops a ``flock`` when its holder dies however it dies, so a lock left by a dead process
    on this host is taken over.  The file's text (host, pid, start) is what a refused run is told; a
    holder on another host whose file system does not share ``flock`` is known by that text alone: a
    live-looking lock of another host is refused, and the message says how to clear it if that run is gone.
    """

    def __init__(self, out: Path):
        self.out = out
        self.path = out / LOCK
        self._fd: int | None = None
        self.created: list[Path] = []

    def acquire(self) -> None:
        import fcntl

        missing = [d for d in (self.out, *self.out.parents) if not d.exists()]
        if missing:
            self.out.mkdir(parents=True)
            self.created = missing  # deepest first: removed on release if the run left them empty
        me = socket.gethostname()
        for _ in range(5):  # retried only when the file was replaced under us
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _lock_text(fd)
                os.close(fd)
                raise BadInput(
                    f"option --out: {self.out} is in use by a run in progress ({_holder(holder)}); "
                    "allowed: wait for it to end, or another --out"
                ) from None
            try:
                same_file = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same_file = False
            if not same_file:  # the holder ended and removed the file between our open and flock
                os.close(fd)
                continue
            holder = _lock_text(fd)
            if holder and holder.get("host") not in (None, me) and holder.get("state") == "running":
                os.close(fd)
                raise BadInput(
                    f"option --out: {self.out} is in use by a run in progress ({_holder(holder)}); "
                    f"allowed: wait for it to end, another --out, or delete {self.path} if that run is gone"
                )
            # Free, or left by a dead process of this host (its flock died with it): ours now.
            text = json.dumps({"host": me, "pid": os.getpid(), "state": "running",
                               "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
            os.ftruncate(fd, 0)
            os.pwrite(fd, text.encode() + b"\n", 0)
            self._fd = fd
            return
        raise BadInput(f"option --out: {self.path} keeps being replaced; allowed: a folder one run uses at a time")

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)  # while still holding it: a waiting opener retries (see acquire)
        finally:
            os.close(self._fd)
            self._fd = None
        for folder in self.created:  # only folders the run left empty (bad input, an unreachable cluster)
            try:
                folder.rmdir()
            except OSError:
                break

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _lock_text(fd: int) -> dict[str, Any]:
    try:
        data = os.pread(fd, 4096, 0)
        rec = json.loads(data) if data.strip() else {}
        return rec if isinstance(rec, dict) else {}
    except (OSError, ValueError):
        return {}


def _holder(rec: dict[str, Any]) -> str:
    if not rec:
        return "holder not yet recorded"
    return f"host {rec.get('host', '?')}, pid {rec.get('pid', '?')}, since {rec.get('since', '?')}"


# --- readers: the parts the run completed ----------------------------------------------------------


class DamagedPart(RunFailed):
    """A part the run recorded cannot be read: exit 1, naming the file and the repair."""


@dataclass(frozen=True)
class PartRef:
    """One part the run completed: its unit's variant and deal range, and where it is in the run."""

    variant: str
    first: int
    last: int
    rel: str  # relative to the run root: variant=<encoded>/part-<first>-<last>.parquet


@dataclass
class RunParts:
    """What :func:`run_parts` found: the completed parts (variants in the study's order, then by deal) and strays."""

    store: RunStore
    parts: list[PartRef]
    strays: list[str]

    def by_variant(self) -> dict[str, list[PartRef]]:
        out: dict[str, list[PartRef]] = {}
        for p in self.parts:
            out.setdefault(p.variant, []).append(p)
        return out

    def read_paths(self) -> list[str]:
        return [self.store.read_path(p.rel) for p in self.parts]

    def damaged(self, rel: str, why: str) -> DamagedPart:
        return damaged_part(self.store, rel, why)


def damaged_part(store: RunStore, rel: str, why: str) -> DamagedPart:
    return DamagedPart(f"{store.where(rel)}: a part this run completed is damaged ({why}); "
                       "delete it and rerun the study, which resumes and plays that unit again")


def plan_of_manifest(manifest: dict[str, Any]):
    """The run's :class:`UnitPlan`, rebuilt from run.json alone (no deals file read); None for an odd manifest."""
    from types import SimpleNamespace

    from pipeline.config import DealSource
    from pipeline.work_units import UnitPlan

    try:
        config = manifest["config"]
        variants = list(config["variants"])
        src = config["deal_source"]
        kind, count = src["kind"], int(src["deals"])
        numbers = None
        if kind == "microsoft":
            import numpy as np

            from engine.deals import parse_number_ranges

            numbers = np.asarray(parse_number_ranges(src["microsoft_deals"]), dtype=np.int64)
        elif kind not in ("seeded", "file"):
            return None
        source = DealSource(kind=kind, count=count, seed=src.get("seed"), numbers=numbers)
        batch_size = int(config["batch_size"])
        if batch_size < 1 or not variants:
            return None
        return UnitPlan(SimpleNamespace(source=source, batch_size=batch_size, variants=variants))
    except Exception:  # noqa: BLE001 - an older or hand-made manifest: fall back to names alone
        return None


_warned: set[str] = set()


def warn(message: str) -> None:
    """One line on stderr, once per process for the same text (a command may list a run several times)."""
    import sys

    if message not in _warned:
        _warned.add(message)
        sys.stderr.write(f"patience: warning: {message}\n")


STRAYS_SHOWN = 5
LEGACY_PART = re.compile(r"part-(\d+)-(\d+)")


def _tail_problem(path: str) -> str | None:
    """Why a local file cannot be a whole Parquet file (size and the footer's magic bytes), or None."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        return f"cannot be opened: {exc.strerror}"
    try:
        size = os.fstat(fd).st_size
        if size < 12:
            return f"{size} bytes, too short for a Parquet file"
        tail = os.pread(fd, 8, size - 8)
    finally:
        os.close(fd)
    if tail[4:] != b"PAR1":
        return "no Parquet footer at its end: truncated or overwritten"
    if int.from_bytes(tail[:4], "little") > size - 12:
        return "its footer length runs past the start of the file: truncated"
    return None


def run_parts(run_dir, manifest: dict[str, Any] | None = None, *, check: bool = True,
              warn_strays: bool = True) -> RunParts:
    """The parts a run completed: the one listing every reader (report, query, compare, html, verify) uses.

    A file under a ``variant=`` folder is a part of the run when its folder and name are exactly those of
    a unit of the run's plan (rebuilt from run.json: :func:`plan_of_manifest`).  Parts are written
    atomically, so such a file is a finished unit.  Anything else there (a stray copy, a file of another
    run, a partial download) is left out of every reader and named in one warning on stderr.

    With ``check`` each part is checked cheaply for damage (locally: its size and the footer's magic
    bytes at its end, one small read; on object storage: its listed size), and a damaged one raises
    :class:`DamagedPart` (exit 1) naming the file and the repair.  Damage a cheap check cannot see (a
    footer intact over corrupted pages) is found when a reader fails: :func:`find_damaged`.
    """
    from urllib.parse import unquote

    from pipeline.work_units import PART_NAME, variant_dir

    store = open_run(run_dir)
    if manifest is None:
        manifest = read_manifest(store)
    plan = plan_of_manifest(manifest)
    declared = list((manifest.get("config") or {}).get("variants") or {})
    order = {v: i for i, v in enumerate(declared)}
    parts: list[PartRef] = []
    strays: list[str] = []
    sizes: dict[str, int | None] = {}
    for folder, sub, size in store.variant_files():
        rel = f"{folder}/{sub}"
        variant = unquote(folder[len("variant="):])
        if plan is not None:  # the run's own units, by folder and name
            m = PART_NAME.fullmatch(sub)
            ok = m is not None and variant_dir(variant) == folder
            if ok:
                first, last = int(m.group(1)), int(m.group(2))
                ok = plan.locate(variant, first, last) is not None
        else:  # a manifest that records no plan (hand-made): every Parquet file of a declared variant
            m = LEGACY_PART.match(sub)
            first, last = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
            ok = "/" not in sub and sub.endswith(".parquet") and (variant in order or not order)
        if ok:
            parts.append(PartRef(variant, first, last, rel))
            sizes[rel] = size
        else:
            strays.append(rel)
    parts.sort(key=lambda p: (order.get(p.variant, len(order)), p.variant, p.first))
    strays.sort()
    if strays and warn_strays:
        shown = ", ".join(store.where(s) for s in strays[:STRAYS_SHOWN])
        more = f" and {len(strays) - STRAYS_SHOWN} more" if len(strays) > STRAYS_SHOWN else ""
        warn(f"ignoring {len(strays)} file(s) in variant= folders that are not parts of this run: {shown}{more}")
    listing = RunParts(store, parts, strays)
    if check:
        for p in parts:
            if store.local:
                why = _tail_problem(store.read_path(p.rel))
            else:
                size = sizes.get(p.rel)
                why = f"{size} bytes, too short for a Parquet file" if size is not None and size < 12 else None
            if why:
                raise listing.damaged(p.rel, why)
    return listing


def find_damaged(run_dir, listing: RunParts | None = None) -> DamagedPart | None:
    """After a reader failed: the first completed part that cannot be read whole, as a DamagedPart (or None).

    Footers first (cheap), then every part read whole; only ever run on the way to an error.
    """
    try:
        listing = listing or run_parts(run_dir)
    except DamagedPart as exc:
        return exc
    except Exception:  # noqa: BLE001 - no listing: nothing to blame on a part
        return None
    store = listing.store
    for full in (False, True):
        for p in listing.parts:
            try:
                with store.parquet_file(p.rel) as f:
                    if full:
                        f.read()
            except Exception as exc:  # noqa: BLE001 - whatever pyarrow says, the part is unreadable
                return listing.damaged(p.rel, f"cannot be read: {first_line(exc)}")
    return None
