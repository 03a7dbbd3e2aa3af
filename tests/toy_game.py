"""A toy solver game for the verify and integrity tests: it reaches verify through the GameSpec contract alone.

Won when the first card's rank (A=0) is below 7; its "solution" is the first four cards in card text, and
``check_solution`` wants exactly those.  Under ``strategy: fixed`` the solution column stays empty, as a
forced-play game's does.  Register it with ``monkeypatch.setitem(registry._GAME_MODULES, "toy", "toy_game")``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.cards import DECK_52, format_cards
from engine.outcomes import BLOCKED, OUTCOMES, WON
from engine.registry import Column, GameSpec, PlayResult, new_columns
from engine.rules import switch


@dataclass(frozen=True)
class ToyRules:
    strategy: str = switch("solver", "fixed: no search; solver: search", choices=("fixed", "solver"))


TOY_COLUMNS = (Column("solution", "string", "the first four cards"),)


def play_batch(decks: np.ndarray, rules: ToyRules) -> dict[str, np.ndarray]:
    out = new_columns(len(decks), TOY_COLUMNS)
    for g, deal in enumerate(decks):
        won = deal[0] % 13 < 7
        out["outcome"][g] = WON if won else BLOCKED
        out["cards_left"][g] = 0 if won else 52
        out["solution"][g] = format_cards(deal[:4]) if won and rules.strategy == "solver" else ""
    return out


def play_one(deal: np.ndarray, rules: ToyRules, trace: bool = False) -> PlayResult:
    cols = play_batch(np.asarray(deal, dtype=np.uint8)[None, :], rules)
    row = {k: (v[0] if v.dtype == object else v[0].item()) for k, v in cols.items()}
    row["outcome"] = OUTCOMES[row["outcome"]]
    return PlayResult(row=row)


def check_solution(deal: np.ndarray, rules: ToyRules, text: str) -> str | None:
    return None if text == format_cards(deal[:4]) else f"expected the first four cards, got {text!r}"


GAME = GameSpec(
    name="toy",
    title="Toy solver game (tests only)",
    doc="tests only",
    deck=DECK_52,
    rules_type=ToyRules,
    presets={},
    extra_columns=TOY_COLUMNS,
    play_batch=play_batch,
    play_one=play_one,
    outcomes=("won", "blocked", "unsolvable", "unknown"),
    check_solution=check_solution,
)
