"""Penguin (David Parlett): an open solitaire, solved exactly by ``engine/search/``.

The rules are spelled out in ``engine/reference/open_solitaire.py``; this module
maps the rule switches onto the solver and declares the game for the registry.
A deal's outcome is its winnability: ``won`` (with a solution the independent
checker has replayed), ``unsolvable`` (exhaustive search) or ``unknown``
(``max_nodes`` positions were not enough).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.games.open_family import (
    DISK_POSITIONS_DOC,
    DISK_POSITIONS_HI,
    MAX_SECONDS_DOC,
    MAX_SECONDS_HI,
    OpenGame,
    schedule_switch,
    solver_schedule,
)
from engine.reference import open_solitaire as reference
from engine.rules import switch
from engine.search.positions import BUILD_SUIT, EMPTY_ANY, EMPTY_NONE, EMPTY_TOP_RANK, LAYOUT_PENGUIN
from engine.search.solver import SolverRules

MAX_NODES_HI = 100_000_000  # about 100 bytes of memory per stored position


@dataclass(frozen=True)
class PenguinRules:
    cells: int = switch(7, "single-card cells (the 'flipper')", lo=0, hi=8)
    sequence_move: str = switch(
        "unlimited",
        "unlimited: a same-suit run of any length moves as one unit (Parlett); "
        "limited: as single cards could move it, free cells + 1 cards (x 2^(empty columns other than the target) "
        "with empty_column: any)",
        choices=("unlimited", "limited"),
    )
    empty_column: str = switch(
        "beak_minus_one",
        "what an empty column takes: beak_minus_one (a card of the rank below the beak, or a run headed by one), "
        "any, none",
        choices=("beak_minus_one", "any", "none"),
    )
    wrap: bool = switch(
        True, "true: ranks are circular in the tableau (a card of rank beak-1 on the beak, a King on an Ace)"
    )
    max_nodes: int = switch(
        2_000_000, "positions the solver may store before it answers unknown", lo=1, hi=MAX_NODES_HI
    )
    max_seconds: int = switch(0, MAX_SECONDS_DOC, lo=0, hi=MAX_SECONDS_HI)
    disk_positions: int = switch(0, DISK_POSITIONS_DOC, lo=0, hi=DISK_POSITIONS_HI)
    schedule: str = schedule_switch()


PRESETS: dict[str, dict] = {"parlett": {}}
PRESET_SOURCES: dict[str, str] = {  # each preset, and the source it is named for
    "parlett": "David Parlett, who invented the game (The Penguin Book of Patience); 99.87% winnable here, so it "
    "reproduces no published figure (Parlett's 90%, a vendor's 96%, the web's 99.9%)"
}

_EMPTY = {"any": EMPTY_ANY, "beak_minus_one": EMPTY_TOP_RANK, "none": EMPTY_NONE}


def solver_rules(rules: PenguinRules) -> SolverRules:
    return SolverRules(
        LAYOUT_PENGUIN,
        BUILD_SUIT,
        rules.cells,
        bool(rules.wrap),
        rules.sequence_move == "unlimited",
        _EMPTY[rules.empty_column],
        int(rules.max_nodes),
        max_seconds=float(rules.max_seconds),
        disk_positions=int(rules.disk_positions),
        schedule=solver_schedule(rules.schedule),
    )


def reference_rules(rules: PenguinRules) -> reference.Rules:
    return reference.Rules("penguin", "suit", rules.cells, bool(rules.wrap), rules.sequence_move, rules.empty_column)


SOLVER = OpenGame(solver_rules, reference_rules)
play_batch, play_one, check_solution = SOLVER.play_batch, SOLVER.play_one, SOLVER.check_solution

GAME = SOLVER.game_spec(
    name="penguin",
    title="Penguin",
    doc="Seven columns, the first card (the beak) at the bottom of column 1, foundations from the beak's rank; "
    "build down in suit, seven cells.  Every card is face up: the solver says exactly whether a deal can be won.",
    rules_type=PenguinRules,
    presets=PRESETS,
    preset_sources=PRESET_SOURCES,
)
