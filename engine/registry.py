"""The registry of games.  Adding a game = one engine module exposing ``GAME`` + one line here.

Every game module exposes a :class:`GameSpec` named ``GAME``: its deck, its rules
record and presets, the extra per-deal columns it produces, a batch kernel
``play_batch(decks[n, ncards], rules) -> columns`` and ``play_one`` for a
single deal (the readable reference, with a trace).  Modules are imported on
first use, so asking for one game never compiles another's kernels.
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
    "perpetual_motion": "engine.perpetual_motion",
    "amazons": "engine.amazons",
    "penguin": "engine.penguin",
    "bakers_game": "engine.bakers_game",
    "freecell": "engine.freecell",
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

    @property
    def ncards(self) -> int:
        return int(self.deck.shape[0])

    def switches(self) -> dict[str, Switch]:
        return switches(self.rules_type)

    def rules(self, preset: str | None = None, overrides: Mapping[str, Any] | None = None):
        """Resolve defaults < preset < overrides into a checked rules record."""
        return resolve_rules(self.rules_type, self.presets, preset, overrides)

    def columns(self) -> dict[str, str]:
        return {name: str(a.dtype) for name, a in new_columns(0, self.extra_columns).items()}


def new_columns(n: int, extra_columns: tuple[Column, ...]) -> dict[str, np.ndarray]:
    """Zeroed output arrays for ``n`` deals: the common columns and a game's own, with their dtypes."""
    dtypes = dict(COMMON_COLUMNS, **{c.name: c.dtype for c in extra_columns})
    return {name: np.zeros(n, dtype=dtype) for name, dtype in dtypes.items()}


def game_names() -> list[str]:
    return list(_GAME_MODULES)


def get_game(name: str) -> GameSpec:
    """The registered game ``name``; RuleError naming the allowed games otherwise."""
    if name not in _GAME_MODULES:
        raise RuleError(f"game {name!r} is not known; allowed: {', '.join(_GAME_MODULES)}")
    return importlib.import_module(_GAME_MODULES[name]).GAME
