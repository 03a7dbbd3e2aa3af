"""How long ``pipeline.run_files.run_parts`` takes on a run of many parts (issue 51, item 5), measured here.

Every reader (report, query, compare, the HTML report, verify) starts with ``run_parts``: one listing of the
run's ``variant=*`` folders, each name checked against the run's plan, and by default each part checked
cheaply for damage.  This builds a fake run of ``--parts`` parts (default 10^5, over ``--variants``
variants; units of ``--batch`` deals) and times ``run_parts`` on it:

* ``local``: a folder under the system temp directory: run.json, then the same tiny but whole Parquet
  file (one row, with its footer) written as every part (the cheap check reads the size and the last
  8 bytes, nothing more);
* ``s3``: moto's S3 server (``moto[server]``) in a child process on 127.0.0.1, on a port the server picks
  itself and reports back (nothing else can take it in between).  The child puts the objects into its own
  in-memory bucket directly (10^5 PUTs over HTTP would take minutes and measure nothing of ours), plus
  ``--unit-chunks`` unit-log chunk objects under ``units/`` as a real run has; this process reads them
  through pyarrow's S3 file system over HTTP, exactly as the readers do.  The server is another process:
  its CPU is not in this process's CPU-seconds, but its time per listed page is in the wall clock.

Each case is timed ``--repeat`` times (the first call also opens the file system and, locally, warms the
page cache) and the median, minimum and maximum of the wall clock and of this process's CPU time are
printed, with ``check=True`` (what readers call) and ``check=False``.  ``--profile`` prints cProfile's top
functions for one call of each case.  The machine may be shared: the load average is printed.

Usage: .venv/bin/python scripts/bench_run_parts.py [--parts 100000] [--variants 2] [--repeat 7]
       [--only local|s3] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BUCKET = "bench-run-parts"
PREFIX = "runs/many"
KEY_ID, SECRET = "AKIABENCHRUNPARTS001", "bench-run-parts-secret"  # moto accepts any credentials


def tiny_part() -> bytes:
    """One whole Parquet file of one row, in the columns a part has: what every fake part holds."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"deal": pa.array([0], pa.int64()), "outcome": ["won"], "won": [True]}), sink)
    return sink.getvalue().to_pybytes()


def manifest(parts: int, variants: int, batch: int) -> dict:
    """A run.json from which ``plan_of_manifest`` rebuilds a plan of exactly ``parts`` units."""
    names = [f"v{i}" for i in range(variants)]
    chunks = -(-parts // variants)
    source = {"kind": "seeded", "seed": 1, "deals": chunks * batch}
    return {
        "patience_manifest": 1,
        "study": "many-parts",
        "game": "perpetual_motion",
        "status": "complete",
        "deal_source": source,
        "seed": 1,
        "units": [],
        "config": {
            "variants": {n: {"rules": {}} for n in names},
            "reference": {},
            "batch_size": batch,
            "deal_source": source,
        },
    }


def part_keys(parts: int, variants: int, batch: int) -> list[str]:
    """The parts' paths relative to the run root, ``variant=v<i>/part-<first>-<last>.parquet``."""
    from pipeline.work_units import part_name, variant_dir

    out = []
    for i in range(parts):
        chunk, v = divmod(i, variants)
        out.append(f"{variant_dir(f'v{v}')}/{part_name(chunk * batch, chunk * batch + batch - 1)}")
    return out


def build_local(folder: Path, parts: int, variants: int, batch: int) -> None:
    """The fake run as a local folder."""
    data = tiny_part()
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps(manifest(parts, variants, batch)))
    for rel in part_keys(parts, variants, batch):
        path = folder / rel
        try:
            path.write_bytes(data)
        except FileNotFoundError:
            path.parent.mkdir()
            path.write_bytes(data)


def serve(parts: int, variants: int, batch: int, unit_chunks: int) -> None:
    """Child process: moto's server on a port it picks, the fake run put straight into its bucket; prints
    ``PORT <n>`` once ready, then serves until its stdin closes."""
    import logging

    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.s3.models import s3_backends
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    backend = s3_backends[DEFAULT_ACCOUNT_ID]["global"]
    backend.create_bucket(BUCKET, "us-east-1")
    data = tiny_part()
    backend.put_object(BUCKET, f"{PREFIX}/run.json", json.dumps(manifest(parts, variants, batch)).encode())
    for rel in part_keys(parts, variants, batch):
        backend.put_object(BUCKET, f"{PREFIX}/{rel}", data, disable_notification=True)
    for i in range(unit_chunks):
        backend.put_object(
            BUCKET, f"{PREFIX}/units/{1_700_000_000_000 + i}-bench-0.jsonl", b"{}\n", disable_notification=True
        )
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    print(f"PORT {server.get_host_and_port()[1]}", flush=True)
    sys.stdin.read()
    server.stop()


def timed(target: str, check: bool, repeat: int, expect: int) -> list[tuple[float, float]]:
    """(wall s, CPU s) of ``repeat`` calls of ``run_parts(target, check=check)``."""
    from pipeline.run_files import run_parts

    out = []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        listing = run_parts(target, check=check)
        out.append((time.perf_counter() - w, time.process_time() - c))
        assert len(listing.parts) == expect and not listing.strays, (len(listing.parts), len(listing.strays))
    return out


def show(case: str, check: bool, times: list[tuple[float, float]]) -> None:
    walls, cpus = [t[0] for t in times], [t[1] for t in times]
    print(
        f"{case:6} check={check!s:5}  wall median {statistics.median(walls):7.3f} s "
        f"(min {min(walls):.3f}, max {max(walls):.3f}, first {walls[0]:.3f})   "
        f"CPU median {statistics.median(cpus):7.3f} s   [{len(times)} runs]",
        flush=True,
    )


def profile(target: str, label: str) -> None:
    from pipeline.run_files import run_parts

    prof = cProfile.Profile()
    prof.enable()
    run_parts(target)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(18)
    print(f"--- cProfile, {label}, one run_parts call (check=True) ---")
    print("\n".join(line for line in buf.getvalue().splitlines() if line.strip())[:6000])


def bench(target: str, label: str, args: argparse.Namespace) -> None:
    for check in (True, False):
        show(label, check, timed(target, check, args.repeat, args.parts))
    if args.profile:
        profile(target, label)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", type=int, default=100_000)
    ap.add_argument("--variants", type=int, default=2)
    ap.add_argument("--batch", type=int, default=100, help="deals per unit")
    ap.add_argument("--unit-chunks", type=int, default=1_000, help="unit-log objects under units/ (s3 only)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", choices=("local", "s3"))
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # the moto child
    args = ap.parse_args()
    if args.parts % args.variants:
        ap.error("--parts must be a multiple of --variants")
    if args.serve:
        serve(args.parts, args.variants, args.batch, args.unit_chunks)
        return
    print(
        f"run_parts on {args.parts:,} parts ({args.variants} variants); load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}",
        flush=True,
    )
    if args.only in (None, "local"):
        tmp = Path(tempfile.mkdtemp(prefix="bench-run-parts-"))
        try:
            t = time.perf_counter()
            build_local(tmp / "run", args.parts, args.variants, args.batch)
            print(f"local: built {tmp / 'run'} in {time.perf_counter() - t:.1f} s", flush=True)
            bench(str(tmp / "run"), "local", args)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.only in (None, "s3"):
        env = {
            **os.environ,
            "AWS_ACCESS_KEY_ID": KEY_ID,
            "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_REGION": "us-east-1",
            "AWS_EC2_METADATA_DISABLED": "true",
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/bench-credentials",
            "AWS_CONFIG_FILE": "/nonexistent/bench-config",
        }
        env.pop("AWS_SESSION_TOKEN", None)
        t = time.perf_counter()
        child = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--serve",
                "--parts",
                str(args.parts),
                "--variants",
                str(args.variants),
                "--batch",
                str(args.batch),
                "--unit-chunks",
                str(args.unit_chunks),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            line = child.stdout.readline()
            if not line.startswith("PORT "):
                raise SystemExit(f"the moto server did not start (said {line!r})")
            os.environ.pop("AWS_SESSION_TOKEN", None)
            os.environ.update({k: env[k] for k in env if k.startswith("AWS_")})
            os.environ["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{int(line.split()[1])}"
            print(
                f"s3: moto on {os.environ['AWS_ENDPOINT_URL']}, {args.parts:,} parts and {args.unit_chunks:,} "
                f"unit-log objects put in {time.perf_counter() - t:.1f} s",
                flush=True,
            )
            bench(f"s3://{BUCKET}/{PREFIX}", "s3", args)
        finally:
            child.stdin.close()
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()


if __name__ == "__main__":
    main()
