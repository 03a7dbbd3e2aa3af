"""`patience verify RUN_DIR`: parts against the manifest, every stored solution replayed by the reference.

Runs are made with the serial backend.  Corruptions are made by hand in the Parquet parts (their footer
metadata kept, so only the corrupted thing is wrong).  A toy solver game (tests/toy_game.py: a `strategy` switch,
a `solution` column and `check_solution`) shows that verify works through the GameSpec contract alone and
leaves fixed-strategy rows alone.
"""

from __future__ import annotations

import shutil

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pipeline_util import cli, rows, write_study

from engine import registry
from engine.cards import DECK_52, format_cards
from engine.deals import seeded_deals
from pipeline.config import load_study
from pipeline.runner import run_study

PENGUIN_STUDY = """
study: pv
game: penguin
deals: 60
seed: 5
batch_size: 25
variants:
  parlett: {preset: parlett}
  four_cells: {cells: 4}
"""


@pytest.fixture(scope="module")
def penguin_run(tmp_path_factory):
    """A small real Penguin run (both outcomes occur: with four cells most deals are unsolvable)."""
    base = tmp_path_factory.mktemp("penguin")
    study = write_study(base / "pv.yaml", PENGUIN_STUDY)
    run_study(load_study(study), base / "run", backend="serial")
    return base / "run"


@pytest.fixture
def run_copy(penguin_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(penguin_run, out)
    return out


def _rewrite_part(path, change) -> None:
    """Rewrite one part with ``change(dict of column lists)`` applied, keeping its footer metadata."""
    table = pq.read_table(path)
    cols = {name: table.column(name).to_pylist() for name in table.column_names}
    change(cols)
    new = pa.table({name: pa.array(cols[name], type=table.schema.field(name).type) for name in cols})
    pq.write_table(new.replace_schema_metadata(table.schema.metadata), path)


def test_verify_confirms_every_win_of_a_real_run(penguin_run, capsys):
    code, out, err = cli(["verify", penguin_run], capsys)
    assert code == 0, out + err
    df = rows(penguin_run)
    wins = {v: int(df.filter((pl.col("variant") == v) & pl.col("won")).height) for v in ("parlett", "four_cells")}
    assert wins["parlett"] > 50 and 0 < wins["four_cells"] < 60  # both outcomes are in the run
    assert f"parlett: {wins['parlett']:,} wins confirmed" in out
    assert f"four_cells: {wins['four_cells']:,} wins confirmed" in out
    assert f"{sum(wins.values()):,} wins confirmed, 0 refused" in out
    assert "6 work units, 6 parts complete and in order" in out and "all well" in out
    # the stored text is what the checker accepted: non-empty exactly for the wins
    assert ((df["solution"] != "") == df["won"]).all()


def test_one_corrupted_solution_is_refused_and_named(run_copy, capsys):
    part = run_copy / "variant=four_cells" / "part-25-49.parquet"
    table = pq.read_table(part)
    k = table.column("won").to_pylist().index(True)
    deal = table.column("deal")[k].as_py()

    def truncate(cols):
        cols["solution"][k] = " ".join(cols["solution"][k].split()[:-1])

    _rewrite_part(part, truncate)
    code, out, err = cli(["verify", run_copy], capsys)
    assert code == 1, out + err
    refused = [line for line in out.splitlines() if "refused:" in line]
    assert refused == [
        f"  refused: variant four_cells, deal {deal}: after "
        f"{table.column('moves')[k].as_py() - 1} moves only 51 cards are on the foundations"
    ]
    assert "1 refused" in out and "FAILED" in out
    assert "6 parts complete and in order" in out  # the part itself is whole: only its content is wrong


def test_garbage_empty_and_misplaced_solutions_are_refused(run_copy, capsys):
    part = run_copy / "variant=four_cells" / "part-0-24.parquet"
    table = pq.read_table(part)
    won = table.column("won").to_pylist()
    deals = table.column("deal").to_pylist()
    w1, w2 = [i for i, x in enumerate(won) if x][:2]
    lost = [i for i, x in enumerate(won) if not x]
    assert lost

    def spoil(cols):
        cols["solution"][w1] = "garbage 3h"
        cols["solution"][w2] = ""
        for i in lost:
            cols["solution"][i] = "1h"

    _rewrite_part(part, spoil)
    code, out, _ = cli(["verify", run_copy, "--show", "100"], capsys)
    assert code == 1
    assert f"refused: variant four_cells, deal {deals[w1]}: move 1: 'garbage' is not a move" in out
    assert f"refused: variant four_cells, deal {deals[w2]}: won, but no solution is stored" in out
    for i in lost:
        assert f"refused: variant four_cells, deal {deals[i]}: a solution is stored for a deal that is not won" in out
    total = 2 + len(lost)
    assert f", {total} refused" in out and out.count("  refused: ") == total
    # the listing is capped; the rest are counted
    code, out, _ = cli(["verify", run_copy, "--show", "1"], capsys)
    assert code == 1 and out.count("  refused: ") == 1 and f"... and {total - 1} more refused" in out


def test_missing_and_wrong_parts_exit_1(run_copy, capsys):
    (run_copy / "variant=parlett" / "part-25-49.parquet").unlink()
    _rewrite_part(run_copy / "variant=four_cells" / "part-50-59.parquet", lambda cols: [c.pop() for c in cols.values()])
    shutil.copy(run_copy / "variant=parlett" / "part-0-24.parquet", run_copy / "variant=parlett" / "part-0-9.parquet")
    code, out, _ = cli(["verify", run_copy], capsys)
    assert code == 1
    assert "variant=parlett/part-25-49.parquet: missing" in out
    assert "variant=four_cells/part-50-59.parquet: 9 rows, the unit has 10" in out
    assert "variant=parlett/part-0-9.parquet: extra, a file no unit of the run names" in out
    assert "part problems: 3 (1 extra, 1 missing, 1 wrong)" in out and "4 parts complete" in out


def test_a_part_of_another_unit_or_other_deals_is_caught(run_copy, capsys):
    a = run_copy / "variant=parlett" / "part-0-24.parquet"
    shutil.copy(run_copy / "variant=four_cells" / "part-0-24.parquet", a)  # right deals, wrong unit key
    _rewrite_part(
        run_copy / "variant=four_cells" / "part-25-49.parquet", lambda cols: cols["deal"].reverse()
    )  # right key and count, deals out of order
    code, out, _ = cli(["verify", run_copy], capsys)
    assert code == 1
    assert "part-0-24.parquet: its footer names unit 'four_cells/part-0-24', not 'parlett/part-0-24'" in out
    assert "variant=four_cells/part-25-49.parquet: its deal column is not the unit's deals 25..49 in order" in out


def test_not_a_run_exits_2_with_one_line(tmp_path, capsys):
    for target in (tmp_path, tmp_path / "nowhere"):
        code, out, err = cli(["verify", target], capsys)
        assert code == 2 and out == ""
        assert len(err.strip().splitlines()) == 1 and "allowed:" in err
    (tmp_path / "run.json").write_text("{not json")
    code, _, err = cli(["verify", tmp_path], capsys)
    assert code == 2 and "run.json" in err and len(err.strip().splitlines()) == 1


def test_microsoft_deals_and_a_deals_file_are_regenerated(tmp_path, capsys):
    ms = write_study(
        tmp_path / "ms.yaml",
        """
        study: ms
        game: freecell
        microsoft_deals: "1-9,11982"
        batch_size: 4
        variants:
          three: {cells: 3}
        """,
    )
    code, _, err = cli(["run", ms, "--backend", "serial", "--out", tmp_path / "ms"], capsys)
    assert code == 0, err
    code, out, _ = cli(["verify", tmp_path / "ms"], capsys)
    wins = int(rows(tmp_path / "ms")["won"].sum())
    assert code == 0 and f"three: {wins:,} wins confirmed" in out and wins >= 8

    deals = tmp_path / "deals.txt"
    deals.write_text("# six seeded deals\n" + "\n".join(format_cards(d) for d in seeded_deals(DECK_52, 9, 0, 6)) + "\n")
    bg = write_study(
        tmp_path / "bg.yaml",
        """
        study: bg
        game: bakers_game
        deals_file: deals.txt
        batch_size: 4
        variants:
          six: {cells: 6}
        """,
    )
    code, _, err = cli(["run", bg, "--backend", "serial", "--out", tmp_path / "bg"], capsys)
    assert code == 0, err
    code, out, _ = cli(["verify", tmp_path / "bg"], capsys)
    assert code == 0 and "six: 6 wins confirmed" in out
    # the deals file changed since the run: its deals cannot be made again
    lines = deals.read_text().splitlines()
    deals.write_text("\n".join([lines[0], lines[2], lines[1], *lines[3:]]) + "\n")
    code, out, err = cli(["verify", tmp_path / "bg"], capsys)
    assert code == 2 and "changed since the run" in err and len(err.strip().splitlines()) == 1


def test_a_game_with_no_solutions_has_nothing_to_replay(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(registry._GAME_MODULES, "fake", "fake_game")
    study = write_study(
        tmp_path / "f.yaml",
        """
        study: f
        game: fake
        deals: 30
        batch_size: 10
        variants:
          plain: {}
        """,
    )
    code, _, err = cli(["run", study, "--backend", "serial", "--out", tmp_path / "f"], capsys)
    assert code == 0, err
    code, out, _ = cli(["verify", tmp_path / "f"], capsys)
    assert code == 0 and "fake stores no solutions: nothing to replay" in out and "3 parts complete" in out


def test_verify_replays_solver_variants_only_through_the_game_spec(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(registry._GAME_MODULES, "toy", "toy_game")
    study = write_study(
        tmp_path / "t.yaml",
        """
        study: t
        game: toy
        deals: 40
        seed: 3
        batch_size: 15
        variants:
          forced: {strategy: fixed}
          free: {strategy: solver}
        """,
    )
    code, _, err = cli(["run", study, "--backend", "serial", "--out", tmp_path / "t"], capsys)
    assert code == 0, err
    df = rows(tmp_path / "t")
    wins = int(df.filter(pl.col("variant") == "free")["won"].sum())
    assert 0 < wins < 40
    code, out, _ = cli(["verify", tmp_path / "t"], capsys)
    assert code == 0, out
    assert f"free: {wins:,} wins confirmed" in out
    assert f"fixed-strategy variants (no solutions, not replayed): forced {wins:,} wins" in out
    # a won row of the solver variant with its solution emptied is refused; the fixed variant's are not
    part = tmp_path / "t" / "variant=free" / "part-15-29.parquet"
    k = pq.read_table(part).column("won").to_pylist().index(True)
    _rewrite_part(part, lambda cols: cols["solution"].__setitem__(k, "AS 2S 3S 4S"))
    code, out, _ = cli(["verify", tmp_path / "t"], capsys)
    assert code == 1 and "expected the first four cards, got 'AS 2S 3S 4S'" in out


def test_a_fewest_passes_claim_is_held_to_every_known_line(tmp_path, capsys):
    """Perpetual Motion's solver claims rounds_optimal and a proven rounds_lower: verify refuses a claim that
    contradicts the row itself, and one that another variant's shorter line (replayed under the claiming
    variant's rules) refutes.  The claims are planted by hand: the forced automaton's long line, stored as
    "optimal", beside the solver's line of the same deal in a variant of the same rules."""
    from engine.reference import perpetual_motion as ref

    study = write_study(
        tmp_path / "pm.yaml",
        """
        study: pmv
        game: perpetual_motion
        deals: 6
        seed: 2009
        batch_size: 6
        variants:
          a: {preset: clarke, strategy: solver}
          b: {preset: clarke, strategy: solver, max_nodes: 50000}
        """,
    )
    code, _, err = cli(["run", study, "--backend", "serial", "--out", tmp_path / "r"], capsys)
    assert code == 0, err
    code, out, err = cli(["verify", tmp_path / "r"], capsys)
    assert code == 0, out + err
    decks = seeded_deals(DECK_52, 2009, 0, 6)
    forced = registry.get_game("perpetual_motion").rules("clarke")
    k, line = next((i, t) for i in range(6) if (t := ref.forced_solution([int(c) for c in decks[i]], forced)))
    passes = line.count(" / ") + 1
    theirs = int(rows(tmp_path / "r").filter((pl.col("variant") == "b") & (pl.col("deal") == k))["rounds"][0])

    def plant(cols):
        assert cols["won"][k] and cols["rounds"][k] < passes  # the solver's line is shorter than forced play's
        cols["solution"][k], cols["rounds"][k], cols["rounds_lower"][k] = line, passes, passes
        cols["rounds_optimal"][k] = True
        cols["rounds_lower"][(k + 1) % 6] = 0  # and a bound that is no bound

    _rewrite_part(tmp_path / "r" / "variant=a" / "part-0-5.parquet", plant)
    code, out, _ = cli(["verify", tmp_path / "r", "--show", "50"], capsys)
    assert code == 1
    assert (
        f"refused: variant a, deal {k}: rounds_optimal claims {passes} passes are the fewest, but variant b's line "
        f"of {theirs} passes also wins under its rules"
    ) in out
    assert f"refused: variant a, deal {(k + 1) % 6}: rounds_lower is 0: a won row's lies between 1 and rounds" in out
