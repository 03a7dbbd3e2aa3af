"""FreeCell: Baker's Game built down in alternating colours; solved exactly by ``engine/search/``.

The rules are spelled out in ``engine/reference/open_solitaire.py``; the rule
switches are Baker's Game's.  Deals may be given by Microsoft's numbering.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.games import bakers_game
from engine.games.bakers_game import BakersGameRules
from engine.games.open_family import OpenGame
from engine.reference import open_solitaire as reference
from engine.search.positions import BUILD_ALTERNATE
from engine.search.solver import SolverRules


@dataclass(frozen=True)
class FreeCellRules(BakersGameRules):
    """The same switches as Baker's Game (cells, columns, sequence_move, empty_column, max_nodes)."""


PRESETS: dict[str, dict] = {"microsoft": {}}
PRESET_SOURCES: dict[str, str] = {  # each preset, and the source it is named for
    "microsoft": "Microsoft's FreeCell: four cells, eight columns; its deal numbers are `microsoft_deals`"
}


def solver_rules(rules: FreeCellRules, build: int = BUILD_ALTERNATE) -> SolverRules:
    """Baker's Game's mapping, built in alternating colours."""
    return bakers_game.solver_rules(rules, build)


def reference_rules(rules: FreeCellRules, build: str = "alternate") -> reference.Rules:
    return bakers_game.reference_rules(rules, build)


SOLVER = OpenGame(solver_rules, reference_rules)
play_batch, play_one, check_solution = SOLVER.play_batch, SOLVER.play_one, SOLVER.check_solution

GAME = SOLVER.game_spec(
    name="freecell",
    title="FreeCell",
    doc="Eight columns (4 to 8 with `columns`), four cells, foundations from Ace; build down in alternating colours.  "
    "Solved exactly.",
    rules_type=FreeCellRules,
    presets=PRESETS,
    preset_sources=PRESET_SOURCES,
    deal_sources=frozenset({"seeded", "file", "microsoft"}),
)
