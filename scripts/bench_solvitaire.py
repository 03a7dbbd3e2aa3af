"""Solvitaire and our solver on the same machine, on the same deals: verdicts deal by deal, CPU seconds per deal.

Issue 11's speed targets are one fifth of the CPU seconds Blake and Gent published for Solvitaire (2.1 GHz
Broadwell).  A figure measured on another machine says little about a ratio, so this script runs Solvitaire
itself here, beside ours, and prints both.  It needs a Solvitaire binary (not a dependency of the project; it
is C++, https://github.com/thecharlieblake/Solvitaire).  Built without its unit tests, on Debian with
``libboost-program-options-dev``:

    g++ -std=c++14 -O3 -DNDEBUG -pthread -Ilib/rapidjson -Ilib $(find src/main -name '*.cpp') \\
        -o solvitaire -lboost_program_options

Each row writes every deal of ours (seeded, as the table's rows are) as a Solvitaire deal file and runs
``solvitaire --type T --classify --streamliners smart-solvability --timeout MS`` on it, one process per deal
(smart-solvability is how the published table was made: its streamlined search first, with a tenth of the
time, then the exact one).  CPU seconds are the child's user + system time (a process start costs about 5 ms,
included).  Ours are play_batch's CPU seconds on the same deals, every win replayed by the checker.

Solvitaire's deal files have no cells (its schema allows none), so the rows that deal cards to cells (Eight
Off, Fore Cell, Seahaven Towers) run on Solvitaire's own random deals instead (``--random SEED``, seeds from 0;
timing only, no verdict comparison), and so does Raglan (Aces dealt to the foundations).  A verdict that
differs on a deal that both decided is a bug in one of the two solvers or in a rule reading; the script lists
those deals.

    .venv/bin/python scripts/bench_solvitaire.py --solvitaire /path/to/solvitaire --deals 1000 \\
        --rows "freecell cells=3,bakers_game"
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.deals import seeded_deals  # noqa: E402
from engine.outcomes import UNKNOWN, UNSOLVABLE, WON  # noqa: E402
from engine.registry import get_game  # noqa: E402

# (row name as in bench_solver's table, our game, overrides, Solvitaire's game type, our deals can be written)
ROWS = (
    ("bakers_game", "bakers_game", {}, "bakers-game", True),
    ("freecell", "freecell", {}, "free-cell", True),
    ("freecell cells=3", "freecell", {"cells": 3}, "free-cell-3-cell", True),
    ("freecell cells=2", "freecell", {"cells": 2}, "free-cell-2-cell", True),
    ("freecell cells=1", "freecell", {"cells": 1}, "free-cell-1-cell", True),
    ("freecell cells=0", "freecell", {"cells": 0}, "free-cell-0-cell", True),
    ("freecell columns=7", "freecell", {"columns": 7}, "free-cell-7-pile", True),
    ("freecell columns=6", "freecell", {"columns": 6}, "free-cell-6-pile", True),
    ("freecell columns=5", "freecell", {"columns": 5}, "free-cell-5-pile", True),
    ("freecell columns=4", "freecell", {"columns": 4}, "free-cell-4-pile", True),
    ("eight_off", "eight_off", {}, "eight-off", False),
    ("fore_cell_same_suit", "eight_off", {"cells": 4, "prefilled_cells": 4}, "fore-cell-same-suit", False),
    ("seahaven_towers", "seahaven_towers", {}, "seahaven-towers", False),
    ("king_albert", "king_albert", {}, "king-albert", True),
    ("raglan", "king_albert", {"layout": "raglan"}, "raglan", False),
)
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
VERDICTS = {"solved": WON, "unsolvable": UNSOLVABLE}  # anything else ("timed-out", ...) counts as unknown


def card_name(c: int) -> str:
    """Solvitaire's card text: rank (A, 2..10, J, Q, K) then suit; our suits are C D H S."""
    return RANKS[c % 13] + "CDHS"[c // 13]


def deal_file(game: str, overrides: dict, deal) -> dict:
    """Our opening layout of ``deal`` as a Solvitaire deal: columns bottom first, cells or King Albert's reserve."""
    g = get_game(game)
    solver = g.play_batch.__self__  # the game's OpenGame: its judge lays the deal out
    layout = solver.reference.deal_layout([int(c) for c in deal], solver.reference_rules(g.rules(overrides=overrides)))
    out: dict = {"tableau piles": [[card_name(c) for c in col] for col in layout.columns]}
    if hasattr(layout, "reserve"):
        out["reserve"] = [card_name(c) for c in layout.reserve if c is not None]
    elif any(c is not None for c in layout.cells):
        raise ValueError("Solvitaire's deal files have no cells")
    return out


def run_solvitaire(binary: str, gtype: str, timeout_s: float, deal: dict | None, seed: int) -> tuple[int, float]:
    """One Solvitaire process on a deal file (or on its own random deal ``seed``): (our outcome code, CPU s)."""
    args = [
        binary,
        "--type",
        gtype,
        "--classify",
        "--streamliners",
        "smart-solvability",
        "--timeout",
        str(int(timeout_s * 1000)),
    ]
    path = None
    if deal is not None:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(deal, f)
        path = f.name
        args.append(path)
    else:
        args += ["--random", str(seed)]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = subprocess.run(args, capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if path:
        os.unlink(path)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    lines = res.stdout.strip().splitlines()
    if res.returncode != 0 or not lines or "," not in lines[0]:
        raise RuntimeError(f"solvitaire failed ({res.returncode}): {(res.stderr or res.stdout).strip()[-200:]}")
    return final_verdict(lines[0]), cpu


def final_verdict(line: str) -> int:
    """Our outcome code for one ``--classify`` line of Solvitaire.  With smart-solvability the line holds the
    streamlined pass's figures (its verdict first), then the exact pass's (empty if the first pass won), then
    the final verdict, last: only that one counts (the first pass's "unsolvable" means only that the
    streamliners ran out of states)."""
    return VERDICTS.get(line.rsplit(",", 1)[-1].strip(), UNKNOWN)


def counts(outcomes) -> str:
    outcomes = list(outcomes)
    return " / ".join(str(sum(o == k for o in outcomes)) for k in (WON, UNSOLVABLE, UNKNOWN))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solvitaire", required=True, help="path of a Solvitaire binary")
    ap.add_argument("--deals", type=int, default=1000, help="deals per row")
    ap.add_argument("--seed", type=int, default=99, help="our seed (bench_solver's table uses 99)")
    ap.add_argument("--timeout", type=float, default=60.0, help="Solvitaire's limit per deal, seconds")
    ap.add_argument("--rows", default="freecell cells=3", help="comma-separated row names, or 'all'")
    args = ap.parse_args()
    names = [r[0] for r in ROWS] if args.rows == "all" else [r for r in args.rows.split(",") if r]
    unknown = [n for n in names if n not in {r[0] for r in ROWS}]
    if unknown or not os.access(args.solvitaire, os.X_OK):
        bad = (
            f"rows {unknown}: allowed are {[r[0] for r in ROWS]}"
            if unknown
            else f"--solvitaire {args.solvitaire!r}: not an executable file"
        )
        print(f"error: {bad}", file=sys.stderr)
        raise SystemExit(2)
    print(
        f"{args.deals} deals per row (ours: seed {args.seed}); load {os.getloadavg()[0]:.1f}; Solvitaire "
        f"smart-solvability, {args.timeout:g} s a deal",
        flush=True,
    )
    print(
        f"{'row':<22} {'deals':>12} {'Solvitaire w/u/?':>18} {'s/deal':>8} {'ours w/u/?':>14} {'s/deal':>8} "
        f"{'ratio':>6}  verdicts",
        flush=True,
    )
    for name, game, over, gtype, same_deals in ROWS:
        if name not in names:
            continue
        g = get_game(game)
        decks = seeded_deals(g.deck, args.seed, 0, args.deals)
        theirs, cpu_theirs = [], 0.0
        for i in range(args.deals):
            o, c = run_solvitaire(
                args.solvitaire, gtype, args.timeout, deal_file(game, over, decks[i]) if same_deals else None, i
            )
            theirs.append(o)
            cpu_theirs += c
        rules = g.rules(overrides=over)
        g.play_batch(decks[:1], rules)  # compile / load the kernels outside the timing
        c0 = time.process_time()
        ours = [int(o) for o in g.play_batch(decks, rules)["outcome"]]
        cpu_ours = time.process_time() - c0
        if same_deals:
            differ = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if UNKNOWN not in (a, b) and a != b]
            note = f"differ on {differ}" if differ else "the same on every deal both decided"
        else:
            note = "Solvitaire on its own random deals: timing only"
        per_t, per_o = cpu_theirs / args.deals, cpu_ours / args.deals
        print(
            f"{name:<22} {args.deals:>12} {counts(theirs):>18} {per_t:8.4f} {counts(ours):>14} {per_o:8.4f} "
            f"{per_t / per_o:6.2f}  {note}",
            flush=True,
        )


if __name__ == "__main__":
    main()
