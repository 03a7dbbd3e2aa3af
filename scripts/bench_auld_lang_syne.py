"""Auld Lang Syne and Tam O'Shanter on one core: deals per second and win rates with Wilson 95% intervals.

Run: .venv/bin/python scripts/bench_auld_lang_syne.py [--deals 1000000] [--solver-deals 100000] [--seed 2009]
     [--repeats 3] [--games auld_lang_syne,tam_o_shanter] [--solver-settings default,mid_deal,six_piles]

Greedy: every combination of build x piles x mid_deal_plays on ``--deals`` seeded deals; the rate is the best of
``--repeats`` timings (CPU time of this process, so other work on a shared machine counts less), deals generated
beforehand so only play is timed.  Target: at least 200,000 deals a second.

Solver (free play): the settings named by ``--solver-settings`` on ``--solver-deals`` deals (the same first
deals), timed once (CPU time, after a warm-up so compilation is not counted; every win's solution is replayed by
the reference inside the timing).  Target: at least 1,000 deals a second.  Dominance is checked on the way: every
deal greedy wins on the same switches must be a solver win.

The published odds are set beside ours: none of them states its rules or its player (context only).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import time

from engine.deals import seeded_deals
from engine.outcomes import UNKNOWN, WON
from engine.registry import get_game

PUBLISHED = {
    "auld_lang_syne": "1 in 100 (Morehead & Mott-Smith), 1 in 300 (McNeely), ~1 in 3,000 if plays may be declined "
    "(Wikibooks)",
    "tam_o_shanter": "1 in 10,000 (McNeely)",
}
SOLVER_SETTINGS = {
    "default": {},
    "mid_deal": {"mid_deal_plays": True},
    "six_piles": {"piles": 6},
    "six_piles_mid_deal": {"piles": 6, "mid_deal_plays": True},
    "same_suit": {"build": "same_suit"},
}


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default)."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def one_in(wins: int, n: int) -> str:
    return f"1 in {n / wins:,.0f}" if wins else "none"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=1_000_000)
    ap.add_argument("--solver-deals", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=2009)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--games", default="auld_lang_syne,tam_o_shanter")
    ap.add_argument("--solver-settings", default="default,same_suit")
    args = ap.parse_args()
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        pass
    print(f"{platform.machine()} {cpu} ({os.cpu_count()} cores), Python {platform.python_version()}")
    for name in args.games.split(","):
        game = get_game(name)
        decks = seeded_deals(game.deck, args.seed, 0, max(args.deals, args.solver_deals))
        print(f"\n{name}: seed {args.seed}; published: {PUBLISHED[name]}")
        print(
            f"{'greedy: build, piles, mid_deal':<34} {'deals':>9} {'deals/s':>10}  {'wins':>6}  {'rate':>9}  "
            f"{'Wilson 95%':>22}  odds"
        )
        greedy_won = {}
        for build, piles, mid in itertools.product(("any_suit", "same_suit"), (4, 6), (False, True)):
            rules = game.rules(overrides={"build": build, "piles": piles, "mid_deal_plays": mid})
            game.play_batch(decks[:20], rules)  # warm-up: compile or load from the cache
            best = float("inf")
            for _ in range(args.repeats):
                t = time.process_time()
                out = game.play_batch(decks[: args.deals], rules)
                best = min(best, time.process_time() - t)
            won = out["outcome"] == WON
            greedy_won[(build, piles, mid)] = won
            wins = int(won.sum())
            lo, hi = wilson(wins, args.deals)
            print(
                f"{f'{build}, {piles}, {str(mid).lower()}':<34} {args.deals:>9,} {args.deals / best:>10,.0f}  "
                f"{wins:>6}  {wins / args.deals:>9.6f}  [{lo:.6f}, {hi:.6f}]  {one_in(wins, args.deals)}"
            )
        n = args.solver_deals
        if n <= 0:
            continue
        print(
            f"{'solver (free play): setting':<34} {'deals':>9} {'deals/s':>10}  {'wins':>6}  {'rate':>9}  "
            f"{'Wilson 95%':>22}  odds; unknown; greedy wins it misses"
        )
        for setting in args.solver_settings.split(","):
            over = SOLVER_SETTINGS[setting]
            rules = game.rules(overrides={**over, "strategy": "solver"})
            game.play_batch(decks[:5], rules)  # warm-up
            t = time.process_time()
            out = game.play_batch(decks[:n], rules)
            dt = time.process_time() - t
            won = out["outcome"] == WON
            wins = int(won.sum())
            key = (rules.build, rules.piles, rules.mid_deal_plays)
            missed = int((greedy_won[key][:n] & ~won).sum()) if args.deals >= n else -1
            lo, hi = wilson(wins, n)
            print(
                f"{setting:<34} {n:>9,} {n / dt:>10,.0f}  {wins:>6}  {wins / n:>9.6f}  [{lo:.6f}, {hi:.6f}]  "
                f"{one_in(wins, n)}; {int((out['outcome'] == UNKNOWN).sum())}; {missed}"
            )


if __name__ == "__main__":
    main()
