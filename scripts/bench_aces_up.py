"""Aces Up on one core: deals per second for the greedy kernel and the solver, with win rates and Wilson 95% intervals.

Run: .venv/bin/python scripts/bench_aces_up.py [--deals 200000] [--solver-deals 20000] [--seed 2009] [--repeats 3]

Rates are after warm-up (compilation excluded), single-threaded, with the seeded
deals generated beforehand so only play is timed; CPU time of this process, best
of ``--repeats``, so other work on a shared machine counts less against the
engine.  Solver rates are whole ``play_batch`` calls: search, solution text and
the reference's replay of every win included.  Targets (issue 13): greedy at
least 200,000 deals per second, the solver (``masten``) at least 2,000.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time

from engine.deals import seeded_deals
from engine.outcomes import WON
from engine.registry import get_game

GREEDY = {"greedy": {}, "greedy_fill_aces": {"fill_from": "aces"}, "pysolfc (greedy)": {"preset": "pysolfc"}}
SOLVER = {
    "masten": {"preset": "masten"},
    "fill_before_deal": {"preset": "fill_before_deal"},
    "masten_fill_aces": {"preset": "masten", "fill_from": "aces"},
    "masten_fill_optional": {"preset": "masten", "fill": "optional"},
    "masten_lone_card": {"preset": "masten", "move_lone_card": True},
}


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default)."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run(game, name: str, over: dict, decks, repeats: int) -> None:
    over = dict(over)
    rules = game.rules(over.pop("preset", None), over)
    game.play_batch(decks[:20], rules)  # warm-up: compile or load from the cache
    best = float("inf")
    for _ in range(repeats):
        t = time.process_time()
        out = game.play_batch(decks, rules)
        best = min(best, time.process_time() - t)
    n = decks.shape[0]
    wins = int((out["outcome"] == WON).sum())
    lo, hi = wilson(wins, n)
    extra = f"  nodes mean {out['nodes'].mean():.0f}, max {out['nodes'].max()}" if out["nodes"].any() else ""
    print(f"{name:<22} {n:>9,} {n / best:>12,.0f}  {wins / n:>8.4%}  [{lo:.4%}, {hi:.4%}]{extra}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=200_000, help="deals per greedy variant")
    ap.add_argument("--solver-deals", type=int, default=20_000, help="deals per solver variant")
    ap.add_argument("--seed", type=int, default=2009)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        pass
    print(f"{platform.machine()} {cpu} ({os.cpu_count()} cores), Python {platform.python_version()}, seed {args.seed}")
    game = get_game("aces_up")
    print(f"{'variant':<22} {'deals':>9} {'deals/s':>12}  {'win rate':>8}  Wilson 95%")
    decks = seeded_deals(game.deck, args.seed, 0, args.deals)
    for name, over in GREEDY.items():
        run(game, name, over, decks, args.repeats)
    decks = seeded_deals(game.deck, args.seed, 0, args.solver_deals)
    for name, over in SOLVER.items():
        run(game, name, over, decks, 1 if name != "masten" else args.repeats)


if __name__ == "__main__":
    main()
