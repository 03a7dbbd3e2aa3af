"""compare and the HTML report in flat memory (issue 14): the streaming paths give the numbers the
whole-column paths gave.

The reference implementations below are the code these paths replaced (whole columns loaded,
``np.intersect1d`` on the deal indices, ``np.quantile`` on the values), kept here as oracles.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from urllib.parse import quote

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline import parts as parts_module
from pipeline.distributions import QUANTILES, accuracy_note, column_distributions
from pipeline.paired import LOST, UNKNOWN, WON, compare_counts, compare_run, compare_runs, pair_counts
from pipeline.report import build_report, scan_deals

# --- the replaced whole-column implementations, as oracles -------------------------------------------


def old_states(run_dir: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    lf = scan_deals(run_dir)
    names = lf.select("variant").unique(maintain_order=True).collect()["variant"].to_list()
    out = {}
    for name in names:
        part = (
            lf.filter(pl.col("variant") == name)
            .select(
                "deal",
                pl.when(pl.col("outcome") == "won")
                .then(WON)
                .when(pl.col("outcome") == "unknown")
                .then(UNKNOWN)
                .otherwise(LOST)
                .cast(pl.Int8)
                .alias("state"),
            )
            .sort("deal")
            .collect()
        )
        out[name] = (part["deal"].to_numpy(), part["state"].to_numpy())
    return out


def old_pair(a, b) -> np.ndarray:
    _, ia, ib = np.intersect1d(a[0], b[0], assume_unique=True, return_indices=True)
    return pair_counts(a[1][ia], b[1][ib])


def old_box_stats(lf: pl.LazyFrame, column: str, variants: list[str]) -> dict:
    out = {}
    for v in variants:
        part = lf.filter(pl.col("variant") == v).select("won", column).collect()
        won = part["won"].to_numpy()
        values = part[column].cast(pl.Float64).to_numpy()
        for flag in (True, False):
            x = values[won == flag]
            if x.size == 0:
                continue
            q = np.quantile(x, list(QUANTILES))
            out[(v, flag)] = {
                "n": int(x.size),
                "p05": q[0],
                "q1": q[1],
                "med": q[2],
                "q3": q[3],
                "p95": q[4],
                "mean": float(x.mean()),
                "max": float(x.max()),
            }
    return out


# --- run folders written directly ---------------------------------------------------------------------


def write_run(
    path: Path,
    variants: dict[str, dict[str, np.ndarray]],
    cuts: dict[str, list[int]],
    deal_source: dict | None = None,
    study: str = "stream",
) -> Path:
    """A run folder: each variant's rows (a dict of columns, ``deal`` first) split into parts at ``cuts``
    (positions in its rows), rows inside a part in the given order."""
    path.mkdir(parents=True)
    src = deal_source or {"kind": "seeded", "seed": 3, "deals": 1000}
    manifest = {
        "patience_manifest": 1,
        "study": study,
        "game": "penguin",
        "deal_source": src,
        "seed": src.get("seed"),
        "status": "complete",
        "units": [],
        "config": {"variants": {v: {"rules": {}} for v in variants}, "reference": {}},
    }
    (path / "run.json").write_text(json.dumps(manifest))
    for name, cols in variants.items():
        folder = path / ("variant=" + quote(name, safe=""))  # hive's encoding (DESIGN section 6)
        folder.mkdir()
        n = len(cols["deal"])
        bounds = [0, *cuts.get(name, []), n]
        for a, b in itertools.pairwise(bounds):
            if a == b:
                continue
            table = pa.table(
                {
                    k: (pa.array(v[a:b].tolist(), pa.string()) if k in ("outcome", "solution") else pa.array(v[a:b]))
                    for k, v in cols.items()
                }
            )
            d = cols["deal"][a:b]
            pq.write_table(table, folder / f"part-{d.min()}-{d.max()}-{a}.parquet")
    return path


def random_variant(rng, deals: np.ndarray, p_won: float, p_unknown: float) -> dict[str, np.ndarray]:
    u = rng.uniform(size=deals.size)
    outcome = np.where(
        u < p_won, "won", np.where(u < p_won + p_unknown, "unknown", np.where(u < 0.9, "cycle", "unsolvable"))
    )
    won = outcome == "won"
    return {
        "deal": deals.astype(np.int64),
        "outcome": outcome,
        "won": won,
        "rounds": rng.integers(1, 60, deals.size).astype(np.int32),
        "nodes": np.where(won, rng.integers(1, 3000, deals.size), 2_000_000).astype(np.int64),
        "wide": (rng.pareto(1.2, deals.size) * 1e4).astype(np.int64),  # spans far more than EXACT_SPAN
        "seconds": rng.lognormal(-4, 1.5, deals.size),
        "narrow": 1 + rng.uniform(0, 0.004, deals.size),  # a few log bins, hundreds of values in each
        "solution": np.where(won, "1a 2b 3c" * 20, ""),
    }


@pytest.fixture(scope="module")
def run_with_unknowns(tmp_path_factory) -> Path:
    """Three variants on 4,000 deals: unknown outcomes, parts that do not line up between variants,
    rows shuffled inside parts, and deals only some variants played."""
    rng = np.random.default_rng(14)
    all_deals = np.arange(4000)
    variants = {
        "base": random_variant(rng, all_deals, 0.5, 0.05),
        "other,x=1": random_variant(rng, all_deals[::-1].copy(), 0.3, 0.1),  # stored in reverse order
        "gappy": random_variant(rng, np.setdiff1d(all_deals, np.arange(100, 700)), 0.6, 0.0),
    }
    cuts = {"base": [1000, 2000, 3000], "other,x=1": [500, 1700, 2900, 3999], "gappy": [123, 2222]}
    return write_run(tmp_path_factory.mktemp("stream") / "run", variants, cuts)


# --- compare -----------------------------------------------------------------------------------------


def test_compare_run_counts_equal_the_whole_column_path(run_with_unknowns):
    old = old_states(run_with_unknowns)
    for baseline in ("base", "other,x=1", "gappy"):
        cs = compare_run(run_with_unknowns, baseline=baseline)
        for c in cs.comparisons:
            counts = old_pair(old[baseline], old[c.variant])
            expected = compare_counts(baseline, c.variant, counts)
            got = {k: v for k, v in vars(c).items() if k not in ("log10_p_holm", "verdict")}
            assert got == {k: v for k, v in vars(expected).items() if k not in ("log10_p_holm", "verdict")}
    c = compare_run(run_with_unknowns, baseline="base", variants=["other,x=1"]).comparisons[0]
    assert c.unknown_baseline > 0 and c.unknown_variant > 0 and c.deals == 4000  # the cases under test occur
    assert compare_run(run_with_unknowns, baseline="base", variants=["gappy"]).comparisons[0].deals == 3400


def test_each_part_is_read_once_however_many_variants(run_with_unknowns, monkeypatch):
    reads: list[Path] = []
    real = parts_module._states_of_part

    def counting(path, *args, **kwargs):
        reads.append(Path(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(parts_module, "_states_of_part", counting)
    compare_run(run_with_unknowns, baseline="base")
    files = sorted(run_with_unknowns.glob("variant=*/*.parquet"))
    assert sorted(reads) == files  # every part once: the baseline is not re-read per variant


def test_two_runs_with_different_unit_ranges_in_two_folders(tmp_path):
    rng = np.random.default_rng(7)
    src = {"kind": "seeded", "seed": 11, "deals": 5000}
    a_cols = random_variant(rng, np.arange(5000), 0.5, 0.03)
    b_cols = random_variant(rng, np.arange(1200, 6000), 0.45, 0.08)
    a = write_run(
        tmp_path / "first", {"v": a_cols, "w": a_cols}, {"v": [1000, 2000, 3000, 4000]}, deal_source=src, study="same"
    )
    # B's parts every 333 deals, and one ending exactly where an A part begins (deal 2000)
    b = write_run(
        tmp_path / "second",
        {"v": b_cols},
        {"v": sorted([*range(333, 4800, 333), 801])},
        deal_source={**src, "deals": 6000},
        study="same",
    )
    (c,) = compare_runs(a, b, ["v"]).comparisons
    counts = old_pair(old_states(a)["v"], old_states(b)["v"])
    assert counts.sum() == 3800
    expected = compare_counts(c.baseline, c.variant, counts)
    assert (
        c.both,
        c.baseline_only,
        c.variant_only,
        c.neither,
        c.unknown_baseline,
        c.unknown_variant,
        c.ci95_low,
        c.ci95_high,
        c.log10_p,
    ) == (
        expected.both,
        expected.baseline_only,
        expected.variant_only,
        expected.neither,
        expected.unknown_baseline,
        expected.unknown_variant,
        expected.ci95_low,
        expected.ci95_high,
        expected.log10_p,
    )
    assert (c.baseline, c.variant) == ("first:v", "second:v")  # same study name: told apart by folder


def test_a_deal_stored_twice_is_bad_input(tmp_path, capsys):
    from pipeline_util import cli

    deals = np.concatenate([np.arange(100), np.arange(50, 60)])  # 50..59 twice, in two overlapping parts
    rng = np.random.default_rng(1)
    run = write_run(
        tmp_path / "dup",
        {"a": random_variant(rng, np.arange(100), 0.5, 0), "b": random_variant(rng, deals, 0.5, 0)},
        {"b": [100]},
    )
    code, out, err = cli(["compare", run], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and f"RUN_DIR {run}: variant 'b' holds some deal twice" in err


# --- distributions -----------------------------------------------------------------------------------


def test_quantile_arithmetic_is_numpys_bit_for_bit():
    from pipeline.distributions import lerp_quantiles

    rng = np.random.default_rng(5)
    for n in [*range(1, 60), 97, 1000, 4099]:
        for x in (rng.lognormal(0, 3, n), rng.uniform(-1, 1, n) * 1e-3, rng.integers(0, 50, n).astype(float)):
            ordered = np.sort(x)
            ours, _ = lerp_quantiles(n, lambda r, o=ordered: o[r])
            assert ours.tolist() == np.quantile(x, QUANTILES).tolist(), n


@pytest.mark.parametrize("column", ["rounds", "nodes", "wide", "seconds", "narrow"])
def test_distributions_equal_numpy_on_all_rows(run_with_unknowns, column):
    lf = scan_deals(run_with_unknowns)
    variants = ["base", "other,x=1", "gappy"]
    old = old_box_stats(lf, column, variants)
    new = column_distributions(lf, column, variants)
    assert set(new) == set(old)
    for key, expected in old.items():
        got = new[key].as_dict()
        mean = got.pop("mean")
        float_column = column in ("seconds", "narrow")
        assert mean == (pytest.approx(expected.pop("mean"), rel=1e-13) if float_column else expected.pop("mean"))
        assert got == expected, (key, got, expected)  # bit for bit: exact percentiles
        assert new[key].max_relative_error == 0.0
    assert "every percentile exact" in accuracy_note(column, new)
    if column == "narrow":  # full bins: the second pass must have read their rows back
        assert sum(d.reread for d in new.values()) > 0


def test_float_percentiles_when_bins_are_too_full_to_reread_are_approximate_within_the_stated_bound(
    run_with_unknowns, monkeypatch
):
    import pipeline.distributions as dist

    monkeypatch.setattr(dist, "REFINE_ROWS", 0)
    lf = scan_deals(run_with_unknowns)
    variants = ["base", "other,x=1"]
    old = old_box_stats(lf, "narrow", variants)
    new = column_distributions(lf, "narrow", variants)
    worst = max(d.max_relative_error for d in new.values())
    assert 0 < worst < 2 ** (1 / dist.BINS_PER_DOUBLING) - 1  # under one bin's width
    differ = 0
    for key, expected in old.items():
        got = new[key]
        for name in ("p05", "q1", "med", "q3", "p95"):
            err = abs(getattr(got, name) - expected[name])
            assert err <= got.max_error * (1 + 1e-12) + 1e-300
            assert err <= worst * abs(expected[name]) * (1 + 1e-9)
            differ += err > 0
        assert got.max == expected["max"]
    assert differ > 0  # the approximate path was taken
    note = accuracy_note("narrow", new)
    assert "approximate" in note and f"{100 * worst:.3g}%" in note


def test_rounds_from_the_reports_histogram_equal_a_pass_over_the_rows(run_with_unknowns):
    from pipeline.html_report import _box_stats

    report = build_report(run_with_unknowns)
    variants = list(report.rows["variant"])
    lf = scan_deals(run_with_unknowns)
    from_report = {k: d.as_dict() for k, d in _box_stats(lf, "rounds", variants, report).items()}
    assert from_report == old_box_stats(lf, "rounds", variants)


def test_html_report_states_how_exact_each_distribution_is(run_with_unknowns):
    from pipeline.html_report import render_html

    page = render_html(build_report(run_with_unknowns))
    for column in ("rounds", "nodes", "seconds"):
        assert f'id="chart-{column}"' in page
    assert "seconds: every percentile exact" in page
    assert "1a 2b 3c" not in page  # the solution column is never shown (nor read)


# --- parts patience run wrote: footers stand in for reads ------------------------------------------------


@pytest.fixture(scope="module")
def real_run(tmp_path_factory) -> Path:
    """configs/quickstart.yaml (three Perpetual Motion presets) on 900 deals in units of 200, serial."""
    from pipeline_util import ROOT

    from pipeline.config import load_study
    from pipeline.runner import run_study

    out = tmp_path_factory.mktemp("real") / "quick"
    run_study(load_study(ROOT / "configs" / "quickstart.yaml", deals=900, batch_size=200), out, backend="serial")
    return out


def test_parts_patience_run_wrote_are_paired_without_reading_deal(real_run, monkeypatch):
    firsts = []
    real = parts_module._states_of_part

    def recording(path, filesystem=None, first=None):
        firsts.append(first)
        return real(path, filesystem, first)

    monkeypatch.setattr(parts_module, "_states_of_part", recording)
    old = old_states(real_run)
    streamed = compare_run(real_run, baseline="clarke")  # variants of one run: aligned, two streams zipped
    assert firsts == []
    for c in streamed.comparisons:
        expected = compare_counts("clarke", c.variant, old_pair(old["clarke"], old[c.variant]))
        assert (c.both, c.baseline_only, c.variant_only, c.neither, c.deals) == (
            expected.both,
            expected.baseline_only,
            expected.variant_only,
            expected.neither,
            expected.deals,
        )
    # part by part (what sides laid out differently get): the same counts, and still no deal column read
    monkeypatch.setattr(parts_module, "aligned", lambda *a: False)
    cs = compare_run(real_run, baseline="clarke")
    assert [vars(c) for c in cs.comparisons] == [vars(c) for c in streamed.comparisons]
    assert len(firsts) == 15 and None not in firsts  # 3 variants x 5 units, every one without its deal column
    # the same files with the footer's unit key removed are read whole, with the same counts
    monkeypatch.setattr(parts_module, "_deal_range", lambda path, fs=None: (*_plain_range(path), False))
    firsts.clear()
    again = compare_run(real_run, baseline="clarke")
    assert firsts == [None] * 15
    assert [vars(c) for c in again.comparisons] == [vars(c) for c in cs.comparisons]


def _plain_range(path):
    deals = pq.read_table(path, columns=["deal"]).column("deal").to_numpy()
    return int(deals.min()), int(deals.max()), int(deals.size)


def test_column_ranges_from_footers_are_the_rows_extremes(real_run, run_with_unknowns):
    from pipeline.parts import column_ranges, variant_folders

    for run in (real_run, run_with_unknowns):
        files = [f for fs in variant_folders(run).values() for f in fs]
        got = column_ranges(files, ["rounds", "nodes", "seconds", "outcome", "absent"])
        rows = scan_deals(run).collect()
        for c in ("rounds", "nodes"):
            if c in rows.columns:
                assert got[c] == (rows[c].min(), rows[c].max())
        assert "seconds" not in got and "outcome" not in got and "absent" not in got  # floats, strings, missing


@pytest.mark.parametrize("column", ["nodes", "wide"])
def test_distributions_with_footer_ranges_equal_those_without(run_with_unknowns, column):
    from pipeline.distributions import distributions
    from pipeline.parts import column_ranges, variant_folders

    lf = scan_deals(run_with_unknowns)
    variants = ["base", "other,x=1", "gappy"]
    ranges = column_ranges([f for fs in variant_folders(run_with_unknowns).values() for f in fs], [column])
    assert column in ranges
    with_ranges = distributions(lf, [column, "seconds"], variants, ranges)
    without = {c: column_distributions(lf, c, variants) for c in (column, "seconds")}
    assert with_ranges.keys() == without.keys()
    for c, got in with_ranges.items():
        assert got.keys() == without[c].keys()
        for key, d in got.items():
            expected = vars(without[c][key]).copy()
            mean = expected.pop("mean")
            # an integer column's mean is exact; a float column's is a sum in whatever order the reader took
            # its rows, so equal up to rounding (the module's docstring: about 1e-15 relative)
            assert d.mean == (pytest.approx(mean, rel=1e-13) if c == "seconds" else mean)
            assert {k: v for k, v in vars(d).items() if k != "mean"} == expected


def test_bins_order_like_the_values():
    from pipeline.distributions import BINS_PER_DOUBLING, bin_keys

    rng = np.random.default_rng(2)
    x = np.concatenate(
        [
            rng.lognormal(0, 30, 5000),
            -rng.lognormal(0, 30, 5000),
            [0.0, -0.0, np.inf, -np.inf, 5e-324, -5e-324, 1.0, 1.0 + 2**-52, 2.0, np.nextafter(2.0, 0)],
            rng.uniform(-1, 1, 1000),
        ]
    )
    x = np.sort(x)
    keys = bin_keys(x)
    # a bin never holds values out of order with another's: wherever the sorted values step up, every key
    # before the step is at most every key after it (-0.0 and 0.0 are equal values in neighbouring bins)
    before, after = np.maximum.accumulate(keys), np.minimum.accumulate(keys[::-1])[::-1]
    steps = np.nonzero(np.diff(x) > 0)[0]
    assert (before[steps] <= after[steps + 1]).all()
    # within a doubling, BINS_PER_DOUBLING bins: 1.0 and 2.0 are that many bins apart
    assert bin_keys(np.array([2.0]))[0] - bin_keys(np.array([1.0]))[0] == BINS_PER_DOUBLING
    # a bin is at most 1/BINS_PER_DOUBLING of its values wide
    v = rng.lognormal(0, 5, 20000)
    k = bin_keys(v)
    for key in np.unique(k)[:200]:
        mine = v[k == key]
        assert mine.max() - mine.min() <= mine.min() / BINS_PER_DOUBLING


def test_a_nan_makes_its_groups_figures_nan_as_numpy_does():
    lf = pl.DataFrame(
        {
            "variant": ["a"] * 6,
            "won": [True, True, True, False, False, False],
            "seconds": [0.5, np.nan, 0.25, 0.1, 0.2, 0.3],
        }
    ).lazy()
    got = column_distributions(lf, "seconds", ["a"])
    assert all(math.isnan(x) for x in got[("a", True)].as_dict().values() if x != 3)
    assert got[("a", False)].as_dict() == {
        "n": 3,
        **dict(zip(("p05", "q1", "med", "q3", "p95"), np.quantile([0.1, 0.2, 0.3], QUANTILES).tolist(), strict=True)),
        "mean": pytest.approx(0.2, rel=1e-15),
        "max": 0.3,
    }


# --- a rerun with nothing to do: the report from run.json's totals ------------------------------------


def test_report_from_totals_equals_build_report_but_the_rounds_columns(real_run):
    from pipeline.report import report_from_totals

    full, quick = build_report(real_run), report_from_totals(real_run)
    assert quick is not None and quick.histogram is None
    rounds = ["rounds_mean", "rounds_won_mean", "rounds_won_median", "rounds_won_p90"]
    assert quick.rows.drop(rounds).equals(full.rows.drop(rounds))
    assert quick.rows.select(rounds).fill_nan(None).null_count().row(0) == (3, 3, 3, 3)
    assert (
        quick.study,
        quick.game,
        quick.status,
        quick.units_done,
        quick.units_total,
        quick.outcomes,
        quick.sources,
    ) == (full.study, full.game, full.status, full.units_done, full.units_total, full.outcomes, full.sources)


def test_report_from_totals_refuses_a_run_not_complete(real_run, tmp_path):
    import shutil

    from pipeline.report import report_from_totals

    copy = tmp_path / "copy"
    shutil.copytree(real_run, copy)
    manifest = json.loads((copy / "run.json").read_text())
    (copy / "run.json").write_text(json.dumps({**manifest, "status": "interrupted"}))
    assert report_from_totals(copy) is None
    totals = manifest["totals"]
    first = next(iter(totals["variants"]))
    totals["variants"][first]["outcomes"] = {}  # totals without outcome counts (an older run): not enough
    (copy / "run.json").write_text(json.dumps(manifest))
    assert report_from_totals(copy) is None


def test_rerun_with_nothing_to_do_prints_the_totals_without_reading_parts(real_run, capsys, monkeypatch):
    from pipeline_util import ROOT, cli

    import pipeline.report as report_module

    def no_scan(*args, **kwargs):
        raise AssertionError("a rerun with nothing to do read the parts")

    monkeypatch.setattr(report_module, "scan_deals", no_scan)
    code, out, err = cli(
        [
            "run",
            ROOT / "configs" / "quickstart.yaml",
            "--backend",
            "serial",
            "--deals",
            "900",
            "--batch-size",
            "200",
            "--out",
            real_run,
        ],
        capsys,
    )
    assert code == 0, err
    assert "nothing to do: all 15 units already done" in err and f"patience report {real_run}" in err
    monkeypatch.undo()
    full = build_report(real_run)
    for r in full.rows.iter_rows(named=True):  # every variant's exact counts, as the full report has them
        assert f"{r['deals']:,}" in out and f"{r['wins']:,}" in out


def test_aligned_streams_count_unknown_and_missing_outcomes_as_the_join_does(real_run, tmp_path, monkeypatch):
    import shutil

    import pyarrow.compute as pc

    copy = tmp_path / "unknowns"
    shutil.copytree(real_run, copy)
    for path in sorted(copy.glob("variant=masten/*.parquet")):
        table = pq.read_table(path)
        deal = table.column("deal").to_numpy()
        outcome = table.column("outcome").to_pylist()
        outcome = [None if d % 11 == 0 else "unknown" if d % 7 == 0 else o for d, o in zip(deal, outcome, strict=True)]
        table = table.set_column(table.schema.get_field_index("outcome"), "outcome", pa.array(outcome, pa.string()))
        pq.write_table(table, path)  # the footer keeps patience run's metadata: still in order
    # parts edited by hand no longer have the hashes the unit log records (readers would refuse them): without the
    # log they are read as a run from before hashes were recorded
    (copy / "units.jsonl").unlink()
    assert pc.sum(pq.read_table(path).column("outcome").is_null()).as_py() > 0
    old = old_states(copy)
    streamed = compare_run(copy, baseline="clarke")
    assert parts_module.aligned(
        *[b for b in (parts_module.blocks_of(f) for f in parts_module.variant_folders(copy).values())][:1],
        [parts_module.blocks_of(f) for f in parts_module.variant_folders(copy).values()],
    )
    for c in streamed.comparisons:
        expected = compare_counts("clarke", c.variant, old_pair(old["clarke"], old[c.variant]))
        assert {k: v for k, v in vars(c).items() if k not in ("log10_p_holm", "verdict")} == {
            k: v for k, v in vars(expected).items() if k not in ("log10_p_holm", "verdict")
        }
    masten = next(c for c in streamed.comparisons if c.variant == "masten")
    assert masten.unknown_variant > 0

    def out_of_order(blocks):  # a stream whose batches came out of file order: paired part by part instead
        raise parts_module.OutOfOrder
        yield

    monkeypatch.setattr(parts_module, "_state_stream", out_of_order)
    again = compare_run(copy, baseline="clarke")
    assert [vars(c) for c in again.comparisons] == [vars(c) for c in streamed.comparisons]


def _numpy_figures(values: np.ndarray) -> dict:
    q = np.quantile(values.astype(np.float64), QUANTILES)
    return {
        "n": values.size,
        **dict(zip(("p05", "q1", "med", "q3", "p95"), q.tolist(), strict=True)),
        "mean": int(values.sum()) / values.size,
        "max": float(values.max()),
    }


def test_wide_integers_below_exact_low_need_no_second_pass_and_the_rest_are_exact(monkeypatch):
    import pipeline.distributions as dist

    rng = np.random.default_rng(9)
    n = 30_000
    won = rng.uniform(size=n) < 0.4
    low = rng.integers(0, 60_000, n)  # spans far more than EXACT_SPAN, all below EXACT_LOW
    mixed = np.where(
        rng.uniform(size=n) < 0.3,
        -rng.integers(1, 10**6, n),
        np.where(rng.uniform(size=n) < 0.5, rng.integers(0, 500, n), rng.integers(10**5, 10**9, n)),
    )
    lf = pl.DataFrame({"variant": ["a"] * n, "won": won, "low": low, "mixed": mixed}).lazy()

    def no_second_pass(*args):
        raise AssertionError("a second pass for values counted one by one")

    monkeypatch.setattr(dist, "_refine", no_second_pass)
    got = dist.column_distributions(lf, "low", ["a"])
    for flag in (True, False):
        assert got[("a", flag)].as_dict() == _numpy_figures(low[won == flag])
    monkeypatch.undo()
    got = dist.column_distributions(lf, "mixed", ["a"])
    for flag in (True, False):
        assert got[("a", flag)].as_dict() == _numpy_figures(mixed[won == flag])
        assert got[("a", flag)].max_error == 0
