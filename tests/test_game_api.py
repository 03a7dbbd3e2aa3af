"""One API test every registered game must pass, batched and single (pgx-style).

A new game is registered in engine/registry.py and is picked up here with no edit.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from engine.deals import seeded_deals
from engine.outcomes import OUTCOMES
from engine.registry import COMMON_COLUMNS, GameSpec, game_names, get_game
from engine.rules import RuleError

N = 12  # deals per check: the API, not the statistics, is under test here


@pytest.fixture(params=game_names())
def game(request) -> GameSpec:
    return get_game(request.param)


def _fast_rules(game: GameSpec):
    """Default rules with a solver's budget trimmed, so every game's check runs in moments."""
    overrides = {"max_nodes": 20_000} if "max_nodes" in game.switches() else {}
    return game.rules(overrides=overrides)


def test_spec_is_complete(game: GameSpec):
    assert game.name in game_names()
    assert game.deck.dtype == np.uint8 and len(set(game.deck.tolist())) == game.ncards
    assert game.title and game.doc
    assert set(game.outcomes) <= set(OUTCOMES) and "won" in game.outcomes
    for name, sw in game.switches().items():
        assert sw.doc, f"switch {name} needs a one-line doc"
        assert sw.coerce(sw.default) == sw.default
    for preset in game.presets:
        assert dataclasses.is_dataclass(game.rules(preset))
    assert set(game.preset_sources) == set(game.presets), "each preset names the source it is named for"
    assert set(COMMON_COLUMNS) <= set(game.columns())


def test_unknown_switch_is_refused(game: GameSpec):
    with pytest.raises(RuleError, match="no_such_switch"):
        game.rules(overrides={"no_such_switch": 1})


def test_batch_columns_dtypes_and_determinism(game: GameSpec):
    rules = _fast_rules(game)
    decks = seeded_deals(game.deck, 11, 0, N)
    out = game.play_batch(decks, rules)
    assert set(out) == set(game.columns())
    for name, dtype in game.columns().items():
        if dtype == "string":
            assert out[name].dtype == object and all(isinstance(v, str) for v in out[name]), name
        else:
            assert out[name].dtype == np.dtype(dtype), name
        assert out[name].shape == (N,), name
    assert {OUTCOMES[c] for c in out["outcome"]} <= set(game.outcomes)
    again = game.play_batch(decks, rules)
    for name in COMMON_COLUMNS:
        assert np.array_equal(out[name], again[name]), name
    # batched == one at a time, and read-only input is accepted
    ro = np.array(decks)
    ro.flags.writeable = False
    for i in (0, N - 1):
        single = game.play_batch(ro[i : i + 1], rules)
        for name in COMMON_COLUMNS:
            assert single[name][0] == out[name][i], name


def test_play_one_agrees_with_batch(game: GameSpec):
    rules = _fast_rules(game)
    decks = seeded_deals(game.deck, 12, 0, 4)
    out = game.play_batch(decks, rules)
    for i, deal in enumerate(decks):
        result = game.play_one(deal, rules, True)
        assert result.row["outcome"] == OUTCOMES[out["outcome"][i]]
        assert result.row["won"] == (result.row["outcome"] == "won")
        for name in ("rounds", "moves", "cards_left"):
            assert result.row[name] == out[name][i], name
        assert result.trace and all(isinstance(line, str) for line in result.trace)
