"""The open games' schedule as data (engine/search/schedule.py): its text, its checks, and that every game's
default schedule, written out in full, is the solver's own default step for step."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from typer.testing import CliRunner

from engine.deals import seeded_deals
from engine.outcomes import UNKNOWN, UNSOLVABLE
from engine.registry import game_names, get_game
from engine.rules import RuleError, switches
from engine.search import solver
from engine.search.schedule import (
    DEFAULT_SCHEDULE,
    DEFAULT_SCHEDULE_TEXT,
    SEARCHES,
    Step,
    canonical_schedule,
    format_schedule,
    parse_schedule,
)
from pipeline.cli import app

OPEN_GAMES = [name for name in game_names() if "schedule" in switches(get_game(name).rules_type)]


def test_every_open_game_names_its_schedule():
    assert set(OPEN_GAMES) == {"penguin", "bakers_game", "freecell", "eight_off", "seahaven_towers", "king_albert"}
    for name in OPEN_GAMES:
        assert get_game(name).rules().schedule == DEFAULT_SCHEDULE_TEXT


def test_text_round_trips_and_defaults_are_filled_in():
    assert parse_schedule(DEFAULT_SCHEDULE_TEXT) == DEFAULT_SCHEDULE
    full = format_schedule(DEFAULT_SCHEDULE, full=True)
    assert parse_schedule(full) != DEFAULT_SCHEDULE  # every setting given ...
    assert [s.resolved() for s in parse_schedule(full)] == [s.resolved() for s in DEFAULT_SCHEDULE]  # ... the same
    assert canonical_schedule(full) == DEFAULT_SCHEDULE_TEXT
    assert (
        canonical_schedule(" guide ,line( room = 2 ),sweep(single_cards=FALSE)")
        == "guide, line(room=2), sweep(single_cards=false)"
    )
    assert Step("line", room=2).positions(10_000_000) == 20_000_000
    assert Step("streamlined").positions(7) == 3 == 7 // 2  # half the budget, rounded down as before
    assert all(s.order >= 0 for s in SEARCHES.values())


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "names no search"),
        ("guide, swep", "'swep' is not known; allowed: guide, streamlined"),
        ("line(room=0)", "room 0 is not allowed"),
        ("line(room=nan)", "room nan is not allowed"),
        ("line(eager=true)", "allowed only on: streamlined, colours"),
        ("guide(single_cards=maybe)", "allowed: true, false"),
        ("guide(depth=3)", "setting 'depth' is not known"),
        ("guide,,sweep", "is malformed"),
    ],
)
def test_bad_schedules_are_refused_naming_the_switch_the_value_and_what_is_allowed(text, words):
    g = get_game("freecell")
    with pytest.raises(RuleError) as err:
        g.rules(overrides={"schedule": text})
    message = str(err.value)
    assert message.startswith("switch 'schedule': value ") and words in message and "\n" not in message


def test_patience_validate_refuses_a_bad_schedule_with_exit_2_and_one_line(tmp_path):
    study = tmp_path / "study.yaml"
    study.write_text("study: s\ngame: freecell\ndeals: 5\nseed: 1\nvariants:\n  a: {schedule: 'guide, lin'}\n")
    result = CliRunner().invoke(app, ["validate", str(study)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "variants.a.schedule" in lines[0] and "'lin' is not known" in lines[0]


def test_patience_games_prints_the_schedule_step_by_step():
    result = CliRunner().invoke(app, ["games", "king_albert"])
    assert result.exit_code == 0
    for k, step in enumerate(DEFAULT_SCHEDULE, start=1):
        assert f"    {k}. {step.search}: room {step.resolved().room:g} x max_nodes" in result.output


@pytest.mark.parametrize("game", OPEN_GAMES)
def test_each_games_default_schedule_written_out_is_the_solvers_default(game):
    """The switch's default text maps to the solver's DEFAULT_SCHEDULE (None), and the same steps given
    explicitly, every setting written out, give the same answer, positions and line deal by deal."""
    g = get_game(game)
    module = __import__(f"engine.games.{game}", fromlist=["solver_rules"])
    rules = g.rules(overrides={"max_nodes": 20_000})
    srules = module.solver_rules(rules)
    assert srules.schedule is None
    explicit = dataclasses.replace(srules, schedule=parse_schedule(format_schedule(DEFAULT_SCHEDULE, full=True)))
    for deal in seeded_deals(g.deck, 5, 0, 4):
        st, rel = module.SOLVER.position(deal, srules, module.reference_rules(rules))
        a, b = solver.solve_state(st, rel, srules), solver.solve_state(st, rel, explicit)
        assert (a.outcome, a.nodes, a.best_foundation) == (b.outcome, b.nodes, b.best_foundation)
        assert np.array_equal(a.codes, b.codes)


def test_a_schedule_changes_what_it_should():
    """FreeCell with 1 cell, seed 99 deal 0, unsolvable: the default schedule proves it, the streamlined search
    alone cannot (its streamliners are no sound pruning: running out proves nothing) and answers unknown, and
    a line search without the room to hold its positions answers unknown too."""
    g = get_game("freecell")
    deal = seeded_deals(g.deck, 99, 0, 1)
    over = {"cells": 1, "max_nodes": 200_000}
    outcome = {
        text: int(g.play_batch(deal, g.rules(overrides={**over, "schedule": text}))["outcome"][0])
        for text in (DEFAULT_SCHEDULE_TEXT, "streamlined(room=1)", "line(room=0.1)", "line")
    }
    assert outcome == {
        DEFAULT_SCHEDULE_TEXT: UNSOLVABLE,
        "streamlined(room=1)": UNKNOWN,
        "line(room=0.1)": UNKNOWN,
        "line": UNSOLVABLE,
    }
