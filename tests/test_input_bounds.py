"""Every input bounded, and the input problems that used to crash (issue 54, sections 3 and 4).

Each case ends with exit code 2 and one line on stderr, ``patience: error: ...``, naming the file or option, the
field, the value and what is allowed: no traceback, nothing written, no finished part lost.  The cases that used to
hang or exhaust memory (a billion-laughs YAML, a grid of a million variants, ``deals_file: /dev/zero`` or a FIFO,
``microsoft_deals: "1-2147483647"``, a cross join in ``query``) run in a child process with a timeout and a 4 GiB
address-space limit, so that a regression fails the test instead of the machine, and must end within 10 s and
2 GB (the child's peak resident memory, from ``wait4``).

Runs use the instant fake game (tests/fake_game.py) on the serial backend.
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pipeline_util import ROOT, TESTS, cli, one_line, small_tmpfs, snapshot, write_study

from engine import registry
from pipeline.config import load_study
from pipeline.runner import run_study

STUDY = """
study: bounds
game: fake
deals: 600
seed: 3
batch_size: 100
variants:
  easy: {preset: easy}
  hard: {preset: hard}
"""

SECONDS = 10  # every case ends within this ...
PEAK_BYTES = 2 << 30  # ... and this peak resident memory
CHILD_AS_LIMIT = 4 << 30  # a child that runs away is stopped here, not by the machine
CHILD_TIMEOUT = 60  # and here (a FIFO used to hang forever)


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(registry._GAME_MODULES, "fake", "fake_game")


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished run of STUDY (1,200 rows in 12 parts), made once; tests work on copies."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry._GAME_MODULES, "fake", "fake_game")
        base = tmp_path_factory.mktemp("bounds")
        study = write_study(base / "s.yaml", STUDY)
        run_study(load_study(study), base / "run", backend="serial")
    return base


@pytest.fixture
def run(finished, tmp_path, fake):
    """A copy of the finished run in this test's folder, and its study beside it."""
    shutil.copytree(finished / "run", tmp_path / "run")
    shutil.copy(finished / "s.yaml", tmp_path / "s.yaml")
    return tmp_path / "run"


def study_file(folder: Path, body: str, name: str = "t.yaml") -> Path:
    """A fake-game study with ``body`` (its deal source, variants, ...) after the name and game."""
    return write_study(folder / name, "study: t\ngame: fake\n" + body)


def child(argv: list, cwd: Path) -> tuple[int, str, float, int]:
    """`patience ARGV` (fake game registered) in a child process: (exit code, stderr, seconds, peak RSS bytes).

    The child has CHILD_TIMEOUT seconds (then it is killed: exit code -9) and CHILD_AS_LIMIT bytes of address
    space; its peak resident memory is its own, from ``wait4``."""
    boot = (
        f"import sys; sys.path.insert(0, {str(TESTS)!r}); sys.path.insert(0, {str(ROOT)!r}); "
        "import fake_game; fake_game.register(); from pipeline.cli import main; main(sys.argv[1:])"
    )

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (CHILD_AS_LIMIT, CHILD_AS_LIMIT))

    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", boot, *map(str, argv)],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=limit,
    )
    timer = threading.Timer(CHILD_TIMEOUT, proc.kill)
    timer.start()
    try:
        err = proc.stderr.read()  # until the child ends (or is killed)
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
        proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    return proc.returncode, err.decode(errors="replace"), time.perf_counter() - start, usage.ru_maxrss * 1024


def refused_in_bounds(argv: list, cwd: Path, *needles: str) -> str:
    """A child's refusal: exit 2, one line holding the needles, within SECONDS and PEAK_BYTES."""
    code, err, seconds, peak = child(argv, cwd)
    assert code == 2, (code, err[-2000:])
    line = one_line(err, *needles)
    assert seconds < SECONDS, seconds
    assert peak < PEAK_BYTES, peak
    return line


# --- YAML: nesting, aliases, billion laughs -------------------------------------------------------------------


def test_yaml_nested_500_deep_is_one_line(tmp_path, fake, capsys):
    study = study_file(tmp_path, "deals: 10\nvariants: {a: {}}\nreference: " + "[" * 500 + "]" * 500 + "\n")
    before = snapshot(tmp_path)
    code, _, err = cli(["run", study, "--backend", "serial", "--out", tmp_path / "out"], capsys)
    assert code == 2
    one_line(err, "t.yaml, line 5: field 'reference'", "nested more than 32 levels", "allowed: at most 32 levels")
    assert snapshot(tmp_path) == before


def test_billion_laughs_is_refused_within_bounds(tmp_path):
    anchors = ["  x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    anchors += [f"  x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 9) + "]" for i in range(1, 9)]
    study = study_file(tmp_path, "deals: 10\nseed: 1\nvariants: {a: {}}\ngrid:\n" + "\n".join(anchors) + "\n")
    assert study.stat().st_size < 1024
    refused_in_bounds(
        ["validate", study], tmp_path, "field 'grid'", "expands to 490,329,078 YAML nodes", "at most 1,000,000"
    )


def test_more_aliases_than_allowed(tmp_path, fake, capsys):
    study = study_file(tmp_path, "deals: 1\nvariants:\n  a: &a {}\nreference: [" + ", ".join(["*a"] * 1001) + "]\n")
    code, _, err = cli(["validate", study], capsys)
    assert code == 2
    one_line(err, "t.yaml, line 6: field 'reference'", "more than 1,000 YAML aliases", "allowed: at most 1,000")


def test_alias_inside_its_own_node(tmp_path, fake, capsys):
    study = study_file(tmp_path, "deals: 1\nvariants: {a: {}}\ngrid:\n  threshold: &x [1, *x]\n")
    code, _, err = cli(["validate", study], capsys)
    assert code == 2
    one_line(err, "t.yaml, line 6", "alias refers to the node that holds it", "allowed")


def test_study_file_larger_than_allowed(tmp_path, fake, capsys):
    study = study_file(tmp_path, "deals: 1\nvariants: {a: {}}\n" + ("# padding\n" * 110_000))
    code, _, err = cli(["validate", study], capsys)
    assert code == 2
    one_line(err, "t.yaml", "larger than 1,048,576 bytes", "allowed: a YAML study file of at most 1,048,576 bytes")


def test_study_file_that_is_a_fifo(tmp_path):
    os.mkfifo(tmp_path / "study.yaml")  # no writer: opening it for reading used to wait forever
    refused_in_bounds(["validate", tmp_path / "study.yaml"], tmp_path, "study.yaml", "FIFO", "allowed")


# --- grids, deals, deal sources ----------------------------------------------------------------------------------

GRID = (
    "study: g\ngame: perpetual_motion\ndeals: 10\nseed: 1\ngrid:\n"
    f"  max_rounds: [{', '.join(str(i) for i in range(1, 101))}]\n"
    f"  max_nodes: [{', '.join(str(i) for i in range(1, 76))}]\n"
    "  gather: [pile4_bottom_up, pile1_bottom_up, pile1_top_down, pile4_top_down]\n"
    "  direction: [leftmost, rightmost]\n  move_unit: [card, run]\n  cascade: [false, true]\n"
    "  discard: [dealt_four, pile_four]\n  deal_direction: [left_to_right, right_to_left]\n"
)


def test_grid_of_a_million_variants_is_refused_within_bounds(tmp_path):
    """A 1 KB grid that expands to 960,000 variants took 120 s and 1.2 GB in `validate` before it was refused."""
    study = write_study(tmp_path / "g.yaml", GRID)
    assert study.stat().st_size < 1100
    refused_in_bounds(
        ["validate", study],
        tmp_path,
        "field 'grid'",
        "max_rounds (100) x max_nodes (75) x gather (4) x direction (2) x move_unit (2)",
        "= 960,000 variants",
        "allowed: at most 10,000 variants",
    )


def test_variants_and_grid_together_count(tmp_path, capsys):
    grid = GRID.split("  gather:")[0]  # max_rounds (100) x max_nodes (75) ...
    grid = grid.replace(", 75]", ", 75, " + ", ".join(str(i) for i in range(76, 101)) + "]")  # ... x 100
    study = write_study(tmp_path / "g.yaml", grid + "variants:\n  clarke: {preset: clarke}\n")
    code, _, err = cli(["validate", study], capsys)
    assert code == 2
    one_line(err, "field 'grid'", "max_rounds (100) x max_nodes (100) = 10,000 variants (and 1 in 'variants')")


def test_deals_file_dev_zero(tmp_path):
    study = study_file(tmp_path, "deals_file: /dev/zero\nvariants: {a: {}}\n")
    refused_in_bounds(
        ["validate", study], tmp_path, "field 'deals_file'", "/dev/zero", "not a regular file", "allowed: a regular"
    )


def test_deals_file_fifo(tmp_path):
    os.mkfifo(tmp_path / "deals.txt")
    study = study_file(tmp_path, "deals_file: deals.txt\nvariants: {a: {}}\n")
    refused_in_bounds(["validate", study], tmp_path, "field 'deals_file'", "deals.txt", "FIFO", "allowed: a regular")


def test_deals_file_larger_than_allowed(tmp_path, fake, capsys):
    (tmp_path / "deals.txt").write_bytes(b"# padding\n" * 1_700_000)
    study = study_file(tmp_path, "deals_file: deals.txt\nvariants: {a: {}}\n")
    code, _, err = cli(["validate", study], capsys)
    assert code == 2
    one_line(err, "field 'deals_file'", "larger than 16,777,216 bytes", "allowed")


def test_microsoft_deals_of_every_number(tmp_path):
    study = study_file(tmp_path, 'microsoft_deals: "1-2147483647"\nvariants: {a: {}}\n')
    refused_in_bounds(
        ["validate", study],
        tmp_path,
        "field 'microsoft_deals'",
        "'1-2147483647'",
        "2,147,483,647 deals",
        "at most 10,000,000 deals",
    )


@pytest.mark.parametrize("command", ["validate", "run"])
def test_deals_beyond_the_maximum(command, tmp_path, fake, capsys):
    study = study_file(tmp_path, "deals: 9223372036854775807\nvariants: {a: {}}\n")
    before = snapshot(tmp_path)
    extra = ["--backend", "serial", "--out", tmp_path / "out"] if command == "run" else []
    code, _, err = cli([command, study, *extra], capsys)
    assert code == 2
    one_line(err, "field 'deals'", "9223372036854775807", "allowed: an integer in 1..1,000,000,000,000")
    assert snapshot(tmp_path) == before


def test_more_work_units_than_allowed(tmp_path, fake, capsys):
    study = study_file(tmp_path, "deals: 100000000000\nbatch_size: 1\nvariants: {a: {}}\n")
    code, _, err = cli(["validate", study], capsys)
    assert code == 2
    one_line(err, "field 'batch_size'", "100,000,000,000 work units", "allowed: at most 100,000,000 work units")


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_reference_must_be_finite(value, tmp_path, fake, capsys):
    study = study_file(tmp_path, f"deals: 10\nvariants: {{a: {{}}}}\nreference:\n  a: {{win_rate: {value}}}\n")
    before = snapshot(tmp_path)
    code, _, err = cli(["run", study, "--backend", "serial", "--out", tmp_path / "out"], capsys)
    assert code == 2
    shown = {".nan": "nan", ".inf": "inf", "-.inf": "-inf"}[value]
    one_line(err, "field 'reference.a.win_rate'", f"value {shown} is not a finite number", "allowed")
    assert snapshot(tmp_path) == before


# --- plan, query -----------------------------------------------------------------------------------------------


def test_plan_halfwidth_below_what_a_float_carries(capsys):
    code, out, err = cli(["plan", "--p", "0.5", "--halfwidth", "1e-200"], capsys)
    assert code == 2 and out == ""
    one_line(err, "option --halfwidth", "1e-200", "allowed: a number in [1e-07, 1)")


def test_query_negative_limit(run, capsys):
    code, out, err = cli(["query", run, "SELECT * FROM deals", "--limit", "-5"], capsys)
    assert code == 2 and out == ""
    one_line(err, "option --limit", "-5", "allowed: an integer in 1..1,000,000")


def test_query_cross_join_is_refused_within_bounds(run, tmp_path):
    """1,200 rows cross-joined are 1.44 million: more than a result may hold, whatever --limit says."""
    before = snapshot(run)
    sql = "SELECT * FROM deals a CROSS JOIN deals b"
    refused_in_bounds(["query", run, sql, "--limit", "3"], tmp_path, f"SQL {sql!r}", "more than 1,000,000 rows")
    assert snapshot(run) == before


def test_query_to_parquet_is_bounded_and_leaves_no_file(run, tmp_path):
    """--format parquet streams up to 5 million rows to the file; a three-way cross join (1.7 x 10^9 rows)
    is refused, and neither the file nor its temporary is left."""
    before = snapshot(run)
    out = tmp_path / "out" / "joined.parquet"
    out.parent.mkdir()
    sql = "SELECT * FROM deals a, deals b, deals c"
    refused_in_bounds(
        ["query", run, sql, "--format", "parquet", "--output", out], tmp_path, "more than 5,000,000 rows", "allowed"
    )
    assert list(out.parent.iterdir()) == []
    assert snapshot(run) == before


# --- run.json, --out, _tmp, compare ----------------------------------------------------------------------------

READERS = {"report": ["report"], "query": ["query", "SELECT count(*) AS n FROM deals"], "compare": ["compare"]}


@pytest.mark.parametrize("text", ["[]", "null"])
@pytest.mark.parametrize("reader", list(READERS))
def test_reader_of_a_manifest_that_is_not_an_object(reader, text, run, capsys):
    (run / "run.json").write_text(text + "\n")
    before = snapshot(run)
    argv = READERS[reader]
    code, out, err = cli([argv[0], run, *argv[1:]], capsys)
    assert code == 2 and out == ""
    one_line(err, f"{run / 'run.json'}: holds {text}, not a manifest", "allowed: a run.json written by")
    assert snapshot(run) == before


@pytest.mark.parametrize("text", ["[]", "null"])
def test_run_into_a_manifest_that_is_not_an_object(text, run, capsys):
    """No traceback and no part lost: either one line naming run.json (exit 2), or run.json rebuilt from the
    unit log and the parts (issue 54 section 2, exit 0) with the same rows."""
    parts = {k: v for k, v in snapshot(run).items() if k.startswith("variant=")}
    (run / "run.json").write_text(text + "\n")
    code, _, err = cli(["run", run.parent / "s.yaml", "--backend", "serial", "--out", run], capsys)
    assert "Traceback" not in err
    assert code in (0, 2), err
    if code == 2:
        one_line(err, "run.json", "allowed")
    else:
        import json

        assert isinstance(json.loads((run / "run.json").read_text()), dict)
    assert {k: v for k, v in snapshot(run).items() if k.startswith("variant=")} == parts


@pytest.mark.parametrize("depth", ["sub", "sub/deeper"])
def test_out_under_a_regular_file(depth, tmp_path, fake, capsys):
    study = write_study(tmp_path / "s.yaml", STUDY)
    (tmp_path / "afile").write_text("a file, not a folder")
    before = snapshot(tmp_path)
    code, _, err = cli(["run", study, "--backend", "serial", "--out", tmp_path / "afile" / depth], capsys)
    assert code == 2
    one_line(err, "option --out", f"{tmp_path / 'afile'} is a file, not a folder", "allowed")
    assert snapshot(tmp_path) == before


@pytest.fixture
def read_only(finished, tmp_path):
    """A read-only file system holding a finished run (a tmpfs remounted read-only): root only."""
    with small_tmpfs(tmp_path / "ro") as mount:
        shutil.copytree(finished / "run", mount / "run")
        subprocess.run(["mount", "-o", "remount,ro", mount], check=True, capture_output=True)
        yield mount


@pytest.mark.parametrize("target", ["run", "new"])
def test_out_on_a_read_only_file_system(target, read_only, finished, fake, capsys):
    """A finished run there (nothing to do) or a new folder: one line, nothing changed."""
    before = snapshot(read_only)
    code, _, err = cli(["run", finished / "s.yaml", "--backend", "serial", "--out", read_only / target], capsys)
    assert code == 2
    one_line(err, f"option --out: {read_only / target}: cannot write (Read-only file system)", "allowed")
    assert snapshot(read_only) == before


def test_out_that_cannot_be_written_anywhere(run, fake, capsys, monkeypatch):
    """The same without root: opening run.lock fails with EROFS, as on a read-only file system."""
    real_open = os.open

    def read_only_open(path, flags, *args, **kwargs):
        if str(path).startswith(str(run)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)

    before = snapshot(run)
    monkeypatch.setattr(os, "open", read_only_open)
    code, _, err = cli(["run", run.parent / "s.yaml", "--backend", "serial", "--out", run], capsys)
    monkeypatch.undo()
    assert code == 2
    one_line(err, f"option --out: {run}: cannot write (Read-only file system)", "allowed")
    assert snapshot(run) == before


def test_tmp_that_is_a_file(run, capsys):
    (run / "_tmp").write_text("not ours")
    before = snapshot(run)
    code, _, err = cli(["run", run.parent / "s.yaml", "--backend", "serial", "--out", run], capsys)
    assert code == 2
    one_line(err, f"option --out: {run / '_tmp'} is a file", "allowed")
    assert snapshot(run) == before


def test_leftover_tmp_of_a_failed_start_does_not_block(tmp_path, fake, capsys):
    """A start that failed while writing the first run.json leaves `_tmp/` (and maybe run.lock): the next run
    goes ahead, and clears it."""
    study = write_study(tmp_path / "s.yaml", STUDY)
    out = tmp_path / "out"
    (out / "_tmp").mkdir(parents=True)
    (out / "_tmp" / "0123456789abcdef0123456789abcdef.tmp").write_bytes(b'{"patience_manifest": 2, "stu')
    (out / "run.lock").write_text("")
    code, _, err = cli(["run", study, "--backend", "serial", "--out", out], capsys)
    assert code == 0, err
    assert not (out / "_tmp").exists() and (out / "run.json").is_file()


def test_foreign_tmp_folder_still_refused(tmp_path, fake, capsys):
    """A `_tmp/` holding anything but our temporary files is someone's: the folder is not empty."""
    study = write_study(tmp_path / "s.yaml", STUDY)
    (tmp_path / "out" / "_tmp").mkdir(parents=True)
    (tmp_path / "out" / "_tmp" / "notes.txt").write_text("keep")
    before = snapshot(tmp_path)
    code, _, err = cli(["run", study, "--backend", "serial", "--out", tmp_path / "out"], capsys)
    assert code == 2
    one_line(err, "is not empty and holds no run.json")
    assert snapshot(tmp_path) == before


def test_compare_of_a_run_with_no_parts_yet(run, capsys):
    for folder in run.glob("variant=*"):
        shutil.rmtree(folder)
    (run / "units.jsonl").unlink()
    before = snapshot(run)
    code, out, err = cli(["compare", run], capsys)
    assert code == 2 and out == ""
    one_line(err, f"RUN_DIR {run}: the run has no finished parts yet", "allowed")
    assert snapshot(run) == before
