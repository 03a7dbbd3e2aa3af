"""Eight Off: Baker's Game with eight cells, half of them dealt; solved exactly by ``engine/search/``.

Eight columns of six cards, dealt in turn (card k of the first 48 to column
(k mod 8) + 1); the last four cards go to cells 1-4 of eight.  Foundations up in
suit from the Ace; the tableau builds down in suit; an empty column takes only a
King (or a run headed by one); a run moves as one unit when single cards could
make the move through free cells (the winnable deals are those of single-card
play).  The rules, and how Solvitaire and PySolFC read them, are spelled out in
``engine/reference/open_solitaire.py``.

This module also holds what Eight Off and Seahaven Towers share: the rules
record's switches, their mapping onto the solver and the reference
(:func:`dealt_cells_game`), and the check on dealt cells (Seahaven differs only
in its ten columns, its defaults and its presets).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from engine.games.bakers_game import MAX_NODES_HI
from engine.games.open_family import (
    DISK_POSITIONS_DOC,
    DISK_POSITIONS_HI,
    EMPTY_CODES,
    MAX_SECONDS_DOC,
    MAX_SECONDS_HI,
    OpenGame,
    schedule_switch,
    solver_schedule,
)
from engine.reference import open_solitaire as reference
from engine.rules import RuleError, switch
from engine.search.positions import BUILD_SUIT, LAYOUT_IN_TURN
from engine.search.solver import SolverRules

COLUMNS = 8

SEQUENCE_DOC = (
    "limited: a run moves as one unit when single cards could make the move: free cells + 1 cards "
    "(x 2^(empty columns other than the target) with empty_column: any); unlimited: any run"
)
EMPTY_DOC = "what an empty column takes: kings (a King or a run headed by one), any card or run, none"
PREFILLED_DOC = "cells that start with a card: the last cards of the deal go to cells 1, 2, ... in order; at most cells"


def check_prefilled(rules) -> None:
    """RuleError (exit 2 at the command line) when more cells are to be dealt than there are."""
    if rules.prefilled_cells > rules.cells:
        raise RuleError(
            f"switch 'prefilled_cells': value {rules.prefilled_cells} is more than the {rules.cells} "
            f"cells; allowed: 0..{rules.cells} (or raise cells)"
        )


@dataclass(frozen=True)
class EightOffRules:
    cells: int = switch(8, "single-card cells", lo=0, hi=8)
    prefilled_cells: int = switch(4, PREFILLED_DOC, lo=0, hi=8)
    empty_column: str = switch("kings", EMPTY_DOC, choices=("kings", "any", "none"))
    sequence_move: str = switch("limited", SEQUENCE_DOC, choices=("limited", "unlimited"))
    max_nodes: int = switch(
        2_000_000, "positions the solver may store before it answers unknown", lo=1, hi=MAX_NODES_HI
    )
    max_seconds: int = switch(0, MAX_SECONDS_DOC, lo=0, hi=MAX_SECONDS_HI)
    disk_positions: int = switch(0, DISK_POSITIONS_DOC, lo=0, hi=DISK_POSITIONS_HI)
    schedule: str = schedule_switch()

    def __post_init__(self) -> None:
        check_prefilled(self)


# "Fore Cell, same suit" is Solvitaire's name (its preset fore-cell-same-suit): Fore Cell's layout (8 columns of
# 6, 4 cells all filled by the deal, Kings only to empty columns) built in suit: Eight Off with 4 cells.
PRESETS: dict[str, dict] = {"standard": {}, "fore_cell_same_suit": {"cells": 4, "prefilled_cells": 4}}
PRESET_SOURCES: dict[str, str] = {  # each preset, and the source it is named for
    "standard": "Eight Off as Solvitaire plays it (Blake and Gent); Masten's figure agrees",
    "fore_cell_same_suit": "Solvitaire's Fore Cell, same suit: four cells, all four dealt full",
}


def solver_rules_for(rules, columns: int) -> SolverRules:
    """The solver's rules of Eight Off or Seahaven Towers (``rules``: either's record) with ``columns`` columns."""
    return SolverRules(
        LAYOUT_IN_TURN,
        BUILD_SUIT,
        rules.cells,
        False,
        rules.sequence_move == "unlimited",
        EMPTY_CODES[rules.empty_column],
        int(rules.max_nodes),
        columns=columns,
        prefilled=rules.prefilled_cells,
        max_seconds=float(rules.max_seconds),
        disk_positions=int(rules.disk_positions),
        schedule=solver_schedule(rules.schedule),
    )


def reference_rules_for(rules, columns: int) -> reference.Rules:
    """The reference's rules of Eight Off or Seahaven Towers with ``columns`` columns."""
    return reference.Rules(
        "in_turn",
        "suit",
        rules.cells,
        False,
        rules.sequence_move,
        rules.empty_column,
        columns=columns,
        prefilled=rules.prefilled_cells,
    )


def dealt_cells_game(columns: int) -> OpenGame:
    """The solver and judge of a game dealt in turn to ``columns`` columns with cards dealt to cells."""
    return OpenGame(partial(solver_rules_for, columns=columns), partial(reference_rules_for, columns=columns))


SOLVER = dealt_cells_game(COLUMNS)
solver_rules, reference_rules = SOLVER.solver_rules, SOLVER.reference_rules
play_batch, play_one, check_solution = SOLVER.play_batch, SOLVER.play_one, SOLVER.check_solution

GAME = SOLVER.game_spec(
    name="eight_off",
    title="Eight Off",
    doc="Eight columns of six, eight cells with the last four cards dealt to them, foundations from Ace; build down "
    "in suit, Kings only to empty columns.  Solved exactly.",
    rules_type=EightOffRules,
    presets=PRESETS,
    preset_sources=PRESET_SOURCES,
)
