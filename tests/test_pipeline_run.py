"""The pipeline end to end on the serial backend: rows, determinism, resume, failures, report, query, play.

Ray has its own module (test_pipeline_ray.py) with one session-scoped instance.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import time

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from pipeline_util import cli, cli_subprocess, rows, write_study

from engine import registry
from engine.deals import microsoft_deal, seeded_deals
from engine.outcomes import OUTCOMES
from pipeline.config import load_study
from pipeline.report import build_report, wilson
from pipeline.runner import run_study

PM_STUDY = """
study: pm
game: perpetual_motion
deals: 600
seed: 11
batch_size: 250
variants:
  clarke: {preset: clarke}
  masten: {preset: masten}
reference:
  clarke: {win_rate: 0.5455, ci95: 0.0089, mean_rounds_won: 128, source: "Clarke 2009"}
  masten: {win_rate: 0.99, source: "made up, to be refuted"}
"""


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(registry._GAME_MODULES, "fake", "fake_game")


@pytest.fixture
def pm_study(tmp_path):
    return write_study(tmp_path / "pm.yaml", PM_STUDY)


def _expected_rows(game_name: str, rules, decks: np.ndarray, deal: np.ndarray) -> pl.DataFrame:
    """What the per-deal table must hold, straight from play_batch (the game-agnostic mapping)."""
    game = registry.get_game(game_name)
    cols = game.play_batch(decks, rules)
    out = {"deal": deal, "outcome": [OUTCOMES[c] for c in cols["outcome"]], "won": cols["outcome"] == 0}
    out.update({k: cols[k] for k in game.columns() if k != "outcome"})
    return pl.DataFrame(out)


def test_rows_are_the_engine_output_with_design_dtypes(pm_study, tmp_path, capsys):
    code, out, err = cli(["run", pm_study, "--backend", "serial", "--out", tmp_path / "r"], capsys)
    assert code == 0, err
    df = rows(tmp_path / "r")
    assert df.schema == {
        "deal": pl.Int64,
        "outcome": pl.String,
        "won": pl.Boolean,
        "rounds": pl.Int32,
        "moves": pl.Int32,
        "cards_left": pl.Int16,
        "cycle_length": pl.Int32,
        # Perpetual Motion's solver columns (strategy: solver), zero for the fixed strategies
        "nodes": pl.Int64,
        "seconds": pl.Float64,
        "rounds_optimal": pl.Boolean,
        "rounds_lower": pl.Int32,
        "solution": pl.String,
        "variant": pl.String,
    }
    st = load_study(pm_study)
    decks = seeded_deals(st.game.deck, 11, 0, 600)
    for name, v in st.variants.items():
        got = df.filter(pl.col("variant") == name).drop("variant")
        assert got.equals(_expected_rows("perpetual_motion", v.rules, decks, np.arange(600, dtype=np.int64)))
    assert "clarke" in out and "win rate" in out  # the report is printed at the end
    names = sorted(p.name for p in (tmp_path / "r" / "variant=clarke").iterdir())
    assert names == ["part-0-249.parquet", "part-250-499.parquet", "part-500-599.parquet"]
    assert not (tmp_path / "r" / "_tmp").exists() or not any((tmp_path / "r" / "_tmp").iterdir())


def test_batch_size_does_not_change_any_row(pm_study, tmp_path):
    a = run_study(load_study(pm_study), tmp_path / "a", backend="serial")
    b = run_study(load_study(pm_study, batch_size=97), tmp_path / "b", backend="serial")
    assert (a.units_total, b.units_total) == (6, 14)
    assert rows(tmp_path / "a").equals(rows(tmp_path / "b"))


def test_manifest_and_parquet_metadata(pm_study, tmp_path):
    run_study(load_study(pm_study), tmp_path / "r", backend="serial")
    m = json.loads((tmp_path / "r" / "run.json").read_text())
    assert m["status"] == "complete" and m["finished"] and m["started"]
    assert m["seed"] == 11 and m["deal_source"] == {"kind": "seeded", "seed": 11, "deals": 600}
    assert m["config"]["variants"]["masten"]["rules"]["cascade"] is True
    assert {"numpy", "numba", "pyarrow", "polars", "python"} <= set(m["packages"])
    assert m["engine_version"] and m["host"]
    # run.json: totals, never one entry per unit; per-unit summaries in units.jsonl and each part's footer.
    assert "units" not in m and m["totals"]["units"] == m["totals"]["units_done"] == 6
    clarke_wins = rows(tmp_path / "r").filter((pl.col("variant") == "clarke") & pl.col("won")).height
    assert m["totals"]["variants"]["clarke"]["wins"] == clarke_wins
    assert m["totals"]["variants"]["clarke"]["deals"] == 600 and m["totals"]["deals_done"] == 1200
    log = [json.loads(line) for line in (tmp_path / "r" / "units.jsonl").read_text().splitlines()]
    assert len(log) == 6 and len({r["key"] for r in log}) == 6
    assert sum(r["wins"] for r in log if r["variant"] == "clarke") == clarke_wins
    assert all(r["host"] and r["node"] == "" and r["seconds"] > 0 for r in log)  # serial: no Ray node
    meta = pq.read_schema(tmp_path / "r" / "variant=masten" / "part-0-249.parquet").metadata
    assert meta[b"patience.study"] == b"pm" and meta[b"patience.variant"] == b"masten"
    assert json.loads(meta[b"patience.rules"])["gather"] == "pile1_bottom_up"
    assert meta[b"patience.engine_version"] and meta[b"patience.unit"] == b"masten/part-0-249"
    footer = json.loads(meta[b"patience.summary"])
    line = next(r for r in log if r["key"] == "masten/part-0-249")
    # the log's line is the footer's summary plus the stamp of the part's bytes (a file cannot hold its own hash)
    assert footer == {k: v for k, v in line.items() if k not in ("sha256", "bytes", "mtime_ns")}
    assert line["sha256"] and line["bytes"] == (tmp_path / "r" / "variant=masten" / "part-0-249.parquet").stat().st_size
    assert footer["count"] == 250 and sum(footer["outcomes"].values()) == 250


def test_fake_game_extra_columns_microsoft_and_deals_file(tmp_path, fake):
    """Any registered game's columns come through unchanged; deal = Microsoft number / file position."""
    st = load_study(
        write_study(
            tmp_path / "m.yaml",
            """
        study: m
        game: fake
        microsoft_deals: "1-7,11982"
        batch_size: 3
        variants:
          plain: {}
          hard: {preset: hard}
        """,
        )
    )
    run_study(st, tmp_path / "m", backend="serial")
    df = rows(tmp_path / "m")
    assert df.schema["score"] == pl.Int64 and df.schema["lucky"] == pl.Boolean
    numbers = [1, 2, 3, 4, 5, 6, 7, 11982]
    decks = np.stack([microsoft_deal(n) for n in numbers])
    for name, v in st.variants.items():
        got = df.filter(pl.col("variant") == name).drop("variant")
        assert got.equals(_expected_rows("fake", v.rules, decks, np.array(numbers, dtype=np.int64)))

    from engine.cards import format_cards

    file_decks = seeded_deals(st.game.deck, 3, 0, 5)
    (tmp_path / "d.txt").write_text("# five\n" + "\n\n".join(format_cards(d) for d in file_decks) + "\n")
    st = load_study(
        write_study(
            tmp_path / "f.yaml",
            """
        study: f
        game: fake
        deals_file: d.txt
        batch_size: 2
        variants: {plain: {}}
        """,
        )
    )
    run_study(st, tmp_path / "f", backend="serial")
    got = rows(tmp_path / "f").drop("variant")
    assert got.equals(_expected_rows("fake", st.variants["plain"].rules, file_decks, np.arange(5, dtype=np.int64)))


def test_engine_exception_stops_the_run_with_exit_1(tmp_path, fake, capsys):
    study = write_study(
        tmp_path / "x.yaml",
        """
        study: x
        game: fake
        deals: 40
        batch_size: 10
        variants:
          fine: {}
          broken: {explode: true}
        """,
    )
    code, out, err = cli(["run", study, "--backend", "serial", "--out", tmp_path / "x"], capsys)
    assert code == 1
    line = [ln for ln in err.splitlines() if ln.startswith("patience: error:")]
    assert len(line) == 1 and "broken/part-0-9" in line[0] and "fake engine exploded" in line[0]
    assert (tmp_path / "x" / "variant=fine" / "part-0-9.parquet").is_file()  # finished units stay
    m = json.loads((tmp_path / "x" / "run.json").read_text())
    assert m["status"] == "failed"
    assert m["failed_unit"]["key"] == "broken/part-0-9" and "exploded" in m["failed_unit"]["error"]


def test_rerun_resumes_refuses_other_config_and_fresh_clears(pm_study, tmp_path, capsys):
    out = tmp_path / "r"
    assert cli(["run", pm_study, "--backend", "serial", "--out", out], capsys)[0] == 0
    first = rows(out)
    mtimes = {p: p.stat().st_mtime_ns for p in out.glob("variant=*/*.parquet")}
    code, _, err = cli(["run", pm_study, "--backend", "serial", "--out", out], capsys)
    assert code == 0 and "nothing to do: all 6 units already done" in err
    assert {p: p.stat().st_mtime_ns for p in out.glob("variant=*/*.parquet")} == mtimes
    # Nothing left to play: no backend is started, so not even a cluster that cannot be reached matters,
    # and the manifest keeps the executor that did the playing.
    code, _, err = cli(["run", pm_study, "--backend", "ray", "--address", "127.0.0.1:9", "--out", out], capsys)
    assert code == 0 and "nothing to do: all 6 units already done" in err
    assert json.loads((out / "run.json").read_text())["executor"]["backend"] == "serial"
    code, _, err = cli(["run", pm_study, "--backend", "serial", "--out", out, "--deals", "300"], capsys)
    assert code == 2 and "different config" in err and "--fresh" in err
    assert rows(out).equals(first)
    code, _, err = cli(["run", pm_study, "--backend", "serial", "--out", out, "--deals", "300", "--fresh"], capsys)
    assert code == 0 and rows(out).height == 600  # 2 variants x 300


def test_sigkill_part_way_then_rerun_gives_exactly_the_uninterrupted_rows(tmp_path, capsys):
    study = write_study(
        tmp_path / "k.yaml",
        """
        study: k
        game: perpetual_motion
        deals: 3000
        seed: 3
        batch_size: 100
        variants: {clarke: {preset: clarke}, pysolfc: {preset: pysolfc}}
        """,
    )
    out = tmp_path / "k"
    # Slow each unit down (test-only fault switch) so the kill lands part way.
    proc = cli_subprocess(
        ["run", study, "--backend", "serial", "--out", out], env={"PATIENCE_TEST_FAULT": "sleep:0.05"}
    )
    deadline = time.time() + 60
    while len(list(out.glob("variant=*/*.parquet"))) < 8 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.02)
    # One run per folder: a second run (even --fresh) is refused while the first holds the lock.
    for extra in ([], ["--fresh"]):
        code, _, err2 = cli(["run", study, "--backend", "serial", "--out", out, *extra], capsys)
        assert code == 2 and f"pid {proc.pid}" in err2 and f"host {socket.gethostname()}" in err2, err2
        assert len(err2.strip().splitlines()) == 1 and "in use by a run in progress" in err2
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    done_before = len(list(out.glob("variant=*/*.parquet")))
    assert 8 <= done_before < 60, done_before  # really part way
    assert json.loads((out / "run.lock").read_text())["pid"] == proc.pid  # the dead run's lock is left behind
    proc = cli_subprocess(["run", study, "--backend", "serial", "--out", out])  # ... and does not block
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert f"{60 - done_before} units run, {done_before} already done" in err
    assert not (out / "run.lock").exists()
    run_study(load_study(study), tmp_path / "clean", backend="serial")
    resumed, clean = rows(out), rows(tmp_path / "clean")
    assert resumed.height == 6000 and resumed.select("variant", "deal").is_unique().all()
    assert resumed.equals(clean)


def test_report_numbers_formats_and_reference_verdicts(pm_study, tmp_path, capsys):
    out = tmp_path / "r"
    run_study(load_study(pm_study), out, backend="serial")
    rep = build_report(out)
    df = rows(out)
    r = {row["variant"]: row for row in rep.rows.iter_rows(named=True)}
    assert list(r) == ["clarke", "masten"]  # study order
    for name in r:
        d = df.filter(pl.col("variant") == name)
        wins = d["won"].sum()
        assert (r[name]["deals"], r[name]["wins"]) == (600, wins)
        assert r[name]["n_cycle"] == (d["outcome"] == "cycle").sum()
        won_rounds = d.filter(pl.col("won"))["rounds"].to_numpy()
        assert math.isclose(r[name]["rounds_won_mean"], won_rounds.mean())
        assert math.isclose(r[name]["rounds_won_median"], float(np.median(won_rounds)))
        assert math.isclose(r[name]["rounds_won_p90"], float(np.quantile(won_rounds, 0.9)))
        from statsmodels.stats.proportion import proportion_confint

        lo, hi = proportion_confint(wins, 600, alpha=0.05, method="wilson")
        assert math.isclose(r[name]["ci95_low"], lo, rel_tol=1e-9) and math.isclose(
            r[name]["ci95_high"], hi, rel_tol=1e-9
        )
    # 600 deals cannot refute Clarke's 54.55% +/- 0.89% unless the kernel is badly wrong; a made-up 99% is refuted.
    assert r["clarke"]["verdict"] == "consistent"
    assert r["masten"]["verdict"] == "not consistent"

    for fmt, probe in (
        ("table", "Clarke 2009"),
        ("markdown", "| clarke |"),
        ("csv", "variant,deals,wins"),
        ("json", '"variants"'),
    ):
        code, text, err = cli(["report", out, "--format", fmt], capsys)
        assert code == 0 and probe in text, (fmt, text, err)
    code, text, _ = cli(["report", out, "--format", "json"], capsys)
    assert json.loads(text)["variants"][0]["wins"] == r["clarke"]["wins"]
    code, _, _ = cli(["report", out, "--format", "csv", "--output", tmp_path / "rep.csv"], capsys)
    assert code == 0 and pl.read_csv(tmp_path / "rep.csv")["wins"].to_list() == [
        r["clarke"]["wins"],
        r["masten"]["wins"],
    ]
    code, _, err = cli(["report", out, "--format", "pdf"], capsys)
    assert code == 2 and "--format" in err and "allowed: table, markdown, csv, json, html" in err
    code, _, err = cli(["report", tmp_path / "nowhere"], capsys)
    assert code == 2 and "nowhere" in err


def test_context_only_reference_gets_no_verdict(tmp_path, capsys):
    """A published figure whose rules were never stated is shown beside ours, not tested against it."""
    study = write_study(
        tmp_path / "ctx.yaml",
        PM_STUDY.replace(
            'masten: {win_rate: 0.99, source: "made up, to be refuted"}',
            'masten: {win_rate: 0.99, context: true, source: "rules unstated"}',
        ),
    )
    out = tmp_path / "ctx"
    run_study(load_study(study), out, backend="serial")
    r = {row["variant"]: row for row in build_report(out).rows.iter_rows(named=True)}
    assert r["masten"]["ref_win_rate"] == 0.99 and r["masten"]["z"] is None
    assert r["masten"]["verdict"] == "context only (rules unstated)"
    assert r["clarke"]["verdict"] == "consistent"
    code, text, _ = cli(["report", out, "--format", "markdown"], capsys)
    assert code == 0 and "context only (rules unstated)" in text and "99.00%" in text


def test_verdict_is_a_score_test_that_holds_at_100_percent():
    """10,000 wins in 10,000 deals: consistent with 99.985% (1.5 losses expected, none seen has chance e^-1.5)."""
    from pipeline.report import verdict

    z, word = verdict(10_000, 10_000, 0.99985, None)
    assert word == "consistent" and math.isclose(z, 0.00015 / math.sqrt(0.99985 * 0.00015 / 10_000))
    assert verdict(9_900, 10_000, 0.99985, None)[1] == "not consistent"
    assert verdict(5469, 10_000, 0.5455, 0.0089)[1] == "consistent"
    assert verdict(10, 10, 1.0, None) == (0.0, "consistent")
    assert verdict(9, 10, 1.0, None)[1] == "not consistent"


def test_unknown_outcomes_make_the_verdict_one_of_bounds():
    """A solver's unknowns: our share is somewhere from every unknown lost to every unknown won, and the verdict
    asks whether the published figure is consistent with some share in that range (Klondike's draw 3 on 2,000
    deals: 1,517 won and 252 unknown, 75.9-88.5%, is consistent with 81.945%; unknowns counted as lost, z = -7)."""
    from pipeline.report import verdict, verdict_as_bounds

    assert verdict_as_bounds(5469, 0, 10_000, 0.5455, 0.0089) == verdict(5469, 10_000, 0.5455, 0.0089)
    assert verdict(1517, 2000, 0.81945, 0.00084)[1] == "not consistent"
    assert verdict_as_bounds(1517, 252, 2000, 0.81945, 0.00084) == (0.0, "consistent as bounds")
    z_low = verdict(820, 1000, 0.81945, None)[0]  # just above at the low end: that end's z, nearest zero
    assert verdict_as_bounds(820, 100, 1000, 0.81945, None) == (z_low, "consistent as bounds") and z_low > 0
    z_high = verdict(750, 1000, 0.9, None)[0]  # below even with every unknown won
    assert verdict_as_bounds(700, 50, 1000, 0.9, None) == (z_high, "not consistent") and z_high < -1.96
    assert verdict_as_bounds(900, 50, 1000, 0.8, None) == (verdict(900, 1000, 0.8, None)[0], "not consistent")


def test_wilson_interval_edges():
    assert wilson(0, 10)[0] == 0.0 and 0 < wilson(0, 10)[1] < 0.35
    lo, hi = wilson(50, 100)
    assert math.isclose(lo + hi, 1.0) and lo < 0.5 < hi


def test_reader_ignores_temp_and_half_written_files(pm_study, tmp_path, capsys):
    out = tmp_path / "r"
    run_study(load_study(pm_study), out, backend="serial")
    before = rows(out)
    (out / "_tmp").mkdir(exist_ok=True)
    (out / "_tmp" / "deadbeef.tmp").write_bytes(b"PAR1 half a file")
    assert rows(out).equals(before)
    code, text, _ = cli(["query", out, "SELECT count(*) AS n FROM deals", "--format", "csv"], capsys)
    assert code == 0 and text.split() == ["n", "1200"]


def test_query_formats_and_bad_sql(pm_study, tmp_path, capsys):
    out = tmp_path / "r"
    run_study(load_study(pm_study), out, backend="serial")
    sql = "SELECT variant, count(*) AS n, sum(CAST(won AS INT)) AS wins FROM deals GROUP BY variant ORDER BY variant"
    code, text, _ = cli(["query", out, sql], capsys)
    assert code == 0 and "clarke" in text and "masten" in text
    code, text, _ = cli(["query", out, sql, "--format", "json"], capsys)
    got = json.loads(text)
    assert [g["n"] for g in got] == [600, 600]
    assert got[0]["wins"] == rows(out).filter((pl.col("variant") == "clarke") & pl.col("won")).height
    code, _, _ = cli(
        ["query", out, "SELECT * FROM deals WHERE won", "--format", "parquet", "--output", tmp_path / "won.parquet"],
        capsys,
    )
    assert code == 0 and pl.read_parquet(tmp_path / "won.parquet")["won"].all()
    code, _, err = cli(["query", out, "SELEKT nothing"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "SQL" in err
    code, _, err = cli(["query", out, "SELECT * FROM deals", "--format", "parquet"], capsys)
    assert code == 2 and "--output" in err


def test_games_lists_switches_presets_and_columns(capsys):
    code, out, _ = cli(["games"], capsys)
    assert code == 0 and "perpetual_motion" in out
    code, out, _ = cli(["games", "perpetual_motion"], capsys)
    assert code == 0
    for probe in (
        "gather = pile4_bottom_up",
        "allowed: pile4_bottom_up, pile1_bottom_up",
        "masten: cascade=true",
        "cycle_length (int32)",
        "cards_left (int16)",
    ):
        assert probe in out, probe
    code, _, err = cli(["games", "nope"], capsys)
    assert code == 2 and "allowed: perpetual_motion" in err


def test_play_matches_the_batch_row_and_traces(capsys, fake):
    game = registry.get_game("perpetual_motion")
    rules = game.rules("masten")
    batch = game.play_batch(seeded_deals(game.deck, 2009, 7, 1), rules)
    code, out, err = cli(
        ["play", "perpetual_motion", "--seed", "2009", "--index", "7", "--preset", "masten", "--json"], capsys
    )
    assert code == 0, err
    row = json.loads(out)
    assert row["deal"] == 7 and row["outcome"] == OUTCOMES[batch["outcome"][0]] and row["rules"]["cascade"] is True
    for col in ("rounds", "moves", "cards_left", "cycle_length"):
        assert row[col] == int(batch[col][0]), col
    assert row["cards"].startswith("QS 5S AS 2C")  # the golden deal (2009, 7)
    code, out, _ = cli(["play", "perpetual_motion", "--deal", row["cards"], "--preset", "masten", "--trace"], capsys)
    lines = out.strip().splitlines()
    assert code == 0 and len(lines) > 2 and lines[-1].startswith("perpetual_motion, given deal (masten)")
    assert f": {row['outcome']};" in lines[-1]
    code, out, _ = cli(["play", "fake", "--microsoft", "11982", "--set", "threshold=13", "--json"], capsys)
    assert code == 0 and json.loads(out)["deal"] == 11982 and json.loads(out)["outcome"] == "won"


@pytest.mark.parametrize(
    "args, probe",
    [
        (["play", "perpetual_motion"], "no deal is given"),
        (["play", "perpetual_motion", "--seed", "1", "--index", "2", "--deal", "AS"], "both given"),
        (["play", "perpetual_motion", "--seed", "1"], "needs both"),
        (["play", "perpetual_motion", "--microsoft", "5"], "no Microsoft deal numbers"),
        (["play", "perpetual_motion", "--seed", "1", "--index", "0", "--preset", "nobody"], "allowed: clarke"),
        (["play", "perpetual_motion", "--seed", "1", "--index", "0", "--set", "gather=up"], "'up'"),
        (["play", "perpetual_motion", "--seed", "-1", "--index", "0"], "0..2^64-1"),
        (["play", "perpetual_motion", "--deal", "AS 2S"], "2 cards"),
        (["play", "nope", "--seed", "1", "--index", "0"], "unknown game 'nope'"),
    ],
)
def test_play_bad_input(args, probe, capsys):
    code, out, err = cli(args, capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and probe in err, err


def test_a_worker_that_cannot_see_the_run_folder_says_out_must_be_shared(tmp_path):
    """On a cluster, a node without the shared --out sees no run.json: the unit fails with a clear message."""
    import pyarrow as pa

    from pipeline.errors import StorageError
    from pipeline.run_files import write_part

    with pytest.raises(StorageError, match="--out must be shared storage"):
        write_part(tmp_path / "not-shared", "variant=a/part-0-0.parquet", pa.table({"deal": [0]}))
    assert not (tmp_path / "not-shared").exists()  # and it created nothing there


def test_resume_lists_parts_trusts_the_log_recovers_unlogged_parts_and_replays_damaged_ones(pm_study, tmp_path, capsys):
    out = tmp_path / "r"
    run_study(load_study(pm_study, batch_size=100), out, backend="serial")
    clean = rows(out)
    totals = json.loads((out / "run.json").read_text())["totals"]
    log = (out / "units.jsonl").read_bytes().splitlines(keepends=True)
    assert len(log) == 12
    # A driver killed mid-chunk: the last 4 summaries never logged, a torn line at the end.
    (out / "units.jsonl").write_bytes(b"".join(log[:8]) + log[8][:20])
    # An unlogged part whose footer is another unit's (copied by hand) is not trusted: played again.
    damaged = out / "variant=clarke" / "part-400-499.parquet"
    damaged.write_bytes((out / "variant=clarke" / "part-100-199.parquet").read_bytes())
    # A part gone: played again.
    (out / "variant=masten" / "part-500-599.parquet").unlink()
    code, _, err = cli(["run", pm_study, "--backend", "serial", "--batch-size", "100", "--out", out], capsys)
    assert code == 0 and "2 units run, 10 already done" in err, err
    assert rows(out).equals(clean)
    m = json.loads((out / "run.json").read_text())
    assert m["totals"] == totals and m["status"] == "complete"
    # The log now holds every unit (the unlogged ones recovered from their footers), so a rerun needs no footer.
    keys = [json.loads(line)["key"] for line in (out / "units.jsonl").read_text().splitlines()[8:]]
    assert sorted(keys) == ["clarke/part-400-499", "clarke/part-500-599", "masten/part-400-499", "masten/part-500-599"]
    code, _, err = cli(["run", pm_study, "--backend", "serial", "--batch-size", "100", "--out", out], capsys)
    assert code == 0 and "nothing to do: all 12 units already done" in err
    assert json.loads((out / "run.json").read_text())["totals"] == totals


def test_a_lock_of_another_host_is_refused_naming_it_and_writes_nothing(pm_study, tmp_path, capsys):
    """On shared storage a holder on another host is known by the lock's text alone (its flock may not reach us)."""
    out = tmp_path / "r"
    out.mkdir()
    text = json.dumps({"host": "node-7", "pid": 4242, "state": "running", "since": "2026-01-01T00:00:00Z"})
    (out / "run.lock").write_text(text)
    code, _, err = cli(["run", pm_study, "--backend", "serial", "--out", out], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "host node-7, pid 4242" in err and "delete" in err and "run.lock" in err
    assert sorted(p.name for p in out.iterdir()) == ["run.lock"] and (out / "run.lock").read_text() == text
    (out / "run.lock").unlink()  # that run is gone: the documented repair
    assert cli(["run", pm_study, "--backend", "serial", "--out", out], capsys)[0] == 0
    assert not (out / "run.lock").exists()
