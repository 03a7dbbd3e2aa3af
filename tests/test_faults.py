"""Faults end cleanly (issue 54, section 4): a signal or a full disk ends a run with one line, its run.json saying
how it ended (never "running"), no lock left behind and every finished part kept; the same command then finishes
the run.

Signals: SIGINT, SIGTERM and SIGHUP to a serial run of the instant fake game, slowed by the test-only fault switch
so that the signal lands part way; SIGTERM to a Ray run's driver alone, and to its whole process group (Ray's own
processes included), after which no process of the run may be left.  A full disk: a small tmpfs (root only,
skipped with the reason otherwise), full before a run starts (exit 2, nothing written) or filled while it plays
(exit 1, run.json "failed", written from the space the run kept back: pipeline.faults.SpaceReserve); and, without
root, the driver's own run.json write failing part way.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pipeline_util import cli, cli_subprocess, one_line, rows, small_tmpfs, snapshot, write_study

from engine import registry
from pipeline import runner
from pipeline.config import load_study
from pipeline.runner import run_study

STUDY = """
study: faults
game: fake
deals: 600
seed: 3
batch_size: 20
variants:
  easy: {preset: easy}
  hard: {preset: hard}
"""  # 60 units


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(registry._GAME_MODULES, "fake", "fake_game")


def wait_for_parts(out: Path, n: int, proc: subprocess.Popen | None = None, seconds: float = 120) -> None:
    deadline = time.time() + seconds
    while len(list(out.glob("variant=*/*.parquet"))) < n:
        assert time.time() < deadline, f"fewer than {n} parts in {seconds} s"
        assert proc is None or proc.poll() is None, proc.communicate()
        time.sleep(0.02)


def parts(out: Path) -> dict[str, str]:
    return {k: v for k, v in snapshot(out).items() if k.startswith("variant=") and k.endswith(".parquet")}


def ended_cleanly(out: Path, status: str, workers_killed: bool = False) -> dict:
    """run.json says ``status``; no lock, no temporary file and no space reserve left behind.  With
    ``workers_killed`` (a process group signalled: each worker is stopped where it is) a worker's temporary part
    may stay, which the next run removes; the driver's reserve (at least RESERVE_MARGIN bytes) may not."""
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == status, manifest["status"]
    assert not (out / "run.lock").exists()
    left = list((out / "_tmp").iterdir()) if (out / "_tmp").exists() else []
    if workers_killed:
        left = [p for p in left if p.stat().st_size >= runner.RESERVE_MARGIN]
    assert left == []
    return manifest


def finishes(study: Path, out: Path, kept: dict[str, str], capsys) -> None:
    """The same command finishes the run, every part already there unchanged, and gives a clean run's rows."""
    code, _, err = cli(["run", study, "--backend", "serial", "--out", out], capsys)
    assert code == 0, err
    assert {k: v for k, v in parts(out).items() if k in kept} == kept
    clean = out.parent / "clean"
    run_study(load_study(study), clean, backend="serial")
    assert rows(out).equals(rows(clean))
    shutil.rmtree(clean)


# --- signals --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_ends_a_serial_run_as_interrupted(name, tmp_path, fake, capsys):
    signum = getattr(signal, name)
    study = write_study(tmp_path / "s.yaml", STUDY)
    out = tmp_path / "run"
    proc = cli_subprocess(
        ["run", study, "--backend", "serial", "--out", out], env={"PATIENCE_TEST_FAULT": "sleep:0.05"}, fake=True
    )
    wait_for_parts(out, 5, proc)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "patience: error: interrupted", err
    manifest = ended_cleanly(out, "interrupted")
    assert manifest["error"] == name
    kept = parts(out)
    assert 5 <= len(kept) < 60
    finishes(study, out, kept, capsys)


def session_processes(sid: int) -> list[str]:
    """The processes of session ``sid`` still alive (from /proc): what a run left running."""
    left = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm)": state, ppid, pgrp, session
            if int(fields[3]) == sid and fields[0] != "Z":
                left.append(stat[: stat.rindex(")") + 1])
    return left


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="lists processes from /proc (Linux)")
@pytest.mark.parametrize("whom", ["driver", "process group"])
def test_sigterm_ends_a_ray_run_with_ray_shut_down(whom, tmp_path):
    """The driver shuts Ray down, releases the lock and says so; nothing of the run is left running."""
    study = write_study(
        tmp_path / "s.yaml",
        """
        study: faults
        game: perpetual_motion
        deals: 3000
        seed: 3
        batch_size: 50
        variants: {clarke: {preset: clarke}}
        """,
    )
    out = tmp_path / "run"
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["PATIENCE_TEST_FAULT"] = "sleep:0.1"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "run", str(study), "--backend", "ray", "--out", str(out)],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own session: Ray's processes are found by it, and a group can be signalled
    )
    try:
        wait_for_parts(out, 3, proc)
        if whom == "driver":
            proc.send_signal(signal.SIGTERM)
        else:
            os.killpg(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        deadline = time.time() + 60  # Ray's agents can take long to go on a loaded machine
        while session_processes(proc.pid) and time.time() < deadline:
            time.sleep(0.2)
        assert session_processes(proc.pid) == []
    finally:
        if proc.poll() is None or session_processes(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err and "Check failed" not in err, err
    assert err.strip().splitlines()[-1] == "patience: error: interrupted", err
    assert ended_cleanly(out, "interrupted", workers_killed=whom != "driver")["error"] == "SIGTERM"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="lists processes from /proc (Linux)")
def test_the_processes_left_after_a_shutdown_are_ended_and_the_deaf_ones_killed(tmp_path):
    """What the Ray executor does after ``ray.shutdown`` (a node's agents can outlive it by a minute): a child
    and the grandchild it started, which ignores SIGTERM, are both found, the child ends on SIGTERM and the
    grandchild is killed once the grace is over; a process not in the list is left alone."""
    from pipeline.faults import children, end_processes, process_trees

    ready = tmp_path / "deaf"
    deaf = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    deaf += f"open({str(ready)!r}, 'w'); time.sleep(60)"
    parent = f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {deaf!r}]); time.sleep(60)"
    before = children()
    child = subprocess.Popen([sys.executable, "-c", parent])
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = [c for c in children() if c not in before and c[0] == child.pid]
        deadline = time.time() + 20
        while not ready.exists() and time.time() < deadline:  # the grandchild ignores SIGTERM from now on
            time.sleep(0.05)
        tree = process_trees(started)
        assert [pid for pid, _ in tree][0] == child.pid and len(tree) == 2
        killed = end_processes(tree, grace=1.0)
        assert killed == [tree[1][0]]  # the deaf grandchild, and only it, needed SIGKILL
        assert child.wait(timeout=5) == -signal.SIGTERM
        assert process_trees(tree) == [] and bystander.poll() is None
    finally:
        for proc in (child, bystander):
            proc.kill()
            proc.wait()


# --- a full disk ----------------------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path):
    """An 8 MiB tmpfs: root only."""
    with small_tmpfs(tmp_path / "disk") as disk:
        yield disk


def fill(disk: Path) -> Path:
    """Write a file until the disk is full; its path (deleting it gives the space back)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for chunk in (1 << 16, 1 << 12, 1):
            try:
                while True:
                    os.write(fd, b"\0" * chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
    finally:
        os.close(fd)
    return filler


def test_a_full_disk_before_the_run_is_one_line_and_nothing_written(small_disk, tmp_path, fake, capsys):
    study = write_study(tmp_path / "s.yaml", STUDY)
    out = small_disk / "run"
    run_study(load_study(study), out, backend="serial")
    for part in sorted(out.glob("variant=hard/*.parquet"))[:3]:  # a run with units left to play
        part.unlink()
    fill(small_disk)
    for target in (out, small_disk / "new"):
        before = snapshot(small_disk)
        code, _, err = cli(["run", study, "--backend", "serial", "--out", target], capsys)
        assert code == 2
        one_line(err, f"option --out: {target}", "No space left on device", "allowed")
        assert snapshot(small_disk) == before


def test_a_disk_that_fills_during_a_run_ends_it_as_failed(small_disk, tmp_path, fake, capsys, monkeypatch):
    study = write_study(tmp_path / "s.yaml", STUDY)
    out = small_disk / "run"
    monkeypatch.setenv("PATIENCE_TEST_FAULT", "sleep:0.05")
    filled: list[Path] = []
    filler = threading.Thread(target=lambda: (wait_for_parts(out, 5), filled.append(fill(small_disk))))
    filler.start()
    code, _, err = cli(["run", study, "--backend", "serial", "--out", out], capsys)
    filler.join()
    assert code == 1 and "Traceback" not in err, err
    last = err.strip().splitlines()[-1]  # a part's write failed, or (should the disk fill just then) run.json's
    assert last.startswith("patience: error: ") and "No space left on device" in last, last
    assert "rerun the same command to resume" in last and "could not be updated" not in last
    manifest = ended_cleanly(out, "failed")  # written on a full disk, from the space the run kept back
    assert "No space left on device" in manifest["error"]
    kept = parts(out)
    assert len(kept) >= 5
    filled[0].unlink()
    monkeypatch.delenv("PATIENCE_TEST_FAULT")
    finishes(study, out, kept, capsys)


def test_run_json_that_cannot_be_written_part_way_ends_the_run_as_failed(tmp_path, fake, capsys, monkeypatch):
    """The driver's own write of run.json fails once while playing (as on a full disk): exit 1, one line, and
    run.json then says "failed"."""
    study = write_study(tmp_path / "s.yaml", STUDY)
    out = tmp_path / "run"
    monkeypatch.setenv("PATIENCE_TEST_FAULT", "sleep:0.05")
    monkeypatch.setattr(runner, "MANIFEST_EVERY", 0.0)  # run.json written after every unit
    real = runner.write_manifest
    calls = []

    def full_once(run_dir, manifest):
        calls.append(manifest["status"])
        if len(calls) == 4:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(out / "run.json"))
        real(run_dir, manifest)

    monkeypatch.setattr(runner, "write_manifest", full_once)
    code, _, err = cli(["run", study, "--backend", "serial", "--out", out], capsys)
    assert code == 1 and "Traceback" not in err, err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"patience: error: cannot write the run's records in {out}: ") and "No space" in last
    assert calls[-1] == "failed"
    ended_cleanly(out, "failed")
    monkeypatch.undo()
    monkeypatch.setitem(registry._GAME_MODULES, "fake", "fake_game")
    finishes(study, out, parts(out), capsys)


def test_a_run_that_cannot_keep_room_for_its_records_does_not_start(tmp_path, fake, capsys, monkeypatch):
    """The reserve cannot be made (a disk with room for the lock but not for it): exit 2, one line, and nothing of
    the run left behind, in a new folder or in a run part way."""
    study = write_study(tmp_path / "s.yaml", STUDY)
    run_study(load_study(study), tmp_path / "run", backend="serial")
    for part in sorted((tmp_path / "run").glob("variant=hard/*.parquet"))[:3]:
        part.unlink()

    def no_room(folder, size):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder))

    monkeypatch.setattr(runner, "SpaceReserve", no_room)
    for target in (tmp_path / "run", tmp_path / "new"):
        before = snapshot(tmp_path)
        code, _, err = cli(["run", study, "--backend", "serial", "--out", target], capsys)
        assert code == 2
        one_line(err, f"option --out: {target}: cannot keep ", "No space left on device", "allowed")
        assert snapshot(tmp_path) == before
