"""Engine speed on one core: the deal generator, then games per second for each game's presets.

Run: .venv/bin/python scripts/bench_engine.py [--deals N] [--games perpetual_motion,amazons]
Numbers are after warm-up (compilation excluded), single-threaded, seeded deals generated
beforehand so only play is timed.  Last, 1,000 seeded Penguin deals solved exactly (issue target:
under 10 s in all, at most 0.5% unknown); bench_solver.py has the solver's other figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from engine.cards import DECK_52
from engine.deals import seeded_deals
from engine.outcomes import UNKNOWN
from engine.registry import get_game


def machine() -> str:
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        pass
    return f"{platform.machine()} {cpu} ({os.cpu_count()} cores), Python {platform.python_version()}"


def best_rate(fn, n: int, repeats: int = 3) -> float:
    """Items per second of CPU time of this process, best of ``repeats``.

    CPU time rather than wall time, so that other work on a shared machine
    does not count against the kernel (the kernels are single-threaded).
    """
    best = float("inf")
    for _ in range(repeats):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return n / best


def bench_generator(n: int) -> None:
    seeded_deals(DECK_52, 1, 0, 10)
    rate = best_rate(lambda: seeded_deals(DECK_52, 1, 0, n), n)
    print(f"deal generator (52 cards): {rate:,.0f} deals/s")


def bench_game(name: str, n: int) -> None:
    game = get_game(name)
    decks = seeded_deals(game.deck, 2009, 0, n)
    for preset in game.presets:
        rules = game.rules(preset)
        game.play_batch(decks[:20], rules)  # warm-up: compile or load from cache
        out = {}

        def run(out=out, rules=rules):
            out.update(game.play_batch(decks, rules))

        rate = best_rate(run, n)
        won = out["outcome"] == 0
        print(
            f"{name:>18} {preset:<12} {rate:>12,.0f} games/s   win rate {won.mean():.4f}   "
            f"mean rounds {out['rounds'].mean():7.2f}"
        )


def bench_solver(name: str, n: int) -> None:
    """A solver game: total time for n seeded deals with the defaults (every win replayed by the checker)."""
    game = get_game(name)
    decks = seeded_deals(game.deck, 2024, 0, n)
    rules = game.rules()
    game.play_batch(decks[:2], rules)  # warm-up: compile or load from cache
    t = time.process_time()
    out = game.play_batch(decks, rules)
    cpu = time.process_time() - t
    unknown = (out["outcome"] == UNKNOWN).mean()
    print(
        f"{name:>18} defaults     {n:,} deals in {cpu:.2f} s of CPU (solving {out['seconds'].sum():.2f} s)   "
        f"won {(out['outcome'] == 0).mean():.4f}   unknown {unknown:.4f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--games", default="perpetual_motion,amazons")
    ap.add_argument("--solver-deals", type=int, default=1000, help="seeded Penguin deals to solve (0: skip)")
    args = ap.parse_args()
    print(machine())
    bench_generator(1_000_000)
    for name in args.games.split(","):
        try:
            bench_game(name, args.deals)
        except Exception as exc:  # a game not registered yet
            print(f"{name}: skipped ({exc})")
    if args.solver_deals:
        bench_solver("penguin", args.solver_deals)


if __name__ == "__main__":
    main()
