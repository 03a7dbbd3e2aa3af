"""Klondike's solver against the readable reference: verdicts equal to the plain exhaustive search on reduced
decks under every combination of the switches, every win replayed, budgets respected."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.cards import DECK_52, make_deck
from engine.deals import seeded_deals
from engine.games import klondike as kl
from engine.games import klondike_solver as solver
from engine.outcomes import OUTCOMES, UNKNOWN, UNSOLVABLE, WON
from engine.reference import klondike as reference
from engine.registry import get_game

GAME = get_game("klondike")

SWITCHES = {
    "draw": (1, 3),
    "redeals": ("unlimited", "1"),
    "worrying_back": (True, False),
    "empty_column": ("kings", "any", "none"),
    "build": ("alternate", "suit", "any"),
    "partial_runs": ("uncovers_home", "any"),
}
COMBINATIONS = [dict(zip(SWITCHES, values, strict=True)) for values in itertools.product(*SWITCHES.values())]
COMBO_IDS = ["-".join(str(v) for v in c.values()) for c in COMBINATIONS]

# Reduced deals (deck, columns, deals, the plain search's limit): ranks A-3 (12 cards) on 3 columns (6 in the
# tableau, 6 in the stock) and on 2 (9 in the stock), every deal decided by the plain search in moments; and ranks
# A-4 (16 cards) on 3 columns, compared where the plain search decides within 20,000 positions (most are).
SMALL = [
    (make_deck(range(3)), 3, 3, 300_000),
    (make_deck(range(3)), 2, 3, 300_000),
    (make_deck(range(4)), 3, 2, 20_000),
]


@pytest.mark.parametrize("index", range(len(COMBINATIONS)), ids=COMBO_IDS)
def test_solver_agrees_with_the_plain_search_on_reduced_decks(index: int) -> None:
    over = COMBINATIONS[index]
    rules = GAME.rules(None, over)
    ref_rules = kl.reference_rules(rules)
    ws = solver.Workspace(64)  # a small stack, so its doubling is exercised too
    for deck, columns, count, limit in SMALL:
        for deal in seeded_deals(deck, 53 + index, 0, count):
            cards = [int(c) for c in deal]
            plain, _ = reference.exhaustive_search(cards, ref_rules, columns=columns, limit=limit)
            if plain == reference.UNKNOWN:
                assert limit < 300_000, (over, cards)  # every 12-card deal is decided
                continue
            got = kl.solve(deal, rules, columns, ws)  # a win is replayed by the reference inside
            assert OUTCOMES[got.code] == plain, (over, cards)
            if got.code == WON:
                assert reference.check_solution(cards, ref_rules, got.solution, columns=columns) is None


def test_reduced_decks_reach_both_verdicts() -> None:
    """The agreement test above is not vacuous: its deals are both won and unsolvable under the defaults."""
    rules = GAME.rules()
    seen = set()
    for index in range(len(COMBINATIONS)):
        for deck, columns, count, _ in SMALL:
            for deal in seeded_deals(deck, 53 + index, 0, count):
                seen.add(kl.solve(deal, GAME.rules(None, COMBINATIONS[index]), columns).code)
    assert seen == {WON, UNSOLVABLE}
    assert kl.solve(seeded_deals(make_deck(range(4)), 1, 0, 1)[0], rules, 3).code in (WON, UNSOLVABLE)


def test_full_deals_are_searched_within_the_budget_and_wins_replay() -> None:
    decks = seeded_deals(DECK_52, 2026, 0, 6)
    rules = GAME.rules(None, {"max_nodes": 30_000})
    out = GAME.play_batch(decks, rules)
    assert (out["nodes"] <= 30_000).all()
    assert set(out["outcome"].tolist()) <= {WON, UNSOLVABLE, UNKNOWN}
    for i in np.nonzero(out["outcome"] == WON)[0]:
        assert GAME.check_solution(decks[i], rules, out["solution"][i]) is None
        assert out["cards_left"][i] == 0 and out["moves"][i] == len(out["solution"][i].split())
    tiny = GAME.play_batch(decks[:2], GAME.rules(None, {"max_nodes": 5}))
    assert (tiny["outcome"] == UNKNOWN).all() and (tiny["nodes"] <= 5).all()


def test_a_corrupted_solution_is_refused() -> None:
    deck = make_deck(range(4))
    rules = GAME.rules()
    for deal in seeded_deals(deck, 3, 0, 20):
        got = kl.solve(deal, rules, 3)
        if got.code == WON and len(got.solution.split()) > 2:
            cards = [int(c) for c in deal]
            ref = kl.reference_rules(rules)
            tokens = got.solution.split()
            assert reference.check_solution(cards, ref, " ".join(tokens[:-1]), columns=3) is not None
            assert reference.check_solution(cards, ref, " ".join(tokens[1:]), columns=3) is not None
            return
    pytest.fail("no won reduced deal with a line of 3 moves or more among 20")


@pytest.mark.parametrize(
    "setting, message",
    [
        ("draw=0", "switch 'draw'"),
        ("draw=14", "switch 'draw'"),
        ("redeals=many", "switch 'redeals'"),
        ("empty_column=queens", "switch 'empty_column'"),
        ("build=up", "switch 'build'"),
    ],
)
def test_bad_switch_values_are_refused_with_the_field_named(setting: str, message: str) -> None:
    from engine.rules import RuleError

    name, value = setting.split("=")
    with pytest.raises(RuleError, match=message):
        GAME.rules(None, {name: value})
