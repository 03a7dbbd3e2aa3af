"""Pipeline speed and memory (issue 3 section 7), measured here and never in timed tests.

1. The engine alone on one core: seeded deals + ``play_batch`` for N ``clarke`` deals (after warm-up).
2. ``patience run --backend ray --num-cpus 2`` on the same N deals, wall clock of the whole command
   (Python start-up, Ray start-up and shut-down, Parquet writing, the final report).  Target: <= 60% of (1).
3. The driver's peak memory (ru_maxrss of the driver process) for N/10 and N deals: it must stay under
   1 GiB and not grow with the number of deals.
4. ``patience report`` over a synthetic 10,000,000-row run folder: target under 5 s (whole command).
5. Ray's own CPU cost: a local instance started exactly as ``patience run`` starts it, two workers
   warmed with an empty task, CPU-seconds of every process in the driver's tree read from /proc
   before shut-down (so shut-down itself is not counted: a lower bound).  With E the engine's
   time and R this cost, no schedule on 2 cores can finish in under (E + R) / 2, so the ratio of
   (2) can never go below (E + R) / (2 E) whatever the pipeline does.
6. ``patience compare`` and ``patience report --format html`` over a synthetic run of ``--paired-rows`` rows
   (default 10^8: 2 variants x 5x10^7 deals, 2,000 parts of 50,000): wall clock and peak memory of each
   whole command.  Target (issue 14): under 1 GiB at any size and under 10 s per 10^8 rows.  The parts are
   written directly in the schema ``patience run`` writes for Perpetual Motion (``--paired-shape forced``:
   solver columns at zero, as the fixed strategies leave them; ``solver``: ``nodes``, ``seconds`` and a
   ``solution`` string on won deals, so the report draws all three distributions), not played (this measures
   the readers, not the engine).  The folder lives under the system temp directory and is deleted after.
7. Work units at scale (issue 12): ``patience validate`` of the 128-variant grid x 10^10 deals at batch
   100,000 (12.8 M units; targets under 1 s and 200 MB); a ``--backend ray --num-cpus 2`` run of
   ``--scale-units`` tiny units (2 variants x 2-deal units; targets: driver peak under 500 MB, driver
   CPU under 0.5 ms a unit, both over the whole driver process, imports and final report included);
   rerunning it ("nothing to do", target under 10 s for the whole command: it prints the report from
   run.json's totals and reads no part), beside ``patience report`` over the same parts.
8. The playing phase of (2) (workers warm -> last unit recorded) against the engine alone on one core:
   target at least 1.8x on 2 workers.  Ray's start-up (with the workers' warm-up) and the rest are
   printed apart.
9. ``--only-playing --rounds R``: section 8 interleaved, for a machine whose speed drifts.  Each round
   times, back to back, the engine alone on one core (E), two bare engine processes at once on N/2
   deals each (B: what this machine's two cores give with no pipeline at all) and the Ray run's
   playing phase (P).  Per round: E / P is the target's speed-up, E / B the machine's own ceiling and
   B / P the pipeline's efficiency against that ceiling; the medians over rounds are printed.  Drift
   between rounds cancels in the ratios; drift within a round (about a minute) does not.

10. ``--only-integrity`` (issue 54): the cost of content integrity.  (a) One part's write, best of many: a
    ``--part-rows`` clarke unit's table written as before hashes (``pq.write_table`` to a temp file, renamed)
    against ``LocalStore.write_table`` (encoded in memory, hashed with sha256, written, renamed, ``stat``-ed),
    beside the unit's play time.  (b) ``patience run configs/perpetual_motion.yaml --deals N --backend serial``,
    wall clock, rounds alternating with ``--baseline-tree DIR`` (a checkout of the code before, run with
    ``PYTHONPATH=DIR``) when given.  (c) ``patience verify`` and ``verify --full`` of that run (or of
    ``--verify-run DIR``): wall clock and peak memory.

Usage: .venv/bin/python scripts/bench_pipeline.py [--deals 1000000] [--report-rows 10000000] [--skip-run]
       .venv/bin/python scripts/bench_pipeline.py --only-paired [--paired-rows 100000000] [--paired-shape forced]
       .venv/bin/python scripts/bench_pipeline.py --only-playing [--deals 2000000] [--rounds 5]
The machine may be shared: the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

ENGINE_CHILD = """
import sys, time
from engine.deals import seeded_deals
from engine.registry import get_game
n, batch = int(sys.argv[1]), 10_000
g = get_game("perpetual_motion"); rules = g.rules("clarke")
g.play_batch(seeded_deals(g.deck, 2009, 0, 1000), rules)  # warm-up: load compiled kernels
t = time.perf_counter()
for first in range(0, n, batch):
    g.play_batch(seeded_deals(g.deck, 2009, first, min(batch, n - first)), rules)
print(time.perf_counter() - t)
"""

DRIVER_CHILD = """
import resource, sys, time
from pipeline.cli import main
t = time.perf_counter()
try:
    main(sys.argv[1:])
    code = 0
except SystemExit as exc:
    code = exc.code
usage = resource.getrusage(resource.RUSAGE_SELF)
sys.stderr.write(f"BENCH code={code} seconds={time.perf_counter() - t:.3f} cpu={usage.ru_utime + usage.ru_stime:.3f} "
                 f"maxrss_kib={usage.ru_maxrss}\\n")
"""


RAY_CPU_CHILD = """
import logging, os, sys, time
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
t = time.perf_counter()
import ray
ray.init(address="local", num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
         logging_level=logging.WARNING, log_to_driver=False)
ready = ray.get([ray.remote(num_cpus=1)(lambda: os.getpid()).remote() for _ in range(2)])
wall = time.perf_counter() - t
def cpu_tree(root):
    parent, ticks = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(entry)] = int(fields[1])
            ticks[int(entry)] = int(fields[11]) + int(fields[12])
    def under(pid):
        while pid > 1:
            if pid == root:
                return True
            pid = parent.get(pid, 0)
        return False
    return sum(v for p, v in ticks.items() if under(p)) / os.sysconf("SC_CLK_TCK"), sum(map(under, ticks))
seconds, processes = cpu_tree(os.getpid())
ray.shutdown()
print(f"{seconds:.2f} {processes} {wall:.2f}")
"""


def ray_own_cpu() -> tuple[float, int, float]:
    """CPU-seconds of Ray's processes (start-up and two warm workers), their number, and the wall time."""
    out = subprocess.run([PY, "-c", RAY_CPU_CHILD], cwd=ROOT, check=True, capture_output=True, text=True)
    seconds, processes, wall = out.stdout.split()
    return float(seconds), int(processes), float(wall)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def engine_seconds(n: int) -> float:
    out = subprocess.run([PY, "-c", ENGINE_CHILD, str(n)], cwd=ROOT, check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def pipeline_run(study: Path, out: Path, n: int) -> dict:
    """Run the CLI in a child process; wall clock of the whole process and the driver's own peak RSS."""
    argv = ["run", str(study), "--backend", "ray", "--num-cpus", "2", "--deals", str(n), "--out", str(out), "--fresh"]
    t = time.perf_counter()
    proc = subprocess.run([PY, "-c", DRIVER_CHILD, *argv], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t
    line = next((ln for ln in proc.stderr.splitlines() if ln.startswith("BENCH ")), "")
    fields = dict(kv.split("=") for kv in line.split()[1:])
    if fields.get("code") != "0":
        raise SystemExit(f"patience run failed:\n{proc.stderr[-3000:]}")
    # "N units run, M already done, in X s": the time from a ready executor to the last unit.
    found = re.search(r"already done, in ([0-9.]+) s", proc.stderr)
    played = float(found.group(1)) if found else float("nan")
    found = re.search(r"backend start-up ([0-9.]+) s", proc.stderr)
    startup = float(found.group(1)) if found else float("nan")
    return {"wall": wall, "played": played, "startup": startup, "maxrss_mib": int(fields["maxrss_kib"]) / 1024}


def make_synthetic_run(folder: Path, rows: int, variants: int = 4, part_rows: int = 250_000) -> None:
    """A run folder shaped like a real one (manifest + hive parts), with plausible random values."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from engine.outcomes import OUTCOMES
    from pipeline.work_units import variant_dir

    rng = np.random.default_rng(0)
    names = [f"v{i}" for i in range(variants)]
    per_variant = rows // variants
    units = []
    outcome_strings = pa.array(OUTCOMES)
    for name in names:
        (folder / variant_dir(name)).mkdir(parents=True)
        for first in range(0, per_variant, part_rows):
            count = min(part_rows, per_variant - first)
            codes = np.where(rng.random(count) < 0.55, 0, 1).astype(np.uint8)
            table = pa.table(
                {
                    "deal": np.arange(first, first + count, dtype=np.int64),
                    "outcome": outcome_strings.take(pa.array(codes)),
                    "won": codes == 0,
                    "rounds": rng.integers(1, 400, count, dtype=np.int32),
                    "moves": rng.integers(0, 3000, count, dtype=np.int32),
                    "cards_left": np.where(codes == 0, 0, rng.integers(4, 52, count)).astype(np.int16),
                    "cycle_length": np.where(codes == 0, 0, rng.integers(1, 8, count)).astype(np.int32),
                }
            )
            rel = f"{variant_dir(name)}/part-{first}-{first + count - 1}.parquet"
            pq.write_table(table, folder / rel, compression="zstd")
            units.append(
                {
                    "key": f"{name}/part-{first}-{first + count - 1}",
                    "variant": name,
                    "state": "done",
                    "count": count,
                    "file": rel,
                }
            )
    manifest = {
        "study": "synthetic",
        "game": "perpetual_motion",
        "status": "complete",
        "outcomes": ["won", "cycle", "capped"],
        "columns": {
            "deal": "int64",
            "outcome": "string",
            "won": "bool",
            "rounds": "int32",
            "moves": "int32",
            "cards_left": "int16",
            "cycle_length": "int32",
        },
        "config": {"variants": {n: {} for n in names}, "reference": {}},
        "units": units,
    }
    (folder / "run.json").write_text(json.dumps(manifest))


def make_paired_run(folder: Path, rows: int, variants: int = 2, part_rows: int = 50_000, shape: str = "forced") -> None:
    """A finished Perpetual Motion run of ``rows`` rows written directly: every variant on the same deals in
    the same units (as ``patience run`` lays them out), outcomes correlated between variants like
    clarke vs masten, columns and dtypes as ``pipeline.worker.to_table`` writes them."""
    from urllib.parse import quote

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from engine.outcomes import OUTCOMES

    rng = np.random.default_rng(14)
    names = [f"v{i}" for i in range(variants)]
    per_variant = rows // variants
    strings = pa.array(OUTCOMES)
    cycle, won_code = OUTCOMES.index("cycle"), OUTCOMES.index("won")
    source = {"kind": "seeded", "seed": 14, "deals": per_variant}
    for name in names:
        (folder / ("variant=" + quote(name, safe=""))).mkdir(parents=True)
    for first in range(0, per_variant, part_rows):
        count = min(part_rows, per_variant - first)
        easy = rng.random(count)  # a deal's difficulty, shared by the variants: paired outcomes correlate
        for k, name in enumerate(names):
            won = easy < 0.55 - 0.45 * k / max(variants - 1, 1) + 0.05 * (rng.random(count) - 0.5)
            codes = np.where(won, won_code, cycle).astype(np.uint8)
            solver = shape == "solver"
            nodes = (rng.lognormal(6, 2, count).astype(np.int64) + 1) if solver else np.zeros(count, np.int64)
            seconds = rng.lognormal(-7, 1.5, count) if solver else np.zeros(count)
            solution = pa.array(np.where(won, "1 2 3 4 g " * 8, "").tolist()) if solver else pa.array([""] * count)
            table = pa.table(
                {
                    "deal": np.arange(first, first + count, dtype=np.int64),
                    "outcome": strings.take(pa.array(codes)),
                    "won": won,
                    "rounds": rng.integers(1, 400, count, dtype=np.int32),
                    "moves": rng.integers(0, 3000, count, dtype=np.int32),
                    "cards_left": np.where(won, 0, rng.integers(4, 52, count)).astype(np.int16),
                    "cycle_length": np.where(won, 0, rng.integers(1, 8, count)).astype(np.int32),
                    "nodes": nodes,
                    "seconds": seconds,
                    "rounds_optimal": np.zeros(count, dtype=bool),
                    "solution": solution,
                }
            )
            # the footer metadata ``patience run`` writes (pipeline.worker.run_unit): readers rely on it
            table = table.replace_schema_metadata(
                {
                    "patience.study": "synthetic-paired",
                    "patience.game": "perpetual_motion",
                    "patience.deal_source": json.dumps(source),
                    "patience.variant": name,
                    "patience.unit": f"{name}/part-{first}-{first + count - 1}",
                    "patience.summary": json.dumps(
                        {
                            "key": f"{name}/part-{first}-{first + count - 1}",
                            "variant": name,
                            "count": count,
                            "wins": int(won.sum()),
                            "outcomes": {"won": int(won.sum()), "cycle": int(count - won.sum())},
                        }
                    ),
                }
            )
            pq.write_table(
                table,
                folder / ("variant=" + quote(name, safe="")) / f"part-{first}-{first + count - 1}.parquet",
                compression="zstd",
            )
    manifest = {
        "study": "synthetic-paired",
        "game": "perpetual_motion",
        "status": "complete",
        "outcomes": ["won", "cycle", "capped"],
        "deal_source": source,
        "seed": 14,
        "config": {
            "variants": {n: {"rules": {}} for n in names},
            "reference": {},
            "batch_size": part_rows,
            "deal_source": source,
        },
        "units": [],
    }
    (folder / "run.json").write_text(json.dumps(manifest))


def command_cost(argv: list[str], tree: str | None = None) -> dict:
    """Wall clock and the process's own peak RSS for one whole ``patience ARGV`` in a child process (of the code
    in ``tree``, a checkout, instead of this one: run from there, with it first on the path)."""
    env = {**os.environ, "PYTHONPATH": tree} if tree else None
    t = time.perf_counter()
    proc = subprocess.run([PY, "-c", DRIVER_CHILD, *argv], cwd=tree or ROOT, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    line = next((ln for ln in proc.stderr.splitlines() if ln.startswith("BENCH ")), "")
    fields = dict(kv.split("=") for kv in line.split()[1:])
    if fields.get("code") not in ("0", "None"):
        raise SystemExit(f"patience {' '.join(argv)} failed:\n{proc.stderr[-3000:]}")
    return {"wall": wall, "cpu": float(fields.get("cpu", "nan")), "maxrss_mib": int(fields["maxrss_kib"]) / 1024}


def paired_bench(tmp: Path, rows: int, shape: str) -> None:
    folder = tmp / "paired"
    t = time.perf_counter()
    make_paired_run(folder, rows, shape=shape)
    size = sum(f.stat().st_size for f in folder.rglob("*.parquet")) / 2**20
    parts = sum(1 for _ in folder.rglob("*.parquet"))
    print(
        f"synthetic paired run ({shape}): {rows:,} rows in {parts:,} parts ({size:,.0f} MiB) written in "
        f"{time.perf_counter() - t:.1f} s"
    )
    html = tmp / "report.html"
    for label, argv in (
        ("patience compare", ["compare", str(folder)]),
        ("patience compare --format json", ["compare", str(folder), "--format", "json"]),
        ("patience report --format html", ["report", str(folder), "--format", "html", "--output", str(html)]),
    ):
        r = command_cost(argv)
        per = r["wall"] / (rows / 1e8)
        if rows >= 10**8:  # below that, Python and matplotlib start-up dominate: no per-row figure
            verdict = f"{per:.2f} s per 10^8 rows; targets < 10 s per 10^8 rows, < 1024 MiB: " + (
                "met" if per < 10 and r["maxrss_mib"] < 1024 else "NOT met"
            )
        else:
            verdict = "the time target is judged at 10^8 rows or more"
        print(
            f"{label} over {rows:,} rows: {r['wall']:.2f} s ({r['cpu']:.1f} CPU-s: on a shared machine the "
            f"wall clock includes waiting), peak memory {r['maxrss_mib']:.0f} MiB ({verdict})  [load {load()}]"
        )
    shutil.rmtree(folder)


PLAY_CPU_CHILD = """
import json, os, sys, time
from pathlib import Path
from pipeline import executors, runner
from pipeline.config import load_study
def cpu_tree(root):
    parent, ticks = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(entry)] = int(fields[1])
            ticks[int(entry)] = int(fields[11]) + int(fields[12])
    def under(pid):
        while pid > 1:
            if pid == root:
                return True
            pid = parent.get(pid, 0)
        return False
    return sum(v for p, v in ticks.items() if under(p)) / os.sysconf("SC_CLK_TCK")
marks = {}
warm_up, run = executors.RayExecutor.warm_up, runner._run
def warmed(self, *a):
    out = warm_up(self, *a)
    marks["t0"], marks["c0"] = time.perf_counter(), cpu_tree(os.getpid())
    return out
def played(*a, **k):
    out = run(*a, **k)
    marks["t1"], marks["c1"] = time.perf_counter(), cpu_tree(os.getpid())
    return out
executors.RayExecutor.warm_up, runner._run = warmed, played
study = load_study(Path(sys.argv[1]), deals=int(sys.argv[2]))
runner.run_study(study, Path(sys.argv[3]), backend="ray", num_cpus=2, fresh=True)
print(json.dumps({"wall": marks["t1"] - marks["t0"], "cpu": marks["c1"] - marks["c0"]}))
"""

ENGINE_CPU_CHILD = ENGINE_CHILD.replace(
    "t = time.perf_counter()", "t, c = time.perf_counter(), time.process_time()"
).replace("print(time.perf_counter() - t)", "print(time.perf_counter() - t, time.process_time() - c)")


def play_cpu_bench(study: Path, out: Path, n: int, repeat: int) -> None:
    """Section 8 on a shared machine: the CPU the whole run (driver, Ray, workers) spends playing.

    The wall clock of a 2-core machine shared with other work says how much of it we got, not how
    well the run uses 2 cores.  CPU-seconds do not depend on the sharing (much): with E the engine's
    CPU time alone and C the CPU time of every process of the run during its playing phase, two
    otherwise idle cores cannot play it in less than C / 2, so 2E / C bounds the playing phase's
    speed-up from above (uneven last units and waiting are what it leaves out).
    """
    engines = []
    for _ in range(repeat):
        res = subprocess.run(
            [PY, "-c", ENGINE_CPU_CHILD, str(n)], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout.split()
        engines.append((float(res[-2]), float(res[-1])))
    e_wall, e_cpu = min(engines, key=lambda x: x[1])
    plays = []
    for _ in range(repeat):
        res = (
            subprocess.run(
                [PY, "-c", PLAY_CPU_CHILD, str(study), str(n), str(out)],
                cwd=ROOT,
                check=True,
                capture_output=True,
                text=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        plays.append(json.loads(res))
    best = min(plays, key=lambda r: r["cpu"])
    bound = 2 * e_cpu / best["cpu"]
    print(
        f"playing {n:,} clarke deals, CPU-seconds (best of {repeat}): engine alone {e_cpu:.2f} CPU-s "
        f"({e_wall:.2f} s wall); the whole run's process tree during its playing phase {best['cpu']:.2f} CPU-s "
        f"({best['wall']:.2f} s wall), so 2 idle cores play it at most {bound:.2f}x as fast as the engine "
        f"alone (target >= 1.8x: {'within reach' if bound >= 1.8 else 'NOT reachable'})  [load {load()}]"
    )


def bare_pair_seconds(n: int) -> float:
    """Two engine processes at once, N/2 deals each (deals 0.. and N/2..): the wall clock of the later."""
    half = n // 2
    child = ENGINE_CHILD.replace(
        "for first in range(0, n, batch):", "start = int(sys.argv[2])\nfor first in range(start, start + n, batch):"
    )
    child = child.replace("min(batch, n - first)", "min(batch, start + n - first)")
    child = child.replace(
        "t = time.perf_counter()",  # warm, then wait for the word to start the clock
        "sys.stdout.write('ready\\n'); sys.stdout.flush(); sys.stdin.readline()\nt = time.perf_counter()",
    )
    procs = [
        subprocess.Popen(
            [PY, "-c", child, str(half), str(k * half)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for k in range(2)
    ]
    for proc in procs:  # both warm before either starts the clock
        if proc.stdout.readline() != "ready\n":
            raise SystemExit("a bare engine failed before its warm-up ended")
    t = time.perf_counter()
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        proc.communicate()
    wall = time.perf_counter() - t
    if any(proc.returncode != 0 for proc in procs):
        raise SystemExit("a bare engine failed")
    return wall


def playing_rounds(study: Path, out: Path, n: int, rounds: int) -> None:
    """Section 9: engine alone, two bare engines, the Ray run's playing phase, interleaved per round."""
    rows = []
    for k in range(rounds):
        e = engine_seconds(n)
        b = bare_pair_seconds(n)
        p = pipeline_run(study, out, n)["played"]
        rows.append((e / p, e / b, b / p))
        print(
            f"round {k + 1}: engine alone {e:.2f} s, two bare engines {b:.2f} s, Ray playing phase {p:.2f} s: "
            f"speed-up {e / p:.2f}x (machine's ceiling {e / b:.2f}x, pipeline at {100 * b / p:.1f}% of it)  "
            f"[load {load()}]",
            flush=True,
        )
    med = [statistics.median(col) for col in zip(*rows, strict=True)]
    print(
        f"median of {rounds} rounds: playing phase {med[0]:.2f}x the engine alone on one core (target >= 1.8x: "
        f"{'met' if med[0] >= 1.8 else 'NOT met'}); two bare engines {med[1]:.2f}x; the pipeline plays at "
        f"{100 * med[2]:.1f}% of the bare pair's speed"
    )


def driver(argv: list[str]) -> dict:
    """``patience ARGV`` in a child process: wall clock of the whole process, the driver's CPU and peak RSS."""
    t = time.perf_counter()
    proc = subprocess.run([PY, "-c", DRIVER_CHILD, *map(str, argv)], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t
    line = next((ln for ln in proc.stderr.splitlines() if ln.startswith("BENCH ")), "")
    fields = dict(kv.split("=") for kv in line.split()[1:])
    if fields.get("code") != "0":
        raise SystemExit(f"patience {' '.join(map(str, argv))} failed:\n{proc.stderr[-3000:]}")
    return {
        "wall": wall,
        "cpu": float(fields["cpu"]),
        "mib": int(fields["maxrss_kib"]) / 1024,
        "err": proc.stderr,
        "out": proc.stdout,
    }


def scale_bench(tmp: Path, units: int, repeat: int) -> None:
    """Section 7 of the docstring: validate at 12.8 M units, a run of ``units`` tiny units, its rerun."""
    grid = ROOT / "configs" / "perpetual_motion_grid.yaml"
    runs = [
        driver(["validate", grid, "--deals", "10000000000", "--batch-size", "100000"]) for _ in range(max(repeat, 3))
    ]
    v = min(runs, key=lambda r: r["wall"])
    assert "12,800,000 work units" in v["out"], v["out"][:2000]
    print(
        f"patience validate, 128 variants x 10^10 deals at batch 100,000 (12,800,000 units), best of {len(runs)}: "
        f"{v['wall']:.2f} s wall for the whole command, {v['cpu']:.2f} CPU-s, peak {v['mib']:.0f} MiB "
        f"(targets < 1 s: {'met' if v['wall'] < 1 else 'NOT met'}, < 200 MB: "
        f"{'met' if v['mib'] * 1.048576 < 200 else 'NOT met'})  [load {load()}]"
    )
    study = tmp / "tiny.yaml"
    study.write_text(
        textwrap.dedent(f"""
        study: tiny
        game: perpetual_motion
        deals: {units}
        seed: 1
        batch_size: 2
        variants: {{clarke: {{preset: clarke}}, masten: {{preset: masten}}}}
        """)
    )
    out = tmp / "tiny"
    r = driver(["run", study, "--backend", "ray", "--num-cpus", "2", "--out", out, "--fresh"])
    per_unit = 1000 * r["cpu"] / units
    print(
        f"patience run of {units:,} units (2 deals each, ray, 2 CPUs): {r['wall']:.1f} s wall; driver peak "
        f"{r['mib']:.0f} MiB (target < 500 MB: {'met' if r['mib'] * 1.048576 < 500 else 'NOT met'}), driver "
        f"{r['cpu']:.1f} CPU-s = {per_unit:.3f} ms a unit (target < 0.5: {'met' if per_unit < 0.5 else 'NOT met'}), "
        f"whole process  [load {load()}]"
    )
    runs = [driver(["run", study, "--backend", "ray", "--num-cpus", "2", "--out", out]) for _ in range(max(repeat, 2))]
    again = min(runs, key=lambda r: r["wall"])
    assert "nothing to do" in again["err"], again["err"][-2000:]
    reports = [driver(["report", out]) for _ in range(max(repeat, 2))]
    report = min(reports, key=lambda r: r["wall"])
    assert "totals from" in again["err"], again["err"][-2000:]  # the report from run.json, no part read
    print(
        f"rerunning it: 'nothing to do' in {again['wall']:.2f} s for the whole command ({again['cpu']:.2f} CPU-s), "
        f"best of {len(runs)} (target < 10 s: {'met' if again['wall'] < 10 else 'NOT met'}), peak {again['mib']:.0f} "
        f"MiB; it prints the report from run.json's totals (no part read), while `patience report` over these "
        f"{units:,} parts takes {report['wall']:.2f} s ({report['cpu']:.2f} CPU-s, best of {len(reports)})  "
        f"[load {load()}]"
    )


def part_write_bench(rows: int, reps: int) -> None:
    """Section 10 (a): one part's write before hashes and now, best of ``reps``, beside the unit's play time."""
    import numpy as np
    import pyarrow.parquet as pq

    sys.path.insert(0, str(ROOT))
    from engine.deals import seeded_deals
    from engine.registry import get_game
    from pipeline.run_store import LocalStore, parquet_options
    from pipeline.worker import to_table

    game = get_game("perpetual_motion")
    rules = game.rules("clarke")
    decks = seeded_deals(game.deck, 2009, 0, rows)
    game.play_batch(decks[:10], rules)
    t = time.perf_counter()
    columns = game.play_batch(decks, rules)
    play = time.perf_counter() - t
    table = to_table(game, np.arange(rows, dtype=np.int64), columns, {"patience.unit": "clarke/part-0"})
    with tempfile.TemporaryDirectory(prefix="bench-write-") as tmp:
        store = LocalStore(Path(tmp))
        (Path(tmp) / "_tmp").mkdir()

        def before() -> None:
            path = Path(tmp) / "_tmp" / "x.tmp"
            pq.write_table(table, path, **parquet_options(table))
            os.replace(path, Path(tmp) / "old.parquet")

        def now() -> None:
            store.write_table("variant=clarke/part-0.parquet", table)

        old_t, new_t = [], []
        for _ in range(reps):  # alternated, so drift in the machine's speed falls on both alike
            for fn, out in ((before, old_t), (now, new_t)):
                t = time.perf_counter()
                fn()
                out.append(time.perf_counter() - t)
        size = (Path(tmp) / "variant=clarke" / "part-0.parquet").stat().st_size
    a, b = min(old_t), min(new_t)
    ma, mb = statistics.median(old_t), statistics.median(new_t)
    share = 100 * (b - a) / (play + a)
    print(
        f"one part of {rows:,} clarke deals ({size / 1024:.0f} KiB): written in {1e3 * a:.2f} ms before hashes, "
        f"{1e3 * b:.2f} ms now (encoded in memory, sha256, written, stat), medians {1e3 * ma:.2f} / {1e3 * mb:.2f} "
        f"ms; the difference is {share:+.2f}% of the unit's play ({1e3 * play:.0f} ms) and write  [load {load()}]"
    )


def integrity_bench(tmp: Path, n: int, rounds: int, baseline: str | None, verify_run: str | None) -> None:
    """Section 10 (b) and (c): a serial PM run with hashes against one without, and verify's cost."""
    run = Path(verify_run) if verify_run else tmp / "pm"
    if not verify_run:
        study = str(ROOT / "configs" / "perpetual_motion.yaml")
        argv = ["run", study, "--deals", str(n), "--backend", "serial", "--fresh"]
        walls: dict[str, list[float]] = {"now": [], "before": []}
        cpus: dict[str, list[float]] = {"now": [], "before": []}  # the one process's CPU: steadier on a busy machine
        for tree in [None] + ([baseline] if baseline else []):  # warm-up: a checkout elsewhere compiles its kernels
            command_cost([*argv[:2], "--deals", "1000", *argv[4:], "--out", str(tmp / "warm")], tree)
        for _ in range(rounds):
            for name, tree in [("now", None)] + ([("before", baseline)] if baseline else []):
                out = tmp / f"pm-{name}"
                cost = command_cost([*argv, "--out", str(out)], tree)
                walls[name].append(cost["wall"])
                cpus[name].append(cost["cpu"])
                print(
                    f"  patience run PM {n:,} deals x 3 variants, serial, {name}: {cost['wall']:.1f} s wall, "
                    f"{cost['cpu']:.1f} CPU-s [load {load()}]"
                )
        shutil.rmtree(tmp / "pm-before", ignore_errors=True)
        (tmp / "pm-now").rename(run)
        if baseline:
            for what, got in (("wall", walls), ("CPU", cpus)):
                a, b = statistics.median(got["before"]), statistics.median(got["now"])
                change = 100 * (b - a) / a
                print(f"patience run, median {what}: {a:.1f} s before hashes, {b:.1f} s now ({change:+.1f}%)")
    rows = sum(pq_rows(p) for p in run.glob("variant=*/*.parquet"))
    for extra in ([], ["--full"]):
        cost = command_cost(["verify", str(run), *extra])
        print(
            f"patience verify{''.join(' ' + e for e in extra)} of {rows:,} rows: {cost['wall']:.1f} s wall, "
            f"{cost['cpu']:.1f} CPU-s, {cost['maxrss_mib']:.0f} MiB  [load {load()}]"
        )


def pq_rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return pq.read_metadata(path).num_rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=1_000_000)
    ap.add_argument("--report-rows", type=int, default=10_000_000)
    ap.add_argument("--skip-run", action="store_true", help="only the report benchmark")
    ap.add_argument(
        "--paired-rows",
        type=int,
        default=100_000_000,
        help="rows of the synthetic run for compare and the HTML report (0: skip)",
    )
    ap.add_argument(
        "--paired-shape",
        choices=("forced", "solver"),
        default="forced",
        help="solver columns at zero (forced) or filled (solver: nodes, seconds, solution)",
    )
    ap.add_argument("--only-paired", action="store_true", help="only the compare / HTML report benchmark")
    ap.add_argument("--repeat", type=int, default=1, help="best of N for the engine and the ray run (noisy machines)")
    ap.add_argument(
        "--scale-units", type=int, default=100_000, help="units of the work-units-at-scale run (section 7; 0: skip it)"
    )
    ap.add_argument("--only-scale", action="store_true", help="only the work-units-at-scale benchmark")
    ap.add_argument(
        "--only-playing",
        action="store_true",
        help="only section 9: engine alone, two bare engines and the Ray playing phase, interleaved",
    )
    ap.add_argument("--rounds", type=int, default=5, help="rounds of section 9 (and of section 10's runs)")
    ap.add_argument("--only-integrity", action="store_true", help="only section 10: hashing at write, verify")
    ap.add_argument("--part-rows", type=int, default=10_000, help="rows of section 10's part write")
    ap.add_argument("--baseline-tree", help="section 10: a checkout of the code before hashes, to run beside")
    ap.add_argument("--verify-run", help="section 10: verify this run instead of the one it plays")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {load()}")

    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        tmp = Path(tmp)
        study = tmp / "clarke.yaml"
        study.write_text(
            textwrap.dedent("""
            study: bench
            game: perpetual_motion
            deals: 1000
            seed: 2009
            batch_size: 20000
            variants: {clarke: {preset: clarke}}
            """)
        )
        if args.only_playing:
            playing_rounds(study, tmp / "rounds", args.deals, args.rounds)
            return
        if args.only_integrity:
            part_write_bench(args.part_rows, 200)
            integrity_bench(tmp, args.deals, args.rounds, args.baseline_tree, args.verify_run)
            return
        if args.scale_units and not args.only_paired:
            scale_bench(tmp, args.scale_units, args.repeat)
        if args.only_scale:
            return
        if args.paired_rows and not args.only_scale:
            paired_bench(tmp, args.paired_rows, args.paired_shape)
        if args.only_paired:
            return
        if not args.skip_run:
            n = args.deals
            t_engine = min(engine_seconds(n) for _ in range(args.repeat))
            print(
                f"engine alone, one core: {n:,} clarke deals in {t_engine:.2f} s ({n / t_engine:,.0f} deals/s)"
                f"  [load {load()}]"
            )
            small = pipeline_run(study, tmp / "small", max(n // 10, 1))
            big = min((pipeline_run(study, tmp / "big", n) for _ in range(args.repeat)), key=lambda r: r["wall"])
            ratio = big["wall"] / t_engine
            print(
                f"patience run --backend ray --num-cpus 2: {n:,} deals in {big['wall']:.2f} s wall "
                f"(Ray start-up included) = {100 * ratio:.0f}% of the engine alone (target <= 60%: "
                f"{'met' if ratio <= 0.6 else 'NOT met'})  [load {load()}]"
            )
            speedup = t_engine / big["played"]
            print(
                f"  of which playing (workers warm -> last unit recorded): {big['played']:.2f} s = "
                f"{speedup:.2f}x the engine alone on one core (target >= 1.8x on 2 workers: "
                f"{'met' if speedup >= 1.8 else 'NOT met'}); before it, Ray start-up and the workers' warm-up "
                f"{big['startup']:.2f} s; the rest ({big['wall'] - big['played'] - big['startup']:.1f} s) is Python "
                "start-up, Ray shut-down and the final report"
            )
            play_cpu_bench(study, tmp / "cpu", n, args.repeat)
            ray_cpu, processes, ray_wall = min(ray_own_cpu() for _ in range(max(args.repeat, 2)))
            floor = (t_engine + ray_cpu) / (2 * t_engine)
            print(
                f"Ray's own cost: {processes} processes, {ray_cpu:.2f} CPU-s to start and warm two workers "
                f"({ray_wall:.2f} s wall), shut-down not counted; so on 2 cores the ratio above can never go "
                f"below (engine + Ray) / (2 x engine) = {100 * floor:.0f}%"
            )
            print(
                f"driver peak memory: {small['maxrss_mib']:.0f} MiB at {max(n // 10, 1):,} deals, "
                f"{big['maxrss_mib']:.0f} MiB at {n:,} deals (target < 1024 MiB, flat)"
            )

        rows = args.report_rows
        folder = tmp / "synthetic"
        t = time.perf_counter()
        make_synthetic_run(folder, rows)
        print(f"synthetic run folder: {rows:,} rows written in {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        proc = subprocess.run(
            [PY, "-m", "pipeline.cli", "report", str(folder)], cwd=ROOT, capture_output=True, text=True
        )
        wall = time.perf_counter() - t
        if proc.returncode != 0:
            raise SystemExit(proc.stderr)
        sys.path.insert(0, str(ROOT))
        from pipeline.report import build_report

        t = time.perf_counter()
        build_report(folder)
        inproc = time.perf_counter() - t
        print(
            f"patience report over {rows:,} rows: {wall:.2f} s for the whole command, {inproc:.2f} s in-process "
            f"(target < 5 s: {'met' if wall < 5 else 'NOT met'})  [load {load()}]"
        )


if __name__ == "__main__":
    main()
