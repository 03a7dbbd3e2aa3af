"""Perpetual Motion under strategy: solver (free play): replay, dominance, an independent plain search,
known answers, bad input."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from engine.cards import DECK_52, parse_cards
from engine.deals import seeded_deals
from engine.games import perpetual_motion as pm
from engine.games import perpetual_motion_solver as solver
from engine.outcomes import OUTCOMES, UNKNOWN, UNSOLVABLE, WON
from engine.reference import perpetual_motion as ref
from engine.registry import get_game
from engine.rules import RuleError

GAME = get_game("perpetual_motion")
FORCED_SWITCHES = {
    "discard": ("dealt_four", "pile_four"),
    "cascade": (False, True),
    "move_unit": ("card", "run"),
    "direction": ("leftmost", "rightmost"),
    "gather": pm.GATHERS,
    "deal_direction": ("left_to_right", "right_to_left"),
}
SETTINGS = [dict(zip(FORCED_SWITCHES, combo, strict=True)) for combo in itertools.product(*FORCED_SWITCHES.values())]


def _solver(overrides: dict, preset: str | None = None):
    return GAME.rules(preset, dict(overrides, strategy="solver"))


def _moves_in(text: str) -> int:
    return sum(len(f) // 2 for p in text.split(" / ") if p != "-" for f in p.split(","))


# --- the free-play text is one text ------------------------------------------------------


def test_free_play_rules_are_written_the_same_in_reference_and_solver():
    # the text is cut out of the reference's docstring: it must span the rules and the notation
    assert ref.FREE_PLAY_RULES.startswith("Free play (strategy: solver).")
    assert "Solution notation." in ref.FREE_PLAY_RULES and ref.FREE_PLAY_RULES.endswith("after that.\n")
    assert ref.FREE_PLAY_RULES in solver.__doc__
    assert ref.FREE_PLAY_RULES in ref.__doc__


# --- replay: every win is replayed by the reference -----------------------------------------


@pytest.mark.parametrize("preset", ["clarke", "masten", "pysolfc"])
@pytest.mark.parametrize("direction", ["preset", "any"])
def test_every_win_replays_and_its_columns_match_the_solution(preset, direction):
    rules = _solver({} if direction == "preset" else {"direction": "any"}, preset)
    decks = seeded_deals(DECK_52, 31, 0, 30)
    out = GAME.play_batch(decks, rules)
    won = out["outcome"] == WON
    assert won.sum() > 0
    if direction == "preset":  # dominance on the presets' own rules
        forced = GAME.play_batch(decks, GAME.rules(preset))
        fw = forced["outcome"] == WON
        assert np.all(won[fw]) and np.all(out["rounds"][fw] <= forced["rounds"][fw])
    for i in range(len(decks)):
        text = out["solution"][i]
        if not won[i]:
            assert text == "" and out["rounds"][i] == 0
            continue
        assert GAME.check_solution(decks[i], rules, text) is None
        assert out["rounds"][i] == len(text.split(" / "))
        assert out["moves"][i] == _moves_in(text)
        assert out["cards_left"][i] == 0
    # a corrupted solution is refused: drop the last pass, or make a move that is not there
    i = int(np.flatnonzero(won)[0])
    text = out["solution"][i]
    passes = text.split(" / ")
    assert GAME.check_solution(decks[i], rules, " / ".join(passes[:-1]) or "-") is not None
    assert GAME.check_solution(decks[i], rules, "12,12,12,12 / " + text) is not None


def test_forced_strategy_leaves_the_solver_columns_empty():
    decks = seeded_deals(DECK_52, 1, 0, 20)
    out = GAME.play_batch(decks, GAME.rules("clarke"))
    assert not out["nodes"].any() and not out["seconds"].any() and not out["rounds_optimal"].any()
    assert all(s == "" for s in out["solution"])


# --- dominance: free play wins every deal forced play wins, in no more passes ----------------


@pytest.mark.slow
@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: ",".join(str(v) for v in s.values()))
def test_solver_dominates_forced_play(setting):
    """12 deals for each of the 128 settings of the forced switches (1,536 deals; the replay test adds 180)."""
    decks = seeded_deals(DECK_52, 2024, SETTINGS.index(setting) * 12, 12)
    forced = GAME.play_batch(decks, GAME.rules(overrides=setting))
    free = GAME.play_batch(decks, _solver(setting))
    fw = forced["outcome"] == WON
    assert np.all(free["outcome"][fw] == WON)
    assert np.all(free["rounds"][fw] <= forced["rounds"][fw])


# --- an independent plain search agrees ----------------------------------------------------


def _reduced_positions(n: int, nranks: int, seed: int) -> list[list[int]]:
    """Stocks of ``nranks`` whole ranks (4 cards each) in random order: positions a few passes from the end."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        ranks = rng.sample(range(13), nranks)
        cards = [r + 13 * s for r in ranks for s in range(4)]
        rng.shuffle(cards)
        out.append(cards)
    return out


@pytest.mark.parametrize(
    ("overrides", "two_ranks", "three_ranks"),
    [
        ({}, 30, 3),
        ({"direction": "any"}, 10, 0),  # the plain search is slowest here (every pile is a target)
        ({"direction": "rightmost", "gather": "pile1_top_down"}, 30, 3),
        ({"discard": "pile_four", "move_unit": "run", "gather": "pile1_bottom_up"}, 30, 6),
        ({"deal_direction": "right_to_left", "gather": "pile4_top_down", "move_unit": "run"}, 30, 3),
    ],
)
def test_solver_agrees_with_plain_exhaustive_search_on_reduced_positions(overrides, two_ranks, three_ranks):
    """Stocks of two or three whole ranks (8 or 12 cards): the plain search's verdict and fewest passes.

    The solver must never call a winnable position unsolvable, never win in fewer passes than the
    plain minimum, and must match the minimum whenever it claims rounds_optimal.  Positions this small
    get the breadth-first proof, so nearly all are settled exactly (the floor, 90%, leaves room for a
    proof that runs out of its budget)."""
    rules = _solver(overrides)
    ws = solver.Workspace()
    checked = exact = 0
    for cards in _reduced_positions(two_ranks, 2, 7) + _reduced_positions(three_ranks, 3, 8):
        try:
            plain = ref.exhaustive_min_passes([c % 13 for c in cards], rules, 5_000)
        except RuntimeError:  # too big for the plain search: no verdict to compare with
            continue
        got = solver.solve(np.array(cards, np.uint8), rules, ws, None, None)
        checked += 1
        if plain is None:
            assert got.code in (UNSOLVABLE, UNKNOWN), cards
            exact += got.code == UNSOLVABLE
        else:
            assert got.code != UNSOLVABLE, cards
            if got.code == WON:
                assert ref.check_solution(cards, rules, got.solution) is None
                assert got.rounds >= plain, cards
                assert 1 <= got.rounds_lower <= plain, cards  # the proven bound is a bound
                if got.rounds_optimal:
                    assert got.rounds == plain == got.rounds_lower, cards
                    exact += 1
    assert checked >= (two_ranks + three_ranks) * 3 // 4
    assert exact >= checked * 9 // 10


# --- the lower bound on passes --------------------------------------------------------------

FREE_SWITCHES = {
    "discard": ("dealt_four", "pile_four"),
    "move_unit": ("card", "run"),
    "direction": ("leftmost", "rightmost", "any"),
    "gather": pm.GATHERS,
    "deal_direction": ("left_to_right", "right_to_left"),
}
FREE_SETTINGS = [dict(zip(FREE_SWITCHES, combo, strict=True)) for combo in itertools.product(*FREE_SWITCHES.values())]


def _two_rank_stocks() -> list[list[int]]:
    """Every stock of two whole ranks (8 cards), up to renaming the ranks: 35 of them."""
    out = []
    for pos in itertools.combinations(range(1, 8), 3):  # where the other three of card 0's rank lie
        out.append([0 if i == 0 or i in pos else 1 for i in range(8)])
    return out


@pytest.mark.parametrize("setting", FREE_SETTINGS, ids=lambda s: "-".join(str(v) for v in s.values()))
def test_the_lower_bound_is_never_above_the_plain_minimum(setting):
    """Every free-play setting (96), every two-rank stock and one of three ranks: the static bound
    (``passes_lower_bound``, the same in reference and solver) and the breadth-first phase's proven passes
    at budgets that run out at every point of the search stay at or below the plain search's fewest passes;
    under dealt_four the static bound is exact at one pass (the stock is all fours or it is not)."""
    rules = _solver(setting)
    ws = solver.Workspace()
    stocks = _two_rank_stocks() + [[c % 13 for c in s] for s in _reduced_positions(1, 3, 11)]
    for ranks in stocks:
        try:
            plain = ref.exhaustive_min_passes(ranks, rules, 3_000)
        except RuntimeError:  # too big for the plain search: nothing to compare with
            continue
        bound = ref.passes_lower_bound(ranks, rules)
        assert bound == solver.passes_lower_bound(np.array(ranks, np.uint8), rules)
        if plain is None:
            continue
        assert bound <= plain, ranks
        if setting["discard"] == "dealt_four":
            assert (bound == 1) == (plain == 1), ranks
        for max_expand, max_work in ((1, 1 << 40), (2, 1 << 40), (1 << 20, 30), (1 << 20, 300), (1 << 20, 1 << 40)):
            f = solver.search(np.array(ranks, np.uint8), rules, ws, True, 20, 1 << 20, max_expand, max_work)
            assert f.proven + 1 <= plain, (ranks, max_expand, max_work)
            if f.code == WON:
                assert len(f.passes) == plain, ranks  # breadth-first: the first win has the fewest passes


def test_a_proof_that_runs_out_still_bounds_the_passes():
    """Full deals: the proof of the fewest passes spends proof_work and stops; what it proved is stored
    (rounds_lower), at least the static bound, and a bigger budget proves no less on the same deal."""
    decks = seeded_deals(DECK_52, 2009, 0, 6)
    small = GAME.play_batch(decks, _solver({"proof_work": 0}, "clarke"))
    big = GAME.play_batch(decks, _solver({"proof_work": 200_000}, "clarke"))
    won = (small["outcome"] == WON) & (big["outcome"] == WON)
    assert won.all()
    assert np.all(small["rounds_lower"] == 2)  # no proof: the static bound (no deal here is all fours)
    assert np.all(big["rounds_lower"] >= 3) and np.all(big["rounds_lower"] <= big["rounds"])
    assert not big["rounds_optimal"].any()  # about 11 passes found, 3 or 4 proven: the gap docs/solvers.md shows


def test_the_beam_over_passes_finds_shorter_lines():
    """pass_beam: after the first win, the best stocks of each depth are searched for a shorter line.  Never
    longer than without it (it only looks for fewer passes); on clarke's deals it saves about two passes a deal
    (30 deals: 11.07 passes on average without, 8.87 with the default 50), so at least one a deal here."""
    decks = seeded_deals(DECK_52, 2009, 0, 8)
    off = GAME.play_batch(decks, _solver({"pass_beam": 0, "proof_work": 0}, "clarke"))
    on = GAME.play_batch(decks, _solver({"proof_work": 0}, "clarke"))
    assert (off["outcome"] == WON).all() and (on["outcome"] == WON).all()
    assert np.all(on["rounds"] <= off["rounds"])
    assert on["rounds"].sum() <= off["rounds"].sum() - 8


# --- known answers ------------------------------------------------------------------------

# Eleven fours of a rank, discarded as they are dealt, then 5C 5D 5H 7C / 7D 7H 7S 5S.  Forced play (Clarke)
# cycles: the stock 7 5 5 5 5 7 7 7 comes back every other pass.  Free play wins in two passes: after the
# last deal of pass 1 (P1 5C 7D, P2 5D 7H, P3 5H 7S, P4 7C 5S) move 7H and 7S onto P1, 5H and 5S onto P2,
# 7C onto P1; the gather gives 5 5 5 5 7 7 7 7, two fours discarded as dealt in pass 2.  One pass cannot
# win: under dealt_four a pass discards only the fours its stock deals, whatever the moves.
_QUADS = " ".join(f"{r}C {r}D {r}H {r}S" for r in "A234689TJQK")
CYCLING_DEAL = parse_cards(_QUADS + " 5C 5D 5H 7C 7D 7H 7S 5S")


def test_a_deal_forced_play_cycles_on_is_won_in_two_passes():
    rules = GAME.rules("clarke")
    assert ref.play(CYCLING_DEAL, rules).outcome == "cycle"
    assert ref.check_solution(CYCLING_DEAL, _solver({}), ",,,,,,,,,,,,2131324241 / -") is None
    row = GAME.play_one(np.array(CYCLING_DEAL, np.uint8), _solver({}), True).row
    assert row["outcome"] == "won" and row["rounds"] == 2 and row["rounds_optimal"]
    assert ref.exhaustive_min_passes([c % 13 for c in CYCLING_DEAL], _solver({})) == 2


def test_trace_shows_the_solution_pass_by_pass():
    result = GAME.play_one(np.array(CYCLING_DEAL, np.uint8), _solver({}), True)
    text = "\n".join(result.trace)
    assert "pass 2:" in text and "won in pass 2" in text and "move 7H from P2 to P1" in text
    assert result.row["solution"] in text


def test_deal_of_quads_is_won_in_one_pass_proven():
    deal = parse_cards(" ".join(f"{r}C {r}D {r}H {r}S" for r in "A23456789TJQK"))
    out = GAME.play_batch(np.array([deal], np.uint8), _solver({}))
    assert out["outcome"][0] == WON and out["rounds"][0] == 1 and out["rounds_optimal"][0]
    assert out["solution"][0] == "-"


# --- bad input -----------------------------------------------------------------------------


def test_direction_any_needs_the_solver():
    with pytest.raises(RuleError, match="switch 'direction': value 'any' needs strategy: solver"):
        GAME.rules(overrides={"direction": "any"})
    assert GAME.rules(overrides={"direction": "any", "strategy": "solver"}).direction == "any"


def test_max_nodes_zero_is_refused():
    with pytest.raises(RuleError, match="switch 'max_nodes': value 0 is not allowed"):
        GAME.rules(overrides={"max_nodes": 0, "strategy": "solver"})


def test_bad_input_exits_2_from_the_command_line():
    from typer.testing import CliRunner

    from pipeline.cli import app

    runner = CliRunner()
    for setting in ("direction=any", "max_nodes=0"):
        res = runner.invoke(app, ["play", "perpetual_motion", "--seed", "1", "--index", "0", "--set", setting])
        assert res.exit_code == 2, (setting, res.output)
        assert ("direction" in res.output) if setting.startswith("direction") else ("max_nodes" in res.output)


def test_cascade_is_documented_as_having_no_effect_under_the_solver():
    assert "no effect under strategy: solver" in GAME.switches()["cascade"].doc


def test_a_small_budget_gives_unknown_not_a_wrong_verdict():
    decks = seeded_deals(DECK_52, 5, 0, 30)
    out = GAME.play_batch(decks, _solver({"max_nodes": 1, "direction": "any"}))
    assert set(OUTCOMES[c] for c in out["outcome"]) <= {"won", "unknown"}
    assert (out["outcome"] == UNKNOWN).any()
