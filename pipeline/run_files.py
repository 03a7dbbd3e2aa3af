"""The files of a run (DESIGN section 6): Parquet parts, the ``run.json`` manifest, the unit log, the lock; resume.

Layout of a run folder::

    run.json                                  manifest (driver only): config, rules, provenance, totals
    units.jsonl                               per-unit summaries, appended by the driver in whole lines
    run.lock                                  held while a run is in progress (host, pid)
    variant=<encoded name>/part-<first>-<last>.parquet
    _tmp/<random>.tmp                         files being written

On object storage (``--out s3://bucket/prefix``, :mod:`pipeline.run_store`) the same keys, except that
there is no ``_tmp``: a part and run.json are each one PUT to their final key (atomic: the object
appears whole or not at all); the unit log, which object storage cannot append to, is one object per
chunk, ``units/<milliseconds>-<writer>-<n>.jsonl``; and ``run.lock`` is advisory (:class:`ObjectRunLock`).

Readers (report, query, compare, the HTML report, verify) read only the parts the run completed, as
:func:`run_parts` lists them: files whose folder and name are those of a unit of the run's plan.

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
from pipeline.run_store import PartStamp, RunStore, first_line, open_run

MANIFEST = "run.json"
UNIT_LOG = "units.jsonl"
UNIT_LOG_DIR = "units"  # on object storage: the unit log's chunks, one object each
LOCK = "run.lock"
TMP_DIR = "_tmp"
PARTS_GLOB = "variant=*/*.parquet"
SUMMARY_KEY = "patience.summary"


def write_part(run_dir, relpath: str, table) -> PartStamp:
    """Write one unit's table where the run's other parts are (``run_dir``: a path, a URI or a RunStore).

    A local folder: to ``_tmp`` then renamed into ``relpath`` (atomic on one file system).  Object storage:
    one PUT straight to the final key (atomic: the object appears whole or not at all).  Returns the bytes'
    stamp (sha256, size, time), which the unit log records (pipeline.integrity).
    """
    store = open_run(run_dir)
    if store.local and not (store.root / MANIFEST).is_file():
        # The driver writes run.json before any unit runs; not seeing it means this
        # worker does not share the driver's storage (e.g. --out on a local disk of a cluster).
        raise StorageError(
            f"worker on host {socket.gethostname()} cannot see the run folder {store.root} (no {MANIFEST}); "
            "on a cluster --out must be shared storage every node can reach"
        )
    try:
        return store.write_table(relpath, table)
    except OSError as exc:
        from pipeline.run_store import storage_problem

        why = first_line(exc) if store.local else storage_problem(exc)
        raise StorageError(
            f"worker on host {socket.gethostname()} cannot write {store.where(relpath)}: {why}"
        ) from None


def part_complete(run_dir, relpath: str, count: int, key: str) -> bool:
    """True when the unit's file exists and its footer holds its ``count`` rows and its key."""
    store = open_run(run_dir)
    try:
        with store.parquet_file(relpath) as f:
            meta = f.metadata
    except Exception:  # noqa: BLE001 - a missing or unreadable file is simply not a finished unit
        return False
    kv = meta.metadata or {}
    return meta.num_rows == count and kv.get(b"patience.unit", b"").decode() == key


def read_manifest(run_dir) -> dict[str, Any]:
    """The run's run.json (``run_dir``: a path, a URI or a RunStore).  BadInput when missing or unreadable."""
    store = open_run(run_dir)
    try:
        data = store.read_bytes(MANIFEST)
    except OSError as exc:
        raise BadInput(
            f"{store.where(MANIFEST)}: cannot be read ({first_line(exc)}); "
            "allowed: a run folder written by `patience run`"
        ) from None
    if data is None:
        raise BadInput(
            f"{store.where()}: not a run folder (no {MANIFEST}); allowed: a folder written by `patience run`"
        )
    try:
        manifest = json.loads(data)
    except ValueError as exc:
        raise BadInput(
            f"{store.where(MANIFEST)}: cannot be read as a manifest ({exc}); "
            "allowed: a run.json written by `patience run`"
        ) from None
    if not isinstance(manifest, dict):  # e.g. `[]` or `null`: valid JSON, but no manifest (issue 54)
        raise BadInput(
            f"{store.where(MANIFEST)}: holds {json.dumps(manifest)[:40]}, not a manifest; "
            "allowed: a run.json written by `patience run` (a JSON object)"
        )
    return manifest


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """run.json's bytes, as :func:`write_manifest` writes them."""
    return (json.dumps(manifest, indent=1, default=str) + "\n").encode()


def write_manifest(run_dir, manifest: dict[str, Any]) -> None:
    """Atomically replace run.json (readers see the old or the new one, never half): a rename locally,
    one PUT on object storage."""
    store = open_run(run_dir)
    data = manifest_bytes(manifest)
    if store.local:
        store.write_bytes(MANIFEST, data)
        return
    try:
        store.write_bytes(MANIFEST, data)
    except OSError as exc:
        raise RunFailed(f"cannot write {store.where(MANIFEST)}: {_problem(exc)}") from None


def _problem(exc: OSError) -> str:
    from pipeline.run_store import storage_problem

    return storage_problem(exc)


def check_out_dir(out, fingerprint: str, fingerprint_fields: dict[str, Any], fresh: bool) -> str:
    """Decide what to do with ``out`` (a path, a URI or a RunStore) before anything is written.

    Returns "new" (missing or empty), "resume" (a run of the same resolved config)
    or "fresh" (a run to clear first).  BadInput when ``out`` is a file, holds
    something that is not a run, or holds a different run and ``fresh`` is off.
    """
    store = open_run(out, "option --out")
    if store.local and store.root.exists() and not store.root.is_dir():
        raise BadInput(
            f"option --out: {out} is a file; allowed: a folder (new, empty, or an earlier run of this study)"
        )
    names = store.top_names()
    if store.local and TMP_DIR in names and not (store.root / TMP_DIR).is_dir():
        raise BadInput(
            f"option --out: {store.where(TMP_DIR)} is a file; allowed: no file named {TMP_DIR} in a run folder "
            f"(a run keeps its temporary files in the folder {TMP_DIR}/): move it away"
        )
    if not any(name != LOCK and not _leftover_tmp(store, name) for name in names):
        return "new"
    data = store.read_bytes(MANIFEST) if MANIFEST in names else None
    if data is None:
        raise BadInput(
            f"option --out: {out} is not empty and holds no {MANIFEST}; "
            "allowed: a new or empty folder, or an earlier run"
        )
    try:
        old = json.loads(data)
    except ValueError:
        old = {}
    if not isinstance(old, dict):  # `[]` or `null`: no manifest, as unreadable JSON (issue 54)
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


TMP_NAME = re.compile(r"[0-9a-f]{32}\.tmp")  # pipeline.run_store's temporary names


def _leftover_tmp(store: RunStore, name: str) -> bool:
    """Whether ``name`` is a ``_tmp/`` folder that a failed start left (nothing in it but temporary files of
    ours, which :func:`clear_tmp` removes once the folder is locked): it does not make the folder non-empty."""
    if name != TMP_DIR or not store.local:
        return False
    try:
        entries = list(os.scandir(store.root / TMP_DIR))
    except OSError:
        return False
    return all(e.is_file(follow_symlinks=False) and TMP_NAME.fullmatch(e.name) for e in entries)


def clear_run(out) -> None:
    """Remove what a run wrote (manifest, parts, unit log, temp files) and nothing else."""
    store = open_run(out)
    for name in store.top_names():
        if (
            name in (MANIFEST, UNIT_LOG, TMP_DIR)
            or name.startswith("variant=")
            or (name == UNIT_LOG_DIR and not store.local)
        ):
            store.delete_tree(name)


def clear_tmp(out) -> None:
    """Drop temp files a killed run left behind (they were never renamed into place); local folders only."""
    store = open_run(out)
    if store.local:
        shutil.rmtree(store.root / TMP_DIR, ignore_errors=True)


# --- resume: listing parts, the unit log -------------------------------------------------------


def list_parts(run_dir) -> Iterator[tuple[str, int, int]]:
    """(variant, first, last) of every ``variant=*/part-<first>-<last>.parquet``, from names alone."""
    from urllib.parse import unquote

    from pipeline.work_units import PART_NAME

    store = open_run(run_dir)
    if not store.local:  # one listing of the prefix (pages of 1,000 keys)
        for folder, sub, _ in store.variant_files():
            m = PART_NAME.fullmatch(sub)
            if m:
                yield unquote(folder[len("variant=") :]), int(m.group(1)), int(m.group(2))
        return
    run_dir = store.root
    try:
        folders = [e for e in os.scandir(run_dir) if e.name.startswith("variant=") and e.is_dir()]
    except FileNotFoundError:
        return
    for folder in folders:
        variant = unquote(folder.name[len("variant=") :])
        match = PART_NAME.fullmatch
        for entry in os.scandir(folder.path):
            m = match(entry.name)
            if m:
                yield variant, int(m.group(1)), int(m.group(2))


def part_summary(path, key: str, count: int, run_dir=None) -> dict[str, Any] | None:
    """A finished part's summary from its footer; None unless it holds ``count`` rows of unit ``key``.

    Parts written before summaries moved into the footer have no ``patience.summary``: their
    outcome column is counted instead.
    """
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path) if run_dir is None else open_run(run_dir).parquet_file(path)
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


def read_unit_log(run_dir) -> Iterator[dict[str, Any]]:
    """The summaries of the unit log in the order written (a torn or damaged line is skipped).

    Locally ``units.jsonl``; on object storage the chunk objects under ``units/``, in name (time) order.
    """
    store = open_run(run_dir)
    if not store.local:
        for sub, _ in sorted(store.list_tree(UNIT_LOG_DIR)):
            data = store.read_bytes(f"{UNIT_LOG_DIR}/{sub}") or b""
            yield from _log_records(data.splitlines(keepends=True))
        return
    path = store.root / UNIT_LOG
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return
    with f:
        yield from _log_records(f)


def _log_records(lines) -> Iterator[dict[str, Any]]:
    for line in lines:
        if not line.endswith(b"\n"):
            break  # the torn tail of a killed driver
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and "key" in rec:
            yield rec


def unit_log(run_dir, every: float = 1.0):
    """The run's unit log for appending: ``units.jsonl`` locally, chunk objects on object storage."""
    store = open_run(run_dir)
    return UnitLog(store.root, every) if store.local else ObjectUnitLog(store, every)


class _BufferedLog:
    """The unit log's buffering, shared by both kinds: lines are kept and written in chunks of whole lines, one
    chunk at least every ``every`` seconds (``_write``, the kind's own, writes one chunk)."""

    def __init__(self, every: float):
        self.every = every
        self._lines: list[bytes] = []
        self._last = time.monotonic()

    def append(self, record: dict[str, Any]) -> None:
        self._lines.append(json.dumps(record, separators=(",", ":")).encode() + b"\n")
        if time.monotonic() - self._last >= self.every:
            self.flush()

    def flush(self) -> None:
        if self._lines:
            self._write(b"".join(self._lines))
            self._lines.clear()
        self._last = time.monotonic()

    def _write(self, data: bytes) -> None:
        raise NotImplementedError


class ObjectUnitLog(_BufferedLog):
    """The unit log on object storage, which has no append: each chunk of whole lines is one object,
    ``units/<milliseconds>-<random>.jsonl`` (one PUT, atomic), so names sort in the order written."""

    def __init__(self, store: RunStore, every: float = 1.0):
        super().__init__(every)
        self.store = store
        self._tag = uuid.uuid4().hex[:8]
        self._n = 0

    def _write(self, data: bytes) -> None:
        self._n += 1
        name = f"{UNIT_LOG_DIR}/{time.time_ns() // 1_000_000:014d}-{self._tag}-{self._n:06d}.jsonl"
        try:
            self.store.write_bytes(name, data)
        except OSError as exc:
            raise RunFailed(f"cannot write {self.store.where(name)}: {_problem(exc)}") from None

    def close(self) -> None:
        self.flush()


class UnitLog(_BufferedLog):
    """Append-only ``units.jsonl``: lines are buffered and written in chunks, each one ``write`` of whole lines."""

    def __init__(self, run_dir: Path, every: float = 1.0):
        super().__init__(every)
        self.path = run_dir / UNIT_LOG
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

    def _write(self, data: bytes) -> None:
        size = os.fstat(self._fd).st_size
        try:
            written = os.write(self._fd, data)
            while written < len(data):  # a short write (rare on local disks): finish the chunk
                written += os.write(self._fd, data[written:])
        except OSError:  # a full disk: no half chunk left behind; the lines stay buffered
            os.ftruncate(self._fd, size)
            raise

    def close(self) -> None:
        if self._fd is None:
            return
        try:
            self.flush()
        finally:
            os.close(self._fd)
            self._fd = None


# --- one run per folder --------------------------------------------------------------------------


def run_lock(out):
    """The lock of a run folder: a ``flock`` on a local file system, an advisory object on object storage."""
    store = open_run(out, "option --out")
    return RunLock(store.root) if store.local else ObjectRunLock(store)


def _pid_alive(pid: Any) -> bool:
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, TypeError, ValueError, OverflowError):
        return True  # someone else's process, or no pid to judge: assume alive
    return True


class ObjectRunLock:
    """``run.lock`` on object storage, where there is no ``flock`` and (through pyarrow) no conditional PUT.

    What it means there: an *advisory* lock.  The object names the holder (host, pid, start, a random
    token) and is deleted when the run ends.  A second run finds it and is refused, naming the holder,
    unless the holder is a dead process of this host (taken over, as a local lock would be).  A run on
    another host that died leaves its lock; the message says to delete it.  Two runs starting within
    the same fraction of a second could both write it: each reads the object back after a short pause
    and only the one whose token is there goes on (S3 reads are strongly consistent), which narrows
    that window to the pause but cannot close it without a compare-and-swap.
    """

    SETTLE = 0.3  # seconds between writing the lock and reading it back

    def __init__(self, store: RunStore):
        self.store = store
        self.held = False

    def _holder(self) -> dict[str, Any]:
        data = self.store.read_bytes(LOCK)
        try:
            rec = json.loads(data) if data else {}
        except ValueError:
            rec = {}
        return rec if isinstance(rec, dict) else {}

    def acquire(self) -> None:
        me = socket.gethostname()
        where = self.store.where(LOCK)
        holder = self._holder()
        if holder.get("state") == "running" and not (holder.get("host") == me and not _pid_alive(holder.get("pid"))):
            raise BadInput(
                f"option --out: {self.store.uri} is in use by a run in progress ({_holder(holder)}); "
                f"allowed: wait for it to end, another --out, or delete {where} if that run is gone"
            )
        token = uuid.uuid4().hex
        text = json.dumps(
            {
                "host": me,
                "pid": os.getpid(),
                "state": "running",
                "token": token,
                "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
        )
        try:
            self.store.write_bytes(LOCK, text.encode() + b"\n")
        except OSError as exc:  # the first write of a run: e.g. credentials that may read but not write
            raise BadInput(
                f"option --out: {self.store.uri}: cannot write ({_problem(exc)}); allowed: a prefix "
                "the credentials may write to"
            ) from None
        time.sleep(self.SETTLE)
        now = self._holder()
        if now.get("token") != token:
            raise BadInput(
                f"option --out: {self.store.uri} was taken by a run that started at the same moment "
                f"({_holder(now)}); allowed: wait for it to end, or another --out"
            )
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            if self._holder().get("token") is not None:
                self.store.delete(LOCK)

    def __enter__(self) -> ObjectRunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()


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
            try:
                self.out.mkdir(parents=True)
            except OSError as exc:  # under a file, read-only, not ours: bad input, nothing written
                raise _unwritable(self.out, exc) from None
            self.created = missing  # deepest first: removed on release if the run left them empty
        me = socket.gethostname()
        for _ in range(5):  # retried only when the file was replaced under us
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:  # a read-only file system, even for a finished run
                raise _unwritable(self.out, exc) from None
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
            text = json.dumps(
                {
                    "host": me,
                    "pid": os.getpid(),
                    "state": "running",
                    "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
            )
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, text.encode() + b"\n", 0)
            except OSError as exc:  # a full disk: nothing of the run is written, and no lock is left
                self._fd = fd
                self.release()
                raise _unwritable(self.out, exc) from None
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


def _unwritable(out: Path, exc: OSError) -> BadInput:
    """The one line for an ``--out`` that cannot be created or written: under a file, read-only, not ours."""
    blocker = next((d for d in out.parents if d.exists() and not d.is_dir()), None)
    if blocker is not None:
        return BadInput(f"option --out: {out}: {blocker} is a file, not a folder; allowed: a path of folders")
    return BadInput(
        f"option --out: {out}: cannot write ({exc.strerror or exc}); "
        "allowed: a folder this user may write to, on a writable file system"
    )


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
    return DamagedPart(
        f"{store.where(rel)}: a part this run completed is damaged ({why}); "
        "delete it and rerun the study, which resumes and plays that unit again"
    )


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


def run_parts(
    run_dir, manifest: dict[str, Any] | None = None, *, check: bool = True, warn_strays: bool = True
) -> RunParts:
    """The parts a run completed: the one listing every reader (report, query, compare, html, verify) uses.

    A file under a ``variant=`` folder is a part of the run when its folder and name are exactly those of
    a unit of the run's plan (rebuilt from run.json: :func:`plan_of_manifest`).  Parts are written
    atomically, so such a file is a finished unit.  Anything else there (a stray copy, a file of another
    run, a partial download) is left out of every reader and named in one warning on stderr.

    With ``check`` each part is checked cheaply for damage (locally: its size and the footer's magic
    bytes at its end, one small read; on object storage: its listed size), then against the hash its unit's
    line of the unit log records (a part whose size and time are the recorded ones is trusted, any other
    is hashed: :func:`pipeline.integrity.check_listed_parts`), and a damaged or foreign one raises
    :class:`DamagedPart` (exit 1) naming the file and the repair.  Damage the hash cannot see (a run from
    before hashes were recorded) is found when a reader fails: :func:`find_damaged`.
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
    folders: dict[str, tuple[str, bool]] = {}  # folder -> (variant, named exactly as the run names it)
    match, locate = PART_NAME.fullmatch, plan.locate if plan is not None else None
    for folder, sub, size in store.variant_files():
        rel = f"{folder}/{sub}"
        known = folders.get(folder)
        if known is None:
            variant = unquote(folder[len("variant=") :])
            known = folders[folder] = (variant, variant_dir(variant) == folder)
        variant = known[0]
        if locate is not None:  # the run's own units, by folder and name
            m = match(sub)
            ok = m is not None and known[1]
            if ok:
                first, last = int(m.group(1)), int(m.group(2))
                ok = locate(variant, first, last) is not None
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
        from pipeline.integrity import check_listed_parts

        check_listed_parts(listing, manifest)  # each part's hash against the unit log (size and time first)
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
