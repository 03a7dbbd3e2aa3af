"""FreeCell: Baker's Game built down in alternating colours; solved exactly by ``engine/open_solitaire.py``.

The rules are spelled out in ``engine/reference/open_solitaire.py``; the rule
switches are Baker's Game's.  Deals may be given by Microsoft's numbering.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.games.bakers_game import BakersGameRules, reference_rules, solver_rules
from engine.cards import DECK_52
from engine.open_solitaire import BUILD_ALTERNATE, SOLVER_COLUMNS, check_solution_with, play_batch_with, play_one_with
from engine.outcomes import OUTCOMES, UNKNOWN, UNSOLVABLE, WON
from engine.registry import GameSpec, PlayResult


@dataclass(frozen=True)
class FreeCellRules(BakersGameRules):
    """The same switches as Baker's Game (cells, columns, sequence_move, empty_column, max_nodes)."""


PRESETS: dict[str, dict] = {"microsoft": {}}


def play_batch(decks: np.ndarray, rules: FreeCellRules) -> dict[str, np.ndarray]:
    """Solve every deal of ``decks`` (uint8[n, 52]); one array per output column."""
    return play_batch_with(decks, solver_rules(rules, BUILD_ALTERNATE), reference_rules(rules, "alternate"))


def play_one(deal: np.ndarray, rules: FreeCellRules, trace: bool = False) -> PlayResult:
    """Solve one deal; with ``trace`` the layout and the checked solution move by move."""
    return play_one_with(deal, solver_rules(rules, BUILD_ALTERNATE), reference_rules(rules, "alternate"), trace)


def check_solution(deal: np.ndarray, rules: FreeCellRules, text: str) -> str | None:
    """Replay solution text (fc-solve notation) from the deal with the reference: None if it wins, else why not."""
    return check_solution_with(reference_rules(rules, "alternate"), deal, text)


GAME = GameSpec(
    name="freecell",
    title="FreeCell",
    doc="Eight columns (4 to 8 with `columns`), four cells, foundations from Ace; build down in alternating colours.  "
    "Solved exactly.",
    deck=DECK_52,
    rules_type=FreeCellRules,
    presets=PRESETS,
    extra_columns=SOLVER_COLUMNS,
    play_batch=play_batch,
    play_one=play_one,
    check_solution=check_solution,
    outcomes=tuple(OUTCOMES[c] for c in (WON, UNSOLVABLE, UNKNOWN)),
    deal_sources=frozenset({"seeded", "file", "microsoft"}),
)
