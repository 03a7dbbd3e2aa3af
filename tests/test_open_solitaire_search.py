"""The open-solitaire search's machinery (issue 11): the position table, the resumable slices, max_seconds.

Verdicts themselves are held to the plain exhaustive search in tests/test_open_solitaire.py; here the
machinery must be invisible: slicing the search, reusing the table between deals (generation stamps, their
wrap-around) and the time limit may change nothing but how long a deal may take.
"""

from __future__ import annotations

import random

import numpy as np
import open_solver as osol
import plain_verdicts
import pytest

from engine.cards import DECK_52
from engine.deals import microsoft_deal, seeded_deals
from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.registry import get_game
from engine.rules import RuleError
from engine.search.leaf import leaf_kernel

GAMES = ("penguin", "bakers_game", "freecell")


def _makes_an_array(n):
    return np.zeros(n).sum()


def test_leaf_kernels_run_without_the_runtime():
    """engine/leaf.py: a leaf kernel is compiled without numba's runtime, so it cannot make an array (numba
    refuses to compile one that does), and the solver's hot kernels are leaves."""
    with pytest.raises(Exception, match="nopython"):
        leaf_kernel(_makes_an_array)(3)
    hot = (
        osol.play_safe_moves,
        osol.gen_moves,
        osol.decode_position,
        osol.decode_frame,
        osol.prepare_children,
        osol.store_children,
        osol.depth_first_run,
        osol.sweep_store,
    )
    assert all(f.targetoptions.get("_nrt") is False for f in hot)


def _srules(game: str, **over) -> osol.SolverRules:
    g = get_game(game)
    mod = __import__(f"engine.games.{game}", fromlist=["solver_rules"])
    rules = g.rules(overrides=over)
    return mod.solver_rules(rules, osol.BUILD_ALTERNATE) if game == "freecell" else mod.solver_rules(rules)


def _same(a: osol.Solution, b: osol.Solution) -> bool:
    return (a.outcome, a.nodes, a.best_foundation) == (b.outcome, b.nodes, b.best_foundation) and np.array_equal(
        a.codes, b.codes
    )


@pytest.mark.parametrize("game,cells", [("penguin", 7), ("bakers_game", 3), ("freecell", 2)])
def test_slices_change_nothing(game, cells, monkeypatch):
    """A search paused every 10 expansions (max_seconds set, far away) ends exactly as one run straight through."""
    decks = seeded_deals(DECK_52, 99, 0, 6)
    plain = _srules(game, cells=cells)
    sliced = _srules(game, cells=cells, max_seconds=3600)
    assert sliced.max_seconds == 3600 and plain.max_seconds == 0
    ws = osol.Workspace()
    whole = [osol.solve_deal(d, plain, ws) for d in decks]
    monkeypatch.setattr(osol.solver, "SLICE_NODES", 10)
    parts = [osol.solve_deal(d, sliced, ws) for d in decks]
    assert all(_same(a, b) for a, b in zip(whole, parts, strict=True))
    assert max(s.nodes for s in whole) > 100  # several slices were really taken
    assert {s.outcome for s in whole} <= {WON, UNSOLVABLE}


def test_unsolvable_verdict_survives_slicing(monkeypatch):
    """Microsoft deal 1 with one cell is unsolvable (the exhaustive search in tests/test_open_solitaire.py)."""
    rules = _srules("freecell", cells=1, max_seconds=3600)
    monkeypatch.setattr(osol.solver, "SLICE_NODES", 7)
    sol = osol.solve_deal(microsoft_deal(1), rules)
    assert (
        sol.outcome == UNSOLVABLE
        and sol.nodes == osol.solve_deal(microsoft_deal(1), _srules("freecell", cells=1)).nodes
    )


def test_max_seconds_answers_unknown(monkeypatch):
    """FreeCell with 2 cells, seed 99 deal 230: no search decides it in 5x10^7 stored positions (nor Solvitaire's
    exact search in 300 s; docs/solvitaire_table.md).  With max_seconds 1 the answer is unknown, at the end of the
    first slice past one CPU second.  (Deal 220, used here before, is won in 367,190 expansions, 0.96 s since the
    kernels run without reference counts: engine/leaf.py.)"""
    monkeypatch.setattr(osol.solver, "SLICE_NODES", 2000)
    rules = _srules("freecell", cells=2, max_nodes=50_000_000, max_seconds=1)
    sol = osol.solve_deal(seeded_deals(DECK_52, 99, 230, 1)[0], rules)
    assert sol.outcome == UNKNOWN
    assert sol.nodes % 2000 == 0 and 2000 <= sol.nodes < 19_000_000


def test_table_generations_wrap_around():
    """Many deals on one Workspace: the generation stamp wraps (the table is cleared once) and nothing leaks
    from one deal's positions into the next."""
    decks = seeded_deals(DECK_52, 5, 0, 4)
    rules = _srules("bakers_game")
    fresh = [osol.solve_deal(d, rules, osol.Workspace()) for d in decks]
    ws = osol.Workspace()
    ws.gen = osol.GEN_MAX - 2
    again = [osol.solve_deal(d, rules, ws) for d in decks]
    assert ws.gen < 4
    assert all(_same(a, b) for a, b in zip(fresh, again, strict=True))


@pytest.mark.parametrize("game", GAMES + ("eight_off", "seahaven_towers", "king_albert"))
def test_max_seconds_switch(game):
    """Beside max_nodes, off by default (the default stays reproducible); its one-line doc says it is not; the
    solver receives it."""
    g = get_game(game)
    rules = g.rules(overrides={"max_seconds": "30"})
    assert rules.max_seconds == 30 and g.rules().max_seconds == 0
    assert _srules(game, max_seconds=30).max_seconds == 30.0
    with pytest.raises(RuleError, match="max_seconds"):
        g.rules(overrides={"max_seconds": -1})
    assert "not reproducible" in g.switches()["max_seconds"].doc.lower()


def test_two_orders_keep_the_verdicts_of_the_plain_exhaustive_search(monkeypatch):
    """The second order started at once (after 2 stored positions): the cross-check of every rule combination
    against the plain exhaustive search (tests/test_open_solitaire.py) still holds, wins replayed, so the turns
    and the skipped pops lose no position."""
    import test_open_solitaire as base  # pytest puts tests/ on the path

    monkeypatch.setattr(osol.solver, "SECOND_AT", 2)
    base.test_solver_verdicts_match_a_plain_exhaustive_search_on_small_positions()


@pytest.mark.parametrize("single_cards", [False, True])
def test_depth_first_order_alone_keeps_the_verdicts_of_the_plain_exhaustive_search(monkeypatch, single_cards):
    """The retry's depth-first order as the only search, with runs moving as units or (the retry's default) as
    single cards where runs stand for them: the same cross-check of every rule combination against the plain
    exhaustive search, wins replayed.  Orders and move units decide only how soon; the retry's verdicts rest on
    the same exhaustiveness as the first search's."""
    import test_open_solitaire as base

    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("depth_first", single_cards=single_cards),))
    base.test_solver_verdicts_match_a_plain_exhaustive_search_on_small_positions()


def test_probes_keep_the_verdicts_of_the_plain_exhaustive_search(monkeypatch):
    """A probe after 3 guide expansions, of 8 expansions of its own: on the small positions of the cross-check
    it decides some deals (wins and empty heaps) and leaves the others to the guide, and every verdict still
    equals the plain exhaustive search's, wins replayed."""
    import test_open_solitaire as base

    monkeypatch.setattr(osol.solver, "PROBE_AT", 3)
    monkeypatch.setattr(osol.solver, "PROBE_NODES", 8)
    decided = {"probe": 0, "guide": 0}
    real = osol.advance_search

    def advance(rel, params, ws, ctl, stop):
        real(rel, params, ws, ctl, stop)
        if ctl[osol.C_ORDER] == osol.ORDER_DEPTH_FIRST and stop == 8:
            decided["probe" if ctl[osol.C_OUTCOME] in (WON, UNSOLVABLE) else "guide"] += 1

    monkeypatch.setattr(osol.solver, "advance_search", advance)
    base.test_solver_verdicts_match_a_plain_exhaustive_search_on_small_positions()
    assert decided["probe"] >= 5 and decided["guide"] >= 5, decided  # 14 and 8 as written


def test_the_probe_wins_a_deal_the_guide_leaves_unknown(monkeypatch):
    """FreeCell with 3 cells, seed 99 deal 220: without the probes the guide's search stores 300,000 positions
    and stops unknown; with the depth-first probe alone (single cards), it wins within its 20,000 expansions
    after the guide's 50,000, and the win replays through the checker (play_one replays every win).  With the
    default probes the streamlined one, due first, wins it sooner."""
    import dataclasses

    deal = seeded_deals(DECK_52, 99, 220, 1)[0]
    rules = dataclasses.replace(_srules("freecell", cells=3), max_nodes=300_000)
    both = osol.solve_deal(deal, rules)
    assert both.outcome == WON and osol.STREAM_AT < both.nodes <= osol.STREAM_AT + osol.STREAM_NODES
    monkeypatch.setattr(osol.solver, "STREAM_AT", 0)
    with monkeypatch.context() as m:
        m.setattr(osol.solver, "PROBE_AT", 0)
        m.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("guide", single_cards=False),))
        assert osol.solve_deal(deal, rules).outcome == UNKNOWN
    probed = osol.solve_deal(deal, rules)
    assert probed.outcome == WON and osol.PROBE_AT < probed.nodes <= osol.PROBE_AT + osol.PROBE_NODES
    g = get_game("freecell")
    row = g.play_one(deal, g.rules(overrides={"cells": 3, "max_nodes": 300_000}), True).row
    assert row["outcome"] == "won" and row["nodes"] == probed.nodes > both.nodes


def test_the_retry_decides_a_deal_the_guide_left_unknown(monkeypatch):
    """FreeCell with 2 cells, seed 99 deal 128, at 20,000 positions: the guide's search runs out of positions,
    the depth-first retry (out of the default order now, but still a search the solver can make) then wins,
    and its solution replays through the checker (play_one replays every win)."""
    import dataclasses

    deal = seeded_deals(DECK_52, 99, 128, 1)[0]
    rules = dataclasses.replace(_srules("freecell", cells=2), max_nodes=20_000)
    monkeypatch.setattr(osol.solver, "STREAM_AT", 0)  # the streamlined search, probe and search, left out
    monkeypatch.setattr(
        osol.solver,
        "DEFAULT_SCHEDULE",
        (osol.Step("guide", single_cards=False), osol.Step("depth_first", single_cards=True)),
    )
    both = osol.solve_deal(deal, rules)
    default = osol.solver.DEFAULT_SCHEDULE
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("guide", single_cards=False),))
    guide = osol.solve_deal(deal, rules)
    assert guide.outcome == UNKNOWN and both.outcome == WON and both.nodes > guide.nodes
    g = get_game("freecell")
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", default)
    row = g.play_one(deal, g.rules(overrides={"cells": 2, "max_nodes": 20_000}), True).row
    assert row["outcome"] == "won" and row["solution"] and row["nodes"] == both.nodes


def test_the_long_guide_is_the_guide_with_more_room(monkeypatch):
    """The long guide (module docstring, "The long guide") makes the search the guide would make with the long
    guide's room (3) x max_nodes: FreeCell with 2 cells, seed 99, at 20,000 positions, with the second order from
    2,000 on (so its atoms matter): deal 27 is won and deal 52 proved unsolvable by it, in the expansions of the
    guide alone at 60,000, after the guide's own unknown; the win replays through the checker.  A long guide that
    kept the first guide's atoms (not fresh) would search in another order."""
    import dataclasses

    monkeypatch.setattr(osol.solver, "STREAM_AT", 0)  # no probes: the guide's own expansions only
    monkeypatch.setattr(osol.solver, "PROBE_AT", 0)
    monkeypatch.setattr(osol.solver, "SECOND_AT", 2_000)
    rules = dataclasses.replace(_srules("freecell", cells=2), max_nodes=20_000)
    decks = seeded_deals(DECK_52, 99, 0, 53)
    for index, verdict in ((27, WON), (52, UNSOLVABLE)):
        with monkeypatch.context() as m:
            m.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("guide", single_cards=False),))
            short = osol.solve_deal(decks[index], rules)
            roomy = osol.solve_deal(
                decks[index], dataclasses.replace(rules, max_nodes=int(20_000 * osol.SEARCHES["long_guide"].room))
            )
        assert short.outcome == UNKNOWN and roomy.outcome == verdict, index
        monkeypatch.setattr(
            osol.solver,
            "DEFAULT_SCHEDULE",
            (osol.Step("guide", single_cards=False), osol.Step("long_guide", single_cards=False)),
        )
        both = osol.solve_deal(decks[index], rules)
        assert (both.outcome, both.nodes) == (verdict, short.nodes + roomy.nodes), index
        if verdict == WON:
            g = get_game("freecell")
            row = g.play_one(decks[index], g.rules(overrides={"cells": 2, "max_nodes": 20_000}), True).row
            assert row["outcome"] == "won" and row["solution"] and row["nodes"] == both.nodes


def test_second_order_really_takes_turns(monkeypatch):
    """With the second order from the start, the expansions differ from the guide alone on a real deal (else
    the test above would prove nothing about it), and the verdict does not."""
    rules1 = _srules("freecell", cells=1)  # Microsoft deal 1 with one cell is unsolvable
    monkeypatch.setattr(osol.solver, "SECOND_AT", 0)
    one = osol.solve_deal(microsoft_deal(1), rules1)
    monkeypatch.setattr(osol.solver, "SECOND_AT", 2)
    two = osol.solve_deal(microsoft_deal(1), rules1)
    assert one.outcome == two.outcome == UNSOLVABLE and one.nodes == two.nodes  # exhaustive: the same positions
    rules = _srules("freecell", cells=2)
    won_one = osol.solve_deal(seeded_deals(DECK_52, 99, 0, 1)[0], rules)
    monkeypatch.setattr(osol.solver, "SECOND_AT", 0)
    won_zero = osol.solve_deal(seeded_deals(DECK_52, 99, 0, 1)[0], rules)
    assert won_one.outcome == won_zero.outcome == WON and won_one.nodes != won_zero.nodes


def test_novelty_marks_atoms_per_count_of_cards_up():
    """The second order's novelty: a position is novel once per deal (stamp), a change of what lies under one
    card makes it novel again, and the same arrangement with another count of cards up is a new one."""
    params = _srules("freecell", cells=2).params()
    seen = np.zeros((53, osol.N_ATOMS), dtype=np.uint16)
    first, _ = osol.make_position([[10, 11, 12], [20, 21]], [30], [0, 0, 0, 0], 0)
    moved, _ = osol.make_position([[10, 11], [20, 21, 12]], [30], [0, 0, 0, 0], 0)  # 12 now lies on 21
    assert osol.is_novel(first, 0, params, seen, 1) == 1
    assert osol.is_novel(first, 0, params, seen, 1) == 0  # every atom now seen
    assert int(np.count_nonzero(seen == 1)) == 6  # 5 (card, under) pairs and one card in a cell
    assert osol.is_novel(moved, 0, params, seen, 1) == 1 and osol.is_novel(moved, 0, params, seen, 1) == 0
    assert osol.is_novel(first, 0, params, seen, 2) == 1  # the next deal's stamp: nothing seen yet
    up, _ = osol.make_position([[10, 11, 12], [20, 21]], [30], [1, 0, 0, 0], 0)  # one card more up
    assert osol.foundation_total(up) == osol.foundation_total(first) + 1 == 1
    assert osol.is_novel(up, 1, params, seen, 2) == 1


def _replays(game: str, over: dict, deal, codes) -> bool:
    """Does the line of card codes win the deal, judged by the reference checker?"""
    g = get_game(game)
    solver = g.play_batch.__self__
    rr = solver.reference_rules(g.rules(overrides=over))
    layout, text = solver.line_text(deal, rr, codes)
    return solver.reference.check_solution_text(layout, rr, text) is None


def test_depth_first_lines_are_cut_short(monkeypatch):
    """FreeCell with 3 cells, seed 99 deal 220, is won by the probe's depth-first search: its line of 1,107
    codes as the search found it comes out at 458 (measured) once the detours are cut, and the checker
    replays both."""
    deal = seeded_deals(DECK_52, 99, 220, 1)[0]
    rules = _srules("freecell", cells=3)
    cut = osol.solve_deal(deal, rules)
    monkeypatch.setattr(osol.solver, "shortcut_line", lambda start, rel, params, codes: codes)
    raw = osol.solve_deal(deal, rules)
    assert raw.outcome == cut.outcome == WON and raw.nodes == cut.nodes
    assert len(cut.codes) < len(raw.codes) / 2
    assert _replays("freecell", {"cells": 3}, deal, raw.codes) and _replays("freecell", {"cells": 3}, deal, cut.codes)


@pytest.mark.parametrize("game,over", [("freecell", {}), ("bakers_game", {}), ("penguin", {})])
def test_detours_put_into_a_line_are_cut_out(game, over):
    """Into the guide's winning lines of a few deals, detours are put at every tenth code where one can be: a
    card built on another to a free cell and straight back.  The longer line still wins (checked), and the
    shortcut gives back a winning line no longer than the one before the detours."""
    rng = np.random.default_rng(7)
    g = get_game(game)
    sr = g.play_batch.__self__.solver_rules(g.rules(overrides=over))
    params = sr.params()
    detoured = 0
    for deal in seeded_deals(DECK_52, 5, 0, 6):
        st, rel = osol.deal_position(deal, sr)
        sol = osol.solve_state(st, rel, sr)
        if sol.outcome != WON:
            continue
        line, ps = [], st.copy()
        for k, code in enumerate(sol.codes):
            if k % 10 == 5:
                cols, cells, _ = osol.position_columns(ps, sr)
                built = [c for c in cols if len(c) >= 2 and osol.accepts(c[-1], c[-2], rel, params)]
                if len(cells) < sr.cells and built:  # a built card to a cell and back onto the card it left
                    col = built[int(rng.integers(len(built)))]
                    line += [col[-1] * 64 + osol.TO_CELL, col[-1] * 64 + col[-2]]
                    detoured += 1
            line.append(int(code))
            assert osol.apply_code(ps, int(code), params)
        line = np.array(line, dtype=np.int64)
        assert _replays(game, over, deal, line)
        cut = osol.shortcut_line(st, rel, params, line)
        assert len(cut) <= len(sol.codes)
        assert _replays(game, over, deal, cut)
    assert detoured >= 5


@pytest.mark.parametrize("single_cards", [False, True])
def test_the_sweep_alone_keeps_the_verdicts_of_the_plain_exhaustive_search(monkeypatch, single_cards):
    """The sweep as the only search (layers of cards up, each forgotten once done): the cross-check of every rule
    combination against the plain exhaustive search, wins replayed.  Dropping a finished layer loses no position
    that can still be met, so its verdicts are the plain search's."""
    import test_open_solitaire as base

    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=single_cards),))
    base.test_solver_verdicts_match_a_plain_exhaustive_search_on_small_positions()


def _guide_alone(monkeypatch, deal, rules):
    with monkeypatch.context() as m:
        m.setattr(osol.solver, "PROBE_AT", 0)
        m.setattr(osol.solver, "STREAM_AT", 0)
        m.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("guide", single_cards=False),))
        return osol.solve_deal(deal, rules)


def test_the_sweep_proves_a_deal_unsolvable_in_half_the_table(monkeypatch):
    """FreeCell with 1 cell, seed 99 deal 16: unsolvable, 25,831 positions reachable (the guide, exhaustive, expands
    them all).  With room for half of them the guide stops unknown, and so do the streamlined search and the line
    search (room for twice as many: 25,830, one short; it stores all 25,831 when given room); the sweep, holding at
    most that many at once (SWEEP_LIVE 1 here), expands the same 25,831 and proves the deal unsolvable."""
    import dataclasses

    monkeypatch.setattr(osol.sweep, "SWEEP_LIVE", 1)
    monkeypatch.setattr(
        osol.solver,
        "DEFAULT_SCHEDULE",
        tuple(osol.Step(s.search, room=2) if s.search == "line" else s for s in osol.DEFAULT_SCHEDULE),
    )
    deal = seeded_deals(DECK_52, 99, 16, 1)[0]
    full = _guide_alone(monkeypatch, deal, _srules("freecell", cells=1))
    assert full.outcome == UNSOLVABLE
    half = dataclasses.replace(_srules("freecell", cells=1), max_nodes=full.nodes // 2)
    guide_half = _guide_alone(monkeypatch, deal, half)
    assert guide_half.outcome == UNKNOWN
    with monkeypatch.context() as m:
        m.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=True),))
        alone = osol.solve_deal(deal, half)
        m.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=False),))
        with_runs = osol.solve_deal(deal, half)
    assert alone.outcome == with_runs.outcome == UNSOLVABLE and alone.nodes == with_runs.nodes == full.nodes
    every = osol.solve_deal(deal, half)  # the default searches: guide, streamlined, line search (unknown), sweep
    assert every.outcome == UNSOLVABLE and every.nodes > guide_half.nodes + full.nodes
    # and the room it holds at once is really the limit, not the total it may store (made ample here): freeing
    # each level of a layer two levels on, it needs 3,252 (by bisection), so a seventh of them (3,690) is enough
    # and an eighth (3,228) too few, and it expands every position once, as the guide does; keeping each layer
    # whole until it is done, it needs 3,792 (5,006 when its layers went by cards up first): a seventh is too few.
    # All of this in memory: with no waiting position written out to disk (the test below writes them out)
    monkeypatch.setattr(osol.solver, "SWEEP_TOTAL", 100)
    monkeypatch.setattr(osol.solver, "SWEEP_SPILL_ROOM", 0)
    with monkeypatch.context() as m:
        m.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=True),))
        seventh = osol.solve_deal(deal, dataclasses.replace(half, max_nodes=full.nodes // 7))
        eighth = osol.solve_deal(deal, dataclasses.replace(half, max_nodes=full.nodes // 8))
        m.setattr(osol.solver, "frees_levels", lambda rules: False)
        whole_layers = osol.solve_deal(deal, dataclasses.replace(half, max_nodes=full.nodes // 7))
    assert seventh.outcome == UNSOLVABLE and seventh.nodes == full.nodes and eighth.outcome == UNKNOWN
    assert whole_layers.outcome == UNKNOWN


@pytest.mark.parametrize(
    "game, over, deal_no, reachable",
    [
        ("freecell", {"cells": 1}, 16, 25_831),
        ("bakers_game", {}, 6, 6_703),
        ("freecell", {"columns": 6, "sequence_move": "unlimited"}, 15, 11_635),  # runs move whole, and back
    ],
)
def test_the_sweep_freeing_levels_expands_each_position_once(monkeypatch, game, over, deal_no, reachable):
    """Where every move within a layer can be undone, the sweep frees each level of a layer once the next is
    expanded (docs/solvers.md, "The sweep"); the claim is that no freed position is met again, so it
    expands exactly the positions the plain exhaustive search reaches (the guide, run to the end; seed 99
    unsolvable deals), each once (the room it saves: the test above)."""
    deal = seeded_deals(DECK_52, 99, deal_no, 1)[0]
    rules = _srules(game, **over)
    assert osol.frees_levels(rules)
    full = _guide_alone(monkeypatch, deal, rules)
    assert full.outcome == UNSOLVABLE and full.nodes == reachable
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=True),))
    swept = osol.solve_deal(deal, rules)
    assert swept.outcome == UNSOLVABLE and swept.nodes == reachable


def test_the_sweep_frees_levels_only_where_every_move_in_a_layer_undoes():
    """Kings-only or no spaces (a lone card that leaves its column cannot come back), a reserve and worrying
    back keep each layer whole: there a freed position could be met again."""
    assert osol.frees_levels(_srules("freecell")) and osol.frees_levels(_srules("bakers_game", cells=2))
    assert not osol.frees_levels(_srules("freecell", empty_column="kings"))
    assert not osol.frees_levels(_srules("freecell", empty_column="none"))
    assert not osol.frees_levels(_srules("penguin"))  # only the beak's predecessor may fill a space
    for game in ("eight_off", "seahaven_towers", "king_albert"):
        g = get_game(game)
        mod = __import__(f"engine.games.{game}", fromlist=["SOLVER"])
        assert not osol.frees_levels(mod.SOLVER.solver_rules(g.rules()))
    g = get_game("king_albert")
    mod = __import__("engine.games.king_albert", fromlist=["SOLVER"])
    ka_any = mod.SOLVER.solver_rules(g.rules(overrides={"worrying_back": False}))
    assert ka_any.reserve and not osol.frees_levels(ka_any)


def test_the_big_searches_table_fills_to_four_fifths_from_big_table():
    """The line search's and the sweep's table doubles when half full below BIG_TABLE slots, and from there on only
    when four fifths full (so the sweep's SWEEP_LIVE x 10^7 live positions fit in 2^26 slots, 512 MiB)."""
    small, big = 1 << 20, osol.BIG_TABLE
    assert not osol.big_table_full(small // 2 - 1, small) and osol.big_table_full(small // 2, small)
    assert not osol.big_table_full(big // 2, big) and not osol.big_table_full(4 * big // 5 - 1, big)
    assert osol.big_table_full(4 * big // 5, big)
    assert not osol.big_table_full(osol.sweep_room(10_000_000) - 1, big)


def test_the_sweep_in_slices_and_its_total_budget(monkeypatch):
    """Paused every 7 expansions (max_seconds set, far away), the sweep ends as one run straight through; with
    SWEEP_TOTAL too small for the positions the deal needs in all, it answers unknown."""
    import dataclasses

    deal = seeded_deals(DECK_52, 99, 16, 1)[0]
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=True),))
    monkeypatch.setattr(osol.sweep, "SWEEP_LIVE", 1)
    rules = dataclasses.replace(_srules("freecell", cells=1), max_nodes=13_000)
    whole = osol.solve_deal(deal, rules)
    monkeypatch.setattr(osol.solver, "SLICE_NODES", 7)
    sliced = osol.solve_deal(deal, dataclasses.replace(rules, max_seconds=3600))
    assert _same(whole, sliced) and whole.outcome == UNSOLVABLE
    monkeypatch.setattr(osol.solver, "SWEEP_TOTAL", 1)  # 13,000 in all: the deal needs 25,831
    assert osol.solve_deal(deal, dataclasses.replace(rules, max_seconds=3600)).outcome == UNKNOWN


def test_the_sweeps_links_go_to_a_file_and_its_wins_keep_their_line(monkeypatch):
    """Every position the sweep stores keeps its parent link and move, in a buffer written out to a temporary
    file each time it fills.  Penguin, seed 1 deal 0, which the sweep wins in 238,632 expansions: with a buffer of
    5,000 links (written out every 904) it is won with the same line as with every link in memory, read back
    through the file, and the checker replays it (play_one checks every win); the file is gone after the deal."""
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=True),))
    g = get_game("penguin")
    deal = seeded_deals(DECK_52, 1, 0, 1)[0]
    whole = g.play_one(deal, g.rules(), False).row
    spills, files = [], []
    spill = osol.Workspace.spill

    def counted(ws, ctl):
        spill(ws, ctl)
        spills.append(int(ctl[osol.C_LBASE]))
        files.append(ws.sweep_file)

    monkeypatch.setattr(osol.Workspace, "spill", counted)
    monkeypatch.setattr(osol.workspace, "SWEEP_LINK_BUFFER", 5_000)
    spilled = g.play_one(deal, g.rules(), False).row
    assert whole["outcome"] == spilled["outcome"] == "won" and whole["nodes"] == spilled["nodes"] > 200_000
    assert spilled["solution"] == whole["solution"]
    assert len(spills) > 200 and spills[-1] > 200_000 and all(f.closed for f in files)


def test_the_sweep_wins_and_its_line_replays(monkeypatch):
    """A deal the sweep wins alone (Penguin, seed 1 deal 0, in 238,632 expansions): its line goes through the
    checker like any other (play_one replays every win)."""
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=True),))
    g = get_game("penguin")
    row = g.play_one(seeded_deals(DECK_52, 1, 0, 1)[0], g.rules(), True).row
    assert row["outcome"] == "won" and row["solution"] and row["nodes"] > 50_000


def test_the_index_heap_pops_in_key_then_index_order():
    """The sweep's heap (engine/heap.py): indices come out by (key, index), with many equal keys, whatever the
    order of the pushes and pops interleaved; a key is read only while its index waits."""
    from engine.search.heap import index_heap_pop, index_heap_push

    rng = np.random.default_rng(7)
    keys = rng.integers(0, 20, size=3000).astype(np.int64)
    heap = np.zeros(3000, dtype=np.int32)
    size, out, waiting = 0, [], set()
    for i in rng.permutation(3000):
        size = index_heap_push(heap, size, keys, int(i))
        waiting.add(int(i))
        if rng.random() < 0.3:
            top, size = index_heap_pop(heap, size, keys)
            assert top == min(waiting, key=lambda j: (keys[j], j))
            waiting.remove(top)
            out.append(top)
    drained = []
    while size:
        top, size = index_heap_pop(heap, size, keys)
        drained.append(top)
    assert drained == sorted(waiting, key=lambda j: (keys[j], j))
    assert sorted(out + drained) == list(range(3000))


# --- the streamlined search: a plain depth-first search, with Solvitaire's two streamliners --------------


@pytest.mark.parametrize("single_cards", [False, True])
def test_the_depth_first_kernel_without_streamliners_keeps_the_verdicts_of_the_plain_exhaustive_search(
    monkeypatch, single_cards
):
    """The streamlined search's kernel (_dfs: one line at a time, a position stored when the line reaches it)
    with both streamliners off is an exhaustive search like the others: as the only search, the cross-check of
    every rule combination against the plain exhaustive search holds, wins replayed; its empty stack is then a
    verdict (unsolvable), not an unknown."""
    import test_open_solitaire as base

    monkeypatch.setattr(
        osol.solver,
        "DEFAULT_SCHEDULE",
        (osol.Step("streamlined", room=1, single_cards=single_cards, eager=False, suits=False),),
    )
    base.test_solver_verdicts_match_a_plain_exhaustive_search_on_small_positions()


@pytest.mark.parametrize("single_cards", [False, True])
def test_the_line_search_keeps_the_verdicts_of_the_plain_exhaustive_search(monkeypatch, single_cards):
    """The line search (the same kernel in Solvitaire's order of moves, its line kept as records, the moves that
    undo the last card's move left out: module docstring, "The line search") is exhaustive: as the only search,
    every rule combination's verdicts are those of the plain exhaustive search, wins replayed."""
    import test_open_solitaire as base

    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("line", room=1, single_cards=single_cards),))
    base.test_solver_verdicts_match_a_plain_exhaustive_search_on_small_positions()
    # FreeCell's own kind of position (alternating colours, a cell or two, more cards left), where cards go
    # through the cells and back, as the left-out moves would have them
    for cells in (1, 2):
        verdicts, _ = base._alternate_cross_check(random.Random(61 + cells), cells, 12, False, lambda layout: 0)
        assert verdicts[True] >= 10 and verdicts[False] >= 5, verdicts
    # King Albert's family: a reserve, foundation cards played back (test_king_albert.py's cross-check)
    import test_king_albert

    test_king_albert.test_solver_verdicts_match_a_plain_exhaustive_search_on_small_positions()
    # whole deals the plain exhaustive search proves lost (test_open_solitaire.py)
    for game, deal in (("penguin", seeded_deals(DECK_52, 7, 0, 1)[0]), ("freecell", microsoft_deal(1))):
        assert osol.solve_deal(deal, _srules(game, cells=1)).outcome == UNSOLVABLE, game


def test_a_schedule_sets_the_line_searchs_room():
    """A schedule step's room gives its search that many times max_nodes: FreeCell with 1 cell, seed 99 deal 0
    is unsolvable in 75,174 line positions and deal 5 won in 4,838, so with max_nodes a fifth of that or more
    they are decided by ``line(room=5)`` and unknown by ``line(room=2)``; the game's schedule switch says the
    same through play_batch."""
    from dataclasses import replace

    decks = seeded_deals(DECK_52, 99, 0, 6)
    line = lambda room: (osol.Step("line", room=room, single_cards=True),)  # noqa: E731
    g = get_game("freecell")
    for deal, verdict, nodes, max_nodes in ((decks[0], UNSOLVABLE, 75_174, 16_000), (decks[5], WON, 4_838, 1_000)):
        whole = osol.solve_deal(deal, replace(_srules("freecell", cells=1), schedule=line(2)))
        assert (whole.outcome, whole.nodes) == (verdict, nodes)
        rules = replace(_srules("freecell", cells=1, max_nodes=max_nodes), schedule=line(2))
        assert osol.solve_deal(deal, rules).outcome == UNKNOWN
        roomy = osol.solve_deal(deal, replace(rules, schedule=line(5)))
        assert (roomy.outcome, roomy.nodes) == (verdict, nodes)
        for room, outcome in ((2, UNKNOWN), (5, verdict)):
            out = g.play_batch(
                deal[None, :], g.rules(overrides={"cells": 1, "max_nodes": max_nodes, "schedule": f"line(room={room})"})
            )
            assert out["outcome"][0] == outcome


def test_the_memory_given_back_before_the_last_searches_changes_no_verdict():
    """Before the line search, the long guide and the sweep the workspace gives back the table and arrays the
    searches before touched (Workspace.release): deals that reach the sweep, solved one after another in one
    workspace, come out as each does in a fresh one, and so do the easy deals solved in it after them."""
    rules = _srules("freecell", cells=1, max_nodes=2_000)
    decks = seeded_deals(DECK_52, 99, 0, 6)
    ws = osol.Workspace()
    shared = [osol.solve_deal(d, rules, ws) for d in decks]
    fresh = [osol.solve_deal(d, rules) for d in decks]
    assert all(_same(a, b) for a, b in zip(shared, fresh, strict=True))
    assert {s.outcome for s in shared} >= {UNKNOWN, UNSOLVABLE}


def test_the_line_search_in_slices_ends_as_one_run(monkeypatch):
    """Paused every 7 expansions (max_seconds set, far away), the line search alone ends as one run straight
    through (its decoded position is not carried between slices: it is decoded again from the line)."""
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("line", single_cards=True),))
    decks = seeded_deals(DECK_52, 99, 0, 4)
    plain, sliced = _srules("freecell", cells=1), _srules("freecell", cells=1, max_seconds=3600)
    ws = osol.Workspace()
    whole = [osol.solve_deal(d, plain, ws) for d in decks]
    monkeypatch.setattr(osol.solver, "SLICE_NODES", 7)
    parts = [osol.solve_deal(d, sliced, ws) for d in decks]
    assert all(_same(a, b) for a, b in zip(whole, parts, strict=True))
    assert {s.outcome for s in whole} == {WON, UNSOLVABLE} and max(s.nodes for s in whole) > 1000


def test_the_streamlined_search_wins_only_won_positions_and_never_says_unsolvable(monkeypatch):
    """With its streamliners (every ready card up, positions told apart by colour and rank), the streamlined
    search may miss wins, so running out of positions proves nothing: on the cross-check's small positions it
    answers won only where the plain exhaustive search finds a win (the line replayed by the checker), and
    unknown everywhere else, never unsolvable.  It must also win most won ones, or the test proves little."""
    import random

    import test_open_solitaire as base

    from engine.reference import open_solitaire as ref

    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("streamlined", room=1, single_cards=True),))
    rng = random.Random(20261202)
    seen = {"won": 0, "missed": 0, "lost": 0}
    while sum(seen.values()) < 150:
        made = base._random_position(rng)
        if made is None:
            continue
        layout, rrules, srules = made
        truth = plain_verdicts.open_verdict(layout, rrules, 5_000)
        if truth is None:
            continue
        st, rel = osol.make_position(
            layout.columns, [c for c in layout.cells if c is not None], layout.foundations, layout.base
        )
        sol = osol.solve_state(st, rel, srules)
        assert sol.outcome in (WON, UNKNOWN), (layout, rrules)
        if sol.outcome == WON:
            assert truth, (layout, rrules)
            assert ref.check_from(layout, rrules, osol.reference_moves(layout, rrules, sol.codes)) is None
        seen["won" if sol.outcome == WON else "missed" if truth else "lost"] += 1
    assert seen["won"] >= 40 and seen["lost"] >= 25 and seen["won"] > 4 * seen["missed"], seen


def test_colour_and_rank_keys_merge_positions_that_differ_by_suits_of_one_colour():
    """P_SUITS's key (_by_colour): swapping the 5 of hearts and the 5 of diamonds between two columns gives the
    same key; swapping the 5 of hearts with the 6 of diamonds does not, and neither does the full key."""
    from engine.cards import parse_card as pc

    srules = osol.SolverRules(osol.LAYOUT_EIGHT, osol.BUILD_ALTERNATE, 2, False, False, osol.EMPTY_ANY, 100)
    params = srules.params()
    rest = [[pc("KS"), pc("QH")], [pc("9C")]]

    def key(a, b, by_colour):
        st, _ = osol.make_position(rest + [[pc("JC"), a], [pc("TS"), b]], [pc("2D")], [1, 0, 1, 0], 0)
        padded = np.zeros(osol.STATE_WORDS * 8, np.uint8)
        padded[: osol.STATE_SIZE] = st
        enc, red = np.zeros(osol.REC_BYTES, np.uint8), np.zeros(osol.STATE_WORDS * 8, np.uint8)
        if by_colour:
            osol.by_colour(padded, params, red)
            padded = red
        osol.encode_position(padded, params, enc.view(np.uint64), np.zeros(osol.MAXCOLS, np.int64))
        return bytes(enc)

    assert key(pc("5H"), pc("5D"), True) == key(pc("5D"), pc("5H"), True)
    assert key(pc("5H"), pc("5D"), False) != key(pc("5D"), pc("5H"), False)
    assert key(pc("5H"), pc("6D"), True) != key(pc("6D"), pc("5H"), True)


def test_the_streamlined_search_wins_a_deal_every_other_search_leaves_unknown(monkeypatch):
    """FreeCell with 2 cells, seed 99 deal 2572: left unknown by the guide, both depth-first retries and the sweep
    at the default 10^7 positions (the sweep after 2.2 x 10^7 expansions), and here at 20,000; after them, the
    streamlined search (here with the whole budget, and not as a probe) wins it in 13,556 positions, its line
    replayed by the checker (play_one replays every win), and in slices the same."""
    import dataclasses

    deal = seeded_deals(DECK_52, 99, 2572, 1)[0]
    rules = dataclasses.replace(_srules("freecell", cells=2), max_nodes=20_000)
    monkeypatch.setattr(
        osol.solver,
        "DEFAULT_SCHEDULE",
        tuple(osol.Step(s.search, room=1) if s.search == "streamlined" else s for s in osol.DEFAULT_SCHEDULE),
    )
    monkeypatch.setattr(osol.solver, "STREAM_AT", 0)  # not as a probe (the default would win it there)
    with monkeypatch.context() as m:
        m.setattr(
            osol.solver,
            "DEFAULT_SCHEDULE",
            tuple(osol.parse_schedule("guide, depth_first, depth_first(single_cards=false), sweep")),
        )
        assert osol.solve_deal(deal, rules).outcome == UNKNOWN
        m.setattr(osol.solver, "DEFAULT_SCHEDULE", osol.solver.DEFAULT_SCHEDULE[:1])
        guide = osol.solve_deal(deal, rules)
    every = osol.solve_deal(deal, rules)
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("streamlined", room=1, single_cards=True),))
    alone = osol.solve_deal(deal, rules)
    # the default order: the guide (unknown), then the streamlined search, which wins
    assert guide.outcome == UNKNOWN and every.outcome == alone.outcome == WON
    assert 10_000 < alone.nodes < 20_000 and every.nodes == guide.nodes + alone.nodes
    monkeypatch.setattr(osol.solver, "SLICE_NODES", 7)
    assert _same(alone, osol.solve_deal(deal, dataclasses.replace(rules, max_seconds=3600)))
    g = get_game("freecell")
    row = g.play_one(deal, g.rules(overrides={"cells": 2, "max_nodes": 20_000}), True).row
    assert row["outcome"] == "won" and row["solution"] and row["nodes"] == alone.nodes


def test_the_colour_search_wins_a_deal_that_needs_a_card_kept_down(monkeypatch):
    """FreeCell with 1 cell, seed 99 deal 8313 (unknown through every search at the defaults until the colour
    search came): at 300,000 positions the guide leaves it unknown, and so does the streamlined search, whose
    eager streamliner (every ready card up at once) runs out of positions; the colour search (the colour
    streamliner alone) wins it in 133,101, and the default order reaches it third and wins with the three
    searches' expansions, its line replayed by the checker (play_one), and in slices the same.  Where cards
    build in suit it is not made: no search runs, and the answer is unknown, not a win."""
    import dataclasses

    deal = seeded_deals(DECK_52, 99, 8313, 1)[0]
    rules = dataclasses.replace(_srules("freecell", cells=1), max_nodes=300_000)
    monkeypatch.setattr(osol.solver, "STREAM_AT", 0)  # not as a probe
    alone = {}
    for name in ("guide", "streamlined", "colours"):
        alone[name] = osol.solve_deal(deal, dataclasses.replace(rules, schedule=(osol.Step(name),)))
    assert alone["guide"].outcome == alone["streamlined"].outcome == UNKNOWN
    assert alone["colours"].outcome == WON and alone["colours"].nodes == 133_101
    every = osol.solve_deal(deal, rules)
    assert [s.search for s in osol.DEFAULT_SCHEDULE[:3]] == ["guide", "streamlined", "colours"]
    assert every.outcome == WON and every.nodes == sum(r.nodes for r in alone.values())
    monkeypatch.setattr(osol.solver, "SLICE_NODES", 997)
    assert _same(every, osol.solve_deal(deal, dataclasses.replace(rules, max_seconds=3600)))
    g = get_game("freecell")
    row = g.play_one(deal, g.rules(overrides={"cells": 1, "max_nodes": 300_000}), False).row
    assert row["outcome"] == "won" and row["solution"] and row["nodes"] == every.nodes
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("colours", single_cards=True),))
    in_suit = osol.solve_deal(seeded_deals(DECK_52, 99, 0, 1)[0], _srules("bakers_game", cells=4))
    assert (in_suit.outcome, in_suit.nodes) == (UNKNOWN, 0)
