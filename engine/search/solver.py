"""The open solitaires' solver: a deal's schedule of searches run in turn until one decides it.

:func:`solve_state` runs the steps of ``rules.schedule`` (engine/search/schedule.py) in order, each only if
the ones before left the deal unknown, each with its room in units of ``max_nodes``; the guide's search
probes the streamlined and depth-first searches early.  A win comes with its line, checked later by the
reference; ``unsolvable`` only from a search with no streamliner that ran out of positions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.deals import read_only_uint8
from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.search.best_first import best_first_search, best_first_start
from engine.search.control import (
    C_BEST,
    C_DEPTH,
    C_DONE,
    C_DONE_HERE,
    C_FREE,
    C_GEN,
    C_GOALC,
    C_GOALP,
    C_HIGH,
    C_HSIZE,
    C_LAYER,
    C_LBASE,
    C_NODES,
    C_NREC,
    C_ORDER,
    C_OUTCOME,
    C_QEND,
    C_QHEAD,
    C_QLEV,
    C_QPREV,
    C_QTAIL,
    C_RUNMIN,
    C_SECOND_AT,
    C_SEEN_GEN,
    C_SPILL,
    C_STOP,
    C_TOTAL,
    C_WANT,
    CTL_SIZE,
    ORDER_DEPTH_FIRST,
    ORDER_GUIDE,
    ORDER_LINE,
    ORDER_LONG_GUIDE,
    ORDER_STREAMLINED,
    ORDER_SWEEP,
    RUNNING,
)
from engine.search.depth_first import depth_first_search, depth_first_start
from engine.search.encoding import F_WORDS, FRAME_SIZE, sweep_frame
from engine.search.lines import replay_line, shortcut_line, solution_line
from engine.search.positions import (
    BUILD_ALTERNATE,
    BUILD_SUIT,
    EMPTY_ANY,
    HEURISTIC_WEIGHTS,
    LAYOUT_EIGHT,
    LAYOUT_PENGUIN,
    MAXCELLS,
    MAXCOLS,
    NOCARD,
    O_CELL,
    O_FND,
    O_LEN,
    P_EAGER,
    P_FRONTIER,
    P_LINE,
    P_MAXNODES,
    P_SINGLE,
    P_SUITS,
    REC_WORDS,
    STATE_SIZE,
    STATE_WORDS,
    WIDTH,
    lay_out_deal,
    make_position,
)
from engine.search.safe_moves import play_safe_moves
from engine.search.schedule import DEFAULT_SCHEDULE, SEARCHES, Step
from engine.search.sweep import WANT_LOAD, WANT_SPILL, sweep_layer, sweep_room, sweep_search
from engine.search.sweep_runs import NONE_WAITING, WaitingRuns
from engine.search.workspace import Workspace

# The second order (started once SECOND_AT positions are stored, 0: never): novel positions first, then the most
# cards up, then the guide (docs/solvers.md, "The search").  The two orders take turns over one table, so every
# stored position is still expanded once.
SECOND_AT = 200_000

# The sweep stores at most SWEEP_TOTAL x its room positions in all (each costs one expansion): 6 columns deal
# 279 (seed 99) stores 216.6 M positions in all, and 3004 wins after 275.6 M (docs/solvers.md, "The sweep").
SWEEP_TOTAL = 30

SWEEP_FLUSH_ROOM = 4096  # written out once fewer than this are free: more than one expansion's children
# The sweep's runs (docs/solvers.md, "The sweep's runs"): once fewer than SWEEP_SPILL_ROOM live positions are
# free (more than one expansion's children; 0: never) and the heap holds at least a SPILL_SHARE-th of the room,
# the heap's highest layers go to disk, all but about its lowest SPILL_KEEP-th; a layer's positions come back
# from disk a SWEEP_LOAD_SHARE-th of the room at most per run (but a layer always whole).
SWEEP_SPILL_ROOM = 4096


@dataclass(frozen=True)
class SolverRules:
    """The rules the kernel needs, as plain values (the games map their switches onto these)."""

    layout: int
    build: int
    cells: int
    wrap: bool
    unlimited: bool
    empty: int
    max_nodes: int
    max_seconds: float = 0.0  # CPU seconds per deal, 0 for no limit (not reproducible: depends on the machine)
    columns: int = 8  # LAYOUT_IN_TURN only
    prefilled: int = 0  # LAYOUT_IN_TURN only: the last cards of the deal go to this many cells
    # King Albert's family: the cells are a reserve (never entered), worrying back, one card at a time
    reserve: bool = False
    worrying_back: bool = False
    single_card: bool = False
    # the searches a deal gets, in turn (engine/search/schedule.py); None: DEFAULT_SCHEDULE
    schedule: tuple[Step, ...] | None = None
    # positions the sweep with its levels on disk may store after every other search (0: it is not run)
    disk_positions: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.cells <= MAXCELLS:
            raise ValueError(f"cells {self.cells}: the solver holds 0..{MAXCELLS}")
        if not 1 <= self.ncols <= MAXCOLS:
            raise ValueError(f"columns {self.ncols}: the solver holds 1..{MAXCOLS}")
        if not 0 <= self.prefilled <= self.cells or (self.prefilled and self.layout == LAYOUT_PENGUIN):
            raise ValueError(f"prefilled cells {self.prefilled}: at most cells ({self.cells}), none in Penguin")

    @property
    def ncols(self) -> int:
        return 7 if self.layout == LAYOUT_PENGUIN else self.columns

    def params(self) -> np.ndarray:
        rules = [self.ncols, self.cells, self.build, int(self.wrap), int(self.unlimited), self.empty, self.max_nodes]
        king_albert = [int(self.reserve), int(self.worrying_back), int(self.single_card)]  # P_RESERVE..P_SINGLE
        return np.concatenate(
            [np.array(rules, dtype=np.int64), HEURISTIC_WEIGHTS, np.array(king_albert + [0, 0, 0, 0], dtype=np.int64)]
        )  # P_EAGER..P_FRONTIER: per search


@dataclass(frozen=True)
class Solution:
    outcome: int
    nodes: int
    best_foundation: int  # most cards ever on the foundations
    codes: np.ndarray  # int64 move codes by cards (head*64 + target), safe moves included
    seconds: float


_WARM = [False]


def warm_up() -> None:
    """Compile (or load from numba's cache) once, so no deal's ``seconds`` includes compilation."""
    if _WARM[0]:
        return
    _WARM[0] = True
    st, rel = make_position([[12]], [], [13, 0, 13, 13], 0)
    st[O_FND + 1] = 13
    st[O_FND + 0] = 12
    rules = SolverRules(LAYOUT_EIGHT, BUILD_SUIT, 0, False, False, EMPTY_ANY, 10)
    ws = Workspace(16)
    solve_state(st, rel, rules, ws)  # won at the root: the search loop itself is compiled below
    ctl = np.zeros(CTL_SIZE, dtype=np.int64)
    ctl[C_OUTCOME] = UNSOLVABLE
    best_first_search(rel, rules.params(), ws.recs, ws.parent, ws.mcode, ws.heap, ws.heap2, ws.table, ctl, ws.seen)
    sweep_search(
        rel,
        rules.params(),
        ws.recs,
        ws.lay,
        ws.rid,
        ws.sweep_heap,
        ws.sweep_fifo,
        ws.sweep_parent,
        ws.sweep_code,
        ws.table,
        ctl,
        1,
        1,
        1,
        ws.sweep_ref,
        ws.sweep_frame,
    )
    sst, smv, sbase, snext, scode = ws.dfs_stack()
    depth_first_start(st.copy(), rel, rules.params(), ws.recs, ws.table, ws.next_gen(), sst, smv, sbase, snext, ctl)
    ctl[C_STOP] = 0
    depth_first_search(rel, rules.params(), ws.recs, ws.table, sst, smv, sbase, snext, scode, ctl)


SLICE_NODES = 20_000  # expansions between two looks at the clock when max_seconds is set
# The probe (docs/solvers.md, "The probe"): once the guide's search has made PROBE_AT expansions, a depth-first
# search with single cards gets PROBE_NODES expansions of its own, in a table of its own, before the guide goes on.
PROBE_AT = 50_000
PROBE_NODES = 20_000
# The streamlined probe (docs/solvers.md, "The streamlined search"): once the guide has made STREAM_AT
# expansions, the streamlined search gets STREAM_NODES of its own; only a win ends the deal there.
STREAM_AT = 10_000
STREAM_NODES = 100_000
_NO_STOP = np.iinfo(np.int64).max


def begin_search(
    start: np.ndarray, rel: np.ndarray, params: np.ndarray, ws: Workspace, order: int, ctl: np.ndarray
) -> None:
    """Start a search of ``start`` in ws's tables: its root closed and stored, ctl set for :func:`advance_search`."""
    st = start.copy()
    if order != ORDER_SWEEP:
        ws.records_of_width(REC_WORDS)
    if order in (ORDER_STREAMLINED, ORDER_LINE):
        if order == ORDER_LINE:
            ws.release(order)
            ws.reserve_records(int(params[P_MAXNODES]))
        sst, smv, sbase, snext, _ = ws.stack(order)
        depth_first_start(st, rel, params, ws.recs, ws.table, ws.next_gen(), sst, smv, sbase, snext, ctl)
    elif order == ORDER_SWEEP:
        ws.release(order)
        root = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
        root[:STATE_SIZE] = st[:STATE_SIZE]
        play_safe_moves(root, rel, params, np.zeros(0, dtype=np.int64), 0)
        frame = np.zeros(FRAME_SIZE, dtype=np.int64)
        if sweep_frame(root, rel, params, frame) > 2 or frame[F_WORDS] > REC_WORDS:
            raise AssertionError("the sweep's record cannot hold these rules' positions")  # never in these games
        ws.sweep_ref, ws.sweep_frame = root, frame
        ws.reserve_sweep(int(params[P_MAXNODES]), int(frame[F_WORDS]))
        ws.records_of_width(int(frame[F_WORDS]))
        best_first_start(
            st,
            rel,
            params,
            ws.recs,
            ws.sweep_parent,
            ws.sweep_code,
            np.zeros(1, dtype=np.int64),
            ws.table,
            ws.next_gen(),
            ctl,
            root,
            frame,
        )
        ws.lay[0], ws.rid[0], ws.sweep_heap[0] = sweep_layer(st, rel, params), 0, 0  # the root, closed: record 0
        ctl[C_TOTAL], ctl[C_HIGH], ctl[C_HSIZE] = ctl[C_NREC], ctl[C_NREC], ctl[C_NREC]
        ctl[C_LAYER], ctl[C_FREE], ctl[C_DONE], ctl[C_DONE_HERE], ctl[C_LBASE] = -1, -1, 0, 0, 0
        ws.close_spill()
        ws.runs = WaitingRuns(int(frame[F_WORDS]))
        ctl[C_RUNMIN], ctl[C_SPILL] = NONE_WAITING, SWEEP_SPILL_ROOM
        ctl[C_QPREV] = ctl[C_QLEV] = ctl[C_QHEAD] = ctl[C_QEND] = ctl[C_QTAIL] = 0
    else:
        if order == ORDER_LONG_GUIDE:  # the guide again, in room of its own, its second order's atoms fresh
            ws.release(order)
            ws.reserve(int(params[P_MAXNODES]))
            ws.next_seen_gen()
        best_first_start(
            st,
            rel,
            params,
            ws.recs,
            ws.parent,
            ws.mcode,
            ws.heap,
            ws.table,
            ws.next_gen(),
            ctl,
            st,
            np.zeros(0, dtype=np.int64),
        )
    ctl[C_ORDER] = order
    ctl[C_SECOND_AT] = SECOND_AT
    ctl[C_SEEN_GEN] = ws.seen_gen


def advance_search(rel: np.ndarray, params: np.ndarray, ws: Workspace, ctl: np.ndarray, stop: int) -> None:
    """Run the search in ctl until it is decided or has made ``stop`` expansions in all."""
    ctl[C_STOP] = stop
    if ctl[C_ORDER] in (ORDER_STREAMLINED, ORDER_LINE):
        ws.recs, ws.table = depth_first_search(rel, params, ws.recs, ws.table, *ws.stack(int(ctl[C_ORDER])), ctl)
    elif ctl[C_ORDER] == ORDER_SWEEP:
        flush_at = max(ws.sweep_parent.shape[0] - SWEEP_FLUSH_ROOM, 1)
        room = sweep_room(int(params[P_MAXNODES]))
        while ctl[C_OUTCOME] == RUNNING:
            ws.recs, ws.lay, ws.rid, ws.sweep_heap, ws.sweep_fifo, ws.sweep_parent, ws.sweep_code, ws.table = (
                sweep_search(
                    rel,
                    params,
                    ws.recs,
                    ws.lay,
                    ws.rid,
                    ws.sweep_heap,
                    ws.sweep_fifo,
                    ws.sweep_parent,
                    ws.sweep_code,
                    ws.table,
                    ctl,
                    room,
                    SWEEP_TOTAL * int(params[P_MAXNODES]),
                    flush_at,
                    ws.sweep_ref,
                    ws.sweep_frame,
                )
            )
            want, ctl[C_WANT] = int(ctl[C_WANT]), 0
            if ctl[C_OUTCOME] != RUNNING:
                break
            if want == WANT_SPILL:  # the room is full, mostly of higher layers: out to disk, and on
                ws.spill_waiting(ctl)
            elif want == WANT_LOAD:  # the next layer waits on disk: in from there, and on
                ws.load_waiting(ctl, room)
            elif ctl[C_TOTAL] - ctl[C_LBASE] >= flush_at:
                ws.spill(ctl)  # the buffer of links is full: out to the file, and on
            else:
                break
    else:
        ws.recs, ws.parent, ws.mcode, ws.heap, ws.heap2, ws.table = best_first_search(
            rel, params, ws.recs, ws.parent, ws.mcode, ws.heap, ws.heap2, ws.table, ctl, ws.seen
        )
    ws.gen = int(ctl[C_GEN])


def _single_cards(rules: SolverRules, wanted: bool) -> int:
    """P_SINGLE for a search: runs that stand for single-card moves (`limited`) may be searched as those moves
    (docs/solvers.md, "The retry moves single cards"); `unlimited` runs may not."""
    return 1 if rules.single_card or (wanted and not rules.unlimited) else 0


def _probe(
    start: np.ndarray,
    rel: np.ndarray,
    params: np.ndarray,
    rules: SolverRules,
    ws: Workspace,
    streamlined: bool,
    budget: int,
) -> tuple[Workspace, np.ndarray, np.ndarray]:
    """``budget`` expansions of a search from ``start`` in ws's probe tables, single cards: depth first (module
    docstring, "The probe"), or the streamlined search ("The streamlined search"); returns those tables, the
    probe's params and its ctl."""
    pws = ws.probe_workspace(rules.max_nodes)
    pparams = params.copy()
    pparams[P_SINGLE] = _single_cards(rules, True)
    if streamlined:
        pparams[P_EAGER], pparams[P_SUITS] = _streamliners(rules, Step("streamlined"))
    pctl = np.zeros(CTL_SIZE, dtype=np.int64)
    begin_search(start, rel, pparams, pws, ORDER_STREAMLINED if streamlined else ORDER_DEPTH_FIRST, pctl)
    advance_search(rel, pparams, pws, pctl, budget)
    return pws, pparams, pctl


def frees_levels(rules: SolverRules) -> bool:
    """May the sweep free each level of a layer once the next is expanded (docs/solvers.md, "The sweep")?  Only
    where every move within a layer can be undone: empty columns take any card, and there is no reserve and no
    worrying back (a reserve card played, or a card played back, does not go back the way it came)."""
    return rules.empty == EMPTY_ANY and not rules.reserve and not rules.worrying_back


def _streamliners(rules: SolverRules, step: Step) -> tuple[int, int]:
    """(P_EAGER, P_SUITS) for a step on the depth-first kernel: its streamliners, but positions are told apart
    by colour and rank only where cards build in alternating colours (as Solvitaire does: where they build in
    suit, the two suits of a colour are no more alike than any two)."""
    step = step.resolved()
    return int(bool(step.eager)), int(bool(step.suits) and rules.build == BUILD_ALTERNATE)


def _decided(params: np.ndarray, ctl: np.ndarray) -> bool:
    """Did the search in ctl decide the deal?  A win always; an empty heap or stack only where no streamliner
    was on (the streamlined search's pruning is not sound: its running out of positions proves nothing)."""
    return ctl[C_OUTCOME] == WON or (ctl[C_OUTCOME] == UNSOLVABLE and not (params[P_EAGER] or params[P_SUITS]))


def solve_state(st: np.ndarray, rel: np.ndarray, rules: SolverRules, ws: Workspace | None = None) -> Solution:
    """Solve an arbitrary position (uint8[STATE_SIZE]) with relative ranks rel (int64[52]).

    With ``rules.max_seconds`` the search runs in slices of SLICE_NODES expansions and stops with ``unknown``
    once this process has spent that many CPU seconds on the deal (so the verdict may depend on the machine).
    """
    if not _WARM[0]:
        warm_up()
    ws = ws or Workspace()
    params = rules.params()
    start = np.array(st, dtype=np.uint8, copy=True)
    ctl = np.zeros(CTL_SIZE, dtype=np.int64)
    ctl[C_OUTCOME] = UNKNOWN  # until a search runs (every step of a schedule may be skipped under some rules)
    timed_out = False
    t0 = time.perf_counter()
    c0 = time.process_time()
    ws.reserve(rules.max_nodes)
    limit = float(rules.max_seconds)
    nodes, best = 0, 0
    ws.next_seen_gen()  # the second order's stamp for this deal
    won_in, won_params, won_ctl = ws, params, ctl  # the search that gave the verdict (the probe's, if it did)
    made = set()
    plugin_line = None  # the winning moves of a plug-in search, if one won
    for step in DEFAULT_SCHEDULE if rules.schedule is None else rules.schedule:
        search = SEARCHES[step.search]
        if search.colours_only and rules.build != BUILD_ALTERNATE:
            continue  # no colours to tell apart: it would be a plain depth-first search (the line search is one)
        order = search.order  # the kernel's order
        streamlined = order == ORDER_STREAMLINED
        params[P_SINGLE] = _single_cards(rules, bool(step.resolved().single_cards))
        params[P_EAGER], params[P_SUITS] = _streamliners(rules, step) if streamlined else (0, 0)
        params[P_LINE] = int(order == ORDER_LINE)
        params[P_FRONTIER] = int(order == ORDER_SWEEP and frees_levels(rules))
        params[P_MAXNODES] = step.positions(rules.max_nodes)
        if search.run is not None:  # a search of Python's own (docs/adding_a_search.md): no kernel state
            found = search.run(start, rel, params, ws)
            nodes, best = nodes + found.nodes, max(best, found.best)
            if found.outcome == WON or (found.outcome == UNSOLVABLE and search.exhaustive):
                ctl[C_OUTCOME], ctl[C_ORDER] = found.outcome, -1
                if found.outcome == WON:
                    line_params = params.copy()
                    line_params[P_SINGLE] = _single_cards(rules, False)
                    plugin_line = shortcut_line(start, rel, line_params, replay_line(start, rel, params, found.path))
                break
            continue
        made_as = (order, int(params[P_SINGLE]), int(params[P_EAGER]), int(params[P_SUITS]))
        if made_as in made:
            continue  # the same search again would give the same answer
        made.add(made_as)
        begin_search(start, rel, params, ws, order, ctl)
        # the probes (docs/solvers.md): (guide's expansions when due, budget, streamlined), soonest first
        # (the streamlined one only where cards build in alternating colours: where they build in suit it has
        # no colour symmetry to use, and Baker's Game's row took 1.32x the expansions with it)
        probes = (
            sorted(
                p
                for p in ((STREAM_AT, STREAM_NODES, True), (PROBE_AT, PROBE_NODES, False))
                if p[0] > 0 and p[1] > 0 and (rules.build == BUILD_ALTERNATE or not p[2])
            )
            if order == ORDER_GUIDE
            else []
        )
        timed_out = False
        while ctl[C_OUTCOME] == RUNNING:
            stop = int(ctl[C_NODES]) + SLICE_NODES if limit > 0 else _NO_STOP
            if probes:
                stop = min(stop, probes[0][0])
            advance_search(rel, params, ws, ctl, stop)
            if ctl[C_OUTCOME] != RUNNING:
                break
            if probes and ctl[C_NODES] >= probes[0][0]:
                _, budget, streamlined_probe = probes.pop(0)
                pws, pparams, pctl = _probe(start, rel, params, rules, ws, streamlined_probe, budget)
                nodes += int(pctl[C_NODES])
                best = max(best, int(pctl[C_BEST]))
                if _decided(pparams, pctl):  # a win, or an exhaustive search's verdict, whichever gives it
                    won_in, won_params, won_ctl = pws, pparams, pctl
                    break
            if limit > 0 and time.process_time() - c0 >= limit:
                ctl[C_OUTCOME] = UNKNOWN
                timed_out = True
        nodes += int(ctl[C_NODES])
        best = max(best, int(ctl[C_BEST]))
        if ctl[C_OUTCOME] == UNSOLVABLE and not _decided(params, ctl):
            ctl[C_OUTCOME] = UNKNOWN  # the streamlined search ran out of positions: that proves nothing
        if won_ctl is not ctl or ctl[C_OUTCOME] != UNKNOWN or timed_out:
            break
    sol = np.zeros(0, dtype=np.int64)
    outcome = int(won_ctl[C_OUTCOME])
    if outcome == UNKNOWN and not timed_out and rules.disk_positions > 0:  # last, the sweep on disk
        on_disk = _sweep_on_disk(start, rel, rules, ws, c0)
        nodes += on_disk.nodes
        best = max(best, on_disk.best)
        outcome = on_disk.outcome
        if outcome == WON:
            line_params = params.copy()
            line_params[P_SINGLE] = _single_cards(rules, False)
            sol = shortcut_line(start, rel, line_params, on_disk.codes)
    elif plugin_line is not None:
        sol = plugin_line
    elif won_ctl[C_OUTCOME] == WON and won_ctl[C_ORDER] in (ORDER_STREAMLINED, ORDER_LINE):  # its line is its stack
        scode = won_in.stack(int(won_ctl[C_ORDER]))[4]
        sol = replay_line(start, rel, won_params, scode[: int(won_ctl[C_DEPTH]) + 1].copy())
        line_params = won_params.copy()
        line_params[P_SINGLE] = _single_cards(rules, False)
        sol = shortcut_line(start, rel, line_params, sol)
    elif won_ctl[C_OUTCOME] == WON:
        if won_ctl[C_ORDER] == ORDER_SWEEP:
            sol = replay_line(start, rel, won_params, won_in.sweep_codes(won_ctl))
        else:
            parent, mcode = won_in.links(int(won_ctl[C_ORDER]))
            sol = solution_line(start, rel, won_params, parent, mcode, won_ctl[C_GOALP], won_ctl[C_GOALC])
        if won_ctl[C_ORDER] not in (ORDER_GUIDE, ORDER_LONG_GUIDE):  # a depth-first line keeps its detours,
            # and so may the sweep's
            line_params = won_params.copy()
            line_params[P_SINGLE] = _single_cards(rules, False)  # runs, where the rules move them
            sol = shortcut_line(start, rel, line_params, sol)
    ws.close_spill()
    seconds = time.perf_counter() - t0
    return Solution(outcome, nodes, best, sol, seconds)


def sweep_params(rules: SolverRules) -> np.ndarray:
    """The kernel's parameters for the sweep under ``rules``, as :func:`solve_state` sets them: single cards
    where runs stand for them, no streamliners, levels freed where every move in a layer undoes."""
    params = rules.params()
    params[P_SINGLE] = _single_cards(rules, True)
    params[P_EAGER] = params[P_SUITS] = params[P_LINE] = 0
    params[P_FRONTIER] = int(frees_levels(rules))
    return params


def _sweep_on_disk(start: np.ndarray, rel: np.ndarray, rules: SolverRules, ws: Workspace, c0: float) -> Any:
    """The sweep with its levels on disk (engine/disk_sweep.py) from ``start``, up to ``rules.disk_positions``
    stored, and within ``rules.max_seconds`` of CPU from ``c0`` if set.  The other searches' tables are given
    back first, so that the two never hold memory at once."""
    from engine.search.disk_sweep import disk_sweep  # it builds on this module's kernels

    ws.close_spill()
    ws.release(ORDER_SWEEP)
    ws.records_of_width(REC_WORDS)
    limit = float(rules.max_seconds)
    stop = (lambda: time.process_time() - c0 >= limit) if limit > 0 else None
    return disk_sweep(start, rel, sweep_params(rules), frees_levels(rules), int(rules.disk_positions), stop=stop)


def deal_position(deal: np.ndarray, rules: SolverRules) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's opening position and relative ranks for a deal."""
    st = np.zeros(STATE_SIZE, dtype=np.uint8)
    rel = np.zeros(52, dtype=np.int64)
    lay_out_deal(read_only_uint8(deal), rules.layout, rules.ncols, rules.prefilled, st, rel)
    return st, rel


def solve_deal(deal: np.ndarray, rules: SolverRules, ws: Workspace | None = None) -> Solution:
    st, rel = deal_position(deal, rules)
    return solve_state(st, rel, rules, ws)


def position_columns(st: np.ndarray, rules: SolverRules) -> tuple[list[list[int]], list[int], list[int]]:
    """(columns bottom first, cells, foundation heights) of a kernel position, for tests and traces."""
    cols = [[int(st[i * WIDTH + p]) for p in range(int(st[O_LEN + i]))] for i in range(rules.ncols)]
    cells = [int(c) for c in st[O_CELL : O_CELL + rules.cells] if c != NOCARD]
    return cols, cells, [int(x) for x in st[O_FND : O_FND + 4]]
