"""Benchmark and figures for the open-solitaire solver (Penguin, Baker's Game, FreeCell).

Runs on one core, in this process:
  1. Penguin, defaults, N seeded deals (default 1,000): solve seconds in all, unknown fraction,
     winnability with a Wilson 95% interval.  Target: under 10 s, at most 0.5% unknown.
  2. FreeCell, Microsoft deals 1-1000: all must be won (each solution replayed by the checker).
  3. FreeCell deal 11982 with a large budget: must be unsolvable.
  4. (--bakers N) Baker's Game with 3..6 cells on N seeded deals each, beside Jerry Bryan's figures.
  5. (--amazons N) Amazons under strategy: solver, N seeded deals (seed 2009) per preset (dick, pysolfc,
     one_in_ten): won/unsolvable/unknown, the proven minimum passes, CPU seconds per 1,000 deals (target for
     dick: 300 s), the deal indices not won, and the peak memory.
  0. (--table N, default 1,000) issue 11's table: every open-solitaire game present (Penguin, Baker's Game,
     FreeCell by cells and columns, Eight Off, Seahaven Towers, King Albert, each only once registered) on N
     seeded deals (--table-seed, default 99) at default settings, each row in its own child process on one
     core: won / unsolvable / unknown, mean CPU seconds per deal (time.process_time of the child, replay by the
     checker included) beside Solvitaire's (Blake and Gent; 2.1 GHz Broadwell) and one fifth of it (the
     target), the slowest deal, and the child's peak resident memory.  (--table-rows) picks rows by name;
     (--table-start) the first deal, to extend a row past the deals already run.
     (--sweep "ROW:I,J") runs the last search, the sweep, alone on deals I, J of a row instead;
     (--disk-sweep "ROW:I,J") the sweep with its levels on disk (engine/disk_sweep.py), alone, up to
     --disk-positions stored, with a line of progress every minute of CPU and at every level of 5 x 10^6
     (and within a level, one a minute of wall time: what it is doing and how far);
     with --disk-checkpoint DIR it saves a checkpoint every 10 CPU-minutes, an interrupt pauses it at a level's
     end, and the same command goes on from the last checkpoint; --disk-threads N shares each level's
     expansions among N threads.
  7. (--klondike N) issue 53's Klondike rows (draw 1-7, no worrying back, any card to spaces, same-suit
     building) on N seeded deals (--klondike-seed, default 2026) a row (--klondike-rows picks rows by name), at
     each max_nodes of --klondike-budgets: won / unsolvable / unknown beside Solvitaire's figure, CPU seconds
     per deal beside a tenth of Solvitaire's (the target), peak memory.
  6. (--perpetual-motion N) Perpetual Motion under strategy: solver, N seeded deals (seed 2009) for clarke,
     masten and pysolfc, each with direction as the preset has it and with `any`: won/unsolvable/unknown,
     the passes found, how often rounds_optimal was proven, the forced automaton beside it (dominance),
     CPU seconds per 1,000 deals (target for clarke: 300 s, at most 0.5% unknown), the deals not won and the
     peak memory.  (--pm-budget) one deal's search run to max_nodes, for its memory.  (--pm-proof-work
     "W1,W2,...") the proof of the fewest passes at each budget of generated positions, on the same deals: CPU
     seconds per deal, the proven lower bound (rounds_lower) beside the passes found, the share proven optimal.
     (--pm-levels P) the breadth-first phase alone on a few deals: the stocks stored at each depth to P passes.

Every `won` is replayed by the independent checker inside play_batch; "solve" seconds are the
solver's own (the per-deal `seconds` column), "wall" adds the replay and Python overhead.

    .venv/bin/python scripts/bench_solver.py [--table 1000] [--penguin 1000] [--bakers 2000] [--seed 2024]
    .venv/bin/python scripts/bench_solver.py --table 1000 --table-rows "freecell cells=2" \
        --penguin 0 --freecell 0 --skip-11982
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

from engine.cards import DECK_52
from engine.deals import microsoft_deal, seeded_deals
from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.reference import open_solitaire as reference
from engine.registry import get_game

# Issue 11's rows: (name, game, overrides, Solvitaire's CPU seconds per deal or None, Solvitaire's unknown rate or None)
TABLE_ROWS = (
    ("penguin", "penguin", {}, None, None),
    ("bakers_game", "bakers_game", {}, 0.42, None),
    ("freecell", "freecell", {}, 0.37, None),
    ("freecell cells=3", "freecell", {"cells": 3}, 0.32, 0.00001),
    ("freecell cells=2", "freecell", {"cells": 2}, 2.3, 0.0002),
    ("freecell cells=1", "freecell", {"cells": 1}, 3.3, 0.0003),
    ("freecell cells=0", "freecell", {"cells": 0}, None, None),
    ("freecell columns=7", "freecell", {"columns": 7}, None, None),
    ("freecell columns=6", "freecell", {"columns": 6}, None, None),
    ("freecell columns=5", "freecell", {"columns": 5}, None, None),
    ("freecell columns=4", "freecell", {"columns": 4}, None, None),
    ("eight_off", "eight_off", {}, 0.046, None),
    ("fore_cell_same_suit", "eight_off", {"cells": 4, "prefilled_cells": 4}, None, None),
    ("seahaven_towers", "seahaven_towers", {}, 0.12, None),
    ("king_albert", "king_albert", {}, 15.0, 1061 / 2_000_000),
    ("raglan", "king_albert", {"layout": "raglan"}, None, None),
)

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
    return (
        f"{name}: {n} deals, won {won} ({won / n:.4%}, Wilson 95% {lo:.4%}..{hi:.4%}), unsolvable {uns}, "
        f"unknown {unk} ({unk / n:.2%}); solve {out['seconds'].sum():.2f} s, wall {wall:.2f} s, "
        f"nodes mean {out['nodes'].mean():.0f} max {out['nodes'].max()}"
    )


def table_row(game: str, overrides: dict, deals: int, seed: int, start: int = 0) -> dict:
    """One row of the table, in this process: deals start.. start + deals - 1 of the seed through play_batch (wins
    replayed by the checker)."""
    import resource

    g = get_game(game)
    rules = g.rules(overrides=overrides)
    decks = seeded_deals(g.deck, seed, start, deals)
    g.play_batch(decks[:1], rules)  # compile / load the kernels outside the timing
    cpu0 = time.process_time()
    out = g.play_batch(decks, rules)
    cpu = time.process_time() - cpu0
    oc = out["outcome"]
    return {
        "deals": deals,
        "won": int((oc == WON).sum()),
        "unsolvable": int((oc == UNSOLVABLE).sum()),
        "unknown": int((oc == UNKNOWN).sum()),
        "cpu": cpu,
        "slowest": float(out["seconds"].max()),
        "unknown_at": (start + np.flatnonzero(oc == UNKNOWN)).tolist(),
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _row_rules(row: str):
    """A table row's game (its GameSpec), its engine module and its rules (the row's overrides on the defaults)."""
    import importlib

    game, over = next((g, o) for name, g, o, _, _ in TABLE_ROWS if name == row)
    g = get_game(game)
    return g, importlib.import_module(f"engine.games.{game}"), g.rules(overrides=over)


def sweep_section(row: str, indices: list[int], seed: int) -> None:
    """The sweep alone (docs/solvers.md, "The sweep") on chosen seeded deals of one table row, as the
    README's sweep table was measured: verdict, expansions, CPU seconds and the process's peak memory so far
    after each deal.  Wins go through play_one, so the checker replays them."""
    import resource

    from engine.search import solver as open_solver
    from engine.search.schedule import Step

    g, _, rules = _row_rules(row)
    open_solver.DEFAULT_SCHEDULE = (Step("sweep"),)  # single cards where runs stand for them, as by default
    print(f"the sweep alone, row {row!r}, seed {seed}", flush=True)
    for index in indices:
        cpu0 = time.process_time()
        r = g.play_one(seeded_deals(g.deck, seed, index, 1)[0], rules, False).row
        print(
            f"  deal {index}: {r['outcome']}, {r['nodes']:,} expansions, {time.process_time() - cpu0:.1f} CPU s, "
            f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024:,} MiB",
            flush=True,
        )


class _TempFiles:
    """The bytes of this process's temporary files (open and unlinked, as the sweep on disk's are, or open under
    ``directory``, a checkpoint's), sampled every second from /proc/self/fd on a thread, and the most seen: 0
    where there is no /proc (not Linux)."""

    def __init__(self, directory: str | None = None) -> None:
        import threading

        self.directory = os.path.abspath(directory) + os.sep if directory else None
        self.now = self.most = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(1.0):
            total = 0
            try:
                fds = os.listdir("/proc/self/fd")
            except OSError:
                return
            for fd in fds:
                try:
                    target = os.readlink(f"/proc/self/fd/{fd}")
                    if target.endswith("(deleted)") or (self.directory and target.startswith(self.directory)):
                        total += os.fstat(int(fd)).st_size
                except OSError:
                    pass  # closed meanwhile
            self.now, self.most = total, max(self.most, total)

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


SAVE_EVERY = 600  # CPU seconds between --disk-checkpoint's saves


def disk_sweep_section(
    row: str, indices: list[int], seed: int, positions: int, checkpoint: str = "", threads: int = 1
) -> None:
    """The sweep with its levels on disk (engine/disk_sweep.py) alone on chosen seeded deals of one table row:
    a line every minute of CPU and at every level of at least 5 x 10^6 positions (CPU and wall seconds, the layer's
    u + |S| and level, its positions, expanded and stored so far, rows written to disk, temporary files now,
    peak memory), within a level a line a minute of wall time at most (the sweep's heartbeat), then the verdict
    with the most temporary files held; a win's line is replayed by the reference checker here.  With
    ``checkpoint`` (a directory) each deal's files are kept in CHECKPOINT/deal-I, a
    checkpoint is saved there every SAVE_EVERY CPU seconds, and an interrupt (Ctrl-C, SIGTERM or SIGUSR1) pauses
    the sweep at its level's end, saving one; the same command again goes on from the last (after a pause, or a
    kill), its CPU seconds counted from the first start (bench.json beside it, as of that checkpoint).  With
    ``threads`` each level's expansions are shared among that many threads (CPU seconds are then all of them)."""
    import json
    import resource
    import signal

    from engine.games.open_family import reference_moves
    from engine.search.disk_sweep import disk_sweep
    from engine.search.solver import deal_position, frees_levels, sweep_params

    g, mod, rules = _row_rules(row)
    srules = mod.SOLVER.solver_rules(rules)
    print(f"the sweep on disk alone, row {row!r}, seed {seed}, up to {positions:,} positions", flush=True)
    asked = [False]
    if checkpoint:

        def ask(signum: int, frame: object) -> None:
            if not asked[0]:
                print(f"  signal {signum}: pausing at this level's end", flush=True)
            asked[0] = True

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1):
            signal.signal(sig, ask)
    for index in indices:
        if asked[0]:
            break
        deal = seeded_deals(g.deck, seed, index, 1)[0]
        st, rel = deal_position(deal, srules)
        where = os.path.join(checkpoint, f"deal-{index}") if checkpoint else None
        before = {"cpu": 0.0, "wall": 0.0, "files": 0}
        if where and os.path.exists(os.path.join(where, "bench.json")):
            with open(os.path.join(where, "bench.json")) as f:
                before = json.load(f)
            print(f"  deal {index}: resuming from {where} ({before['cpu']:.0f} CPU-s before)", flush=True)
        cpu0 = time.process_time() - before["cpu"]
        wall0 = time.perf_counter() - before.get("wall", 0.0)
        last = [cpu0]
        files = _TempFiles(where)

        beat = [time.perf_counter()]

        def progress(layer: int, depth: int, n: int, nodes: int, stored: int, written: int) -> None:
            now = time.process_time()
            if now - last[0] >= 60 or n >= 5_000_000:
                last[0], beat[0] = now, time.perf_counter()
                print(
                    f"  {now - cpu0:7.0f} CPU-s {time.perf_counter() - wall0:7.0f} s  u+|S| {layer >> 52:3d} "
                    f"level {depth:3d}: {n:>11,}  expanded "
                    f"{nodes:>13,}  stored {stored:>13,}  written {written:>13,}  files {files.now >> 20:,} MiB"
                    f"  peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024:,} MiB",
                    flush=True,
                )

        def heartbeat(layer: int, level: int, what: str, done: int, of: int) -> None:
            """Within a level, a line a minute of wall time at most since the last line (a level can take many)."""
            if time.perf_counter() - beat[0] >= 60:
                beat[0] = time.perf_counter()
                unit = " bucket groups" if what == "deduplicating" else " positions"
                print(
                    f"  {time.process_time() - cpu0:7.0f} CPU-s {beat[0] - wall0:7.0f} s  u+|S| {layer >> 52:3d} "
                    f"level {level:3d}: {what}, {done:,} of {of:,}{unit}",
                    flush=True,
                )

        saved = [time.process_time()]

        def record() -> None:  # the seconds and files so far, beside the checkpoint
            with open(os.path.join(where, "bench.json"), "w") as f:
                json.dump(
                    {
                        "cpu": time.process_time() - cpu0,
                        "wall": time.perf_counter() - wall0,
                        "files": max(files.most, before["files"]),
                    },
                    f,
                )

        def save() -> bool:  # a checkpoint every SAVE_EVERY CPU seconds: a kill loses at most that
            if time.process_time() - saved[0] < SAVE_EVERY:
                return False
            saved[0] = time.process_time()
            record()
            return True

        r = disk_sweep(
            st,
            rel,
            sweep_params(srules),
            frees_levels(srules),
            positions,
            progress=progress,
            checkpoint=where,
            pause=(lambda: asked[0]) if where else None,
            save=save if where else None,
            threads=threads,
            heartbeat=heartbeat,
        )
        files.stop()
        most = max(files.most, before["files"])
        if where:
            if r.paused:
                record()
                print(
                    f"  deal {index}: paused at {r.stored:,} stored, {time.process_time() - cpu0:.0f} CPU s; "
                    f"its state is in {where}: the same command resumes it",
                    flush=True,
                )
                continue
            if os.path.exists(os.path.join(where, "bench.json")):
                os.unlink(os.path.join(where, "bench.json"))
        verdict = {WON: "won", UNSOLVABLE: "unsolvable"}.get(r.outcome, "unknown")
        if r.outcome == WON:
            ref_rules = mod.SOLVER.reference_rules(rules)
            why = reference.check_solution(deal, ref_rules, reference_moves(deal, ref_rules, r.codes))
            verdict += f", line of {len(r.codes)} moves " + (
                "replayed by the checker" if why is None else f"REJECTED by the checker: {why}"
            )
        print(
            f"  deal {index}: {verdict}, {r.nodes:,} expanded, {r.stored:,} stored, largest level "
            f"{r.peak_level:,}, {r.written:,} rows written, temporary files at most {most >> 20:,} MiB, "
            f"{time.process_time() - cpu0:.0f} CPU s, {time.perf_counter() - wall0:.0f} s of wall time, peak "
            f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024:,} MiB",
            flush=True,
        )


def sweep_trace(row: str, index: int, seed: int, step: int, room: float = 0.0) -> None:
    """Where the sweep's room goes (docs/solvers.md, "The sweep"): the sweep alone on one seeded deal
    of a table row, at the row's defaults (``room``: SWEEP_LIVE, if given), printing every ``step`` expansions
    its live positions, how many of them wait in the heap for higher layers, the layer's queue by level (d - 1,
    d, d + 1: expanded or not, not yet freed) and the expanded ones not yet freed.  Positions only: no line
    is replayed, so a win here is only reported."""
    import resource

    import numpy as np

    from engine.search import sweep as sweep_module
    from engine.search.control import (
        C_DONE,
        C_DONE_HERE,
        C_HSIZE,
        C_LAYER,
        C_NODES,
        C_NREC,
        C_OUTCOME,
        C_QEND,
        C_QLEV,
        C_QPREV,
        C_QTAIL,
        C_TOTAL,
        CTL_SIZE,
        ORDER_SWEEP,
        RUNNING,
    )
    from engine.search.positions import P_MAXNODES
    from engine.search.solver import advance_search, begin_search, deal_position, sweep_params, warm_up
    from engine.search.sweep import sweep_room
    from engine.search.workspace import Workspace

    g, mod, rules = _row_rules(row)
    rules = mod.SOLVER.solver_rules(rules)
    if room:
        sweep_module.SWEEP_LIVE = room
    warm_up()
    ws = Workspace()
    st, rel = deal_position(seeded_deals(g.deck, seed, index, 1)[0], rules)
    params = sweep_params(rules)  # as solve_state sets them for the sweep
    params[P_MAXNODES] = rules.max_nodes
    ctl = np.zeros(CTL_SIZE, dtype=np.int64)
    cpu0 = time.process_time()
    ws.reserve(rules.max_nodes)
    begin_search(st, rel, params, ws, ORDER_SWEEP, ctl)
    print(
        f"the sweep alone, row {row!r}, seed {seed} deal {index}, room {sweep_room(rules.max_nodes):,} live", flush=True
    )
    print(
        f"{'expansions':>12} {'stored':>12} {'live':>11} {'heap':>11} {'level d-1':>10} {'level d':>10} "
        f"{'level d+1':>10} {'freeable':>10} {'on disk':>11} {'u+|S|':>5} {'cpu s':>6}",
        flush=True,
    )
    while ctl[C_OUTCOME] == RUNNING:
        advance_search(rel, params, ws, ctl, int(ctl[C_NODES]) + step)
        c = [int(x) for x in ctl]
        print(
            f"{c[C_NODES]:>12,} {c[C_TOTAL]:>12,} {c[C_NREC]:>11,} {c[C_HSIZE]:>11,} "
            f"{c[C_QLEV] - c[C_QPREV]:>10,} {c[C_QEND] - c[C_QLEV]:>10,} "
            f"{c[C_QTAIL] - c[C_QEND]:>10,} {c[C_DONE] - c[C_DONE_HERE]:>10,} "
            f"{ws.runs.waiting():>11,} "
            f"{max(c[C_LAYER], 0) >> 52:>5} {time.process_time() - cpu0:6.0f}",
            flush=True,
        )
    runs = ws.runs
    ws.close_spill()
    verdict = {WON: "won", UNSOLVABLE: "unsolvable"}.get(int(ctl[C_OUTCOME]), "unknown")
    print(
        f"  {verdict}; {runs.spills} runs written to disk, {runs.written:,} positions out, {runs.taken:,} read "
        f"back; peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024:,} MiB",
        flush=True,
    )


def table_section(deals: int, seed: int, only: list[str], start: int = 0) -> None:
    """Issue 11's table: one child process per row (its own peak memory), rows run one after another."""
    import json
    import os
    import platform
    import subprocess
    import sys

    from engine.registry import game_names

    known = set(game_names())
    cpu_name = (
        next(
            (ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")),
            platform.processor(),
        )
        if os.path.exists("/proc/cpuinfo")
        else platform.processor()
    )
    print(
        f"open solitaires, {deals} seeded deals per row (seed {seed}, from deal {start}), defaults unless named; "
        f"one core ({cpu_name}); "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    print(
        f"{'row':<22} {'won':>6} {'unsolv':>6} {'unknown':>7} {'cpu s/deal':>10} {'Solvitaire':>10} {'target':>8} "
        f"{'slowest s':>9} {'peak MiB':>8}",
        flush=True,
    )
    for name, game, over, theirs, _ in TABLE_ROWS:
        if only and name not in only:
            continue
        if game not in known:
            print(f"{name:<22} (game not registered yet)", flush=True)
            continue
        g = get_game(game)
        if any(k not in {f.name for f in __import__("dataclasses").fields(g.rules_type)} for k in over):
            print(f"{name:<22} (switch {list(over)} not there yet)", flush=True)
            continue
        cmd = [sys.executable, __file__, "--row", json.dumps([game, over, deals, seed, start])]
        res = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ))
        if res.returncode != 0:
            print(f"{name:<22} failed: {res.stderr.strip().splitlines()[-1:]}", flush=True)
            continue
        r = json.loads(res.stdout.strip().splitlines()[-1])
        per = r["cpu"] / r["deals"]
        th = f"{theirs:10.3f}" if theirs else f"{'-':>10}"
        tg = f"{theirs / 5:8.4f}" if theirs else f"{'-':>8}"
        print(
            f"{name:<22} {r['won']:>6} {r['unsolvable']:>6} {r['unknown']:>7} {per:10.4f} {th} {tg} "
            f"{r['slowest']:9.2f} {r['rss_mib']:8.0f}" + (f"  unknown at {r['unknown_at']}" if r["unknown"] else ""),
            flush=True,
        )


def amazons_section(deals: int, seed: int, presets: list[str], progress: int = 100) -> None:
    """Amazons under strategy: solver, one deal at a time on this core: verdicts, proven minimum passes, time, memory.

    Target (issue 10): `dick`, 1,000 deals decided with their proven minimum passes in at most 300 s on one core.
    CPU seconds of this process are the figure (the machine may be shared); wall seconds are shown beside them.
    """
    import collections
    import resource

    from engine.games import amazons, amazons_solver

    for preset in presets:
        rules = amazons.GAME.rules(preset, {"strategy": "solver"})
        decks = seeded_deals(amazons.DECK_AMAZONS, seed, 0, deals)
        amazons_solver.solve_deal(decks[0], rules)  # compile / load the kernels outside the timing
        ws = amazons_solver.Workspace()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        rows = []
        cpu_at_1000 = None
        for i in range(deals):
            s = amazons_solver.solve_deal(decks[i], rules, ws)  # every win replayed by the reference inside
            rows.append((s.outcome, s.rounds, s.nodes))
            if i + 1 == 1000:
                cpu_at_1000 = time.process_time() - cpu0
            if (i + 1) % progress == 0 and i + 1 < deals:
                print(
                    f"  ... {preset}: {i + 1} deals, won {sum(o == WON for o, _, _ in rows)}, cpu "
                    f"{time.process_time() - cpu0:.1f} s, passes "
                    f"{sorted(collections.Counter(r for o, r, _ in rows if o == WON).items())}, not won "
                    f"{[k for k, (o, _, _) in enumerate(rows) if o != WON]}",
                    flush=True,
                )
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        won = sum(o == WON for o, _, _ in rows)
        uns = sum(o == UNSOLVABLE for o, _, _ in rows)
        unk = sum(o == UNKNOWN for o, _, _ in rows)
        lo, hi = wilson(won, deals)
        passes = sorted(collections.Counter(r for o, r, _ in rows if o == WON).items())
        print(
            f"amazons {preset} solver, seed {seed}: {deals} deals, won {won} ({won / deals:.4%}, Wilson 95% "
            f"{lo:.4%}..{hi:.4%}), unsolvable {uns}, unknown {unk}; cpu {cpu:.1f} s ({1000 * cpu / deals:.1f} s "
            f"per 1,000 deals), wall {wall:.1f} s"
            + (f"; first 1,000 deals: cpu {cpu_at_1000:.1f} s" if cpu_at_1000 is not None else ""),
            flush=True,
        )
        print(
            f"  minimum passes of the won deals: {passes}; nodes mean {np.mean([n for _, _, n in rows]):.0f} "
            f"max {max(n for _, _, n in rows)}",
            flush=True,
        )
        print(f"  deal indices not won: {[i for i, (o, _, _) in enumerate(rows) if o != WON]}", flush=True)
    print(
        f"  peak resident memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB",
        flush=True,
    )


def perpetual_motion_section(deals: int, seed: int, presets: list[str]) -> None:
    """Perpetual Motion under strategy: solver, deal by deal in play_batch (every win replayed by the reference).

    Target (issue 10): clarke, 1,000 deals in at most 300 s on one core with at most 0.5% unknown.  CPU seconds
    of this process are the figure (the machine may be shared); wall seconds beside them.
    """
    import collections
    import resource

    from engine.games import perpetual_motion as pm

    for preset in presets:
        for direction in ("preset", "any"):
            over = {"strategy": "solver"} | ({} if direction == "preset" else {"direction": "any"})
            rules = pm.GAME.rules(preset, over)
            decks = seeded_deals(DECK_52, seed, 0, deals)
            pm.play_batch(decks[:1], rules)  # compile / load the kernels outside the timing
            cpu0, wall0 = time.process_time(), time.perf_counter()
            out = pm.play_batch(decks, rules)
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
            won = out["outcome"] == WON
            k = int(won.sum())
            uns = int((out["outcome"] == UNSOLVABLE).sum())
            unk = int((out["outcome"] == UNKNOWN).sum())
            lo, hi = wilson(k, deals)
            name = f"{preset}" + ("" if direction == "preset" else " direction=any")
            print(
                f"perpetual_motion {name} solver, seed {seed}: {deals} deals, won {k} ({k / deals:.4%}, Wilson 95% "
                f"{lo:.4%}..{hi:.4%}), unsolvable {uns}, unknown {unk} ({unk / deals:.2%}); cpu {cpu:.1f} s "
                f"({1000 * cpu / deals:.1f} s per 1,000 deals), search {out['seconds'].sum():.1f} s, wall {wall:.1f} s",
                flush=True,
            )
            passes = sorted(collections.Counter(out["rounds"][won].tolist()).items())
            lower = sorted(collections.Counter(out["rounds_lower"][won].tolist()).items())
            print(
                f"  passes found: mean {out['rounds'][won].mean():.2f}, distribution {passes}; rounds_optimal proven "
                f"{int(out['rounds_optimal'].sum())}; nodes mean {out['nodes'].mean():.0f} max {out['nodes'].max()}; "
                f"slowest deal {out['seconds'].max():.2f} s",
                flush=True,
            )
            print(
                f"  proven lower bound (rounds_lower): mean {out['rounds_lower'][won].mean():.2f}, "
                f"distribution {lower}",
                flush=True,
            )
            if direction == "preset":
                forced = pm.play_batch(decks, pm.GAME.rules(preset))
                fw = forced["outcome"] == WON
                worse = int((fw & (~won | (out["rounds"] > forced["rounds"]))).sum())
                print(
                    f"  forced: won {int(fw.sum())}, mean passes {forced['rounds'][fw].mean():.1f}; deals where the "
                    f"solver does worse than forced: {worse}",
                    flush=True,
                )
            print(f"  deal indices not won: {np.flatnonzero(~won).tolist()}", flush=True)
    print(
        f"  peak resident memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB",
        flush=True,
    )


def perpetual_motion_proof_curve(deals: int, seed: int, presets: list[str], budgets: list[int]) -> None:
    """The proof of the fewest passes against its budget (the switch proof_work), per preset and direction:
    CPU seconds per deal, the proven lower bound beside the passes found, and the share proven optimal."""
    import collections

    from engine.games import perpetual_motion as pm

    decks = seeded_deals(DECK_52, seed, 0, deals)
    for preset in presets:
        for direction in ("leftmost", "any"):
            for work in budgets:
                rules = pm.GAME.rules(preset, {"strategy": "solver", "direction": direction, "proof_work": work})
                pm.play_batch(decks[:1], rules)  # compile / load the kernels outside the timing
                cpu0 = time.process_time()
                out = pm.play_batch(decks, rules)
                cpu = time.process_time() - cpu0
                won = out["outcome"] == WON
                lower = sorted(collections.Counter(out["rounds_lower"][won].tolist()).items())
                print(
                    f"perpetual_motion {preset} direction={direction} proof_work={work:,}: {deals} deals (seed {seed}),"
                    f" {cpu / deals:.3f} CPU s a deal; passes found mean {out['rounds'][won].mean():.2f}; proven lower"
                    f" bound mean {out['rounds_lower'][won].mean():.2f} {lower}; proven optimal"
                    f" {out['rounds_optimal'][won].mean():.1%}",
                    flush=True,
                )


def perpetual_motion_levels(preset: str, direction: str, passes: int, deals: list[int], lists: list[int]) -> None:
    """The breadth-first phase alone on whole deals (seed 2009), to ``passes`` passes: the stocks stored at each
    depth and the passes proven to have no win.  ``lists``: the exact phase's EXACT_LOCAL, EXACT_BEAM and
    EXACT_CAND (empty: the defaults), whose filling truncates an expansion and ends the proof."""
    from engine.games import perpetual_motion_solver as solver
    from engine.games.perpetual_motion import GAME

    if lists:
        solver.EXACT_LOCAL, solver.EXACT_BEAM, solver.EXACT_CAND = lists
    rules = GAME.rules(preset, {"strategy": "solver", "direction": direction})
    decks = seeded_deals(DECK_52, 2009, 0, max(deals) + 1)
    for i in deals:
        ws = solver.Workspace()
        cpu0 = time.process_time()
        f = solver.search(decks[i] % 13, rules, ws, True, passes, 5_000_000, 5_000_000, 400_000_000)
        stored = int(ws.recs.any(axis=1).sum())  # a new workspace: its records are this search's
        by_depth = np.bincount(ws.depth[:stored]).tolist()
        print(
            f"perpetual_motion {preset} direction={direction} deal {i}: no win in {f.proven} passes proven; stocks "
            f"stored by depth {by_depth}; {time.process_time() - cpu0:.1f} CPU s",
            flush=True,
        )


def perpetual_motion_budget(preset: str, max_nodes: int) -> None:
    """One search filled to max_nodes stored stocks, for the memory one deal's search can take: the guide is turned
    upside down (most cards left first), so the search wanders instead of winning."""
    import resource

    from engine.games import perpetual_motion_solver as solver
    from engine.games.perpetual_motion import GAME

    rules = GAME.rules(preset, {"strategy": "solver", "max_nodes": max_nodes})
    deal = seeded_deals(DECK_52, 2009, 0, 1)[0]
    ws = solver.Workspace()
    solver.GUIDE_WEIGHTS = (-64, -1, 0)
    t0 = time.perf_counter()
    f = solver.search(deal % 13, rules, ws, False, 1_000_000, max_nodes)
    print(
        f"perpetual_motion {preset}: one guided search, max_nodes {max_nodes}: code {f.code}, "
        f"{f.nodes} stocks expanded, "
        f"{time.perf_counter() - t0:.1f} s, table of {ws.recs.shape[0]} records; peak resident memory "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB",
        flush=True,
    )


# Issue 53's rows: (name, overrides, Solvitaire's winnable % and its +-, Solvitaire's CPU seconds per deal)
KLONDIKE_ROWS = (
    ("draw3", {}, 81.945, 0.084, 75),
    ("draw1", {"draw": 1}, 90.480, 0.116, 190),
    ("draw2", {"draw": 2}, 88.620, 0.135, 60),
    ("draw4", {"draw": 4}, 69.337, 0.098, 8.5),
    ("draw5", {"draw": 5}, 53.434, 0.099, 3.3),
    ("draw6", {"draw": 6}, 35.854, 0.095, 1),
    ("draw7", {"draw": 7}, 23.779, 0.084, 0.45),
    ("draw3 no worrying back", {"worrying_back": False}, 81.524, 0.089, 10),
    ("draw3 any card to spaces", {"empty_column": "any"}, 94.959, 0.045, 2.1),
    ("draw3 same-suit building", {"build": "suit"}, 40.762, 0.097, 0.032),
    # the same published row read with any card to spaces (Solvitaire's default preset's spaces policy)
    ("draw3 same-suit any card to spaces", {"build": "suit", "empty_column": "any"}, 40.762, 0.097, 0.032),
)


def klondike_section(deals: int, seed: int, rows: list[str], budgets: list[int]) -> None:
    """Issue 53's table on ``deals`` seeded deals a row, in this process on one core, at each ``max_nodes`` budget:
    won / unsolvable / unknown, the share won as bounds (unknowns lost, unknowns won) beside Solvitaire's, CPU
    seconds per deal (time.process_time, the reference's replay of every win included) beside a tenth of
    Solvitaire's (the target), and the peak resident memory so far."""
    import resource

    from engine.games.klondike import GAME

    decks = seeded_deals(DECK_52, seed, 0, deals)
    GAME.play_batch(decks[:1], GAME.rules(None, {"max_nodes": 100}))  # compile / load the kernels first
    for name, over, published, pm, cpu_solvitaire in KLONDIKE_ROWS:
        if rows and name not in rows:
            continue
        for budget in budgets:
            cpu0 = time.process_time()
            out = GAME.play_batch(decks, GAME.rules(None, {**over, "max_nodes": budget}))
            cpu = (time.process_time() - cpu0) / deals
            won, unknown = int((out["outcome"] == WON).sum()), int((out["outcome"] == UNKNOWN).sum())
            print(
                f"klondike {name} max_nodes={budget:,}: {deals} deals (seed {seed}): {won} won / "
                f"{deals - won - unknown} unsolvable / {unknown} unknown; "
                f"won {won / deals:.1%}..{(won + unknown) / deals:.1%}"
                f" (Solvitaire {published}% +- {pm}); {cpu:.3f} CPU s a deal (target {cpu_solvitaire / 10:g}); "
                f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--penguin", type=int, default=1000, help="Penguin deals with the defaults")
    ap.add_argument("--freecell", type=int, default=1000, help="Microsoft deals 1..N")
    ap.add_argument("--bakers", type=int, default=0, help="Baker's Game deals per cell count 3..6 (0: skip)")
    ap.add_argument("--skip-11982", action="store_true")
    ap.add_argument(
        "--confirm",
        type=int,
        default=0,
        help="confirm up to N of Penguin's unsolvable verdicts by the plain-Python exhaustive search "
        "(no safe moves; minutes per deal)",
    )
    ap.add_argument("--amazons", type=int, default=0, help="Amazons deals per preset under strategy: solver (0: skip)")
    ap.add_argument("--amazons-presets", default="dick,pysolfc,one_in_ten")
    ap.add_argument("--amazons-seed", type=int, default=2009)
    ap.add_argument(
        "--perpetual-motion",
        type=int,
        default=0,
        help="Perpetual Motion deals per variant under strategy: solver (0: skip)",
    )
    ap.add_argument("--pm-presets", default="clarke,masten,pysolfc")
    ap.add_argument("--pm-seed", type=int, default=2009)
    ap.add_argument("--pm-budget", type=int, default=0, help="one Perpetual Motion search filled to this max_nodes")
    ap.add_argument("--pm-proof-work", default="", help='budgets of the fewest-passes proof, e.g. "0,10000,100000"')
    ap.add_argument("--pm-proof-deals", type=int, default=200, help="deals per budget for --pm-proof-work")
    ap.add_argument("--pm-levels", type=int, default=0, help="the breadth-first phase alone, to this many passes")
    ap.add_argument("--pm-levels-deals", default="0,1,2,3,4,5", help="deal indices for --pm-levels")
    ap.add_argument("--pm-levels-direction", default="leftmost")
    ap.add_argument("--pm-exact-lists", default="", help="for --pm-levels: EXACT_LOCAL,EXACT_BEAM,EXACT_CAND")
    ap.add_argument("--klondike", type=int, default=0, help="issue 53's Klondike rows: seeded deals a row (0: skip)")
    ap.add_argument("--klondike-seed", type=int, default=2026)
    ap.add_argument("--klondike-rows", default="", help="comma-separated row names (default: every row)")
    ap.add_argument("--klondike-budgets", default="1000000", help="max_nodes values, comma-separated")
    ap.add_argument("--table", type=int, default=1000, help="issue 11's table: seeded deals per row (0: skip)")
    ap.add_argument("--table-seed", type=int, default=99)
    ap.add_argument("--table-start", type=int, default=0, help="the table's first deal (index within the seed)")
    ap.add_argument("--table-rows", default="", help="comma-separated row names (default: every row)")
    ap.add_argument("--row", default="", help=argparse.SUPPRESS)  # a child of --table: one row, printed as JSON
    ap.add_argument(
        "--sweep",
        default="",
        help="ROW:I,J,...: the sweep alone on deals I, J of a table row "
        "(seed --table-seed), e.g. 'freecell columns=6:220,269'",
    )
    ap.add_argument(
        "--sweep-trace",
        default="",
        help="ROW:I[:STEP[:ROOM]]: where the sweep's room goes on deal I "
        "of a table row, every STEP expansions (default 10^6; ROOM: SWEEP_LIVE), "
        "e.g. 'freecell columns=6:2478:2000000'",
    )
    ap.add_argument(
        "--sweep-total",
        type=float,
        default=0.0,
        help="SWEEP_TOTAL for --sweep and --sweep-trace "
        "(the positions the sweep may store in all, as a multiple of max_nodes)",
    )
    ap.add_argument(
        "--disk-sweep",
        default="",
        help="ROW:I,J,...: the sweep with its levels on disk alone on deals "
        "I, J of a table row, e.g. 'freecell columns=6:3499'",
    )
    ap.add_argument("--disk-positions", type=float, default=3e9, help="positions --disk-sweep may store")
    ap.add_argument(
        "--disk-checkpoint",
        default="",
        help="DIR: --disk-sweep keeps each deal's files in DIR/deal-I, "
        "saves a checkpoint there every 10 CPU-minutes and when paused (Ctrl-C, SIGTERM or SIGUSR1), "
        "and goes on from the last one when run again",
    )
    ap.add_argument(
        "--disk-threads",
        type=int,
        default=1,
        help="threads sharing --disk-sweep's expansions (the same search for any count)",
    )
    args = ap.parse_args()

    if args.disk_sweep:
        row, _, indices = args.disk_sweep.rpartition(":")
        disk_sweep_section(
            row,
            [int(i) for i in indices.split(",")],
            args.table_seed,
            int(args.disk_positions),
            args.disk_checkpoint,
            args.disk_threads,
        )
        return
    if args.sweep_total:
        from engine.search import solver as open_solver

        open_solver.SWEEP_TOTAL = (
            int(args.sweep_total) if args.sweep_total == int(args.sweep_total) else args.sweep_total
        )
    if args.sweep_trace:
        row, *rest = args.sweep_trace.split(":")
        sweep_trace(
            row,
            int(rest[0]),
            args.table_seed,
            int(rest[1]) if len(rest) > 1 else 1_000_000,
            float(rest[2]) if len(rest) > 2 else 0.0,
        )
        return
    if args.sweep:
        row, _, indices = args.sweep.rpartition(":")
        sweep_section(row, [int(i) for i in indices.split(",")], args.table_seed)
        return

    if args.row:
        import json

        game, over, deals, seed, start = json.loads(args.row)
        print(json.dumps(table_row(game, over, deals, seed, start)), flush=True)
        return
    if args.table:
        table_section(args.table, args.table_seed, [r for r in args.table_rows.split(",") if r], args.table_start)

    if args.perpetual_motion:
        perpetual_motion_section(args.perpetual_motion, args.pm_seed, args.pm_presets.split(","))
    if args.pm_budget:
        perpetual_motion_budget("clarke", args.pm_budget)
    if args.pm_levels:
        perpetual_motion_levels(
            args.pm_presets.split(",")[0],
            args.pm_levels_direction,
            args.pm_levels,
            [int(i) for i in args.pm_levels_deals.split(",")],
            [int(x) for x in args.pm_exact_lists.split(",") if x],
        )
    if args.pm_proof_work:
        budgets = [int(w) for w in args.pm_proof_work.split(",")]
        perpetual_motion_proof_curve(args.pm_proof_deals, args.pm_seed, args.pm_presets.split(","), budgets)
    if args.klondike:
        klondike_section(
            args.klondike,
            args.klondike_seed,
            [r for r in args.klondike_rows.split(",") if r],
            [int(b) for b in args.klondike_budgets.split(",")],
        )
    if args.amazons:
        amazons_section(args.amazons, args.amazons_seed, args.amazons_presets.split(","))
    if args.penguin:
        decks = seeded_deals(DECK_52, args.seed, 0, args.penguin)
        out, wall = run("penguin", decks)
        print(summary(f"penguin defaults, seed {args.seed}", out, wall), flush=True)
        unsolvable = np.flatnonzero(out["outcome"] == UNSOLVABLE)
        print(f"  unsolvable deal indices: {unsolvable.tolist()}", flush=True)
        for i in unsolvable[: args.confirm]:
            rules = reference.Rules("penguin", "suit", 7, True, "unlimited", "beak_minus_one")
            t0 = time.perf_counter()
            verdict = reference.exhaustive_verdict(
                reference.deal_layout(list(decks[i]), rules), rules, 3_000_000, symmetric=True
            )
            print(
                f"  index {i}: plain exhaustive search says winnable={verdict} ({time.perf_counter() - t0:.0f} s)",
                flush=True,
            )
    if args.freecell:
        decks = np.stack([microsoft_deal(n) for n in range(1, args.freecell + 1)])
        out, wall = run("freecell", decks)
        print(summary(f"freecell Microsoft 1-{args.freecell}", out, wall), flush=True)
        bad = [i + 1 for i in np.flatnonzero(out["outcome"] != WON)]
        print(f"  not won: {bad}" if bad else "  all won, every solution replayed by the checker", flush=True)
    if not args.skip_11982:
        out, wall = run("freecell", microsoft_deal(11982)[None, :], {"max_nodes": 50_000_000})
        print(
            f"freecell 11982: {('won', '', '', '', 'unsolvable', 'unknown')[int(out['outcome'][0])]} after "
            f"{int(out['nodes'][0])} positions, {out['seconds'][0]:.2f} s",
            flush=True,
        )
    if args.bakers:
        decks = seeded_deals(DECK_52, args.seed, 0, args.bakers)
        for cells in (3, 4, 5, 6):
            out, wall = run("bakers_game", decks, {"cells": cells})
            print(summary(f"bakers_game cells {cells} (Bryan {BRYAN[cells]:.4%})", out, wall), flush=True)


if __name__ == "__main__":
    main()
