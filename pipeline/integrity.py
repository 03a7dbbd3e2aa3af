"""Content integrity of a run: every part's bytes are the ones the run wrote, and every part is this run's.

* **The hash in the unit log.**  The worker encodes a part in memory, hashes those bytes (sha256) and writes
  them (:meth:`pipeline.run_store.RunStore.write_table`), so the hash costs no second read; the driver puts
  it in the part's line of ``units.jsonl`` with its size, its file time, its row count and its deal range.
  A part cannot hold its own hash, and the log is written by the driver alone, so a part copied in from
  another run, or a flipped bit, no longer matches the line of its unit.
* **Identity.**  Every part's footer names the run's config fingerprint, game, deal source, engine version,
  variant and rules (:func:`footer_problem`); run.json names the same, and its fingerprint can be computed
  again from its config (:func:`manifest_problems`), so an edited seed or a foreign part is seen.
* **Readers** (:func:`check_listed_parts`, called by :func:`pipeline.run_files.run_parts`) trust a part
  whose size and time are the ones recorded, hash any other, and refuse a mismatch naming the part.
* **A rerun** (:func:`scan_finished`) treats a damaged or foreign part as not done and plays it again; a
  ``variant=`` folder that links to another run's parts is unlinked (the other run is left untouched).
* **run.json rebuilt** (:func:`judge_out_dir`): a run.json that is missing, unreadable, not a manifest or
  (with ``--repair``) of another config, in a folder whose parts are this study's, is rebuilt from the
  study, the unit log and the parts' footers instead of asking for ``--fresh``.
* **Nothing writes inside a run folder but ``run``** (:func:`refuse_output_inside`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.outcomes import OUTCOMES
from pipeline.errors import BadInput
from pipeline.run_files import (
    LOCK,
    MANIFEST,
    SUMMARY_KEY,
    TMP_DIR,
    UNIT_LOG,
    UNIT_LOG_DIR,
    damaged_part,
    list_parts,
    plan_of_manifest,
    read_unit_log,
    warn,
)
from pipeline.run_store import RunStore, first_line, is_uri, open_run
from pipeline.work_units import part_name, variant_dir

HASHES_NOTE = "sha256 of each part, with its size and file time, in its unit's line of the unit log"
FINGERPRINT_KEY = "patience.fingerprint"
EVIDENCE_PARTS = 16  # part footers read to tell whose parts a folder holds when its run.json is damaged
_OUTCOME_INDEX = {name: i for i, name in enumerate(OUTCOMES)}
_UNIT_KEY = re.compile(r"part-(\d+)-(\d+)")  # the file part of a unit key, <variant>/part-<first>-<last>
LOAD_BATCH = 8192  # log lines parsed before the arrays are filled


# --- hashing ---------------------------------------------------------------------------------------


def file_sha256(store: RunStore, rel: str) -> str | None:
    """The sha256 (hex) of a file of the run, read in 1 MiB blocks; None when it cannot be read."""
    digest = hashlib.sha256()
    try:
        if store.local:
            with open(store.read_path(rel), "rb") as f:
                while block := f.read(1 << 20):
                    digest.update(block)
        else:
            data = store.read_bytes(rel)
            if data is None:
                return None
            digest.update(data)
    except OSError:
        return None
    return digest.hexdigest()


# --- the unit log's records ----------------------------------------------------------------------


class UnitRecords:
    """The latest line of the unit log for each unit of a plan, held in arrays shaped like the plan's grid.

    Later lines win (a unit played again, or a stamp refreshed after a copy, appends a new line).  About 90
    bytes a unit, allocated zeroed (untouched pages cost nothing), so a run of 10^5 units costs 9 MB.
    """

    def __init__(self, plan):
        shape = (len(plan.variants), plan.chunks)
        self.plan = plan
        self.numbers = {name: i for i, name in enumerate(plan.variants)}
        self.seen = np.zeros(shape, dtype=bool)  # a line names the unit
        self.hashed = np.zeros(shape, dtype=bool)  # ... and records its part's sha256
        self.bad = np.zeros(shape, dtype=bool)  # ... with a row count or deal range not the unit's
        self.sha = np.zeros((*shape, 32), dtype=np.uint8)
        self.size = np.zeros(shape, dtype=np.int64)
        self.mtime = np.zeros(shape, dtype=np.int64)  # 0: no time recorded
        self.wins = np.zeros(shape, dtype=np.int64)
        self.outcomes = np.zeros((*shape, len(OUTCOMES)), dtype=np.int64)

    @classmethod
    def load(cls, store: RunStore, plan) -> UnitRecords:
        """Every line of the run's unit log (a torn or damaged line is skipped, as resume always did), taken a
        batch of lines at a time (the arrays are filled by numpy, not line by line)."""
        records = cls(plan)
        batch: list[dict[str, Any]] = []
        for rec in read_unit_log(store):
            batch.append(rec)
            if len(batch) >= LOAD_BATCH:
                records.add_many(batch)
                batch.clear()
        records.add_many(batch)
        return records

    def add(self, rec: dict[str, Any]) -> None:
        """Take one log line (a unit's summary, with or without its stamp)."""
        self.add_many([rec])

    def add_many(self, recs: list[dict[str, Any]]) -> None:
        """Take log lines in the order written (a later line of a unit wins); lines of no unit of the plan, or
        that cannot be read, are skipped."""
        rows = [row for row in map(self._parse, recs) if row is not None]
        if not rows:
            return
        v, c, count, wins, outcomes, sha, size, mtime, bad = zip(*rows, strict=True)
        flat = np.asarray(v, dtype=np.int64) * self.plan.chunks + np.asarray(c, dtype=np.int64)
        _, first_of_reversed = np.unique(flat[::-1], return_index=True)
        keep = len(flat) - 1 - first_of_reversed  # each unit's last line
        loc = (np.asarray(v)[keep], np.asarray(c)[keep])
        expected = np.minimum(self.plan.batch_size, self.plan.deals - loc[1] * self.plan.batch_size)
        hashed = np.array([sha[k] is not None for k in keep], dtype=bool)
        self.seen[loc] = True
        self.bad[loc] = (np.asarray(count)[keep] != expected) | np.asarray(bad, dtype=bool)[keep]
        self.wins[loc] = np.asarray(wins, dtype=np.int64)[keep]
        self.outcomes[loc] = np.asarray(outcomes, dtype=np.int64).reshape(len(rows), -1)[keep]
        self.hashed[loc] = hashed
        with_sha = keep[hashed]
        if with_sha.size:
            at = (loc[0][hashed], loc[1][hashed])
            self.sha[at] = np.frombuffer(b"".join(sha[k] for k in with_sha), dtype=np.uint8).reshape(-1, 32)
            self.size[at] = np.asarray(size, dtype=np.int64)[with_sha]
            self.mtime[at] = np.asarray(mtime, dtype=np.int64)[with_sha]

    def _parse(self, rec: dict[str, Any]) -> tuple | None:
        """(variant, chunk, count, wins, outcome counts, sha256 bytes or None, size, time, first or last not the
        key's) of one log line, or None."""
        try:
            variant, _, rest = rec["key"].rpartition("/")
            m = _UNIT_KEY.fullmatch(rest)
            if m is None:
                return None
            first, last = int(m.group(1)), int(m.group(2))
            loc = _locate(self.plan, self.numbers, variant, first, last)
            if loc is None:
                return None
            outcomes = [0] * len(OUTCOMES)
            for name, n in (rec.get("outcomes") or {}).items():
                outcomes[_OUTCOME_INDEX[name]] = int(n)
            sha = bytes.fromhex(rec["sha256"]) if rec.get("sha256") else None
            if sha is not None and len(sha) != 32:
                return None
            bad = int(rec.get("first", first)) != first or int(rec.get("last", last)) != last
            size, mtime = int(rec.get("bytes") or 0), int(rec.get("mtime_ns") or 0)
            return loc[0], loc[1], int(rec["count"]), int(rec["wins"]), outcomes, sha, size, mtime, bad
        except (KeyError, TypeError, ValueError, AttributeError):
            return None  # a line resume cannot use: as if torn

    def sha256(self, loc: tuple[int, int]) -> str:
        return self.sha[loc].tobytes().hex()

    def outcome_counts(self, loc: tuple[int, int]) -> dict[str, int]:
        return {OUTCOMES[i]: int(n) for i, n in enumerate(self.outcomes[loc]) if n}

    def record(self, loc: tuple[int, int], **extra: Any) -> dict[str, Any]:
        """A log line for the unit at ``loc`` rebuilt from what is held (to log a refreshed stamp)."""
        unit = self.plan.unit(loc[1], loc[0])
        rec = {
            "key": unit.key,
            "variant": unit.variant,
            "count": unit.count,
            "first": unit.first,
            "last": unit.last,
            "wins": int(self.wins[loc]),
            "outcomes": self.outcome_counts(loc),
        }
        if self.hashed[loc]:
            rec.update(sha256=self.sha256(loc), bytes=int(self.size[loc]), mtime_ns=int(self.mtime[loc]) or None)
        return {**rec, **extra}


def _locate(plan, numbers: dict[str, int], variant: str, first: int, last: int) -> tuple[int, int] | None:
    """``plan.locate`` without its per-call work where deal indices are positions (seeded, file): a rerun of
    10^5 units locates every log line and every part.  ``numbers``: variant name -> its number in the plan."""
    if plan.source.kind not in ("seeded", "file"):
        return plan.locate(variant, first, last)
    v = numbers.get(variant)
    chunk, rest = divmod(first, plan.batch_size)
    if v is None or rest or not 0 <= first < plan.deals or last != min(first + plan.batch_size, plan.deals) - 1:
        return None
    return v, chunk


def _unit_rels(plan, locs: list[tuple[int, int]]) -> list[str]:
    """The part file (relative to the run) of each unit at ``locs``; directly where deal indices are positions."""
    if plan.source.kind not in ("seeded", "file"):
        return [plan.unit(c, v).relpath for v, c in locs]
    folders = [variant_dir(name) for name in plan.variants]
    batch, deals = plan.batch_size, plan.deals
    return [f"{folders[v]}/{part_name(c * batch, min((c + 1) * batch, deals) - 1)}" for v, c in locs]


def stamp_problem(records: UnitRecords, loc: tuple[int, int], sha256: str, required: bool) -> tuple[str, str] | None:
    """(kind, why) when a part's hash is not the one its unit's log line records; ``required``: the run
    records hashes, so a unit without one is a problem too.  None when the part is the one the run wrote."""
    if not records.seen[loc] or not records.hashed[loc]:
        if required:
            return "unrecorded", f"no line of {UNIT_LOG} records its hash (its bytes cannot be checked)"
        return None
    if records.bad[loc]:
        return "altered", f"its line in {UNIT_LOG} records another row count or deal range than its unit's"
    if records.sha256(loc) != sha256:
        return "altered", (
            f"its sha256 is not the one {UNIT_LOG} records: its bytes changed after the run wrote them, "
            "or it is another run's part"
        )
    return None


# --- identity: whose part is it ----------------------------------------------------------------------


@dataclass(frozen=True)
class RunIdentity:
    """What every part of a run records of the run in its footer, and what run.json says of it."""

    fingerprint: str
    game: str
    deal_source: dict[str, Any]
    engine_version: str
    rules: dict[str, Any] = field(default_factory=dict)  # variant -> resolved rules

    @classmethod
    def of_study(cls, study) -> RunIdentity:
        fields = study.fingerprint_fields()
        return cls(
            study.fingerprint(), fields["game"], fields["deal_source"], fields["engine_version"], fields["variants"]
        )

    @classmethod
    def of_manifest(cls, manifest: dict[str, Any]) -> RunIdentity | None:
        try:
            config = manifest["config"]
            rules = {name: body.get("rules") for name, body in config["variants"].items()}
            return cls(
                str(manifest.get("fingerprint", "")),
                str(config["game"]),
                dict(config["deal_source"]),
                str(manifest.get("engine_version", "")),
                rules,
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


def _text(kv: dict[bytes, bytes], key: str) -> str:
    return kv.get(key.encode(), b"").decode("utf-8", "replace")


def _source_text(src: Any) -> str:
    return json.dumps(src, sort_keys=True) if isinstance(src, dict) else "(none)"


def footer_problem(kv: dict[bytes, bytes], ident: RunIdentity, variant: str) -> str | None:
    """Why a part's footer says it is not a part of the run ``ident`` names (another game, deal source, engine,
    rules or config), or None.  Parts written before footers named the fingerprint are judged by the rest."""
    game = _text(kv, "patience.game")
    if game != ident.game:
        return f"its footer names game {game or '(none)'!r}, the run's is {ident.game!r}"
    try:
        src = json.loads(_text(kv, "patience.deal_source") or "null")
    except ValueError:
        src = None
    if src != ident.deal_source:
        return f"its footer names deal source {_source_text(src)}, the run's is {_source_text(ident.deal_source)}"
    engine = _text(kv, "patience.engine_version")
    if ident.engine_version and engine != ident.engine_version:
        return f"its footer names engine version {engine or '(none)'!r}, the run's is {ident.engine_version!r}"
    if _text(kv, "patience.variant") != variant:
        return f"its footer names variant {_text(kv, 'patience.variant') or '(none)'!r}, not {variant!r}"
    try:
        rules = json.loads(_text(kv, "patience.rules") or "null")
    except ValueError:
        rules = None
    if variant in ident.rules and rules != ident.rules[variant]:
        return f"the rules in its footer are not the run's for variant {variant!r}"
    fingerprint = _text(kv, FINGERPRINT_KEY)
    if fingerprint and ident.fingerprint and fingerprint != ident.fingerprint:
        mine, theirs = fingerprint[:12], ident.fingerprint[:12]
        return f"its footer names another config (fingerprint {mine}..., the run's {theirs}...)"
    return None


def recomputed_fingerprint(manifest: dict[str, Any]) -> str | None:
    """The fingerprint of the config run.json records (as :meth:`pipeline.config.Study.fingerprint` makes it)."""
    fields = _manifest_fields(manifest)
    if fields is None:
        return None
    return hashlib.sha256(json.dumps(fields, sort_keys=True, default=str).encode()).hexdigest()


def _manifest_fields(manifest: dict[str, Any]) -> dict[str, Any] | None:
    config = manifest.get("config")
    if not isinstance(config, dict) or not isinstance(config.get("variants"), dict):
        return None
    return {
        "game": config.get("game"),
        "deal_source": config.get("deal_source"),
        "batch_size": config.get("batch_size"),
        "variants": {n: (b or {}).get("rules") if isinstance(b, dict) else None for n, b in config["variants"].items()},
        "engine_version": manifest.get("engine_version"),
    }


def manifest_problems(manifest: dict[str, Any]) -> list[str]:
    """What in run.json contradicts itself: a fingerprint that is not its config's (an edited seed, batch size,
    rules...), fingerprint fields, seed, deal source or game at the top that differ from its config."""
    fields = _manifest_fields(manifest)
    if fields is None:
        return [f"{MANIFEST} records no config"]
    problems = []
    if "fingerprint" in manifest and manifest["fingerprint"] != recomputed_fingerprint(manifest):
        problems.append(f"{MANIFEST}: its fingerprint is not that of the config it records (edited?)")
    recorded = manifest.get("fingerprint_fields")
    if isinstance(recorded, dict):
        differ = [
            k
            for k in fields
            if json.dumps(recorded.get(k), sort_keys=True, default=str)
            != json.dumps(fields[k], sort_keys=True, default=str)
        ]
        if differ:
            problems.append(f"{MANIFEST}: fingerprint_fields differ from its config in {', '.join(differ)}")
    source = fields["deal_source"]
    if isinstance(source, dict):  # the top's copies of the config's fields (older manifests may lack either)
        if "seed" in manifest and manifest["seed"] != source.get("seed"):
            problems.append(f"{MANIFEST}: seed {manifest['seed']!r} at the top, {source.get('seed')!r} in its config")
        if "deal_source" in manifest and manifest["deal_source"] != source:
            problems.append(f"{MANIFEST}: deal_source at the top differs from its config's")
    if "game" in manifest and fields["game"] is not None and manifest["game"] != fields["game"]:
        problems.append(f"{MANIFEST}: game {manifest['game']!r} at the top, {fields['game']!r} in its config")
    return problems


def totals_problems(manifest: dict[str, Any], records: UnitRecords) -> list[str]:
    """Where run.json's totals (deals, wins, outcomes per variant) are not the unit log's, once the run ended."""
    totals = manifest.get("totals")
    ended = manifest.get("status") in ("complete", "failed", "interrupted")  # a live run's totals lag its log
    if not ended or not isinstance(totals, dict) or not records.seen.any():  # no log: nothing to compare with
        return []
    per = totals.get("variants")
    if not isinstance(per, dict):
        return [f"{MANIFEST}: its totals name no variants"]
    plan, problems = records.plan, []
    position = np.arange(plan.chunks, dtype=np.int64) * plan.batch_size
    counts = np.minimum(plan.batch_size, plan.deals - position)  # each chunk's deals
    for v, name in enumerate(plan.variants):
        seen = records.seen[v]
        logged = {
            "deals": int(counts[seen].sum()),
            "wins": int(records.wins[v][seen].sum()),
            "outcomes": {OUTCOMES[i]: int(n) for i, n in enumerate(records.outcomes[v][seen].sum(axis=0)) if n},
        }
        mine = per.get(name) if isinstance(per.get(name), dict) else {}
        said = {"deals": mine.get("deals"), "wins": mine.get("wins")}
        if "outcomes" in mine:  # totals from before outcome counts were kept have none
            said["outcomes"] = {k: n for k, n in (mine.get("outcomes") or {}).items() if n}
        else:
            logged.pop("outcomes")
        if said != logged:
            problems.append(
                f"{MANIFEST}: its totals for variant {name!r} ({said['wins']} wins of {said['deals']} deals) are not "
                f"the unit log's ({logged['wins']} wins of {logged['deals']})"
            )
    return problems


# --- readers: a cheap check of every part they read ---------------------------------------------------

_records_cache: dict[tuple, UnitRecords] = {}
_trusted: set[tuple] = set()  # (store, rel, size, mtime, sha256) hashed and found right in this process


def _log_signature(store: RunStore) -> tuple:
    """What changes when the unit log changes (its size and time; on object storage its chunk objects)."""
    if store.local:
        try:
            st = os.stat(store.root / UNIT_LOG)
        except OSError:
            return (store.uri, None)
        return (store.uri, st.st_size, st.st_mtime_ns)
    return (store.uri, tuple(sorted(store.list_tree(UNIT_LOG_DIR))))


def cached_records(store: RunStore, plan) -> UnitRecords:
    """The unit log's records, read once per process while the log is unchanged (a command may list a run
    several times: the HTML report does)."""
    key = (*_log_signature(store), len(plan), plan.batch_size, tuple(plan.variants))
    records = _records_cache.get(key)
    if records is None:
        if len(_records_cache) > 8:
            _records_cache.clear()
        records = _records_cache[key] = UnitRecords.load(store, plan)
    return records


def part_changed(
    store: RunStore, rel: str, records: UnitRecords, loc: tuple[int, int], stat: tuple[int, int | None] | None
) -> str | None:
    """Why the part at ``rel`` is not the one the log records for ``loc``, or None.  A part whose size and file
    time are the recorded ones is trusted without reading it; any other is hashed."""
    if stat is None:
        return "it cannot be found"
    if records.bad[loc]:
        return f"its line in {UNIT_LOG} records another row count or deal range than its unit's"
    size, mtime = stat
    if size != records.size[loc]:
        return f"{size} bytes, but the run wrote {int(records.size[loc])} ({UNIT_LOG}): changed or another run's"
    if mtime is not None and records.mtime[loc] and mtime == records.mtime[loc]:
        return None
    sha = records.sha256(loc)
    if (store.uri, rel, size, mtime, sha) in _trusted:
        return None
    if file_sha256(store, rel) != sha:
        return f"its sha256 is not the one {UNIT_LOG} records: changed after the run wrote it, or another run's"
    _trusted.add((store.uri, rel, size, mtime, sha))
    return None


def check_listed_parts(listing, manifest: dict[str, Any]) -> None:
    """DamagedPart (exit 1, one line naming the part) when a part a reader is about to read is not the one the
    run wrote; parts whose size and time are the recorded ones cost one ``stat`` (one listing on object
    storage), any other is hashed.  Runs from before hashes were recorded are read as before."""
    plan = plan_of_manifest(manifest)
    if plan is None or not listing.parts:
        return
    store = listing.store
    records = cached_records(store, plan)
    if not records.hashed.any():
        return
    stats = store.stats([p.rel for p in listing.parts])
    unrecorded = 0
    for p in listing.parts:
        loc = plan.locate(p.variant, p.first, p.last)
        if loc is None or not records.hashed[loc]:
            unrecorded += 1
            continue
        why = part_changed(store, p.rel, records, loc, stats.get(p.rel))
        if why is not None:
            raise damaged_part(store, p.rel, why)
    if unrecorded and manifest.get("status") != "running":  # a live run logs its newest parts within a second
        warn(
            f"{unrecorded} part(s) of {store.where()} have no hash in {UNIT_LOG} (a driver stopped before logging "
            "them): they are read unchecked; rerun the study to record them"
        )


# --- a rerun: which finished parts are this run's, unchanged -------------------------------------------


@dataclass
class FinishedScan:
    """What a rerun found: the units done (trusted parts), their records, lines to log, and what it redoes."""

    done: np.ndarray
    records: UnitRecords
    to_log: list[dict[str, Any]] = field(default_factory=list)  # recovered from footers, or refreshed stamps
    redo: list[tuple[str, str]] = field(default_factory=list)  # (rel, why) of parts played again
    unlinked: list[str] = field(default_factory=list)  # variant folders that linked to another run's parts

    def totals(self) -> Iterator[tuple[str, int, int, int, dict[str, int]]]:
        """(variant, units, deals, wins, outcome counts) over the trusted units of each variant: the running
        tallies of a resume, summed by numpy (not unit by unit)."""
        records, plan = self.records, self.records.plan
        position = np.arange(plan.chunks, dtype=np.int64) * plan.batch_size
        deals = np.minimum(plan.batch_size, plan.deals - position)
        for v, name in enumerate(plan.variants):
            mine = self.done[v]
            outcomes = records.outcomes[v][mine].sum(axis=0)
            counts = {OUTCOMES[i]: int(n) for i, n in enumerate(outcomes) if n}
            yield name, int(mine.sum()), int(deals[mine].sum()), int(records.wins[v][mine].sum()), counts


def _recover(store: RunStore, unit, ident: RunIdentity, stat) -> tuple[dict[str, Any] | None, str]:
    """A finished part the log never recorded (the driver died before logging it): its log line from its footer
    and its bytes, or (None, why) when it is not this unit of this run."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = store.read_bytes(unit.relpath)
    if data is None:
        return None, "it cannot be read"
    try:
        with pq.ParquetFile(pa.BufferReader(data)) as pf:
            meta = pf.metadata
            kv = meta.metadata or {}
            if meta.num_rows != unit.count or _text(kv, "patience.unit") != unit.key:
                return None, "its footer is not its unit's"
            why = footer_problem(kv, ident, unit.variant)
            if why is not None:
                return None, why
            if SUMMARY_KEY.encode() in kv:
                rec = json.loads(kv[SUMMARY_KEY.encode()])
            else:
                values = pf.read(columns=["outcome"]).column("outcome").value_counts().to_pylist()
                counts = {d["values"]: d["counts"] for d in values}
                rec = {"key": unit.key, "count": unit.count, "wins": counts.get("won", 0), "outcomes": counts}
    except Exception as exc:  # noqa: BLE001 - any unreadable file is simply not a finished unit
        return None, f"it cannot be read ({first_line(exc)})"
    size, mtime = stat
    rec.update(
        variant=unit.variant,
        first=unit.first,
        last=unit.last,
        sha256=hashlib.sha256(data).hexdigest(),
        bytes=size,
        mtime_ns=mtime,
    )
    return rec, ""


SCAN_BATCH = 4096  # finished units judged at a time: the driver's memory stays flat at any number of units


def scan_finished(store: RunStore, plan, ident: RunIdentity, thorough: bool = False) -> FinishedScan:
    """Resume: the units whose parts are this run's, unchanged.  A part whose size and time are the ones its log
    line records is trusted; any other is hashed (every part with ``thorough``, i.e. ``--repair``).  A part
    that fails (damaged, foreign, copied from another run) is not done and is played again; a part the log
    missed is judged by its footer and hashed now (its line is logged), and so is a part whose line has no hash
    (a run from before hashes were recorded), so that from then on every part of the run has one."""
    records = UnitRecords.load(store, plan)
    done = plan.grid()
    for variant, first, last in list_parts(store):
        loc = _locate(plan, records.numbers, variant, first, last)
        if loc is not None:
            done[loc] = True
    scan = FinishedScan(done, records)
    found = np.argwhere(done)
    for start in range(0, len(found), SCAN_BATCH):
        locs = [(int(v), int(c)) for v, c in found[start : start + SCAN_BATCH]]
        rels = _unit_rels(plan, locs)
        stats = store.stats(rels)
        for loc, rel in zip(locs, rels, strict=True):
            why = _judge_unit(store, rel, loc, stats.get(rel), ident, thorough, scan)
            if why:
                done[loc] = False
                scan.redo.append((rel, why))
    _unlink_foreign_folders(store, plan, scan)
    return scan


def _judge_unit(
    store: RunStore, rel: str, loc: tuple[int, int], stat, ident: RunIdentity, thorough: bool, scan: FinishedScan
) -> str | None:
    """Why the listed part ``rel`` cannot count as its unit done (None: it can), logging what the log should hold."""
    records = scan.records
    if stat is None:  # listed under a folder name that is not the unit's own spelling
        return "not found under its unit's name"
    seen = records.seen[loc]
    if seen and records.bad[loc]:
        return f"its line in {UNIT_LOG} records another row count or deal range than its unit's"
    if seen and records.hashed[loc]:
        return _judge_recorded(store, rel, records, loc, stat, thorough, scan)
    if seen:  # a line from before hashes: trusted as it always was, and its hash recorded now
        sha = file_sha256(store, rel)
        if sha is None:
            return "it cannot be read"
        records.hashed[loc] = True
        records.sha[loc] = np.frombuffer(bytes.fromhex(sha), dtype=np.uint8)
        records.size[loc], records.mtime[loc] = stat[0], stat[1] or 0
        scan.to_log.append(records.record(loc))
        return None
    rec, why = _recover(store, records.plan.unit(loc[1], loc[0]), ident, stat)
    if rec is None:
        return why
    records.add(rec)
    scan.to_log.append(rec)
    return None


def _judge_recorded(
    store: RunStore,
    rel: str,
    records: UnitRecords,
    loc: tuple[int, int],
    stat: tuple[int, int | None],
    thorough: bool,
    scan: FinishedScan,
) -> str | None:
    """A part whose log line records its hash: trusted on its size and time (unless ``thorough``), else hashed;
    the same bytes under a new time get a new line, so that the next rerun trusts them without reading."""
    size, mtime = stat
    if not thorough and records.mtime[loc] and (size, mtime) == (records.size[loc], records.mtime[loc]):
        return None
    if size != records.size[loc] or file_sha256(store, rel) != records.sha256(loc):
        return "its bytes are not the ones the run wrote (damaged, or another run's)"
    if mtime != records.mtime[loc]:  # the same bytes under a new time (a copy): recorded, so the next check is quick
        records.size[loc], records.mtime[loc] = size, mtime or 0
        scan.to_log.append(records.record(loc))
    return None


def _unlink_foreign_folders(store: RunStore, plan, scan: FinishedScan) -> None:
    """A ``variant=`` folder that is a link and holds a part to be played again: the link is removed (never what
    it points to, another run's parts) so the new part is written into this run's own folder."""
    folders = {rel.split("/", 1)[0] for rel, _ in scan.redo}
    for folder in sorted(folders):
        if not store.is_link(folder):
            continue
        os.unlink(store.root / folder)
        for v in range(len(plan.variants)):
            if plan.unit(0, v).relpath.split("/", 1)[0] == folder:
                scan.done[v, :] = False
        scan.unlinked.append(folder)


def redo_note(scan: FinishedScan, store: RunStore) -> str | None:
    """One line naming the parts a rerun plays again because they are damaged or not this run's."""
    if not scan.redo:
        return None
    shown = "; ".join(f"{store.where(rel)}: {why}" for rel, why in scan.redo[:3])
    more = f" and {len(scan.redo) - 3} more" if len(scan.redo) > 3 else ""
    text = f"{len(scan.redo)} part(s) are damaged or not this run's, played again: {shown}{more}"
    if scan.unlinked:
        text += f" (links removed, their targets untouched: {', '.join(scan.unlinked)})"
    return text


# --- a damaged run.json: rebuilt, not --fresh -------------------------------------------------------------


def _manifest_state(store: RunStore, names: list[str]) -> tuple[dict[str, Any] | None, str | None]:
    """(run.json as a dict, None) when it is a manifest; else (None, what is wrong with it)."""
    if MANIFEST not in names:
        return None, "is missing"
    data = store.read_bytes(MANIFEST)
    if data is None:
        return None, "is missing"
    try:
        old = json.loads(data)
    except ValueError:
        return None, "cannot be read as JSON"
    if not isinstance(old, dict) or not isinstance(old.get("fingerprint"), str):
        return None, "is not a manifest written by `patience run`"
    return old, None


def part_evidence(store: RunStore, study) -> str:
    """Whose parts the folder holds, from a few footers: "ours" (this study's), "other", or "none" (no part
    with a readable footer)."""
    from pipeline.work_units import UnitPlan

    plan, ident = UnitPlan(study), RunIdentity.of_study(study)
    ours = other = 0
    for variant, first, last in list_parts(store):
        if ours + other >= EVIDENCE_PARTS:
            break
        loc = plan.locate(variant, first, last)
        if loc is None:
            continue
        unit = plan.unit(loc[1], loc[0])
        try:
            with store.parquet_file(unit.relpath) as pf:
                kv = pf.metadata.metadata or {}
        except Exception:  # noqa: BLE001 - an unreadable part says nothing about whose it is
            continue
        if _text(kv, "patience.unit") == unit.key and footer_problem(kv, ident, unit.variant) is None:
            ours += 1
        else:
            other += 1
    return "other" if other and not ours else "ours" if ours and not other else "mixed" if ours else "none"


def judge_out_dir(out, study, fresh: bool, repair: bool) -> tuple[str, str | None]:
    """What to do with ``out`` before a run: (action, note to show).  The actions of
    :func:`pipeline.run_files.check_out_dir` ("new", "resume", "fresh"), plus "repair": a resume whose run.json
    is rebuilt, because it is missing, unreadable or not a manifest while the parts' footers are this study's
    (or, with ``repair``, when it records another config but the parts are this study's).  BadInput as
    check_out_dir otherwise."""
    from pipeline.run_files import check_out_dir

    store = open_run(out, "option --out")
    fingerprint, fields = study.fingerprint(), study.fingerprint_fields()
    names = store.top_names()
    tmp_is_file = store.local and TMP_DIR in names and not (store.root / TMP_DIR).is_dir()
    if (store.local and store.root.exists() and not store.root.is_dir()) or not any(n != LOCK for n in names):
        return check_out_dir(store, fingerprint, fields, fresh), None
    if tmp_is_file:  # refused by check_out_dir, whatever the state of run.json
        return check_out_dir(store, fingerprint, fields, fresh), None
    old, why = _manifest_state(store, names)
    if old is not None and old["fingerprint"] == fingerprint:
        action = check_out_dir(store, fingerprint, fields, fresh)
        edited = manifest_problems(old) if action == "resume" else []
        return action, (f"{edited[0]}: rebuilt from the study and the unit log" if edited else None)
    runlike = why is None or MANIFEST in names or UNIT_LOG in names or any(n.startswith("variant=") for n in names)
    if fresh:
        if old is None and MANIFEST in names:
            return "fresh", None  # a damaged run.json: --fresh clears the run's files, as before
        return check_out_dir(store, fingerprint, fields, fresh), None
    evidence = part_evidence(store, study) if runlike else "none"
    if old is not None:  # a manifest of another config
        if repair and evidence in ("ours", "mixed", "none"):
            return "repair", f"{MANIFEST} recorded another config: rebuilt from the study (--repair)"
        try:
            return check_out_dir(store, fingerprint, fields, fresh), None
        except BadInput as exc:
            if evidence in ("ours", "mixed"):
                raise BadInput(f"{exc}, or --repair: the parts in it are this study's") from None
            raise
    if evidence == "ours" or (repair and runlike and evidence in ("mixed", "none")):
        return "repair", f"{MANIFEST} {why}: rebuilt from the study, the unit log and the parts' footers"
    if evidence in ("other", "mixed"):
        raise BadInput(
            f"option --out: {out} holds parts of a different config and its {MANIFEST} {why}; "
            "allowed: --fresh to clear it, or another --out"
        )
    if MANIFEST not in names:
        return check_out_dir(store, fingerprint, fields, fresh), None  # not a run: refused as always
    raise BadInput(
        f"option --out: {out}/{MANIFEST} {why} and no part says whose run it is; allowed: --repair to rebuild "
        "it from this study, --fresh to clear the run, or another --out"
    )


# --- nothing writes inside a run folder but `patience run` -----------------------------------------------------


def refuse_output_inside(output: Path | None, run_dirs: Iterable[str | None]) -> None:
    """BadInput when ``--output`` (symlinks resolved) is a run folder or inside one of ``run_dirs``: a report
    written there would replace a part or the manifest."""
    if output is None:
        return
    target = Path(os.path.realpath(output))
    for run_dir in run_dirs:
        if run_dir is None or is_uri(run_dir):
            continue
        root = Path(os.path.realpath(open_run(run_dir).root))
        if target == root or root in target.parents:
            raise BadInput(
                f"option --output: {output} is inside the run folder {run_dir}; allowed: a file outside it "
                f"(only `patience run` writes in a run folder: its parts, {MANIFEST}, {UNIT_LOG}, {TMP_DIR})"
            )
