"""Where the solver's compiled kernels spend their time, by Linux ``perf``: numba's machine code has no symbols
that perf can read, so this runs a workload and then writes perf's map of that code (``/tmp/perf-PID.map``: each
compiled function's address, size and name), which ``perf report`` reads for the samples in it.

    perf record -F 999 -o /tmp/perf.data .venv/bin/python scripts/profile_kernels.py "freecell columns=6:4934" 3e7
    perf report -i /tmp/perf.data --no-children --sort sym

The workload is the sweep on disk alone (engine/disk_sweep.py), on one deal of a table row of
``scripts/bench_solver.py`` (seed 99), up to the positions given.  The kernels are compiled in this process, into
a numba cache of its own (a temporary directory, unless NUMBA_CACHE_DIR names one): code loaded from a cache
keeps no list of its functions, so it could not be mapped.  A helper inlined into a kernel counts as the kernel
(``inline="always"``), and a function numba calls, such as an array's ``view`` (``_change_dtype``), under its
own name: that is how the views the expansion loops made for each child were found (4.4% of the sweep's samples
on 6 columns deal 4934; 10% less CPU without them).  Each function's size is taken as the distance to the next
one mapped, so a sample between functions may be counted in the one before."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

if "NUMBA_CACHE_DIR" not in os.environ:  # before numba is imported (engine/__init__.py sets the default)
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="patience-profile-")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

MODULES = tuple(
    f"engine.search.{m}"
    for m in (
        "best_first",
        "control",
        "depth_first",
        "disk_sweep",
        "encoding",
        "expansion",
        "guide",
        "heap",
        "lines",
        "moves",
        "packed_rows",
        "position_table",
        "positions",
        "safe_moves",
        "solver",
        "sweep",
        "sweep_runs",
    )
)


def compiled_functions() -> list[tuple[int, str]]:
    """(address, name) of every function compiled in this process for the dispatchers of MODULES, sorted."""
    from numba.core.registry import CPUDispatcher

    found: dict[int, str] = {}
    for name in MODULES:
        module = sys.modules.get(name)
        for obj in vars(module).values() if module else ():
            if not isinstance(obj, CPUDispatcher):
                continue
            for cres in obj.overloads.values():
                library = cres.library
                try:
                    functions = library._final_module.functions
                except AttributeError:  # loaded from a cache: no module to list
                    continue
                for f in functions:
                    if not f.is_declaration:
                        address = library.get_pointer_to_function(f.name)
                        if address:
                            found.setdefault(address, f.name)
    return sorted(found.items())


def write_perf_map(path: str | None = None) -> int:
    """Write perf's map of this process's compiled functions; returns how many."""
    functions = compiled_functions()
    with open(path or f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for k, (address, name) in enumerate(functions):
            end = functions[k + 1][0] if k + 1 < len(functions) else address + 4096
            f.write(f"{address:x} {min(end - address, 1 << 20):x} {name}\n")
    return len(functions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "deal", help="ROW:I, a table row of scripts/bench_solver.py and a deal, e.g. 'freecell columns=6:4934'"
    )
    parser.add_argument("positions", type=float, help="positions the sweep may store, e.g. 3e7")
    args = parser.parse_args(argv)
    row, _, index = args.deal.rpartition(":")
    import importlib

    from engine.deals import seeded_deals
    from engine.registry import get_game
    from engine.search.disk_sweep import disk_sweep
    from engine.search.solver import deal_position, frees_levels, sweep_params
    from scripts.bench_solver import TABLE_ROWS

    rows = {name: (game, over) for name, game, over, _, _ in TABLE_ROWS}
    if row not in rows or not index.isdigit():
        parser.error(f"deal: {args.deal!r} is not ROW:I with ROW one of {', '.join(rows)}")
    game, over = rows[row]
    g = get_game(game)
    srules = importlib.import_module(f"engine.games.{game}").SOLVER.solver_rules(g.rules(overrides=over))
    st, rel = deal_position(seeded_deals(g.deck, 99, int(index), 1)[0], srules)
    cpu = time.process_time()
    r = disk_sweep(st, rel, sweep_params(srules), frees_levels(srules), int(args.positions))
    print(
        f"{args.deal}: {r.stored:,} positions stored, {time.process_time() - cpu:.1f} CPU-s (compiling "
        f"included); {write_perf_map()} functions mapped in /tmp/perf-{os.getpid()}.map"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
