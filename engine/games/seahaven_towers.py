"""Seahaven Towers: ten columns of five, four cells, two dealt; solved exactly by ``engine/search/``.

Ten columns of five cards, dealt in turn (card k of the first 50 to column
(k mod 10) + 1; the tenth column is written ``0`` in solutions); the last two
cards go to cells 1 and 2 of four.  Foundations up in suit from the Ace; the
tableau builds down in suit; an empty column takes only a King (or a run headed
by one); moving n cards as one unit needs n - 1 free cells (exactly what single
cards can do: see "Sequence moves" in ``engine/search/``).  The rules,
and how Solvitaire and PySolFC read them, are in
``engine/reference/open_solitaire.py``.  The switches are Eight Off's.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.games.bakers_game import MAX_NODES_HI
from engine.games.eight_off import EMPTY_DOC, PREFILLED_DOC, SEQUENCE_DOC, check_prefilled, dealt_cells_game
from engine.games.open_family import (
    DISK_POSITIONS_DOC,
    DISK_POSITIONS_HI,
    MAX_SECONDS_DOC,
    MAX_SECONDS_HI,
    schedule_switch,
)
from engine.rules import switch

COLUMNS = 10


@dataclass(frozen=True)
class SeahavenTowersRules:
    cells: int = switch(4, "single-card cells", lo=0, hi=8)
    prefilled_cells: int = switch(2, PREFILLED_DOC, lo=0, hi=8)
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


# relaxed: PySolFC's Relaxed Seahaven Towers (any run moves as one unit)
PRESETS: dict[str, dict] = {"standard": {}, "relaxed": {"sequence_move": "unlimited"}}
PRESET_SOURCES: dict[str, str] = {  # each preset, and the source it is named for
    "standard": "Seahaven Towers as Solvitaire plays it (Blake and Gent; Masten, with Don Woods's solver, agrees)",
    "relaxed": "PySolFC's Relaxed Seahaven Towers: any run moves as one unit; no published figure",
}


SOLVER = dealt_cells_game(COLUMNS)
solver_rules, reference_rules = SOLVER.solver_rules, SOLVER.reference_rules
play_batch, play_one, check_solution = SOLVER.play_batch, SOLVER.play_one, SOLVER.check_solution

GAME = SOLVER.game_spec(
    name="seahaven_towers",
    title="Seahaven Towers",
    doc="Ten columns of five, four cells with the last two cards dealt to them, foundations from Ace; build down in "
    "suit, Kings only to empty columns, n cards move together with n - 1 free cells.  Solved exactly.",
    rules_type=SeahavenTowersRules,
    presets=PRESETS,
    preset_sources=PRESET_SOURCES,
)
