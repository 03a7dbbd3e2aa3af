"""The sweep's waiting positions on disk (engine/sweep_runs.py; docs/solvers.md, "The sweep's runs")."""

from __future__ import annotations

import dataclasses

import numpy as np
import open_solver as osol
import pytest
from test_open_solitaire_search import _srules

from engine.cards import DECK_52
from engine.deals import seeded_deals
from engine.outcomes import UNKNOWN, UNSOLVABLE
from engine.registry import get_game
from engine.search.sweep_runs import NONE_WAITING, WaitingRuns


def _run_parts(runs: WaitingRuns, keys: np.ndarray, rng: np.random.Generator, words: int) -> dict[int, tuple]:
    """Write one run of ``keys`` (sorted here) in a few parts; returns each entry's (key, record) by number."""
    keys = np.sort(keys)
    rids = rng.choice(1 << 30, size=keys.shape[0], replace=False).astype(np.int32)
    recs = rng.integers(0, 1 << 62, size=(keys.shape[0], words), dtype=np.int64).astype(np.uint64)
    cuts = sorted(rng.choice(np.arange(1, keys.shape[0]), size=2, replace=False).tolist())
    for lo, hi, last in ((0, cuts[0], False), (cuts[0], cuts[1], False), (cuts[1], keys.shape[0], True)):
        runs.write_part(keys[lo:hi], rids[lo:hi], recs[lo:hi], last)
    return {int(r): (int(k), tuple(int(x) for x in w)) for k, r, w in zip(keys, rids, recs, strict=True)}


def test_runs_come_back_merged_by_layer_whole_layers_first():
    """Runs written in parts, with keys shared across runs: taken back in steps up to ``bound`` (each in pieces),
    every entry
    comes back once, with its number and record, and no step leaves behind a key at or below what it took
    (so a layer always comes back whole, from every run); a step takes at most ``chunk`` entries of each run
    but for the least layer; the runs' files are closed once read."""
    rng = np.random.default_rng(7)
    runs = WaitingRuns(3)
    assert runs.least() == NONE_WAITING
    entries = {}
    for n in (500, 1200, 40):
        entries.update(_run_parts(runs, rng.integers(10, 60, size=n), rng, 3))
    files = [(r.data, r.key_file) for r in runs.runs]
    assert runs.spills == 3 and runs.written == runs.waiting() == 1740
    seen = {}
    chunk, steps = 50, 0
    while runs.runs:
        least = runs.least()
        upto = runs.bound(chunk)
        assert upto >= least
        before = [(r, r.cursor) for r in runs.runs]
        pieces = list(runs.take(upto, piece=64))  # in pieces of at most 64 entries
        assert all(p[0].shape[0] <= 64 for p in pieces)
        keys, rids, recs = (np.concatenate([p[i] for p in pieces]) for i in range(3))
        assert keys.min() == least and keys.max() <= upto
        assert runs.least() > upto or not runs.runs  # nothing at or below the bound is left
        assert upto == least or all(r.cursor - c <= chunk for r, c in before)
        steps += 1
        for k, r, w in zip(keys, rids, recs, strict=True):
            assert int(r) not in seen
            seen[int(r)] = (int(k), tuple(int(x) for x in w))
    assert seen == entries and runs.taken == 1740 and runs.waiting() == 0 and steps > 5
    assert all(d.closed and kf.closed for d, kf in files)


def test_a_run_must_be_sorted():
    runs = WaitingRuns(1)
    runs.write_part(np.array([3, 5]), np.array([0, 1]), np.zeros((2, 1), dtype=np.uint64), False)
    with pytest.raises(AssertionError):
        runs.write_part(np.array([4]), np.array([2]), np.zeros((1, 1), dtype=np.uint64), True)
    runs.close()


def _spills(monkeypatch) -> list[int]:
    """Count the runs the sweep writes (each call's total written so far)."""
    made = []
    spill = osol.Workspace.spill_waiting

    def counted(ws, ctl, above=None):
        spill(ws, ctl, above)
        made.append(ws.runs.written)

    monkeypatch.setattr(osol.Workspace, "spill_waiting", counted)
    return made


@pytest.mark.parametrize(
    "game, over, deal_no, reachable, live",
    [
        ("freecell", {"cells": 1}, 16, 25_831, 0.075),
        ("bakers_game", {}, 6, 6_703, 0.08),
        ("freecell", {"columns": 6, "sequence_move": "unlimited"}, 15, 11_635, 0.125),
    ],
)
def test_the_sweep_with_runs_expands_each_position_once(monkeypatch, game, over, deal_no, reachable, live):
    """With a room too small for the sweep in memory, its waiting positions go out to disk and come back before
    their layer (module docstring, "The sweep's runs"): it still expands exactly the positions the plain
    exhaustive search reaches (the guide, run to the end: the numbers of the test of freeing levels), each once,
    copies met again while they were out merged when they come back.  Without the runs, the same room leaves the
    deal unknown."""
    deal = seeded_deals(DECK_52, 99, deal_no, 1)[0]
    rules = dataclasses.replace(_srules(game, **over), max_nodes=reachable)
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=True),))
    monkeypatch.setattr(osol.solver, "SWEEP_TOTAL", 100)
    monkeypatch.setattr(osol.sweep, "SWEEP_LIVE", live)
    monkeypatch.setattr(osol.solver, "SWEEP_SPILL_ROOM", 100)  # more than one expansion's children here
    made = _spills(monkeypatch)
    swept = osol.solve_deal(deal, rules)
    assert swept.outcome == UNSOLVABLE and swept.nodes == reachable
    assert len(made) >= 3 and made[-1] > osol.sweep_room(reachable)  # more went out than the room holds
    monkeypatch.setattr(osol.solver, "SWEEP_SPILL_ROOM", 0)
    assert osol.solve_deal(deal, rules).outcome == UNKNOWN


def test_a_win_through_the_runs_replays_and_the_runs_are_gone(monkeypatch):
    """Penguin (whole layers: a lone card that leaves its column cannot come back), seed 1 deal 0, which the sweep
    wins in 238,632 expansions: in a tenth of max_nodes 10^5 of room its waiting positions go out to disk and
    back many times, and it is won in the same expansions, its line read back through the links of positions
    that came back from disk and replayed by the checker (play_one checks every win); the runs' files are
    closed at the deal's end."""
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=True),))
    monkeypatch.setattr(osol.sweep, "SWEEP_LIVE", 0.1)
    monkeypatch.setattr(osol.solver, "SWEEP_SPILL_ROOM", 100)
    made = _spills(monkeypatch)
    runs_seen = []
    close = osol.Workspace.close_spill

    def closing(ws):
        if ws.runs is not None:
            runs_seen.append([(r.data, r.key_file) for r in ws.runs.runs])
        close(ws)

    monkeypatch.setattr(osol.Workspace, "close_spill", closing)
    g = get_game("penguin")
    row = g.play_one(seeded_deals(DECK_52, 1, 0, 1)[0], g.rules(overrides={"max_nodes": 100_000}), False).row
    assert row["outcome"] == "won" and row["nodes"] == 238_632 and row["solution"]
    assert len(made) >= 10
    assert all(f.closed for files in runs_seen for pair in files for f in pair)


@pytest.mark.parametrize("n, distinct", [(0, 1), (1, 1), (17, 3), (2_000, 5), (50_000, 40_000)])
def test_pairs_sort_in_place_by_key_then_index(n, distinct):
    """The runs' and the rebuilt heap's order (engine/heap.py, sort_pairs): numpy's lexsort's, many ties or few."""
    from engine.search.heap import SORT_STACK, sort_pairs

    rng = np.random.default_rng(n)
    keys = rng.integers(0, distinct, size=n).astype(np.int64) << 52
    idx = rng.permutation(n).astype(np.int32)
    order = np.lexsort((idx, keys))
    want_keys, want_idx = keys[order], idx[order]
    sort_pairs(keys, idx, np.zeros(SORT_STACK, dtype=np.int64))
    assert np.array_equal(keys, want_keys) and np.array_equal(idx, want_idx)
