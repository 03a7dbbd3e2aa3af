"""Reports and queries over a run folder, with polars.

* :func:`scan_deals` is the one way the pipeline reads results: a lazy scan of
  ``variant=*/*.parquet`` with hive partitioning (``variant`` always a string),
  so files being written (``_tmp/*.tmp``) are never seen.
* :func:`build_report` computes one row per variant (raw numbers in a polars
  DataFrame); renderers in :data:`RENDERERS` turn a :class:`Report` into text.
  A new output format (e.g. html) is one more renderer; a paired comparison of
  variants (``patience compare``) can start from :func:`scan_deals` the same way.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from engine.outcomes import OUTCOMES
from engine.registry import game_names, get_game
from pipeline.errors import BadInput
from pipeline.intervals import Z95, wilson
from pipeline.precision import row_decimals
from pipeline.run_files import read_manifest
from pipeline.run_store import open_run


def scan_deals(run_dir) -> pl.LazyFrame:
    """The per-deal table of a run (``deal``, ``variant``, ``outcome``, ``won``, ...), lazily.

    Only the parts the run completed are read (:func:`pipeline.run_files.run_parts`: a stray file is ignored
    with a warning, a damaged part ends the command naming it).  ``run_dir``: a path or a storage URI.
    """
    from pipeline.run_files import run_parts

    manifest = read_manifest(run_dir)
    listing = run_parts(run_dir, manifest)
    if not listing.parts:  # nothing finished yet: an empty table of the right shape
        columns = manifest.get("columns") or {
            "deal": "int64",
            "outcome": "string",
            "won": "bool",
            "rounds": "int32",
            "moves": "int32",
            "cards_left": "int16",
        }
        schema = {k: pl.String if v == "string" else pl.Series(np.empty(0, dtype=v)).dtype for k, v in columns.items()}
        return pl.DataFrame(schema={**schema, "variant": pl.String}).lazy()
    store = listing.store
    if not store.local:  # object storage: pyarrow reads it, with the store's own file system and credentials
        import pyarrow as pa
        import pyarrow.dataset as ds

        hive = ds.partitioning(pa.schema([("variant", pa.string())]), flavor="hive")
        dataset = ds.dataset(
            listing.read_paths(),
            filesystem=store.filesystem,
            format="parquet",
            partitioning=hive,
            partition_base_dir=store.read_path(""),
        )
        return pl.scan_pyarrow_dataset(dataset)
    return pl.scan_parquet(
        listing.read_paths(),
        hive_partitioning=True,
        hive_schema={"variant": pl.String},  # a variant named "1" or "true" stays text
        try_parse_hive_dates=False,
    )


CONTEXT_ONLY = "context only (rules unstated)"


def verdict_text(word: str | None, z: float | None) -> str:
    """The verdict as shown: empty without a reference, with its z where one was computed."""
    if word is None:
        return ""
    return word if z is None else f"{word} (z={z:+.2f})"


def verdict(wins: int, n: int, ref_rate: float, ref_ci95: float | None) -> tuple[float, str]:
    """Is our win rate consistent with a published one?  |difference| <= 1.96 x combined standard error.

    Our sampling error is taken at the published rate, sqrt(p0 (1 - p0) / n): the
    score test that Wilson's interval inverts, which stays honest when we see 0% or
    100% (10,000 wins in 10,000 deals is consistent with 99.985%).  The published
    figure's own error is its 95% half-width / 1.96 when given, else 0 (treated as exact).
    """
    if n == 0:
        return (math.nan, "no data")
    p = wins / n
    var = ref_rate * (1 - ref_rate) / n + ((ref_ci95 / Z95) ** 2 if ref_ci95 else 0.0)
    if var == 0.0:  # a published 0% or 100% taken as exact: only the same figure agrees
        z = 0.0 if p == ref_rate else math.copysign(math.inf, p - ref_rate)
    else:
        z = (p - ref_rate) / math.sqrt(var)
    return (z, "consistent" if abs(z) <= Z95 else "not consistent")


def verdict_as_bounds(wins: int, unknown: int, n: int, ref_rate: float, ref_ci95: float | None) -> tuple[float, str]:
    """:func:`verdict` when ``unknown`` of the n deals are undecided (a solver's budget ran out): our share lies
    between wins / n (every unknown lost) and (wins + unknown) / n (every one won), so the published figure is
    consistent, as bounds, when it is consistent with some share in that range.  The z given is the one of the
    range nearest zero: 0 when the published figure falls between the two ends."""
    if unknown == 0:
        return verdict(wins, n, ref_rate, ref_ci95)
    z_low, _ = verdict(wins, n, ref_rate, ref_ci95)
    z_high, _ = verdict(wins + unknown, n, ref_rate, ref_ci95)
    if z_low > Z95:
        return (z_low, "not consistent")
    if z_high < -Z95:
        return (z_high, "not consistent")
    return (0.0 if z_low <= 0.0 <= z_high else min(z_low, z_high, key=abs), "consistent as bounds")


@dataclass
class Report:
    study: str
    game: str
    run_dir: str
    status: str
    units_done: int
    units_total: int
    outcomes: list[str]
    rows: pl.DataFrame  # one row per variant; raw numbers (see build_report)
    sources: dict[str, str] = field(default_factory=dict)
    histogram: pl.DataFrame | None = None  # deals per (variant, outcome, won, rounds): see rounds_histogram


def _quantile(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """The q-quantile of a histogram (sorted ``values`` with ``counts``), linear as numpy's default."""
    n = int(counts.sum())
    if n == 0:
        return math.nan
    cum = np.cumsum(counts)
    pos = q * (n - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    v_lo = float(values[np.searchsorted(cum, lo, side="right")])
    v_hi = float(values[np.searchsorted(cum, hi, side="right")])
    return v_lo + (pos - lo) * (v_hi - v_lo)


def rounds_histogram(lf: pl.LazyFrame) -> pl.DataFrame:
    """Deals per (variant, outcome, won, rounds), sorted.

    Every report figure (counts, means, exact medians and percentiles) follows
    from this small table; building it is one streaming pass over the rows, so
    memory does not grow with the number of deals.  ``won`` rides along (it is
    ``outcome == "won"`` in any run) so the HTML report's box plots of rounds,
    split by won, need no second pass.
    """
    return (
        lf.select("variant", "outcome", "won", "rounds")
        .group_by("variant", "outcome", "won", "rounds")
        .agg(pl.len().cast(pl.Int64).alias("n"))
        .collect(engine="streaming")
        .sort("variant", "outcome", "rounds", "won")
    )


def _variant_figures(hist: pl.DataFrame, outcomes: list[str]) -> dict[str, Any]:
    n = hist["n"].to_numpy()
    rounds = hist["rounds"].to_numpy().astype(np.float64)
    outcome = hist["outcome"].to_numpy()
    deals = int(n.sum())
    won = outcome == "won"
    wins = int(n[won].sum())
    out: dict[str, Any] = {"deals": deals, "wins": wins}
    for o in outcomes:
        out[f"n_{o}"] = int(n[outcome == o].sum())
    out["rounds_mean"] = float((rounds * n).sum() / deals) if deals else math.nan
    wr, wn = rounds[won], n[won]  # sorted by rounds within the "won" outcome
    out["rounds_won_mean"] = float((wr * wn).sum() / wins) if wins else math.nan
    out["rounds_won_median"] = _quantile(wr, wn, 0.5)
    out["rounds_won_p90"] = _quantile(wr, wn, 0.9)
    return out


def build_report(run_dir: str | Path) -> Report:
    """One row per variant: deals, wins, win rate + Wilson 95%, outcome counts, rounds of won deals, reference."""
    run_dir = open_run(run_dir)  # a local folder or an object-storage prefix
    run_dir.check_exists("RUN_DIR")
    manifest = read_manifest(run_dir)
    game = manifest.get("game", "")
    outcomes = list(manifest.get("outcomes") or _game_outcomes(game))
    variants = list(manifest.get("config", {}).get("variants", {}))
    reference = manifest.get("config", {}).get("reference", {}) or {}

    hist = rounds_histogram(scan_deals(run_dir))
    # Outcomes the game declares, plus any other that actually occurred.
    outcomes += [o for o in OUTCOMES if o not in outcomes and o in set(hist["outcome"].unique().to_list())]
    by_variant = hist.partition_by("variant", as_dict=True, maintain_order=True)
    names = [v for v in variants if (v,) in by_variant] + sorted(k[0] for k in by_variant if k[0] not in variants)

    rows, sources = _rows(
        names, [_variant_figures(by_variant[(name,)], outcomes) for name in names], outcomes, reference
    )
    units, totals = manifest.get("units", []), manifest.get("totals") or {}  # totals: the manifest since issue 12
    return Report(
        study=manifest.get("study", run_dir.name),
        game=game,
        run_dir=str(run_dir),
        status=manifest.get("status", "unknown"),
        units_done=totals.get("units_done", sum(1 for u in units if u.get("state") == "done")),
        units_total=totals.get("units", len(units)),
        outcomes=outcomes,
        rows=rows,
        sources=sources,
        histogram=hist,
    )


def report_from_totals(run_dir: str | Path) -> Report | None:
    """A finished run's report from run.json's totals alone, reading no part: deals, wins, win rates with
    their intervals, outcome counts and verdicts, the very numbers :func:`build_report` gives; the rounds
    columns, which need the rows, are left empty (NaN, so no renderer shows them).

    None unless run.json records the run complete with totals for every variant it declares.  What a rerun
    with nothing to do prints (issue 12): reading 10^5 part files costs far more than the rerun itself.
    """
    run_dir = open_run(run_dir)
    try:
        manifest = read_manifest(run_dir)
        totals = manifest["totals"]
        variants = list(manifest["config"]["variants"])
        per = totals["variants"]
        if (
            manifest.get("status") != "complete"
            or totals["units_done"] != totals["units"]
            or any(v not in per for v in variants)
        ):
            return None
        figures = []
        for name in variants:
            counts = {str(k): int(n) for k, n in (per[name].get("outcomes") or {}).items()}
            deals, wins = int(per[name]["deals"]), int(per[name]["wins"])
            if sum(counts.values()) != deals or counts.get("won", 0) != wins:
                return None  # totals from before outcome counts were kept: read the parts instead
            figures.append((deals, wins, counts))
    except (BadInput, KeyError, TypeError, ValueError, AttributeError):
        return None
    outcomes = list(manifest.get("outcomes") or _game_outcomes(manifest.get("game", "")))
    seen = {o for _, _, counts in figures for o, n in counts.items() if n}
    outcomes += [o for o in OUTCOMES if o not in outcomes and o in seen]
    if seen - set(outcomes):
        return None
    nan = math.nan
    figs = [
        {
            "deals": deals,
            "wins": wins,
            **{f"n_{o}": counts.get(o, 0) for o in outcomes},
            "rounds_mean": nan,
            "rounds_won_mean": nan,
            "rounds_won_median": nan,
            "rounds_won_p90": nan,
        }
        for deals, wins, counts in figures
    ]
    names = [
        name for name, (deals, _, _) in zip(variants, figures, strict=True) if deals
    ]  # as build_report: played variants
    figs = [f for f in figs if f["deals"]]
    rows, sources = _rows(names, figs, outcomes, manifest.get("config", {}).get("reference", {}) or {})
    return Report(
        study=manifest.get("study", run_dir.name),
        game=manifest.get("game", ""),
        run_dir=str(run_dir),
        status="complete",
        units_done=int(totals["units_done"]),
        units_total=int(totals["units"]),
        outcomes=outcomes,
        rows=rows,
        sources=sources,
        histogram=None,
    )


def _rows(
    names: list[str], figures: list[dict[str, Any]], outcomes: list[str], reference: dict[str, Any]
) -> tuple[pl.DataFrame, dict[str, str]]:
    """The report's rows (one per variant, raw numbers) and the published figures' sources."""
    records = []
    sources = {}
    for name, fig in zip(names, figures, strict=True):
        deals, wins = fig["deals"], fig["wins"]
        lo, hi = wilson(wins, deals)
        ref = reference.get(name, {})
        if "win_rate" not in ref:
            z, word = None, None
        elif ref.get("context"):  # rules never stated: a figure to set beside ours, not a test
            z, word = None, CONTEXT_ONLY
        else:
            z, word = verdict_as_bounds(wins, fig.get("n_unknown", 0), deals, ref["win_rate"], ref.get("ci95"))
        records.append(
            {
                "variant": name,
                "deals": deals,
                "wins": wins,
                "win_rate": wins / deals if deals else math.nan,
                "ci95_low": lo,
                "ci95_high": hi,
                **{f"n_{o}": fig[f"n_{o}"] for o in outcomes},
                **{k: fig[k] for k in ("rounds_mean", "rounds_won_mean", "rounds_won_median", "rounds_won_p90")},
                **{f"ref_{k}": ref.get(k) for k in ("win_rate", "ci95", "mean_rounds_won", "mean_rounds")},
                "z": z,
                "verdict": word,
            }
        )
        if ref.get("source"):
            sources[name] = ref["source"]
    schema = {
        "variant": pl.String,
        "deals": pl.Int64,
        "wins": pl.Int64,
        "win_rate": pl.Float64,
        "ci95_low": pl.Float64,
        "ci95_high": pl.Float64,
        **{f"n_{o}": pl.Int64 for o in outcomes},
        **{
            k: pl.Float64
            for k in (
                "rounds_mean",
                "rounds_won_mean",
                "rounds_won_median",
                "rounds_won_p90",
                "ref_win_rate",
                "ref_ci95",
                "ref_mean_rounds_won",
                "ref_mean_rounds",
                "z",
            )
        },
        "verdict": pl.String,
    }
    rows = pl.DataFrame(records, schema=schema) if records else pl.DataFrame(schema=schema)
    return rows, sources


def _game_outcomes(game: str) -> tuple[str, ...]:
    """For manifests that do not list outcomes: ask the registry (imports the game module)."""
    return get_game(game).outcomes if game in game_names() else OUTCOMES


# --- renderers ---------------------------------------------------------------------


def _pct(x: float | None, digits: int = 2) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{digits}f}%"


def _num(x: float | None, digits: int = 1) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:,.{digits}f}"


def shows_rounds(report: Report) -> bool:
    """Whether the rounds columns mean anything: a game with no stock passes (a solver) has rounds 0 throughout."""
    return bool((report.rows["rounds_mean"].fill_nan(0).fill_null(0) > 0).any())


def _display_rows(report: Report) -> tuple[list[str], list[list[str]]]:
    """Human columns shared by the table and markdown renderers."""
    has_ref = report.rows["ref_win_rate"].is_not_null().any()
    rounds = shows_rounds(report)
    header = ["variant", "deals", "win rate", "95% CI", *report.outcomes]
    header += ["rounds (won) mean", "median", "p90"] if rounds else []
    if has_ref:
        header += ["published", "verdict"]
    out = []
    for r in report.rows.iter_rows(named=True):
        d = row_decimals(r)  # as many decimals as the narrower of our interval and the published one needs
        line = [
            r["variant"],
            f"{r['deals']:,}",
            _pct(r["win_rate"], d),
            f"{_pct(r['ci95_low'], d)}..{_pct(r['ci95_high'], d)}",
            *[f"{r[f'n_{o}']:,}" for o in report.outcomes],
        ]
        if rounds:
            line += [_num(r["rounds_won_mean"]), _num(r["rounds_won_median"]), _num(r["rounds_won_p90"])]
        if has_ref:
            pub = ""
            if r["ref_win_rate"] is not None:
                pub = _pct(r["ref_win_rate"], d) + (f" ± {_pct(r['ref_ci95'], d)}" if r["ref_ci95"] is not None else "")
            if r["ref_mean_rounds_won"] is not None:
                pub += f"; {r['ref_mean_rounds_won']:g} rounds (won)"
            if r["ref_mean_rounds"] is not None:
                pub += f"; {r['ref_mean_rounds']:g} rounds (all, ours {_num(r['rounds_mean'])})"
            word = verdict_text(r["verdict"], r["z"])
            line += [pub, word]
        out.append(line)
    return header, out


def _title(report: Report) -> str:
    done = "" if report.status == "complete" else f", {report.status}: {report.units_done}/{report.units_total} units"
    return f"{report.study} ({report.game}{done})"


def _notes(report: Report) -> list[str]:
    notes = [f"{name}: published by {src}" for name, src in report.sources.items()]
    if report.sources:
        notes.append(
            "verdict: consistent when |ours - published| <= 1.96 x combined standard error "
            "(ours binomial at the published rate; published error from its ci95, 0 when not given); "
            "consistent as bounds when some share between every unknown lost and every unknown won is"
        )
    return notes


def render_table(report: Report) -> str:
    from rich.console import Console
    from rich.table import Table

    header, rows = _display_rows(report)
    table = Table(title=_title(report), title_justify="left")
    for i, h in enumerate(header):
        table.add_column(h, justify="left" if i == 0 or h in ("published", "verdict") else "right")
    for line in rows:
        table.add_row(*line)
    buf = io.StringIO()
    console = Console(file=buf, width=max(100, 12 * len(header) + 40), force_terminal=False, color_system=None)
    console.print(table)
    for note in _notes(report):
        console.print(note)
    return buf.getvalue()


def render_markdown(report: Report) -> str:
    header, rows = _display_rows(report)
    lines = [
        f"### {_title(report)}",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in line) + " |" for line in rows]
    notes = _notes(report)
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def render_csv(report: Report) -> str:
    return report.rows.write_csv()


def render_json(report: Report) -> str:
    doc = {
        "study": report.study,
        "game": report.game,
        "run_dir": report.run_dir,
        "status": report.status,
        "units_done": report.units_done,
        "units_total": report.units_total,
        "outcomes": report.outcomes,
        "sources": report.sources,
        "variants": [
            {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
            for r in report.rows.iter_rows(named=True)
        ],
    }
    return json.dumps(doc, indent=1) + "\n"


RENDERERS: dict[str, Callable[[Report], str]] = {
    "table": render_table,
    "markdown": render_markdown,
    "csv": render_csv,
    "json": render_json,
}


# --- SQL ------------------------------------------------------------------------------


# A query's result is bounded in rows, not in bytes: polars has no memory limit a process can set and survive
# (POLARS_OOMKILL_THRESHOLD_MB aborts it), but a row limit is pushed down into the plan (``head``), so polars
# stops after that many rows, and a join that multiplies rows ends in a second instead of exhausting memory.
QUERY_MAX_ROWS = 1_000_000  # held in memory and printed as text (about 100 MB of CSV)
QUERY_MAX_PARQUET_ROWS = 5_000_000  # streamed to the file, never held whole (about 3 s for 27 columns)


def run_query(run_dir: str | Path, sql: str, max_rows: int = QUERY_MAX_ROWS) -> pl.DataFrame:
    """Polars SQL over the per-deal table, registered as ``deals``: at most ``max_rows`` rows.

    BadInput for bad SQL or a larger result.  A failure while reading is put on a damaged part when one is
    found (exit 1), not on the SQL.
    """

    def collect(lf: pl.LazyFrame) -> pl.DataFrame:
        df = lf.head(max_rows + 1).collect()
        if df.height > max_rows:
            _too_many_rows(sql, max_rows, f"--format parquet --output FILE takes up to {QUERY_MAX_PARQUET_ROWS:,}; ")
        return df

    return _run_sql(run_dir, sql, collect)


def write_query_parquet(run_dir: str | Path, sql: str, output: Path, max_rows: int = QUERY_MAX_PARQUET_ROWS) -> int:
    """Write the result of ``sql`` to ``output`` as Parquet, streamed; its row count.  BadInput (and no file)
    when it would hold more than ``max_rows`` rows: written to a temporary name beside ``output``, then renamed."""
    import os
    import uuid

    import pyarrow.parquet as pq

    tmp = output.with_name(f".{output.name}.{uuid.uuid4().hex[:8]}.tmp")

    def sink(lf: pl.LazyFrame) -> int:
        lf.head(max_rows + 1).sink_parquet(tmp)
        rows = pq.read_metadata(tmp).num_rows
        if rows > max_rows:
            _too_many_rows(sql, max_rows)
        os.replace(tmp, output)
        return rows

    try:
        return _run_sql(run_dir, sql, sink)
    finally:
        tmp.unlink(missing_ok=True)


def _too_many_rows(sql: str, max_rows: int, hint: str = "") -> None:
    raise BadInput(
        f"SQL {sql!r}: the result has more than {max_rows:,} rows; allowed: at most {max_rows:,} rows "
        f"(aggregate, filter or LIMIT; {hint}larger tables: read the parts with polars or DuckDB)"
    )


def _run_sql(run_dir: str | Path, sql: str, finish: Callable[[pl.LazyFrame], Any]) -> Any:
    """``finish`` (collect or sink) of ``sql`` over the run's table ``deals``, its errors as one line."""
    from pipeline.run_files import find_damaged

    run_dir = open_run(run_dir)
    run_dir.check_exists("RUN_DIR")
    read_manifest(run_dir)
    ctx = pl.SQLContext(deals=scan_deals(run_dir))
    try:
        return finish(ctx.execute(sql))
    except (pl.exceptions.PolarsError, OSError, ValueError, TypeError) as exc:
        if isinstance(exc, BadInput):
            raise
        damaged = find_damaged(run_dir) if not isinstance(exc, pl.exceptions.SQLSyntaxError) else None
        if damaged is not None:
            raise damaged from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BadInput(f"SQL {sql!r}: {first}; allowed: polars SQL over the table `deals`") from None
