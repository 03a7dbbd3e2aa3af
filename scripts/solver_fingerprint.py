"""Every solver's answer, deal by deal, as lines of JSON: to show that a change of code changed no verdict.

For each row (a game and rule overrides, as in bench_solver's table, plus the free-play solvers) it plays
seeded deals and writes one line per deal: row, deal, outcome, nodes, moves, rounds and the sha256 of the
solution text.  Run it on two commits (the same seed and deals) and compare the files with ``diff``::

    .venv/bin/python scripts/solver_fingerprint.py --deals 100 > after.jsonl
    PYTHONPATH=/path/to/old/checkout .venv/bin/python scripts/solver_fingerprint.py --deals 100 > before.jsonl
    diff before.jsonl after.jsonl && echo identical

Only the registry's public surface is used (``get_game``, ``rules``, ``play_batch``), so the same script runs
on the code before and after a refactoring of the engine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

from engine.deals import seeded_deals
from engine.registry import get_game

ROWS = (
    ("penguin", "penguin", {}),
    ("bakers_game", "bakers_game", {}),
    ("freecell", "freecell", {}),
    ("freecell cells=3", "freecell", {"cells": 3}),
    ("freecell cells=2", "freecell", {"cells": 2}),
    ("freecell cells=1", "freecell", {"cells": 1}),
    ("freecell cells=0", "freecell", {"cells": 0}),
    ("freecell columns=7", "freecell", {"columns": 7}),
    ("freecell columns=6", "freecell", {"columns": 6}),
    ("freecell columns=5", "freecell", {"columns": 5}),
    ("freecell columns=4", "freecell", {"columns": 4}),
    ("eight_off", "eight_off", {}),
    ("seahaven_towers", "seahaven_towers", {}),
    ("king_albert", "king_albert", {}),
    ("raglan", "king_albert", {"layout": "raglan"}),
    ("perpetual_motion solver", "perpetual_motion", {"preset": "clarke", "strategy": "solver"}),
    ("amazons solver", "amazons", {"preset": "dick", "strategy": "solver"}),
    ("aces_up solver", "aces_up", {"strategy": "solver"}),
    ("auld_lang_syne solver", "auld_lang_syne", {"strategy": "solver"}),
    ("tam_o_shanter solver", "tam_o_shanter", {"strategy": "solver"}),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=100, help="deals per row")
    ap.add_argument("--start", type=int, default=0, help="first deal index")
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--rows", default="", help="comma-separated row names (default: all)")
    args = ap.parse_args()
    wanted = {r.strip() for r in args.rows.split(",") if r.strip()}
    for name, game, overrides in ROWS:
        if wanted and name not in wanted:
            continue
        g = get_game(game)
        over = dict(overrides)
        preset = over.pop("preset", None)
        rules = g.rules(preset=preset, overrides=over) if preset else g.rules(overrides=over)
        decks = seeded_deals(g.deck, args.seed, args.start, args.deals)
        out = g.play_batch(decks, rules)
        for i in range(decks.shape[0]):
            sol = str(out["solution"][i]) if "solution" in out else ""
            row = {
                "row": name,
                "deal": args.start + i,
                "outcome": int(out["outcome"][i]),
                "nodes": int(out["nodes"][i]) if "nodes" in out else None,
                "moves": int(out["moves"][i]),
                "rounds": int(out["rounds"][i]),
                "solution": hashlib.sha256(sol.encode()).hexdigest()[:16],
            }
            print(json.dumps(row), flush=True)
        print(f"{name}: done", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
