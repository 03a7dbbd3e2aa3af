"""Eight Day Clock on one core: deals per second for each reading of after_discard (and the masten preset), with
win rates and Wilson 95% intervals.

Run: .venv/bin/python scripts/bench_eight_day_clock.py [--deals 200000] [--seed 2009] [--repeats 3]

Rates are after warm-up (compilation excluded), single-threaded, with the seeded deals generated beforehand so
only play is timed; CPU time of this process, best of ``--repeats``, so other work on a shared machine counts
against the kernel as little as possible.  The target is at least 50,000 deals per second.  Masten's 1 in 107
(0.935%) is set beside each win rate.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time

from engine.deals import seeded_deals
from engine.outcomes import OUTCOMES
from engine.registry import get_game


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default)."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


SETTINGS = {
    "masten (preset)": ("masten", {}),
    "placed_pile": (None, {"after_discard": "placed_pile"}),
    "after_last_taken": (None, {"after_discard": "after_last_taken"}),
    "first_open": (None, {"after_discard": "first_open"}),
    "after_placed_pile": (None, {"after_discard": "after_placed_pile"}),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=200_000)
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
    game = get_game("eight_day_clock")
    decks = seeded_deals(game.deck, args.seed, 0, args.deals)
    print(f"{args.deals:,} deals, seed {args.seed}; Masten: 1 in 107 = 0.935%")
    print(f"{'setting':<18} {'deals/s':>10}  {'win rate':>8}  {'Wilson 95%':>17}  {'1 in':>6}  {'moves':>6}")
    won = OUTCOMES.index("won")
    for name, (preset, overrides) in SETTINGS.items():
        rules = game.rules(preset, overrides)
        game.play_batch(decks[:20], rules)  # warm-up: compile or load from the cache
        best = float("inf")
        for _ in range(args.repeats):
            t = time.process_time()
            out = game.play_batch(decks, rules)
            best = min(best, time.process_time() - t)
        wins = int((out["outcome"] == won).sum())
        lo, hi = wilson(wins, args.deals)
        one_in = f"{args.deals / wins:6.1f}" if wins else "     -"
        print(
            f"{name:<18} {args.deals / best:>10,.0f}  {100 * wins / args.deals:>7.3f}%  "
            f"[{100 * lo:.3f}, {100 * hi:.3f}]%  {one_in}  {out['moves'].mean():>6.1f}"
        )


if __name__ == "__main__":
    main()
