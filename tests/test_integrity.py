"""Issue 54, sections 1 and 2: a run's bytes are the ones the run wrote, or every tool says so.

One test per case of the issue's "Damage and tampering that passes today": a flipped bit that still decodes, a
valid part of another run copied in or a ``variant=`` folder linked to another run's, an edited run.json (its
totals, its seed), changed verdicts (a win turned into ``unsolvable`` with its solution cleared, a ``won``
column that contradicts ``outcome``, a forced-play row that claims a win), the commands that would overwrite
their own run, and a damaged part that a rerun must play again; then a property test of random bit flips.

Runs use the instant fake game (tests/fake_game.py: a fixed strategy, so its kernel replays its rows) and a
toy solver game (tests/toy_game.py: a ``solution`` column and ``check_solution``), on the serial backend.
"""

from __future__ import annotations

import json
import os
import random
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pipeline_util import cli, rows, write_study

from engine import registry
from pipeline.config import load_study
from pipeline.runner import run_study
from pipeline.verify import verify_run

STUDY = """
study: integrity
game: fake
deals: 400
seed: 5
batch_size: 100
variants:
  easy: {preset: easy}
  hard: {preset: hard}
"""
PART = "variant=easy/part-100-199.parquet"
REPORT = ["report"]
COMPARE = ["compare"]
QUERY = ["query", "SELECT variant, sum(CAST(won AS INT)) AS w FROM deals GROUP BY variant ORDER BY variant"]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A clean run, and another run of the same study with another seed (the source of foreign parts)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry._GAME_MODULES, "fake", "fake_game")
        base = tmp_path_factory.mktemp("integrity")
        study = write_study(base / "s.yaml", STUDY)
        run_study(load_study(study), base / "run", backend="serial")
        run_study(load_study(study, seed=6), base / "other", backend="serial")
    return base


@pytest.fixture
def run(made, tmp_path, monkeypatch):
    """A copy of the clean run (times kept, as ``cp -p`` keeps them); the study is at ``run.parent / "s.yaml"``."""
    monkeypatch.setitem(registry._GAME_MODULES, "fake", "fake_game")
    from pipeline import run_files

    monkeypatch.setattr(run_files, "_warned", set())
    shutil.copytree(made / "run", tmp_path / "run")
    shutil.copy(made / "s.yaml", tmp_path / "s.yaml")
    return tmp_path / "run"


def _rerun(run_dir, capsys, *extra):
    return cli(["run", run_dir.parent / "s.yaml", "--backend", "serial", "--out", run_dir, *extra], capsys)


def _refused_naming(code: int, err: str, rel: str) -> bool:
    """exit 1 and one line naming the part: what every reader does with a damaged or foreign part."""
    lines = err.strip().splitlines()
    return code == 1 and len(lines) == 1 and rel in lines[0] and "Traceback" not in err


def _rewrite(path, change) -> None:
    """Rewrite a part with ``change(dict of column lists)`` applied, its footer metadata kept (a careful forger)."""
    table = pq.read_table(path)
    cols = {name: table.column(name).to_pylist() for name in table.column_names}
    change(cols)
    new = pa.table({name: pa.array(cols[name], type=table.schema.field(name).type) for name in cols})
    pq.write_table(new.replace_schema_metadata(table.schema.metadata), path)


def _decoding_flip(data: bytes) -> tuple[int, int]:
    """(byte, bit) of a single-bit flip in the data pages after which the part still decodes, to other values."""
    original = pq.read_table(pa.BufferReader(data))
    footer = int.from_bytes(data[-8:-4], "little")
    positions = list(range(4, len(data) - 8 - footer))
    random.Random(54).shuffle(positions)
    for i in positions:
        for bit in range(8):
            flipped = bytearray(data)
            flipped[i] ^= 1 << bit
            try:
                table = pq.read_table(pa.BufferReader(bytes(flipped)))
            except Exception:  # noqa: BLE001 - most flips do not decode: not the case wanted here
                continue
            if not table.equals(original):
                return i, bit
    raise AssertionError("no decoding flip found")


# --- one flipped bit in a part that still decodes ------------------------------------------------------------


def test_a_flipped_bit_that_still_decodes_fails_verify_and_every_reader(run, capsys):
    path = run / PART
    data = path.read_bytes()
    i, bit = _decoding_flip(data)
    flipped = bytearray(data)
    flipped[i] ^= 1 << bit
    path.write_bytes(bytes(flipped))
    code, out, _ = cli(["verify", run], capsys)
    assert code == 1 and f"{PART}: " in out and "FAILED" in out, out
    for argv in (REPORT, COMPARE, QUERY):
        code, out, err = cli([argv[0], run, *argv[1:]], capsys)
        assert _refused_naming(code, err, PART), (argv, out, err)
        assert "sha256" in err or "bytes" in err


# --- a valid part from another run -------------------------------------------------------------------------------


def test_a_valid_part_of_another_run_copied_in_is_foreign_to_verify_readers_and_rerun(made, run, capsys):
    shutil.copy(made / "other" / PART, run / PART)
    clean = rows(made / "run")
    code, out, _ = cli(["verify", run], capsys)
    assert code == 1 and f"{PART}: its footer names deal source" in out and "1 foreign" in out, out
    for argv in (REPORT, COMPARE, QUERY):
        code, out, err = cli([argv[0], run, *argv[1:]], capsys)
        assert _refused_naming(code, err, PART), (argv, out, err)
    code, _, err = _rerun(run, capsys)
    assert code == 0 and "1 units run, 7 already done" in err and "not this run's" in err, err
    assert rows(run).equals(clean)
    assert cli(["verify", run], capsys)[0] == 0


def test_a_variant_folder_linked_to_another_runs_is_foreign_and_the_other_run_is_untouched(made, run, capsys):
    other = made / "other" / "variant=easy"
    before = {p.name: p.read_bytes() for p in other.iterdir()}
    shutil.rmtree(run / "variant=easy")
    (run / "variant=easy").symlink_to(other, target_is_directory=True)
    code, out, _ = cli(["verify", run], capsys)
    assert code == 1 and "4 foreign" in out, out
    for argv in (REPORT, COMPARE, QUERY):
        code, out, err = cli([argv[0], run, *argv[1:]], capsys)
        assert _refused_naming(code, err, "variant=easy/part-0-99.parquet"), (argv, out, err)
    code, _, err = _rerun(run, capsys)
    assert code == 0 and "4 units run, 4 already done" in err and "links removed" in err, err
    assert not (run / "variant=easy").is_symlink()
    assert {p.name: p.read_bytes() for p in other.iterdir()} == before  # nothing written into the other run
    assert rows(run).equals(rows(made / "run")) and cli(["verify", run], capsys)[0] == 0


# --- an edited run.json ----------------------------------------------------------------------------------------


def _edit_manifest(run_dir, change) -> None:
    m = json.loads((run_dir / "run.json").read_text())
    change(m)
    (run_dir / "run.json").write_text(json.dumps(m, indent=1))


def test_edited_totals_fail_verify_and_a_rerun_prints_the_real_ones(made, run, capsys):
    true_wins = json.loads((made / "run" / "run.json").read_text())["totals"]["variants"]["easy"]["wins"]

    def inflate(m):
        easy = m["totals"]["variants"]["easy"]
        easy["wins"] = easy["deals"]
        easy["outcomes"] = {"won": easy["deals"]}

    _edit_manifest(run, inflate)
    code, out, _ = cli(["verify", run], capsys)
    assert code == 1 and "its totals for variant 'easy' (400 wins of 400 deals)" in out, out
    code, out, err = _rerun(run, capsys)
    assert code == 0 and "nothing to do" in err and "rebuilt from the unit log" in err, err
    assert "100.00%" not in out and f"{100 * true_wins / 400:.2f}%" in out, out
    m = json.loads((run / "run.json").read_text())
    assert m["totals"]["variants"]["easy"]["wins"] == true_wins
    assert cli(["verify", run], capsys)[0] == 0


def test_an_edited_seed_fails_verify(run, capsys):
    def reseed(m):
        m["seed"] = 6
        m["config"]["deal_source"]["seed"] = 6
        m["deal_source"]["seed"] = 6

    _edit_manifest(run, reseed)
    code, out, _ = cli(["verify", run], capsys)
    assert code == 1, out
    assert "its fingerprint is not that of the config it records" in out
    assert f"{PART}: its footer names deal source" in out and "8 foreign" in out
    # the study's own config still names the run (its fingerprint): a rerun rebuilds run.json from it
    code, _, err = _rerun(run, capsys)
    assert code == 0 and "nothing to do" in err and "its fingerprint is not that of the config" in err, err
    assert json.loads((run / "run.json").read_text())["seed"] == 5 and cli(["verify", run], capsys)[0] == 0


# --- changed verdicts ----------------------------------------------------------------------------------------


def test_a_won_column_that_contradicts_outcome_is_refused_naming_the_deal(run, capsys):
    table = pq.read_table(run / PART)
    k = table.column("won").to_pylist().index(True)
    deal = table.column("deal")[k].as_py()
    _rewrite(run / PART, lambda cols: cols["won"].__setitem__(k, False))
    code, out, _ = cli(["verify", run], capsys)
    assert code == 1, out
    assert f"refused: variant easy, deal {deal}: won is False but outcome is 'won'" in out


def test_a_forced_play_row_that_claims_a_win_is_caught_and_the_kernel_names_it(run, capsys):
    table = pq.read_table(run / PART)
    k = table.column("won").to_pylist().index(False)
    deal = table.column("deal")[k].as_py()

    def claim(cols):  # a consistent row: won, outcome won, no card left
        cols["won"][k], cols["outcome"][k], cols["cards_left"][k] = True, "won", 0

    _rewrite(run / PART, claim)
    code, out, _ = cli(["verify", run], capsys)
    assert code == 1 and f"{PART}: its rows count" in out, out  # the footer's summary and the hash
    code, out, _ = cli(["verify", run, "--full"], capsys)
    assert code == 1 and "every row (--full)" in out
    assert f"refused: variant easy, deal {deal}: the kernel plays it as " in out and "the part says won" in out


@pytest.mark.parametrize("verdict", ["unsolvable", "unknown"])
def test_a_solver_win_turned_into_another_verdict_with_its_solution_cleared_fails(
    tmp_path, capsys, monkeypatch, verdict
):
    monkeypatch.setitem(registry._GAME_MODULES, "toy", "toy_game")
    study = write_study(
        tmp_path / "t.yaml",
        """
        study: t
        game: toy
        deals: 40
        seed: 3
        batch_size: 20
        variants:
          free: {strategy: solver}
        """,
    )
    assert cli(["run", study, "--backend", "serial", "--out", tmp_path / "t"], capsys)[0] == 0
    part = tmp_path / "t" / "variant=free" / "part-0-19.parquet"
    k = pq.read_table(part).column("won").to_pylist().index(True)

    def demote(cols):  # every column consistent with the new verdict: only the run's own records can tell
        cols["outcome"][k], cols["won"][k], cols["solution"][k] = verdict, False, ""

    _rewrite(part, demote)
    code, out, _ = cli(["verify", tmp_path / "t"], capsys)
    assert code == 1 and "variant=free/part-0-19.parquet: its rows count" in out, out
    assert "sha256" in out and "altered" in out
    assert _refused_naming(*cli(["report", tmp_path / "t"], capsys)[::2], "variant=free/part-0-19.parquet")


# --- commands that would overwrite their own run -------------------------------------------------------------


def test_query_output_into_the_run_folder_is_refused_and_writes_nothing(run, tmp_path, capsys):
    before = (run / PART).read_bytes()
    link = tmp_path / "elsewhere"
    link.symlink_to(run / "variant=easy", target_is_directory=True)
    for target in (run / PART, run / "variant=easy" / "new.parquet", link / "part-100-199.parquet", run):
        code, out, err = cli(["query", run, "SELECT * FROM deals", "--format", "parquet", "--output", target], capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "inside the run folder" in err, (target, err)
    assert (run / PART).read_bytes() == before and not (run / "variant=easy" / "new.parquet").exists()


def test_report_output_over_run_json_is_refused(run, capsys):
    before = (run / "run.json").read_bytes()
    for argv in (["report", run, "--format", "json"], ["compare", run, "--format", "json"]):
        code, _, err = cli([*argv, "--output", run / "run.json"], capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "inside the run folder" in err, err
    assert (run / "run.json").read_bytes() == before


def _part_times(run_dir) -> dict[str, int]:
    return {str(p.relative_to(run_dir)): p.stat().st_mtime_ns for p in run_dir.glob("variant=*/*.parquet")}


@pytest.mark.parametrize("damage", ["report", "garbage", "missing", "null"])
def test_a_damaged_run_json_is_rebuilt_by_a_rerun_without_fresh_and_no_part_is_lost(made, run, capsys, damage):
    report = cli(["report", run, "--format", "json"], capsys)[1]
    times = _part_times(run)
    if damage == "missing":
        (run / "run.json").unlink()
    else:
        (run / "run.json").write_text({"report": report, "garbage": "{not json", "null": "null"}[damage])
    code, out, err = _rerun(run, capsys)
    assert code == 0 and "nothing to do: all 8 units already done" in err and "rebuilt" in err, err
    assert _part_times(run) == times  # every valid part kept
    assert json.loads((run / "run.json").read_text())["repaired"]
    assert cli(["verify", run], capsys)[0] == 0 and rows(run).equals(rows(made / "run"))


def test_repair_rebuilds_a_run_json_of_another_config_when_the_parts_are_this_studys(made, run, capsys):
    shutil.copy(made / "other" / "run.json", run / "run.json")  # seed 6's manifest over seed 5's parts
    code, _, err = _rerun(run, capsys)
    assert code == 2 and "different config" in err and "--repair" in err, err
    code, _, err = _rerun(run, capsys, "--repair")
    assert code == 0 and "nothing to do" in err, err
    assert cli(["verify", run], capsys)[0] == 0


# --- a damaged part: the rerun plays it again --------------------------------------------------------------------


def test_a_damaged_part_is_played_again_by_a_rerun_never_nothing_to_do(made, run, capsys):
    data = bytearray((run / PART).read_bytes())
    data[len(data) // 3] ^= 0x10
    (run / PART).write_bytes(bytes(data))
    code, _, err = _rerun(run, capsys)
    assert code == 0 and "1 units run, 7 already done" in err and "damaged or not this run's" in err, err
    assert rows(run).equals(rows(made / "run")) and cli(["verify", run], capsys)[0] == 0


def test_damage_that_keeps_size_and_time_is_found_by_repair_and_verify(made, run, capsys):
    """The readers' and the rerun's quick check trusts a part whose size and time are the recorded ones;
    ``--repair`` and ``verify`` hash every part."""
    path = run / PART
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x10
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert cli(["verify", run], capsys)[0] == 1
    code, _, err = _rerun(run, capsys, "--repair")
    assert code == 0 and "1 units run, 7 already done" in err, err
    assert rows(run).equals(rows(made / "run"))


def test_a_copy_with_new_times_is_hashed_once_and_trusted(made, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(registry._GAME_MODULES, "fake", "fake_game")
    copy = tmp_path / "run"
    shutil.copytree(made / "run", copy, copy_function=shutil.copyfile)  # `cp -r`: new times, same bytes
    shutil.copy(made / "s.yaml", tmp_path / "s.yaml")
    assert cli(["report", copy], capsys)[0] == 0
    lines = len((copy / "units.jsonl").read_text().splitlines())
    code, _, err = _rerun(copy, capsys)
    assert code == 0 and "nothing to do" in err, err
    assert len((copy / "units.jsonl").read_text().splitlines()) == lines + 8  # the new times, recorded
    _rerun(copy, capsys)
    assert len((copy / "units.jsonl").read_text().splitlines()) == lines + 8  # ... once


def test_the_unit_log_records_each_parts_hash_rows_and_deal_range(run):
    import hashlib

    log = [json.loads(line) for line in (run / "units.jsonl").read_text().splitlines()]
    assert len(log) == 8
    for rec in log:
        path = run / f"variant={rec['variant']}" / f"part-{rec['first']}-{rec['last']}.parquet"
        assert rec["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert rec["bytes"] == path.stat().st_size and rec["mtime_ns"] == path.stat().st_mtime_ns
        assert rec["count"] == pq.read_metadata(path).num_rows == rec["last"] - rec["first"] + 1


def test_a_run_from_before_hashes_verifies_as_before_and_a_rerun_records_them(run, capsys):
    lines = [json.loads(line) for line in (run / "units.jsonl").read_text().splitlines()]
    old = [{k: v for k, v in rec.items() if k not in ("sha256", "bytes", "mtime_ns")} for rec in lines]
    (run / "units.jsonl").write_text("".join(json.dumps(rec) + "\n" for rec in old))
    _edit_manifest(run, lambda m: m.pop("part_hashes"))
    code, out, err = cli(["verify", run], capsys)
    assert code == 0 and "no hashes recorded" in out, out
    assert cli(["report", run], capsys)[0] == 0
    code, _, err = _rerun(run, capsys)
    assert code == 0 and "nothing to do" in err, err
    assert len((run / "units.jsonl").read_text().splitlines()) == 16  # each part's hash, recorded once
    code, out, _ = cli(["verify", run], capsys)
    assert code == 0 and "8 parts whose sha256 is the one the unit log records" in out, out


# --- random single-bit flips ---------------------------------------------------------------------------------


def test_random_single_bit_flips_fail_verify_or_leave_the_data_unchanged(run):
    path = run / PART
    data = path.read_bytes()
    original = pq.read_table(path)
    rng = random.Random(2054)
    for _ in range(40):
        i, bit = rng.randrange(len(data)), rng.randrange(8)
        flipped = bytearray(data)
        flipped[i] ^= 1 << bit
        path.write_bytes(bytes(flipped))
        result = verify_run(run)
        if result.ok:
            assert pq.read_table(path).equals(original), (i, bit)
        else:
            assert result.problem_kinds.keys() <= {"altered", "damaged", "wrong", "foreign"}, (i, bit, result)
    path.write_bytes(data)
    assert verify_run(run).ok
