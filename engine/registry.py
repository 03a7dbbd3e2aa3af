"""The registry of games.  Adding a game = one engine module exposing ``GAME`` + one line here.

Every game module exposes a :class:`GameSpec` named ``GAME``: its deck, its rules
record and presets, the extra per-deal columns it produces, a batch kernel
``play_batch(decks[n, ncards], rules) -> columns`` and ``play_one`` for a
single deal (the readable reference, with a trace).  Modules are imported on
first use, so asking for one game never compiles another's kernels.

Games with a solver (``strategy: solver``, or the open games, which have only
the solver) also give ``check_solution(deal, rules, text)``: the readable
reference replays a stored ``solution`` text from the deal and says why it is
refused, or None when every move is legal and every card is gone.  The solver
path calls it on every win it reports, and ``patience verify`` on every stored
solution of a run.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.rules import RuleError, Switch, resolve_rules, switches

# name -> module; the module's GAME attribute is the GameSpec.
_GAME_MODULES: dict[str, str] = {
    "perpetual_motion": "engine.games.perpetual_motion",
    "amazons": "engine.games.amazons",
    "penguin": "engine.games.penguin",
    "bakers_game": "engine.games.bakers_game",
    "freecell": "engine.games.freecell",
    "aces_up": "engine.games.aces_up",
    "auld_lang_syne": "engine.games.auld_lang_syne",
    "tam_o_shanter": "engine.games.tam_o_shanter",
    "eight_day_clock": "engine.games.eight_day_clock",
    "eight_off": "engine.games.eight_off",
    "seahaven_towers": "engine.games.seahaven_towers",
    "king_albert": "engine.games.king_albert",
    "klondike": "engine.games.klondike",
}

# Columns every game returns from play_batch, with their dtypes.
COMMON_COLUMNS: dict[str, str] = {
    "outcome": "uint8",  # code into engine.outcomes.OUTCOMES
    "rounds": "int32",
    "moves": "int32",
    "cards_left": "int16",
}


@dataclass(frozen=True)
class Column:
    name: str
    dtype: str
    doc: str


@dataclass(frozen=True)
class PlayResult:
    """One deal played by the readable reference: its output row and a trace in card text."""

    row: dict[str, Any]
    trace: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str
    doc: str
    deck: np.ndarray
    rules_type: type
    presets: Mapping[str, Mapping[str, Any]]
    extra_columns: tuple[Column, ...]
    # play_batch(decks uint8[n, ncards], rules) -> {column: array[n]} (COMMON_COLUMNS + extra_columns)
    play_batch: Callable[[np.ndarray, Any], dict[str, np.ndarray]]
    # play_one(deal uint8[ncards], rules, trace) -> PlayResult, by the readable reference
    play_one: Callable[[np.ndarray, Any, bool], PlayResult]
    outcomes: tuple[str, ...]  # the outcomes this game can produce
    deal_sources: frozenset[str] = frozenset({"seeded", "file"})  # plus "microsoft" for FreeCell's family
    # check_solution(deal uint8[ncards], rules, solution text) -> None if the reference replays it to a win,
    # else why not; None for games with no solver
    check_solution: Callable[[np.ndarray, Any, str], str | None] | None = None
    # preset -> the source it is named for, in a line (printed by `patience games` and the game's manual page)
    preset_sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def ncards(self) -> int:
        return int(self.deck.shape[0])

    def switches(self) -> dict[str, Switch]:
        return switches(self.rules_type)

    def rules(self, preset: str | None = None, overrides: Mapping[str, Any] | None = None):
        """Resolve defaults < preset < overrides into a checked rules record."""
        return resolve_rules(self.rules_type, self.presets, preset, overrides)

    def columns(self) -> dict[str, str]:
        """Column name -> dtype name (numpy's, or ``"string"``) of what ``play_batch`` returns."""
        return dict(COMMON_COLUMNS, **{c.name: c.dtype for c in self.extra_columns})


def new_columns(n: int, extra_columns: tuple[Column, ...]) -> dict[str, np.ndarray]:
    """Output arrays for ``n`` deals: the common columns and a game's own, zeros (or ``""`` for a string column)."""
    dtypes = dict(COMMON_COLUMNS, **{c.name: c.dtype for c in extra_columns})
    return {
        name: np.full(n, "", dtype=object) if dtype == "string" else np.zeros(n, dtype=dtype)
        for name, dtype in dtypes.items()
    }


def uses_solver(rules: Any) -> bool:
    """Does a search choose the moves under these rules?  True for ``strategy: solver`` and for games with no
    ``strategy`` switch (the open games have only the solver)."""
    return getattr(rules, "strategy", "solver") == "solver"


def game_names() -> list[str]:
    return list(_GAME_MODULES)


def get_game(name: str) -> GameSpec:
    """The registered game ``name``; RuleError naming the allowed games otherwise."""
    if name not in _GAME_MODULES:
        raise RuleError(f"game {name!r} is not known; allowed: {', '.join(_GAME_MODULES)}")
    return importlib.import_module(_GAME_MODULES[name]).GAME
