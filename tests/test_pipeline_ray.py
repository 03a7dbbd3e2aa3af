"""The Ray backend on one local, session-scoped instance (num_cpus=2, 127.0.0.1 only, no dashboard).

Same rows as the serial backend (whatever the batch size), a worker that dies
is retried, an exception in the engine is not retried and fails the run.
"""

from __future__ import annotations

import json
import logging
import os

import pytest
from pipeline_util import cli, rows, write_study

from pipeline.config import load_study
from pipeline.runner import run_study

pytestmark = pytest.mark.ray

STUDY = """
study: ray-study
game: perpetual_motion
deals: 2000
seed: 77
batch_size: 300
variants:
  clarke: {preset: clarke}
  masten: {preset: masten}
  pysolfc: {preset: pysolfc}
"""


@pytest.fixture(scope="session")
def ray_local():
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # before ray is imported: bind 127.0.0.1
    import ray

    if ray.is_initialized():
        yield ray
        return
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level=logging.WARNING,
        log_to_driver=False,
    )
    yield ray
    ray.shutdown()


@pytest.fixture(scope="session")
def serial_rows(tmp_path_factory):
    d = tmp_path_factory.mktemp("serial")
    study = write_study(d / "s.yaml", STUDY)
    run_study(load_study(study, batch_size=500), d / "out", backend="serial")
    return study, rows(d / "out")


def test_local_ray_listens_on_loopback_only(ray_local):
    assert {n["NodeManagerAddress"] for n in ray_local.nodes()} == {"127.0.0.1"}
    assert ray_local.cluster_resources()["CPU"] == 2


def test_ray_gives_the_serial_rows_whatever_the_batch_size(ray_local, serial_rows, tmp_path):
    study, expected = serial_rows
    outcome = run_study(load_study(study), tmp_path / "ray", backend="ray")
    assert outcome.units_total == 3 * 7
    got = rows(tmp_path / "ray")
    assert got.height == 6000 and got.equals(expected)
    m = json.loads((tmp_path / "ray" / "run.json").read_text())
    assert m["executor"]["backend"] == "ray" and m["status"] == "complete"


def test_a_dead_worker_is_retried_and_the_run_completes(ray_local, serial_rows, tmp_path, monkeypatch):
    study, expected = serial_rows
    marker = tmp_path / "died"
    monkeypatch.setenv("PATIENCE_TEST_FAULT", f"die_once:{marker}")
    run_study(load_study(study, batch_size=400), tmp_path / "out", backend="ray")
    assert marker.exists()  # a worker really did exit hard part way
    assert rows(tmp_path / "out").equals(expected)


def test_an_engine_exception_is_not_retried_and_fails_the_run(ray_local, tmp_path, monkeypatch, capsys):
    study = write_study(tmp_path / "s.yaml", STUDY)
    attempts = tmp_path / "attempts"
    monkeypatch.setenv("PATIENCE_TEST_FAULT", f"raise:{attempts}")
    code, _, err = cli(["run", study, "--backend", "ray", "--out", tmp_path / "out"], capsys)
    assert code == 1
    line = [ln for ln in err.splitlines() if ln.startswith("patience: error:")]
    assert len(line) == 1 and "test fault: engine failure" in line[0] and "failed" in line[0]
    keys = attempts.read_text().split()
    assert keys and len(keys) == len(set(keys))  # every unit tried once: no retries of exceptions
    assert json.loads((tmp_path / "out" / "run.json").read_text())["status"] == "failed"


def test_cli_run_on_ray_then_report(ray_local, serial_rows, tmp_path, capsys):
    study, expected = serial_rows
    code, out, err = cli(
        ["run", study, "--backend", "ray", "--num-cpus", "2", "--batch-size", "1000", "--out", tmp_path / "out"], capsys
    )
    assert code == 0, err
    assert "pysolfc" in out and "win rate" in out
    assert rows(tmp_path / "out").equals(expected)
