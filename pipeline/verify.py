"""``patience verify RUN_DIR``: re-check a finished run from its manifest alone (DESIGN sections 5 and 6).

Two checks, one work unit at a time (one part file in memory at once, so a run
of millions of rows verifies in flat memory):

1. **Parts against the plan.**  The units are planned again from the config
   the manifest records (deal source, batch size, variants), exactly as
   ``patience run`` planned them.  Each unit's part must exist (else
   *missing*), be readable whole, every column (else *damaged*), hold its
   ``count`` rows and its unit key in the footer (what resume trusts, see
   :func:`pipeline.run_files.part_complete`), record in its footer the variant and
   the resolved rules the manifest gives that variant, and its ``deal`` column
   must be the unit's deal indices in order (else *wrong*).  A file in a
   ``variant=`` folder that no unit names is *extra* (the readers ignore it,
   with a warning: :func:`pipeline.run_files.run_parts`).
2. **Solutions replayed.**  The unit's deals are generated again from the
   manifest (seeded, deals file or Microsoft numbers, by the worker's own
   :func:`pipeline.worker.make_decks`), and every stored ``solution`` of a
   variant whose rules use a solver (:func:`engine.registry.uses_solver`) is
   replayed by the game's ``check_solution`` (the readable reference) with the
   variant's resolved rules.  A ``won`` row with no solution is refused, and so
   is a solution stored for a deal that is not won.  Rows of fixed-strategy
   variants carry no solution and are not replayed.
3. **Fewest passes against every known line.**  A row that claims
   ``rounds_optimal`` is held to the other solver variants' lines for the same
   deal: a shorter one that the reference also replays to a win under this
   variant's rules refutes the claim.

Exit codes (pipeline.cli): 0 every part present and every solution confirmed;
1 a part missing or wrong, or a solution refused; 2 not a run folder (or one
whose deals cannot be regenerated).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from engine.deals import parse_number_ranges
from engine.registry import GameSpec, get_game, uses_solver
from engine.rules import RuleError
from pipeline.config import DealSource, ErrorLocation, read_deals_lines
from pipeline.errors import BadInput
from pipeline.integrity import (
    RunIdentity,
    UnitRecords,
    footer_problem,
    manifest_problems,
    stamp_problem,
    totals_problems,
)
from pipeline.row_checks import missing_columns, replay_problems, row_problems, sample_rows
from pipeline.run_files import MANIFEST, SUMMARY_KEY, read_manifest, run_parts
from pipeline.run_store import first_line, open_run
from pipeline.work_units import UnitPlan, WorkUnit, make_task
from pipeline.worker import make_decks

DEFAULT_SHOW = 20  # refusals and part problems listed; the rest are counted


@dataclass
class Refusal:
    variant: str
    deal: int
    reason: str


@dataclass
class Verification:
    """What ``verify_run`` found.  Counts are complete; the lists hold at most ``show`` entries each."""

    run_dir: Path
    game: str
    status: str  # the manifest's run status
    replayable: bool  # the game has check_solution
    solver_variants: list[str]  # variants whose solutions are replayed
    units: int = 0
    units_ok: int = 0
    part_problems: list[str] = field(default_factory=list)
    part_problem_count: int = 0
    # missing / extra / damaged / wrong / altered / foreign / unrecorded / manifest -> count
    problem_kinds: dict[str, int] = field(default_factory=dict)
    confirmed: dict[str, int] = field(default_factory=dict)  # variant -> wins whose solution replayed
    refused: dict[str, int] = field(default_factory=dict)  # variant -> refused rows
    refusals: list[Refusal] = field(default_factory=list)
    fixed_wins: dict[str, int] = field(default_factory=dict)  # wins of fixed-strategy variants (not replayed)
    full: bool = False  # every fixed-strategy row replayed by the kernel (else a sample)
    replayed_rows: int = 0  # fixed-strategy rows played again by the kernel
    replay_differ: int = 0  # ... whose stored columns are not what the kernel plays
    rows_checked: int = 0  # rows checked for consistency (won vs outcome, ranges, solutions)
    hashes_checked: int = 0  # parts whose sha256 is the one the unit log records
    hashes_required: bool = False  # the run records hashes (run.json's part_hashes): a part without one fails
    seconds: float = 0.0
    show: int = DEFAULT_SHOW

    @property
    def ok(self) -> bool:
        return self.part_problem_count == 0 and sum(self.refused.values()) == 0

    def part_problem(self, text: str, kind: str = "wrong") -> None:
        self.part_problem_count += 1
        self.problem_kinds[kind] = self.problem_kinds.get(kind, 0) + 1
        if len(self.part_problems) < self.show:
            self.part_problems.append(text)

    def refuse(self, variant: str, deal: int, reason: str) -> None:
        self.refused[variant] = self.refused.get(variant, 0) + 1
        if len(self.refusals) < self.show:
            self.refusals.append(Refusal(variant, deal, reason))


# --- rebuilding the run from its manifest --------------------------------------------------------


def _bad(run_dir, problem: str) -> BadInput:
    return BadInput(f"{open_run(run_dir).where(MANIFEST)}: {problem}; allowed: a run.json written by `patience run`")


def _deal_source(run_dir: Path, game: GameSpec, src: Any) -> DealSource:
    """The run's deal source, rebuilt from the manifest (a deals file is read again and must be unchanged)."""
    if not isinstance(src, dict) or "kind" not in src:
        raise _bad(run_dir, "config.deal_source is missing")
    kind = src["kind"]
    try:
        count = int(src["deals"])
        if kind == "seeded":
            return DealSource(kind="seeded", count=count, seed=int(src["seed"]))
        if kind == "microsoft":
            numbers = np.asarray(parse_number_ranges(src["microsoft_deals"]), dtype=np.int64)
            return DealSource(kind="microsoft", count=len(numbers), ranges=src["microsoft_deals"], numbers=numbers)
        if kind == "file":
            path = Path(src["deals_file"])
            lines = read_deals_lines(
                path, game, ErrorLocation(f"deals file of the run ({open_run(run_dir).where(MANIFEST)})", {})
            )
            digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
            if digest != src.get("sha256"):
                raise BadInput(
                    f"deals file {path}: changed since the run (its sha256 differs from the manifest's); "
                    "allowed: the deals file the run played, unchanged"
                )
            return DealSource(kind="file", count=len(lines), path=str(path), sha256=digest, lines=tuple(lines))
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, BadInput):
            raise
        raise _bad(run_dir, f"config.deal_source {src!r} cannot be read ({type(exc).__name__}: {exc})") from None
    raise _bad(run_dir, f"config.deal_source.kind {kind!r} is not known")


def _study_of(run_dir: Path, manifest: dict[str, Any]) -> SimpleNamespace:
    """Enough of the run's Study to plan its units and make its deals again (pipeline.work_units, pipeline.worker)."""
    try:
        game = get_game(manifest["game"])
    except KeyError:
        raise _bad(run_dir, "it names no game") from None
    except RuleError as exc:
        raise _bad(run_dir, str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - a game module that does not import: say which, in one line
        raise BadInput(
            f"{open_run(run_dir).where(MANIFEST)}: game {manifest.get('game')!r} cannot be loaded "
            f"({type(exc).__name__}: {exc}); allowed: a run of a game this installation can play"
        ) from None
    config = manifest.get("config")
    if not isinstance(config, dict) or not isinstance(config.get("variants"), dict):
        raise _bad(run_dir, "config.variants is missing")
    variants = {}
    for name, body in config["variants"].items():
        try:
            rules = game.rules(None, body["rules"])
        except (KeyError, TypeError) as exc:
            raise _bad(run_dir, f"variant {name!r} has no resolved rules ({exc})") from None
        except RuleError as exc:
            raise _bad(run_dir, f"variant {name!r}: {exc}") from None
        variants[name] = SimpleNamespace(name=name, rules=rules)
    batch_size = config.get("batch_size")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise _bad(run_dir, f"config.batch_size {batch_size!r} is not a positive integer")
    source = _deal_source(run_dir, game, config.get("deal_source"))
    return SimpleNamespace(
        name=manifest.get("study", "?"), game=game, source=source, batch_size=batch_size, variants=variants
    )


# --- checking ------------------------------------------------------------------------------------


@dataclass
class PartRead:
    """One part as verify read it: its table (the wanted columns), footer metadata and the sha256 of its bytes."""

    table: Any
    kv: dict[bytes, bytes]
    sha256: str


def _read_part(
    run_dir, unit: WorkUnit, v: Verification, wanted: list[str], rules_json: dict[str, Any], ident: RunIdentity | None
) -> PartRead | None:
    """The unit's part (only ``wanted`` columns that exist), or None after recording what is wrong.

    Its bytes are read once: hashed, then decoded from memory, every column (a damaged page anywhere is found),
    one part at a time.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    store = open_run(run_dir)
    try:
        data = store.read_bytes(unit.relpath)
    except OSError as exc:
        v.part_problem(f"{unit.relpath}: damaged, cannot be read ({type(exc).__name__}: {first_line(exc)})", "damaged")
        return None
    if data is None:
        v.part_problem(f"{unit.relpath}: missing", "missing")
        return None
    try:
        with pq.ParquetFile(pa.BufferReader(data)) as pf:
            meta = pf.metadata
            kv = meta.metadata or {}
            key = kv.get(b"patience.unit", b"").decode("utf-8", "replace")
            table = pf.read()
            table.validate(full=True)  # e.g. a string that is not UTF-8 any more: damaged, not a crash later
    except Exception as exc:  # noqa: BLE001 - any unreadable file is a damaged part
        v.part_problem(f"{unit.relpath}: damaged, cannot be read ({type(exc).__name__}: {first_line(exc)})", "damaged")
        return None
    if meta.num_rows != unit.count:
        v.part_problem(f"{unit.relpath}: {meta.num_rows} rows, the unit has {unit.count}")
        return None
    if key != unit.key:
        v.part_problem(f"{unit.relpath}: its footer names unit {key or '(none)'!r}, not {unit.key!r}")
        return None
    recorded_variant = kv.get(b"patience.variant", b"").decode("utf-8", "replace")
    if recorded_variant != unit.variant:
        v.part_problem(
            f"{unit.relpath}: its footer names variant {recorded_variant or '(none)'!r}, not {unit.variant!r}"
        )
        return None
    try:
        rules = json.loads(kv.get(b"patience.rules", b"null"))
    except ValueError:
        rules = None
    expected = rules_json.get(unit.variant)
    if rules != expected:
        differ = (
            sorted(k for k in set(rules or {}) | set(expected or {}) if (rules or {}).get(k) != (expected or {}).get(k))
            if isinstance(rules, dict)
            else []
        )
        what = f"differ in {', '.join(differ)}" if differ else "are missing or unreadable"
        v.part_problem(
            f"{unit.relpath}: the rules in its footer {what} from the manifest's for variant {unit.variant!r}"
        )
        return None
    names = set(table.column_names)
    for col in ("deal", "outcome"):
        if col not in names:
            v.part_problem(f"{unit.relpath}: no {col!r} column")
            return None
    foreign = footer_problem(kv, ident, unit.variant) if ident is not None else None
    if foreign is not None:  # another game, deal source, engine or config than run.json's: not this run's part
        v.part_problem(f"{unit.relpath}: {foreign}", "foreign")
        return None
    digest = hashlib.sha256(data).hexdigest()
    return PartRead(table.select([c for c in wanted if c in names]), kv, digest)


def _summary_problem(kv: dict[bytes, bytes], table) -> str | None:
    """Where the summary the worker put in the footer (wins, outcome counts) is not what the rows count."""
    try:
        summary = json.loads(kv[SUMMARY_KEY.encode()])
        said = {k: int(n) for k, n in (summary.get("outcomes") or {}).items() if n}
        said_wins = int(summary["wins"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # parts from before summaries were kept in the footer
    counted = {d["values"]: int(d["counts"]) for d in table.column("outcome").value_counts().to_pylist()}
    wins = counted.get("won", 0)
    if said != counted or said_wins != wins:
        rows, footer = _counts_text(counted), _counts_text(said)
        return f"its rows count {wins} wins ({rows}), its footer's summary {said_wins} ({footer})"
    return None


def _counts_text(counts: dict[Any, int]) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(counts.items(), key=lambda kv: str(kv[0]))) or "no rows"


def verify_run(
    run_dir: Path, show: int = DEFAULT_SHOW, on_unit: Callable[[int, int], None] | None = None, full: bool = False
) -> Verification:
    """Check every part of a run against its plan and replay every stored solution; see the module docstring.

    ``on_unit(done, total)`` is called before each unit (for a progress bar); ``full`` replays every row of the
    fixed-strategy variants by the kernel (else a sample of each part).  BadInput when ``run_dir`` is not a run
    folder or its deals cannot be made again.
    """
    t0 = time.perf_counter()
    run_dir = open_run(run_dir)  # a local folder or an object-storage prefix
    if not run_dir.root_exists():
        raise BadInput(f"{run_dir}: no such folder; allowed: a results folder written by `patience run`")
    manifest = read_manifest(run_dir)
    if not isinstance(manifest, dict):
        raise _bad(run_dir, "it is not a JSON object")
    study = _study_of(run_dir, manifest)
    game: GameSpec = study.game
    replayable = game.check_solution is not None
    solver_variants = [n for n, var in study.variants.items() if replayable and uses_solver(var.rules)]
    v = Verification(
        run_dir=run_dir,
        game=game.name,
        status=str(manifest.get("status", "?")),
        replayable=replayable,
        solver_variants=solver_variants,
        show=show,
        full=full,
    )
    v.confirmed = dict.fromkeys(solver_variants, 0)
    v.refused = dict.fromkeys(solver_variants, 0)

    units = UnitPlan(study)  # computed from the config, never listed: flat memory at any number of units
    v.units = len(units)
    for problem in manifest_problems(manifest):  # an edited seed, batch size, rules...: run.json contradicts itself
        v.part_problem(problem, "manifest")
    totals = manifest.get("totals")
    if isinstance(totals, dict) and totals.get("units") not in (None, len(units)):
        v.part_problem(f"the manifest counts {totals.get('units')} units; its config plans {len(units)}")
    listed = manifest.get("units")  # manifests before the unit log listed every unit
    if isinstance(listed, list) and listed and len(listed) != len(units):
        v.part_problem(f"the manifest lists {len(listed)} units; its config plans {len(units)}")
    records = UnitRecords.load(run_dir, units)  # the hash, rows and deal range the run recorded for each part
    for problem in totals_problems(manifest, records):
        v.part_problem(problem, "manifest")
    hashes_required = v.hashes_required = bool(manifest.get("part_hashes"))  # none before hashes were recorded
    listing = run_parts(run_dir, manifest, check=False, warn_strays=False)  # the readers' own listing
    for rel in listing.strays:
        v.part_problem(f"{rel}: extra, a file no unit of the run names (reports ignore it)", "extra")
    rules_json = {name: body.get("rules") for name, body in manifest["config"]["variants"].items()}
    ident = RunIdentity.of_manifest(manifest)

    wanted = ["deal", "outcome", "won", "rounds", "moves", "cards_left", "solution", "rounds_optimal", "rounds_lower"]
    decks_at: tuple[int, np.ndarray, np.ndarray] | None = None  # the last chunk's deals (its variants share them)
    lines: dict[str, tuple[Any, Any]] = {}  # the chunk's solver variants: (rules, part), for check 3
    for done, unit in enumerate(units):
        if decks_at is not None and decks_at[0] != unit.position:
            _check_fewest(v, game, lines, decks_at[1])
            lines = {}
        if on_unit is not None:
            on_unit(done, len(units))
        part = _read_part(run_dir, unit, v, wanted, rules_json, ident)
        if part is None:
            continue
        table = part.table
        deal = table.column("deal").to_numpy()
        task = make_task(study, unit, str(run_dir), {})
        if decks_at is None or decks_at[0] != unit.position:
            decks, indices = make_decks(game, task)
            decks_at = (unit.position, decks, indices)
        _, decks, indices = decks_at
        if not np.array_equal(deal, indices):
            v.part_problem(
                f"{unit.relpath}: its deal column is not the unit's deals {unit.first}..{unit.last} in order"
            )
            continue
        v.units_ok += 1
        _check_content(v, unit, part, records, units, hashes_required)
        if not _check_rows(v, unit, table, game, deal, solver=unit.variant in v.confirmed):
            continue
        if unit.variant not in v.confirmed:  # no solutions: a fixed strategy, or a game with no solutions
            won = table.column("outcome").to_numpy(zero_copy_only=False) == "won"
            v.fixed_wins[unit.variant] = v.fixed_wins.get(unit.variant, 0) + int(won.sum())
            rows = sample_rows(unit.count, unit.key, full)
            v.replayed_rows += int(rows.size)
            for i, why in replay_problems(game, study.variants[unit.variant].rules, decks, table, rows):
                v.replay_differ += 1
                v.refuse(unit.variant, int(deal[i]), why)
            continue
        _replay_solutions(v, unit, table, game, study.variants[unit.variant].rules, decks, deal)
        lines[unit.variant] = (study.variants[unit.variant].rules, table)
    if decks_at is not None:
        _check_fewest(v, game, lines, decks_at[1])
    v.seconds = time.perf_counter() - t0
    return v


def _check_fewest(v: Verification, game: GameSpec, lines: dict[str, tuple[Any, Any]], decks: np.ndarray) -> None:
    """Check 3 of the module docstring, over one chunk's solver variants: a row claiming ``rounds_optimal``
    against every other variant's shorter line for the same deal that its own rules also accept."""
    claimed = {n: rt for n, rt in lines.items() if "rounds_optimal" in rt[1].column_names}
    if not claimed or len(lines) < 2:
        return
    cols = {
        n: (
            table.column("deal").to_numpy(),
            table.column("outcome").to_numpy(zero_copy_only=False) == "won",
            table.column("rounds").to_numpy(),
            table.column("solution").to_pylist(),
        )
        for n, (_, table) in lines.items()
    }
    for name, (rules, table) in claimed.items():
        deal, won, rounds, _ = cols[name]
        optimal = np.asarray(table.column("rounds_optimal").fill_null(False).to_numpy(zero_copy_only=False), bool)
        for other, (_, owon, orounds, osolution) in cols.items():
            if other == name:
                continue
            for i in np.flatnonzero(won & optimal & owon & (orounds < rounds)):
                if game.check_solution(decks[i], rules, osolution[i] or "") is None:
                    v.refuse(
                        name,
                        int(deal[i]),
                        f"rounds_optimal claims {int(rounds[i])} passes are the fewest, but variant {other}'s "
                        f"line of {int(orounds[i])} passes also wins under its rules",
                    )


def _check_content(v: Verification, unit: WorkUnit, part: PartRead, records: UnitRecords, plan, required: bool) -> None:
    """The part's bytes against the hash its unit's log line records, and its footer's summary against its rows:
    one problem per part at most (the summary's words first: they say what changed)."""
    loc = plan.locate(unit.variant, unit.first, unit.last)
    stamp = stamp_problem(records, loc, part.sha256, required) if loc is not None else None
    summary = _summary_problem(part.kv, part.table)
    if stamp is None and summary is None:
        v.hashes_checked += bool(loc is not None and records.hashed[loc])
        return
    kind, why = stamp if stamp is not None else ("altered", "")
    if summary is not None:
        why = f"{summary}; {why}" if why else summary
    v.part_problem(f"{unit.relpath}: {why}", kind)


def _check_rows(v: Verification, unit: WorkUnit, table, game: GameSpec, deal: np.ndarray, solver: bool) -> bool:
    """Each row's consistency (pipeline.row_checks); False when the part lacks a common column."""
    missing = missing_columns(table.column_names)
    if missing:
        v.part_problem(f"{unit.relpath}: no {', '.join(repr(c) for c in missing)} column")
        return False
    v.rows_checked += table.num_rows
    for i, why in row_problems(table, game.outcomes, game.ncards, check_solutions=not solver):
        v.refuse(unit.variant, int(deal[i]), why)
    return True


def _replay_solutions(v: Verification, unit: WorkUnit, table, game: GameSpec, rules, decks, deal) -> None:
    """Every stored solution of a solver variant's part replayed by the reference (``check_solution``)."""
    outcome = table.column("outcome").to_pylist()
    won = [o == "won" for o in outcome]
    if "solution" not in table.column_names:
        v.part_problem(f"{unit.relpath}: no 'solution' column ({sum(won)} wins cannot be replayed)")
        for i in np.flatnonzero(won):
            v.refuse(unit.variant, int(deal[i]), "won, but the part has no solution column")
        return
    solution = table.column("solution").to_pylist()
    for i in range(unit.count):
        text = solution[i] or ""
        if not won[i]:
            if text:
                v.refuse(unit.variant, int(deal[i]), f"a solution is stored for a deal that is not won ({outcome[i]})")
            continue
        if not text.strip():
            v.refuse(unit.variant, int(deal[i]), "won, but no solution is stored")
            continue
        try:
            why = game.check_solution(decks[i], rules, text)
        except Exception as exc:  # noqa: BLE001 - a checker must answer with a reason; say what it raised
            why = f"the checker raised {type(exc).__name__}: {exc}"
        if why is None:
            v.confirmed[unit.variant] += 1
        else:
            v.refuse(unit.variant, int(deal[i]), why)


def render(v: Verification) -> str:
    """The verification as text: what was checked, what was confirmed, every problem (up to ``show``)."""
    lines = [f"{v.run_dir}: {v.game}, run {v.status}; {v.units} work units, {v.units_ok} parts complete and in order"]
    if v.part_problem_count:
        kinds = ", ".join(f"{n:,} {k}" for k, n in sorted(v.problem_kinds.items()))
        lines.append(f"part problems: {v.part_problem_count} ({kinds})")
        lines += [f"  {p}" for p in v.part_problems]
        if v.part_problem_count > len(v.part_problems):
            lines.append(f"  ... and {v.part_problem_count - len(v.part_problems)} more")
    hashes = (
        f"{v.hashes_checked:,} parts whose sha256 is the one the unit log records"
        if v.hashes_checked or v.hashes_required
        else "no hashes recorded (a run from before they were)"
    )
    lines.append(f"content: {hashes}; {v.rows_checked:,} rows checked for consistency")
    if not v.replayable:
        lines.append(f"{v.game} stores no solutions: nothing to replay")
    elif not v.solver_variants:
        lines.append("no variant uses the solver (strategy: solver): nothing to replay")
    if v.fixed_wins and v.replayable:
        lines.append(
            "fixed-strategy variants (no solutions, not replayed): "
            + ", ".join(f"{n} {w:,} wins" for n, w in v.fixed_wins.items())
        )
    if v.fixed_wins:
        how = "every row (--full)" if v.full else "a sample of each part; --full replays every row"
        lines.append(
            f"fixed-strategy rows played again by the kernel: {v.replayed_rows:,} ({how}), {v.replay_differ:,} differ"
        )
    for name in v.solver_variants:
        refused = v.refused.get(name, 0)
        lines.append(f"  {name}: {v.confirmed[name]:,} wins confirmed" + (f", {refused:,} refused" if refused else ""))
    total_refused = sum(v.refused.values())
    if v.solver_variants:
        solver_refused = sum(v.refused.get(n, 0) for n in v.solver_variants)
        lines.append(
            f"solutions replayed by the reference: {sum(v.confirmed.values()):,} wins confirmed, "
            f"{solver_refused:,} refused, in {v.seconds:.1f} s"
        )
    for r in v.refusals:
        lines.append(f"  refused: variant {r.variant}, deal {r.deal}: {r.reason}")
    if total_refused > len(v.refusals):
        lines.append(f"  ... and {total_refused - len(v.refusals):,} more refused")
    lines.append("verified: all well" if v.ok else "verification FAILED")
    return "\n".join(lines) + "\n"
