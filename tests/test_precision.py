"""The digits of a win rate: as many as the narrower of our Wilson interval and the published one needs
(pipeline.precision), the same in the table, markdown and HTML reports; CSV and JSON keep the full floats."""

from __future__ import annotations

import dataclasses
import json
import math

import polars as pl
import pytest
from pipeline_util import write_study

from pipeline.config import load_study
from pipeline.html_report import render_html
from pipeline.intervals import wilson
from pipeline.precision import half_width_decimals, interval_decimals, pct, row_decimals
from pipeline.report import build_report, render_csv, render_json, render_markdown, render_table
from pipeline.runner import run_study

# --- the rule ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("half_points", "decimals"),
    [
        (0.0031, 4),  # Masten's clarke figure: 54.8033 +/- 0.0031, both digits of the error kept (310: two digits)
        (0.0017, 4),  # Masten's masten figure
        (0.00354, 4),  # 354: still two significant digits
        (0.00355, 3),  # 355: one significant digit, 0.004
        (0.00949, 3),  # 949: one digit, 0.009
        (0.00950, 3),  # 950 rounds up to 0.010: two significant digits of the next decade
        (0.0975, 2),  # 10^6 deals near 50%: 0.10
        (0.0069, 3),  # 2 x 10^8 deals near 55%: 0.007
        (0.031, 3),  # 10^7 deals near 50%: 0.031
        (0.89, 1),  # Clarke's +/- 0.89: 0.9 (the report's floor then makes it 2)
        (0.09996, 2),  # rounds to 1000: one decade up, 0.10
    ],
)
def test_half_width_decimals_follow_the_pdg_rule(half_points, decimals):
    assert half_width_decimals(half_points) == decimals


def test_the_narrower_interval_decides_within_a_floor_and_a_ceiling():
    assert interval_decimals(0.0138 / 100, 0.000031) == 4  # ours at 5 x 10^7 deals beside Masten's +/- 0.0031
    assert interval_decimals(0.000031, 0.0138 / 100) == 4  # in either order
    assert interval_decimals(0.0098, 0.0089) == 2  # 10^4 deals beside Clarke's +/- 0.89: never below two
    assert interval_decimals(1e-12) == 6  # the ceiling
    assert interval_decimals(None, math.nan, 0.0, -1.0) == 2  # nothing usable: the floor
    assert interval_decimals(None, 0.000017) == 4


def test_row_decimals_reads_our_interval_and_the_published_one():
    lo, hi = wilson(54_817_500, 100_000_000)  # half-width 0.0098 points: 3 decimals by itself
    assert row_decimals({"ci95_low": lo, "ci95_high": hi, "ref_ci95": None}) == 3
    assert row_decimals({"ci95_low": lo, "ci95_high": hi, "ref_ci95": 0.000031}) == 4
    assert row_decimals({"ci95_low": 0.5, "ci95_high": 0.6, "ref_ci95": None}) == 2
    assert row_decimals({"ci95_low": math.nan, "ci95_high": math.nan, "ref_ci95": None}) == 2  # no deals yet
    assert pct(0.548033, 4) == "54.8033%" and pct(None) == "" and pct(math.nan, 4) == ""


# --- the renderers -----------------------------------------------------------------------------------

STUDY = """
study: precision
game: perpetual_motion
deals: 400
seed: 1000000007
batch_size: 400
variants:
  clarke: {preset: clarke}
  masten: {preset: masten}
reference:
  clarke: {win_rate: 0.548033, ci95: 0.000031, source: "Masten, quoted by Blake and Gent (2024)"}
  masten: {win_rate: 0.0867, source: "Masten via BVS (no interval given)"}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("precision")
    out = tmp / "run"
    run_study(load_study(write_study(tmp / "precision.yaml", STUDY)), out, backend="serial")
    return out


def _row(report, name):
    return {r["variant"]: r for r in report.rows.iter_rows(named=True)}[name]


def test_a_precise_published_figure_gets_its_digits_and_a_plain_row_keeps_two(run):
    report = build_report(run)
    c, m = _row(report, "clarke"), _row(report, "masten")
    for text in (render_markdown(report), render_table(report)):
        # clarke: Masten's +/- 0.0031 is the narrower interval: four decimals for the whole row
        assert "54.8033% ± 0.0031%" in text, text
        assert f"{pct(c['win_rate'], 4)}" in text and f"{pct(c['ci95_low'], 4)}..{pct(c['ci95_high'], 4)}" in text
        # masten: no published interval, ours on 400 deals is wide: two decimals as before
        assert "8.67%" in text and f"{pct(m['ci95_low'])}..{pct(m['ci95_high'])}" in text
        assert "54.80% ± 0.00%" not in text
    page = render_html(report)
    assert "54.8033% ± 0.0031%" in page  # the table
    assert f"{pct(c['ci95_low'], 4)} .. {pct(c['ci95_high'], 4)}" in page
    # the chart's annotations, kept as SVG text
    assert "54.8033% ± 0.0031 published" in page
    assert f"[{100 * c['ci95_low']:.4f}, {100 * c['ci95_high']:.4f}]" in page
    assert f"[{100 * m['ci95_low']:.2f}, {100 * m['ci95_high']:.2f}]" in page


def test_our_own_narrow_interval_grows_the_digits(run):
    """At 10^8 deals our interval (half-width 0.0098 points) needs three decimals without any published one."""
    report = build_report(run)
    n, wins = 100_000_000, 54_817_512
    lo, hi = wilson(wins, n)
    rows = report.rows.filter(pl.col("variant") == "masten").with_columns(
        pl.lit(n, pl.Int64).alias("deals"),
        pl.lit(wins, pl.Int64).alias("wins"),
        pl.lit(wins / n).alias("win_rate"),
        pl.lit(lo).alias("ci95_low"),
        pl.lit(hi).alias("ci95_high"),
        pl.lit(None, pl.Float64).alias("ref_win_rate"),
        pl.lit(None, pl.Float64).alias("ref_ci95"),
    )
    text = render_markdown(dataclasses.replace(report, rows=rows, sources={}))
    assert f"| 54.818% | {100 * lo:.3f}%..{100 * hi:.3f}% |" in text, text


def test_csv_and_json_carry_the_full_floats(run):
    report = build_report(run)
    c = _row(report, "clarke")
    doc = {v["variant"]: v for v in json.loads(render_json(report))["variants"]}
    assert doc["clarke"]["ref_ci95"] == 0.000031 and doc["clarke"]["ref_win_rate"] == 0.548033
    assert doc["clarke"]["ci95_low"] == c["ci95_low"] and doc["clarke"]["win_rate"] == c["win_rate"]
    import io

    csv = pl.read_csv(io.StringIO(render_csv(report)))
    got = {r["variant"]: r for r in csv.iter_rows(named=True)}["clarke"]
    assert got["ref_ci95"] == 0.000031 and got["ci95_low"] == c["ci95_low"] and got["ci95_high"] == c["ci95_high"]
