"""Results on disk (DESIGN section 6): Parquet parts, the ``run.json`` manifest, resume.

Layout of a run folder::

    run.json                                  manifest (written by the driver only)
    variant=<encoded name>/part-<first>-<last>.parquet
    _tmp/<random>.tmp                         files being written

A part is written under ``_tmp/`` (outside every ``variant=`` folder, with no
``.parquet`` suffix, and ``_``-prefixed so pyarrow's dataset discovery skips it)
and renamed into place: a reader never sees half a file, and a file that exists
is complete.  Resume therefore only has to ask which part files exist (and
checks their footers as a guard).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import uuid
from pathlib import Path
from typing import Any

from pipeline.errors import BadInput, StorageError

MANIFEST = "run.json"
TMP_DIR = "_tmp"
PARTS_GLOB = "variant=*/*.parquet"


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


def read_manifest(run_dir: Path) -> dict[str, Any]:
    path = run_dir / MANIFEST
    if not path.is_file():
        raise BadInput(f"{run_dir}: not a run folder (no {MANIFEST}); allowed: a folder written by `patience run`")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BadInput(f"{path}: cannot be read as a manifest ({exc}); allowed: a run.json written by `patience run`") from None


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
    if not out.exists() or not any(out.iterdir()):
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
        if entry.name == MANIFEST or entry.name == TMP_DIR or entry.name.startswith("variant="):
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()


def clear_tmp(out: Path) -> None:
    """Drop temp files a killed run left behind (they were never renamed into place)."""
    shutil.rmtree(out / TMP_DIR, ignore_errors=True)
