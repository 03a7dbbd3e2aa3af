"""Baker's Game: FreeCell's ancestor, built down in suit; solved exactly by ``engine/search/``.

The rules are spelled out in ``engine/reference/open_solitaire.py``.  Deals may
also be given by Microsoft's FreeCell numbering (the same eight-column deal).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.games.open_family import (
    DISK_POSITIONS_DOC,
    DISK_POSITIONS_HI,
    EMPTY_CODES,
    MAX_NODES_DOC,
    MAX_SECONDS_DOC,
    MAX_SECONDS_HI,
    OpenGame,
    schedule_switch,
    solver_schedule,
)
from engine.reference import open_solitaire as reference
from engine.rules import switch
from engine.search.positions import BUILD_SUIT, LAYOUT_IN_TURN
from engine.search.solver import SolverRules

# about 60 to 90 bytes of memory per stored position (docs/solvers.md, "Sound pruning, and why", point 1)
MAX_NODES_HI = 100_000_000


@dataclass(frozen=True)
class BakersGameRules:
    cells: int = switch(4, "single-card free cells", lo=0, hi=8)
    columns: int = switch(
        8,
        "tableau columns, 4..8; the 52 cards are dealt to them in turn (card k to column (k mod columns) + 1)",
        lo=4,
        hi=8,
    )
    sequence_move: str = switch(
        "limited",
        "limited: a run moves as one unit when single cards could make the move: at most (free cells + 1) x "
        "2^(empty columns other than the target) cards, or free cells + 1 when empty columns take only kings or "
        "nothing; unlimited: any run",
        choices=("limited", "unlimited"),
    )
    empty_column: str = switch(
        "any",
        "what an empty column takes: any card or run, kings (a King or a run headed by one), none",
        choices=("any", "kings", "none"),
    )
    max_nodes: int = switch(10_000_000, MAX_NODES_DOC, lo=1, hi=MAX_NODES_HI)
    max_seconds: int = switch(0, MAX_SECONDS_DOC, lo=0, hi=MAX_SECONDS_HI)
    disk_positions: int = switch(0, DISK_POSITIONS_DOC, lo=0, hi=DISK_POSITIONS_HI)
    schedule: str = schedule_switch()


PRESETS: dict[str, dict] = {"standard": {}}
PRESET_SOURCES: dict[str, str] = {  # each preset, and the source it is named for
    "standard": "Baker's Game as Solvitaire and Jerry Bryan's 10^6-deal counts play it"
}


def solver_rules(rules: BakersGameRules, build: int = BUILD_SUIT) -> SolverRules:
    return SolverRules(
        LAYOUT_IN_TURN,
        build,
        rules.cells,
        False,
        rules.sequence_move == "unlimited",
        EMPTY_CODES[rules.empty_column],
        int(rules.max_nodes),
        columns=rules.columns,
        max_seconds=float(rules.max_seconds),
        disk_positions=int(rules.disk_positions),
        schedule=solver_schedule(rules.schedule),
    )


def reference_rules(rules: BakersGameRules, build: str = "suit") -> reference.Rules:
    return reference.Rules(
        "in_turn", build, rules.cells, False, rules.sequence_move, rules.empty_column, columns=rules.columns
    )


SOLVER = OpenGame(solver_rules, reference_rules)
play_batch, play_one, check_solution = SOLVER.play_batch, SOLVER.play_one, SOLVER.check_solution

GAME = SOLVER.game_spec(
    name="bakers_game",
    title="Baker's Game",
    doc="Eight columns (4 to 8 with `columns`), four cells, foundations from Ace; build down in suit.  Solved exactly.",
    rules_type=BakersGameRules,
    presets=PRESETS,
    preset_sources=PRESET_SOURCES,
    deal_sources=frozenset({"seeded", "file", "microsoft"}),
)
