"""Two checkouts of the solvers side by side: the rows of bench_solver.py's table, alternated between them.

Why: this project's VMs swing 5-15% between two runs of the same code, so a before/after figure taken at two
times says little.  Here two chains of child processes, one pinned to each of two cores, run every row on the
same seeded deals, alternating the checkouts in opposite orders: in each round each checkout runs once on each
core, always beside the other.  Per row it reports the mean and median CPU seconds of the row (the solver
through ``play_batch``, the checker's replay of every win included) over all runs, their ratio after/before,
and whether the two checkouts made the same expansions (they must: the issue-50 rule is same answers, same
nodes).

    git worktree add /tmp/before bc39b53
    .venv/bin/python scripts/bench_versions.py --before /tmp/before --after . --rounds 6 --deals 60
    .venv/bin/python scripts/bench_versions.py --before /tmp/before --after . --rows "freecell cells=1" \
        --start 7 --deals 1 --rounds 4

``--rows`` may also name the free-play solvers' rows of ``scripts/solver_fingerprint.py``.  Each child imports
``engine`` from its checkout (PYTHONPATH and working directory), so any commit with the
registry's ``get_game(name).rules(preset, overrides)`` and ``play_batch`` can be measured.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path


def child(rows: list[tuple[str, str, dict]], seed: int, start: int, deals: int) -> None:
    """In a checkout's process: each row's CPU seconds and expansions on the deals, one JSON line a row."""
    from engine.deals import seeded_deals
    from engine.registry import get_game

    for name, game, overrides in rows:
        g = get_game(game)
        over = dict(overrides)
        rules = g.rules(over.pop("preset", None), over)
        decks = seeded_deals(g.deck, seed, start, deals)
        g.play_batch(decks[:1], rules)  # compile or load the kernels outside the timing
        cpu0 = time.process_time()
        out = g.play_batch(decks, rules)
        cpu = time.process_time() - cpu0
        print(json.dumps({"row": name, "cpu": cpu, "nodes": int(sum(out["nodes"]))}), flush=True)


def _chain(core: int, trees: list[Path], rounds: int, argv: list[str], results: list[dict], failed: list) -> None:
    try:
        _runs(core, trees, rounds, argv, results)
    except subprocess.CalledProcessError as exc:
        lines = exc.stderr.strip().splitlines()
        failed.append(lines[-1] if lines else str(exc))


def _runs(core: int, trees: list[Path], rounds: int, argv: list[str], results: list[dict]) -> None:
    for _ in range(rounds):
        for tree in trees:
            env = {**os.environ, "PYTHONPATH": str(tree)}
            pin = (lambda: os.sched_setaffinity(0, {core})) if hasattr(os, "sched_setaffinity") else None
            out = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), *argv],
                cwd=tree,
                env=env,
                capture_output=True,
                text=True,
                check=True,
                preexec_fn=pin,
            )
            for line in out.stdout.splitlines():
                results.append({**json.loads(line), "tree": str(tree), "core": core})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="the checkout measured first (a git worktree)")
    ap.add_argument("--after", type=Path, default=Path("."), help="the checkout against it (default: here)")
    ap.add_argument("--rounds", type=int, default=6, help="runs of each checkout on each core")
    ap.add_argument("--deals", type=int, default=60)
    ap.add_argument("--start", type=int, default=0, help="the first deal (index within the seed)")
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument(
        "--rows",
        default="",
        help="comma-separated rows: bench_solver's table (the default: all of it) or the free-play solvers of "
        "solver_fingerprint.py ('perpetual_motion solver', 'amazons solver', ...)",
    )
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(json.loads(args.child), args.seed, args.start, args.deals)
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_solver import TABLE_ROWS
    from solver_fingerprint import ROWS as FINGERPRINT_ROWS

    wanted = [r.strip() for r in args.rows.split(",") if r.strip()]
    table = [(name, game, over) for name, game, over, *_ in TABLE_ROWS]
    free = [row for row in FINGERPRINT_ROWS if row[0] not in {name for name, *_ in table}]  # the other solvers
    rows = [row for row in table + free if (name := row[0]) in wanted] if wanted else table
    if wanted and len(rows) != len(wanted):
        known = ", ".join(name for name, *_ in table + free)
        raise SystemExit(f"--rows: {args.rows!r} names a row not in the table ({known})")
    before, after = args.before.resolve(), args.after.resolve()
    argv = ["--child", json.dumps(rows), "--seed", str(args.seed), "--start", str(args.start)]
    argv += ["--deals", str(args.deals), "--before", str(before)]
    results: list[dict] = []
    failed: list[str] = []
    chains = [
        threading.Thread(target=_chain, args=(0, [before, after], args.rounds, argv, results, failed)),
        threading.Thread(target=_chain, args=(1, [after, before], args.rounds, argv, results, failed)),
    ]
    for t in chains:
        t.start()
    for t in chains:
        t.join()
    if failed:
        raise SystemExit(f"a run failed: {failed[0]}")
    print(f"{args.deals} deals from {args.start} of seed {args.seed}, {args.rounds} rounds on each of 2 cores")
    print(f"before {before}\nafter  {after}")
    print(
        f"{'row':22s} {'runs':>4s} {'before mean':>11s} {'after mean':>10s} {'ratio':>6s} {'median ratio':>12s} nodes"
    )
    for name, _, _ in rows:
        b = [r["cpu"] for r in results if r["row"] == name and r["tree"] == str(before)]
        a = [r["cpu"] for r in results if r["row"] == name and r["tree"] == str(after)]
        same = len({r["nodes"] for r in results if r["row"] == name}) == 1
        mb, ma = statistics.mean(b), statistics.mean(a)
        ratio = statistics.median(a) / statistics.median(b)
        print(
            f"{name:22s} {len(b):4d} {mb:11.4f} {ma:10.4f} {ma / mb:6.3f} {ratio:12.3f} {'same' if same else 'DIFFER'}"
        )


if __name__ == "__main__":
    main()
