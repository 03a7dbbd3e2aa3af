"""Results on object storage (issue 12, section 3): ``--out s3://bucket/prefix`` against a real S3 API.

The S3 API is moto's standalone server (``moto[server]``), started here on 127.0.0.1 on a free port
(session-scoped).  pyarrow finds it the standard way, through ``AWS_ENDPOINT_URL``; the credentials are
the standard environment variables.  They are set when this module is collected, before any test (or
Ray instance) starts, so Ray workers started later inherit them as a cluster's workers would have their
own; ``~/.aws`` is pointed away and the instance metadata service is off, so nothing but the server here
is ever asked.  The secret values are distinctive, and every object, every message and run.json are
searched for them.
"""

from __future__ import annotations

import json
import logging
import os
import socket

import polars as pl
import pytest
from pipeline_util import cli, rows, write_study

from engine import registry

SECRET = "patience-test-secret-4d9f7c2e1b"
TOKEN = "patience-test-session-token-8a31e5"
KEY_ID = "AKIAPATIENCETEST0001"


def _bound_socket() -> socket.socket:
    """A socket bound to a free port of 127.0.0.1, held: no other process (a Ray node of another test worker,
    say) can take its port between the moment it is chosen and the moment it is used."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s


# The S3 server's port is chosen when this module is imported (AWS_ENDPOINT_URL must be in the environment before
# any Ray instance of this process starts, so that its workers inherit it) but served only when the first test
# asks for it: the socket listens from now on, and the server takes it over (a port merely found free and bound
# later could be taken in between).
LISTENING = _bound_socket()
LISTENING.listen(64)
PORT = LISTENING.getsockname()[1]
os.environ.update(
    {
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{PORT}",
        "AWS_ACCESS_KEY_ID": KEY_ID,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_SESSION_TOKEN": TOKEN,
        "AWS_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/patience-test-credentials",
        "AWS_CONFIG_FILE": "/nonexistent/patience-test-config",
    }
)

STUDY = """
study: s3study
game: fake
deals: 400
seed: 5
batch_size: 100
variants:
  easy: {preset: easy}
  "hard,x=1": {preset: hard}  # named as a grid names its variants: percent-encoded in the key
"""
HARD = "hard%2Cx%3D1"


@pytest.fixture(scope="session")
def moto_server():
    import threading

    import boto3
    from moto.server import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no request log in the test output
    app = DomainDispatcherApplication(create_backend_app)
    server = make_server(
        "127.0.0.1", PORT, app, threaded=True, request_handler=MotoRequestHandler, fd=LISTENING.fileno()
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    boto3.client("s3").list_buckets()  # answers before any test starts
    yield f"http://127.0.0.1:{PORT}"
    server.shutdown()
    thread.join()


@pytest.fixture
def s3(moto_server):
    import boto3

    return boto3.client("s3")


_n = [0]


@pytest.fixture
def bucket(s3):
    """A new bucket per test (each URI also gets its own file system object: pipeline.run_store caches by URI)."""
    _n[0] += 1
    name = f"patience-{os.getpid()}-{_n[0]}"
    s3.create_bucket(Bucket=name)
    return name


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(registry._GAME_MODULES, "fake", "fake_game")
    from pipeline import run_files

    monkeypatch.setattr(run_files, "_warned", set())


def keys(s3, bucket: str) -> dict[str, bytes]:
    out = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for obj in page.get("Contents", []):
            out[obj["Key"]] = s3.get_object(Bucket=bucket, Key=obj["Key"])["Body"].read()
    return out


def no_secret(*texts) -> None:
    for text in texts:
        data = text if isinstance(text, bytes) else str(text).encode()
        for secret in (SECRET, TOKEN, KEY_ID):
            assert secret.encode() not in data


def _same(local: str, remote: str, local_dir, uri: str) -> None:
    assert remote.replace(uri, "RUN") == local.replace(str(local_dir), "RUN")


READERS = [
    ["report"],
    ["report", "--format", "json"],
    ["report", "--format", "markdown"],
    [
        "query",
        "SELECT variant, count(*) AS n, sum(CAST(won AS INT)) AS w FROM deals GROUP BY variant ORDER BY variant",
        "--format",
        "csv",
    ],
    ["compare"],
    ["verify"],
]


def test_run_resume_and_every_reader_on_s3_match_a_local_run(fake, s3, bucket, tmp_path, capsys):
    study = write_study(tmp_path / "s.yaml", STUDY)
    local = tmp_path / "local"
    uri = f"s3://{bucket}/runs/first"
    code, _, err = cli(["run", study, "--backend", "serial", "--out", local], capsys)
    assert code == 0, err
    code, out, err = cli(["run", study, "--backend", "serial", "--out", uri], capsys)
    assert code == 0, err
    assert f"results in {uri}" in err
    seen = [out, err]
    objects = keys(s3, bucket)
    parts = sorted(k for k in objects if k.startswith("runs/first/variant="))
    assert parts == sorted(f"runs/first/{p.relative_to(local).as_posix()}" for p in local.glob("variant=*/*.parquet"))
    assert "runs/first/run.json" in objects and any(k.startswith("runs/first/units/") for k in objects)
    assert not any("_tmp" in k or k.endswith("run.lock") for k in objects)  # straight to the final keys; unlocked
    manifest = json.loads(objects["runs/first/run.json"])
    assert manifest["status"] == "complete" and manifest["totals"]["units_done"] == 8
    assert rows(uri).equals(rows(local))
    assert set(rows(uri)["variant"]) == {"easy", "hard,x=1"}
    for argv in READERS:
        lc, lo, le = cli([argv[0], local, *argv[1:]], capsys)
        rc, ro, re_ = cli([argv[0], uri, *argv[1:]], capsys)
        assert (lc, rc) == (0, 0), le + re_
        if argv[0] == "verify":
            assert "8 parts complete and in order" in ro and "all well" in ro
        else:
            _same(lo, ro, local, uri)
        seen += [ro, re_]
    html = tmp_path / "r.html"
    code, _, err = cli(["report", uri, "--format", "html", "--output", html], capsys)
    assert code == 0 and 'id="chart-winrate"' in html.read_text(), err
    # resume lists the prefix: a finished run has nothing to do; a deleted part is played again
    code, _, err = cli(["run", study, "--backend", "serial", "--out", uri], capsys)
    assert code == 0 and "nothing to do: all 8 units already done" in err, err
    s3.delete_object(Bucket=bucket, Key=f"runs/first/variant={HARD}/part-200-299.parquet")
    code, _, err = cli(["run", study, "--backend", "serial", "--out", uri], capsys)
    assert code == 0 and "1 units run, 7 already done" in err, err
    assert rows(uri).equals(rows(local))
    # a stray object is ignored with a warning; a damaged part ends the command naming its key
    s3.put_object(Bucket=bucket, Key="runs/first/variant=easy/notes.txt", Body=b"not a part")
    code, out, err = cli(["report", uri, "--format", "csv"], capsys)
    assert code == 0 and "warning" in err and f"{uri}/variant=easy/notes.txt" in err
    _same(cli(["report", local, "--format", "csv"], capsys)[1], out, local, uri)
    s3.put_object(Bucket=bucket, Key="runs/first/variant=easy/part-0-99.parquet", Body=b"PAR1")
    code, _, err = cli(["report", uri], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert f"{uri}/variant=easy/part-0-99.parquet" in err and "delete it and rerun" in err
    seen += [err]
    # nothing secret in any object (run.json, Parquet metadata, unit log) or anything printed
    no_secret(*keys(s3, bucket).values(), *seen)


def test_bad_input_is_one_line_exit_2_and_writes_nothing(fake, s3, bucket, tmp_path, capsys, monkeypatch):
    study = write_study(tmp_path / "s.yaml", STUDY)
    before = {b["Name"] for b in s3.list_buckets()["Buckets"]}
    errors = []

    def refused(uri, probe):
        code, out, err = cli(["run", study, "--backend", "serial", "--out", uri], capsys)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and probe in err, err
        errors.append(err)

    refused(f"s3://no-such-bucket-{os.getpid()}/runs/x", "does not exist")
    refused(f"s3://{bucket}", "names a bucket but no prefix")
    refused(f"s3://{bucket}/x?secret_key={SECRET}", "carries credentials")
    with monkeypatch.context() as m:
        for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
            m.delenv(var)
        refused(f"s3://{bucket}/runs/nocreds", "no AWS credentials found")
    with monkeypatch.context() as m, _bound_socket() as closed:  # bound, held, never listening: refused
        m.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{closed.getsockname()[1]}")
        refused(f"s3://{bucket}/runs/unreachable", "cannot reach http://127.0.0.1:")
    assert keys(s3, bucket) == {}  # not one object, not even a lock
    assert {b["Name"] for b in s3.list_buckets()["Buckets"]} == before  # and no bucket made
    code, _, err = cli(["report", f"s3://{bucket}/runs/none"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "nothing under this prefix" in err
    no_secret(*errors, err)


def test_a_lock_on_object_storage_refuses_a_live_holder_and_takes_over_a_dead_one(fake, s3, bucket, tmp_path, capsys):
    import subprocess
    import sys

    study = write_study(tmp_path / "s.yaml", STUDY)
    uri = f"s3://{bucket}/runs/locked"
    lock = {"host": "node-7", "pid": 4242, "state": "running", "since": "2026-12-01T00:00:00Z"}
    s3.put_object(Bucket=bucket, Key="runs/locked/run.lock", Body=json.dumps(lock).encode())
    code, _, err = cli(["run", study, "--backend", "serial", "--out", uri], capsys)
    assert code == 2 and "in use by a run in progress (host node-7, pid 4242" in err
    assert f"delete {uri}/run.lock if that run is gone" in err
    assert set(keys(s3, bucket)) == {"runs/locked/run.lock"}
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    lock.update(host=socket.gethostname(), pid=int(dead.stdout))  # a process of this host that has ended
    s3.put_object(Bucket=bucket, Key="runs/locked/run.lock", Body=json.dumps(lock).encode())
    code, _, err = cli(["run", study, "--backend", "serial", "--out", uri], capsys)
    assert code == 0, err
    assert "runs/locked/run.lock" not in keys(s3, bucket)
    # another config into the same prefix is refused; --fresh clears the old run's objects first
    code, _, err = cli(["run", study, "--backend", "serial", "--out", uri, "--deals", "200"], capsys)
    assert code == 2 and "holds a run of a different config (deal_source differ)" in err, err
    code, _, err = cli(["run", study, "--backend", "serial", "--out", uri, "--deals", "200", "--fresh"], capsys)
    assert code == 0, err
    parts = sorted(k.split("/", 2)[2] for k in keys(s3, bucket) if "/variant=" in k)
    assert parts == [f"variant={v}/part-{a}-{b}.parquet" for v in ("easy", HARD) for a, b in ((0, 99), (100, 199))]


PM_STUDY = """
study: s3ray
game: perpetual_motion
deals: 600
seed: 21
batch_size: 200
variants:
  clarke: {preset: clarke}
  masten: {preset: masten}
"""


@pytest.fixture(scope="session")
def ray_session():
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # before ray is imported: bind 127.0.0.1
    import ray

    if ray.is_initialized():  # another module's session instance (tests/test_pipeline_ray.py)
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


@pytest.mark.ray
def test_ray_workers_write_to_the_same_uri(ray_session, s3, bucket, tmp_path):
    from pipeline.config import load_study
    from pipeline.runner import run_study

    study = write_study(tmp_path / "pm.yaml", PM_STUDY)
    run_study(load_study(study), tmp_path / "serial", backend="serial")
    uri = f"s3://{bucket}/runs/ray"
    outcome = run_study(load_study(study), uri, backend="ray")
    assert outcome.units_run == 6
    got = rows(uri)
    assert got.height == 1200 and got.equals(rows(tmp_path / "serial"))
    manifest = json.loads(keys(s3, bucket)["runs/ray/run.json"])
    assert manifest["executor"]["backend"] == "ray" and manifest["status"] == "complete"
    no_secret(*keys(s3, bucket).values())
    assert pl.Series(got["deal"]).n_unique() == 600


def test_a_foreign_part_on_s3_is_refused_and_replayed_and_run_json_rebuilt(fake, s3, bucket, tmp_path, capsys):
    """Issue 54 on object storage: each part's hash is in the unit log's chunks; readers check it (the listing's
    size and time first), a rerun plays a part that is not this run's again, and a run.json that is not a
    manifest is rebuilt without --fresh."""
    study = write_study(tmp_path / "s.yaml", STUDY)
    uri, other = f"s3://{bucket}/runs/mine", f"s3://{bucket}/runs/other"
    assert cli(["run", study, "--backend", "serial", "--out", uri], capsys)[0] == 0
    assert cli(["run", study, "--backend", "serial", "--out", other, "--seed", "6"], capsys)[0] == 0
    clean = rows(uri)
    key = "variant=easy/part-100-199.parquet"
    body = s3.get_object(Bucket=bucket, Key=f"runs/other/{key}")["Body"].read()
    s3.put_object(Bucket=bucket, Key=f"runs/mine/{key}", Body=body)
    code, out, _ = cli(["verify", uri], capsys)
    assert code == 1 and f"{key}: its footer names deal source" in out, out
    code, _, err = cli(["report", uri], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1 and f"{uri}/{key}" in err, err
    code, _, err = cli(["run", study, "--backend", "serial", "--out", uri], capsys)
    assert code == 0 and "1 units run, 7 already done" in err, err
    assert rows(uri).equals(clean) and cli(["verify", uri], capsys)[0] == 0
    s3.put_object(Bucket=bucket, Key="runs/mine/run.json", Body=b"[]")
    code, _, err = cli(["run", study, "--backend", "serial", "--out", uri], capsys)
    assert code == 0 and "nothing to do" in err and "rebuilt" in err, err
    assert cli(["verify", uri], capsys)[0] == 0
