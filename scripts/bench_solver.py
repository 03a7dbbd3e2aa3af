"""Benchmark and figures for the open-solitaire solver (Penguin, Baker's Game, FreeCell).

Runs on one core, in this process:
  1. Penguin, defaults, N seeded deals (default 1,000): solve seconds in all, unknown fraction,
     winnability with a Wilson 95% interval.  Target: under 10 s, at most 0.5% unknown.
  2. FreeCell, Microsoft deals 1-1000: all must be won (each solution replayed by the checker).
  3. FreeCell deal 11982 with a large budget: must be unsolvable.
  4. (--bakers N) Baker's Game with 3..6 cells on N seeded deals each, beside Jerry Bryan's figures.

Every `won` is replayed by the independent checker inside play_batch; "solve" seconds are the
solver's own (the per-deal `seconds` column), "wall" adds the replay and Python overhead.

    .venv/bin/python scripts/bench_solver.py [--penguin 1000] [--bakers 2000] [--seed 2024]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from engine.cards import DECK_52
from engine.deals import microsoft_deal, seeded_deals
from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.reference import open_solitaire as reference
from engine.registry import get_game

BRYAN = {3: 0.289, 4: 0.7506, 5: 0.9794, 6: 0.99985}  # Jerry Bryan, 1,000,000 random deals per cell count


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


def run(game: str, decks: np.ndarray, overrides: dict | None = None) -> tuple[dict, float]:
    g = get_game(game)
    rules = g.rules(overrides=overrides or {})
    g.play_batch(decks[:1], rules)  # compile / load the kernels outside the timing
    t0 = time.perf_counter()
    out = g.play_batch(decks, rules)
    return out, time.perf_counter() - t0


def summary(name: str, out: dict, wall: float) -> str:
    n = len(out["outcome"])
    won = int((out["outcome"] == WON).sum())
    uns = int((out["outcome"] == UNSOLVABLE).sum())
    unk = int((out["outcome"] == UNKNOWN).sum())
    lo, hi = wilson(won, n)
    return (f"{name}: {n} deals, won {won} ({won / n:.4%}, Wilson 95% {lo:.4%}..{hi:.4%}), unsolvable {uns}, "
            f"unknown {unk} ({unk / n:.2%}); solve {out['seconds'].sum():.2f} s, wall {wall:.2f} s, "
            f"nodes mean {out['nodes'].mean():.0f} max {out['nodes'].max()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--penguin", type=int, default=1000, help="Penguin deals with the defaults")
    ap.add_argument("--freecell", type=int, default=1000, help="Microsoft deals 1..N")
    ap.add_argument("--bakers", type=int, default=0, help="Baker's Game deals per cell count 3..6 (0: skip)")
    ap.add_argument("--skip-11982", action="store_true")
    ap.add_argument("--confirm", type=int, default=0,
                    help="confirm up to N of Penguin's unsolvable verdicts by the plain-Python exhaustive search "
                    "(no safe moves; minutes per deal)")
    args = ap.parse_args()

    if args.penguin:
        decks = seeded_deals(DECK_52, args.seed, 0, args.penguin)
        out, wall = run("penguin", decks)
        print(summary(f"penguin defaults, seed {args.seed}", out, wall), flush=True)
        unsolvable = np.flatnonzero(out["outcome"] == UNSOLVABLE)
        print(f"  unsolvable deal indices: {unsolvable.tolist()}", flush=True)
        for i in unsolvable[: args.confirm]:
            rules = reference.Rules("penguin", "suit", 7, True, "unlimited", "beak_minus_one")
            t0 = time.perf_counter()
            verdict = reference.exhaustive_verdict(reference.deal_layout(list(decks[i]), rules), rules, 3_000_000, symmetric=True)
            print(f"  index {i}: plain exhaustive search says winnable={verdict} ({time.perf_counter() - t0:.0f} s)", flush=True)
    if args.freecell:
        decks = np.stack([microsoft_deal(n) for n in range(1, args.freecell + 1)])
        out, wall = run("freecell", decks)
        print(summary(f"freecell Microsoft 1-{args.freecell}", out, wall), flush=True)
        bad = [i + 1 for i in np.flatnonzero(out["outcome"] != WON)]
        print(f"  not won: {bad}" if bad else "  all won, every solution replayed by the checker", flush=True)
    if not args.skip_11982:
        out, wall = run("freecell", microsoft_deal(11982)[None, :], {"max_nodes": 50_000_000})
        print(f"freecell 11982: {('won', '', '', '', 'unsolvable', 'unknown')[int(out['outcome'][0])]} after "
              f"{int(out['nodes'][0])} positions, {out['seconds'][0]:.2f} s", flush=True)
    if args.bakers:
        decks = seeded_deals(DECK_52, args.seed, 0, args.bakers)
        for cells in (3, 4, 5, 6):
            out, wall = run("bakers_game", decks, {"cells": cells})
            print(summary(f"bakers_game cells {cells} (Bryan {BRYAN[cells]:.4%})", out, wall), flush=True)


if __name__ == "__main__":
    main()
