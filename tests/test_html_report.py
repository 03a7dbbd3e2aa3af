"""The HTML report, as a person would see it: self-contained, loads in headless Chromium without console
messages, every chart drawn; plus a screenshot.

Chromium is Debian's ``chromium`` (``.ci/run`` installs it where missing); without it the browser tests
skip with the reason, the self-containment checks still run.
"""

from __future__ import annotations

import html.parser
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pipeline_util import ROOT, cli

from pipeline.config import load_study
from pipeline.html_report import render_html
from pipeline.report import build_report
from pipeline.runner import run_study

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's `chromium` is not installed (apt-get install -y chromium; .ci/run does it)"
)
CHARTS_PM = ("chart-winrate", "chart-outcomes", "chart-rounds", "chart-differences")
DRAWN = ("path", "line", "rect", "polyline", "polygon", "circle", "use", "text")


@pytest.fixture(scope="module")
def pm_run(tmp_path_factory) -> Path:
    """configs/quickstart.yaml (the three Perpetual Motion presets) on 600 deals, serial backend."""
    out = tmp_path_factory.mktemp("html") / "quick"
    run_study(load_study(ROOT / "configs" / "quickstart.yaml", deals=600, batch_size=300), out, backend="serial")
    return out


@pytest.fixture(scope="module")
def solver_run(tmp_path_factory) -> Path:
    """A run folder of a solver game with unknown outcomes and nodes/seconds columns, written directly."""
    from pipeline.work_units import variant_dir

    run = tmp_path_factory.mktemp("html") / "solver"
    run.mkdir()
    rng = np.random.default_rng(3)
    variants = {"parlett": {"cells": 7}, "cells_4": {"cells": 4}}
    manifest = {
        "patience_manifest": 1,
        "study": "solver-fab",
        "game": "penguin",
        "status": "complete",
        "deal_source": {"kind": "seeded", "seed": 5, "deals": 200},
        "seed": 5,
        "engine_version": "test",
        "started": "2026-01-01T00:00:00+00:00",
        "finished": "2026-01-01T00:01:00+00:00",
        "units": [],
        "config": {"variants": {k: {"preset": None, "rules": v} for k, v in variants.items()}, "reference": {}},
    }
    (run / "run.json").write_text(json.dumps(manifest))
    for name, cut in (("parlett", 0.9), ("cells_4", 0.6)):
        u = rng.uniform(size=200)
        outcome = np.where(u < cut, "won", np.where(u < 0.97, "unsolvable", "unknown"))
        (run / variant_dir(name)).mkdir()
        pq.write_table(
            pa.table(
                {
                    "deal": pa.array(np.arange(200), pa.int64()),
                    "outcome": pa.array(outcome.tolist(), pa.string()),
                    "won": pa.array((outcome == "won").tolist()),
                    "rounds": pa.array(np.zeros(200), pa.int32()),
                    "moves": pa.array(rng.integers(50, 200, 200), pa.int32()),
                    "cards_left": pa.array(np.zeros(200), pa.int16()),
                    "nodes": pa.array(rng.integers(1, 10**6, 200), pa.int64()),
                    "seconds": pa.array(rng.uniform(0, 2, 200), pa.float64()),
                }
            ),
            run / variant_dir(name) / "part-0-199.parquet",
        )
    return run


# --- self-contained ------------------------------------------------------------------------------------


class _Collect(html.parser.HTMLParser):
    """Tags and attributes of a page, and the drawn elements inside each <svg>."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.svg_depth = 0
        self.svgs: list[dict[str, int]] = []
        self.figure_ids: list[str] = []
        self._figure: str | None = None
        self.svg_figure: list[str | None] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "figure":
            self._figure = a.get("id")
            self.figure_ids.append(a.get("id"))
        if tag == "svg":
            if self.svg_depth == 0:
                self.svgs.append({})
                self.svg_figure.append(self._figure)
            self.svg_depth += 1
        elif self.svg_depth and tag in DRAWN:
            self.svgs[-1][tag] = self.svgs[-1].get(tag, 0) + 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self.svg_depth -= 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg_depth -= 1
        if tag == "figure":
            self._figure = None


def parse(page: str) -> _Collect:
    p = _Collect()
    p.feed(page)
    return p


def assert_self_contained(page: str) -> None:
    p = parse(page)
    for tag, attrs in p.tags:
        assert tag not in ("script", "link", "iframe", "object", "embed", "img"), f"<{tag}> in a self-contained page"
        for key in ("src", "href", "xlink:href", "data", "action"):
            value = (attrs.get(key) or "").strip()
            assert not value or value.startswith("#"), f"<{tag} {key}={value!r}> points outside the page"
    assert not re.search(r"url\(\s*['\"]?(?!#)", page), "a CSS url() that is not a fragment"
    assert "@import" not in page and "@font-face" not in page


def assert_charts_drawn(page: str, chart_ids: tuple[str, ...]) -> None:
    p = parse(page)
    assert set(chart_ids) <= set(p.figure_ids), p.figure_ids
    by_figure = dict(zip(p.svg_figure, p.svgs, strict=True))
    for cid in chart_ids:
        drawn = by_figure.get(cid, {})
        # axes, ticks, labels and the data marks: a real chart has dozens of elements
        assert sum(drawn.values()) >= 20 and drawn.get("path", 0) >= 5 and drawn.get("text", 0) >= 4, (cid, drawn)


def test_pm_report_is_self_contained_with_every_section(pm_run):
    page = render_html(build_report(pm_run))
    assert_self_contained(page)
    assert_charts_drawn(page, CHARTS_PM)
    for text in (
        "Variants and their resolved rules",
        "pile4_bottom_up",
        'class="diff"',
        "Newcombe",
        "McNemar",
        "Holm",
        "win rate (% of deals)",
        "rounds (passes through the stock)",
        "share of deals (%)",
        "percentage points",
        "published",
        "widest 95% interval",
    ):
        assert text in page, text
    # the study's facts
    assert "seed 2009" in page and "600" in page and "engine" in page and "wall time" in page
    # pysolfc differs from the baseline clarke in discard, cascade and gather: three highlighted cells
    row = re.search(r"<tr><td class=\"l\">pysolfc</td>.*?</tr>", page).group(0)
    assert row.count('class="diff"') == 3


def test_solver_report_shows_nodes_and_seconds_and_unknown_bounds(solver_run):
    page = render_html(build_report(solver_run))
    assert_self_contained(page)
    assert_charts_drawn(page, ("chart-winrate", "chart-outcomes", "chart-nodes", "chart-seconds", "chart-differences"))
    assert "chart-rounds" not in page
    assert "unknown outcomes give bounds" in page and "unknown (baseline/variant)" in page
    assert "rounds (won)" not in page  # a solver game has no stock passes: no columns of zeros
    assert "rounds (won)" not in render_text_report(solver_run)


def render_text_report(run_dir) -> str:
    from pipeline.report import RENDERERS

    return RENDERERS["markdown"](build_report(run_dir))


def test_self_containment_check_catches_external_loads():
    # the checks above must be able to fail
    for bad in (
        '<script src="https://x/y.js"></script>',
        '<img src="http://x/a.png">',
        '<link rel="stylesheet" href="//cdn/x.css">',
        '<style>@import "x.css";</style>',
        "<style>body{background:url(http://x/b.png)}</style>",
    ):
        with pytest.raises(AssertionError):
            assert_self_contained(f"<html><body>{bad}</body></html>")
    with pytest.raises(AssertionError):
        assert_charts_drawn('<figure id="chart-winrate"><svg></svg></figure>', ("chart-winrate",))


# --- in a real browser ------------------------------------------------------------------------------------


def chromium(args: list[str], tmp: Path, timeout: float = 90) -> subprocess.CompletedProcess:
    """Headless Chromium with nothing that phones home; console messages go to stderr."""
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-extensions",
        "--disable-default-apps",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp / 'chromium-profile'}",
        "--enable-logging=stderr",
        "--v=0",
        *args,
    ]
    env = {**os.environ, "HOME": str(tmp)}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def console_messages(stderr: str) -> list[str]:
    """Console output of the page (every level: a report without scripts should print nothing)."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


@needs_chromium
def test_console_check_catches_a_broken_page(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><p>x</p><script>undefinedFunction();</script></body></html>")
    proc = chromium(["--dump-dom", bad.as_uri()], tmp_path)
    assert any("Uncaught" in m for m in console_messages(proc.stderr)), proc.stderr[-2000:]


@needs_chromium
def test_report_loads_in_chromium_without_console_messages_and_draws_every_chart(pm_run, tmp_path, capsys):
    out = tmp_path / "report.html"
    code, _, err = cli(["report", pm_run, "--format", "html", "--output", out], capsys)
    assert code == 0, err
    proc = chromium(["--dump-dom", out.as_uri()], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert console_messages(proc.stderr) == []
    dom = proc.stdout
    assert_charts_drawn(dom, CHARTS_PM)  # as the browser parsed it, not as we wrote it
    shot = tmp_path / "report.png"
    proc = chromium(["--hide-scrollbars", "--window-size=1200,3200", f"--screenshot={shot}", out.as_uri()], tmp_path)
    assert proc.returncode == 0 and shot.is_file(), proc.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 50_000  # a blank page compresses to a few KB
    # kept for a person to look at (results/ is git-ignored); docs/report.png is the full study's, for the README
    keep = ROOT / "results" / "html-report-test.png"
    keep.parent.mkdir(exist_ok=True)
    shutil.copy(shot, keep)


def test_report_html_cli_to_stdout_and_bad_format(pm_run, capsys):
    code, out, err = cli(["report", pm_run, "--format", "html"], capsys)
    assert code == 0 and out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>"), err
    code, out, err = cli(["report", pm_run, "--format", "pdf"], capsys)
    assert code == 2 and "--format" in err and "html" in err and out == ""


def test_report_of_a_run_part_way_and_of_one_variant(tmp_path, pm_run):
    """A variant without results yet, and a study of one variant: the page still renders, minus what cannot be."""
    partial = tmp_path / "partial"
    shutil.copytree(pm_run, partial)
    shutil.rmtree(partial / "variant=pysolfc")
    page = render_html(build_report(partial))
    assert_self_contained(page)
    assert_charts_drawn(page, CHARTS_PM)
    assert "pysolfc wins" not in page and "masten wins" in page
    single = tmp_path / "single"
    shutil.copytree(pm_run, single)
    manifest = json.loads((single / "run.json").read_text())
    manifest["config"]["variants"] = {"clarke": manifest["config"]["variants"]["clarke"]}
    (single / "run.json").write_text(json.dumps(manifest))
    for v in ("masten", "pysolfc"):
        shutil.rmtree(single / f"variant={v}")
    page = render_html(build_report(single))
    assert_charts_drawn(page, ("chart-winrate", "chart-outcomes", "chart-rounds"))
    assert "chart-differences" not in page
