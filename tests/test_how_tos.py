"""The how-tos in docs/ carried out as written: their code blocks are read from the pages and run, so a page
that drifts from the code fails here."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import registry
from engine.deals import seeded_deals
from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.search import schedule

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _blocks(page: str, language: str = "python") -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", (DOCS / page).read_text(), flags=re.S)


def test_adding_a_search():
    """docs/adding_a_search.md: the greedy dive, registered and put first in FreeCell's schedule, changes no
    verdict on 20 seeded deals (its wins replayed by the reference inside play_batch), wins some deals alone,
    and alone never answers unsolvable (it is not exhaustive)."""
    before = dict(schedule.SEARCHES)
    try:
        _add_a_search()
    finally:  # the page's search, for this test only
        schedule.SEARCHES.clear()
        schedule.SEARCHES.update(before)


def _add_a_search() -> None:
    define, register, use = _blocks("adding_a_search.md")
    namespace: dict = {}
    exec(define, namespace)
    exec(register, namespace)
    assert "greedy_dive" in schedule.SEARCHES
    namespace_use: dict = {}
    exec(use, namespace_use)  # the page's own example: 20 deals with the dive first
    game, out = namespace_use["game"], namespace_use["out"]
    decks = seeded_deals(game.deck, 99, 0, 20)
    default = game.play_batch(decks, game.rules())
    assert np.array_equal(out["outcome"], default["outcome"])
    alone = game.play_batch(decks, game.rules(overrides={"schedule": "greedy_dive(room=1)"}))
    won = alone["outcome"] == WON
    assert 0 < won.sum() < 20 and set(alone["outcome"][~won].tolist()) == {UNKNOWN}
    assert all(game.check_solution(decks[i], game.rules(), alone["solution"][i]) is None for i in np.flatnonzero(won))
    with pytest.raises(Exception, match="greedy_dive"):
        schedule.add_search("greedy_dive", schedule.SEARCHES["greedy_dive"])  # a name is taken once


def test_adding_an_open_solitaire(tmp_path, monkeypatch):
    """docs/adding_an_open_solitaire.md: its module, written to disk and registered as the page says, is a
    game: switches and presets as declared, deals solved with every win replayed by the reference, and the
    rules it declares are the ones that play (Kings only to empty columns wins fewer deals than any card)."""
    module, registration = _blocks("adding_an_open_solitaire.md")[0], _blocks("adding_an_open_solitaire.md", "text")[0]
    assert len(module.splitlines()) < 100
    (tmp_path / "fore_cell_howto.py").write_text(module)
    monkeypatch.syspath_prepend(str(tmp_path))
    name, path = re.match(r'"(\w+)": "([\w.]+)"', registration.strip()).groups()
    assert (name, path) == ("fore_cell", "engine.games.fore_cell")
    monkeypatch.setitem(registry._GAME_MODULES, name, "fore_cell_howto")
    try:
        game = registry.get_game("fore_cell")
        assert game.name == "fore_cell" and list(game.presets) == ["pysolfc"]
        decks = seeded_deals(game.deck, 7, 0, 30)
        kings = game.play_batch(decks, game.rules(preset="pysolfc"))
        anything = game.play_batch(decks, game.rules(overrides={"empty_column": "any"}))
        for out, rules in ((kings, game.rules()), (anything, game.rules(overrides={"empty_column": "any"}))):
            assert set(out["outcome"].tolist()) <= {WON, UNSOLVABLE}
            for i in np.flatnonzero(out["outcome"] == WON):
                assert game.check_solution(decks[i], rules, out["solution"][i]) is None
        assert (kings["outcome"] == WON).sum() <= (anything["outcome"] == WON).sum()
        assert (kings["outcome"] == WON).sum() > 0
    finally:
        sys.modules.pop("fore_cell_howto", None)
        importlib.invalidate_caches()
