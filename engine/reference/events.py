"""What the readable references record as they play: events, and the play_one built on them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from engine.registry import PlayResult


@dataclass
class Event:
    """One thing that happened in a game: ``kind`` names it (deal, move, gather, ...), ``data`` holds the cards."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


def play_one_by(reference: ModuleType) -> Callable[[np.ndarray, Any, bool], Any]:
    """A game's ``play_one`` from its reference module's ``play(deal, rules, record)`` and ``trace_lines``."""

    def play_one(deal: np.ndarray, rules: Any, trace: bool = False) -> PlayResult:
        """One deal by the readable reference, with its trace in card text when asked."""
        result = reference.play([int(c) for c in deal], rules, record=trace)
        return PlayResult(row=result.row(), trace=reference.trace_lines(result) if trace else [])

    return play_one
