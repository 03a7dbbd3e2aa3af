"""Amazons on one core: games per second for each preset, and its win rate with a Wilson 95% interval.

Run: .venv/bin/python scripts/bench_amazons.py [--deals 100000] [--seed 2009] [--repeats 3]

Rates are after warm-up (compilation excluded), single-threaded, with the seeded
deals generated beforehand so only play is timed; CPU time of this process, best
of ``--repeats``, so other work on a shared machine does not count against the
kernel.  The target is at least 100,000 ``dick`` games per second.  The win rates
are set beside the published odds, which never state their rules (context only).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time

from engine.deals import seeded_deals
from engine.registry import get_game

PUBLISHED = {
    "dick": "1 in 10 (Wikipedia infobox)",
    "one_in_ten": "1 in 10 (Wikipedia infobox)",
    "one_ace": "'as many as half' (one-Ace strategy)",
}


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default)."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=2009)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        pass
    print(f"{platform.machine()} {cpu} ({os.cpu_count()} cores), Python {platform.python_version()}")
    game = get_game("amazons")
    decks = seeded_deals(game.deck, args.seed, 0, args.deals)
    print(f"{args.deals:,} deals, seed {args.seed}")
    print(f"{'preset':<11} {'games/s':>10}  {'win rate':>8}  {'Wilson 95%':>17}  {'rounds':>6}  published")
    for preset in game.presets:
        rules = game.rules(preset)
        game.play_batch(decks[:20], rules)  # warm-up: compile or load from the cache
        best = float("inf")
        for _ in range(args.repeats):
            t = time.process_time()
            out = game.play_batch(decks, rules)
            best = min(best, time.process_time() - t)
        wins = int((out["outcome"] == 0).sum())
        lo, hi = wilson(wins, args.deals)
        print(
            f"{preset:<11} {args.deals / best:>10,.0f}  {wins / args.deals:>8.4f}  [{lo:.4f}, {hi:.4f}]  "
            f"{out['rounds'].mean():>6.2f}  {PUBLISHED.get(preset, '-')}"
        )


if __name__ == "__main__":
    main()
