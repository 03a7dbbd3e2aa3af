"""Seahaven Towers: ten columns of five, four cells, two dealt; solved exactly by ``engine/open_solitaire.py``.

Ten columns of five cards, dealt in turn (card k of the first 50 to column
(k mod 10) + 1; the tenth column is written ``0`` in solutions); the last two
cards go to cells 1 and 2 of four.  Foundations up in suit from the Ace; the
tableau builds down in suit; an empty column takes only a King (or a run headed
by one); moving n cards as one unit needs n - 1 free cells (exactly what single
cards can do: see "Sequence moves" in ``engine/open_solitaire.py``).  The rules,
and how Solvitaire and PySolFC read them, are in
``engine/reference/open_solitaire.py``.  The switches are Eight Off's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.cards import DECK_52
from engine.games.bakers_game import MAX_NODES_HI
from engine.games.eight_off import (
    EMPTY_DOC,
    PREFILLED_DOC,
    SEQUENCE_DOC,
    check_prefilled,
    reference_rules_for,
    solver_rules_for,
)
from engine.open_solitaire import (
    MAX_SECONDS_DOC,
    MAX_SECONDS_HI,
    SOLVER_COLUMNS,
    SolverRules,
    check_solution_with,
    play_batch_with,
    play_one_with,
)
from engine.outcomes import OUTCOMES, UNKNOWN, UNSOLVABLE, WON
from engine.reference import open_solitaire as reference
from engine.registry import GameSpec, PlayResult
from engine.rules import switch

COLUMNS = 10


@dataclass(frozen=True)
class SeahavenTowersRules:
    cells: int = switch(4, "single-card cells", lo=0, hi=8)
    prefilled_cells: int = switch(2, PREFILLED_DOC, lo=0, hi=8)
    empty_column: str = switch("kings", EMPTY_DOC, choices=("kings", "any", "none"))
    sequence_move: str = switch("limited", SEQUENCE_DOC, choices=("limited", "unlimited"))
    max_nodes: int = switch(2_000_000, "positions the solver may store before it answers unknown", lo=1, hi=MAX_NODES_HI)
    max_seconds: int = switch(0, MAX_SECONDS_DOC, lo=0, hi=MAX_SECONDS_HI)

    def __post_init__(self) -> None:
        check_prefilled(self)


# relaxed: PySolFC's Relaxed Seahaven Towers (any run moves as one unit)
PRESETS: dict[str, dict] = {"standard": {}, "relaxed": {"sequence_move": "unlimited"}}


def solver_rules(rules: SeahavenTowersRules) -> SolverRules:
    return solver_rules_for(rules, COLUMNS)


def reference_rules(rules: SeahavenTowersRules) -> reference.Rules:
    return reference_rules_for(rules, COLUMNS)


def play_batch(decks: np.ndarray, rules: SeahavenTowersRules) -> dict[str, np.ndarray]:
    """Solve every deal of ``decks`` (uint8[n, 52]); one array per output column."""
    return play_batch_with(decks, solver_rules(rules), reference_rules(rules))


def play_one(deal: np.ndarray, rules: SeahavenTowersRules, trace: bool = False) -> PlayResult:
    """Solve one deal; with ``trace`` the layout and the checked solution move by move."""
    return play_one_with(deal, solver_rules(rules), reference_rules(rules), trace)


def check_solution(deal: np.ndarray, rules: SeahavenTowersRules, text: str) -> str | None:
    """Replay solution text (fc-solve notation) from the deal with the reference: None if it wins, else why not."""
    return check_solution_with(reference_rules(rules), deal, text)


GAME = GameSpec(
    name="seahaven_towers",
    title="Seahaven Towers",
    doc="Ten columns of five, four cells with the last two cards dealt to them, foundations from Ace; build down in "
    "suit, Kings only to empty columns, n cards move together with n - 1 free cells.  Solved exactly.",
    deck=DECK_52,
    rules_type=SeahavenTowersRules,
    presets=PRESETS,
    extra_columns=SOLVER_COLUMNS,
    play_batch=play_batch,
    play_one=play_one,
    check_solution=check_solution,
    outcomes=tuple(OUTCOMES[c] for c in (WON, UNSOLVABLE, UNKNOWN)),
)
