"""A tiny, instant game for pipeline tests: arbitrary but deterministic functions of the deal.

It is not a card game; it exists so the pipeline's tests exercise every path
(extra columns of several dtypes, Microsoft deals, an engine that raises)
without depending on a real game's speed or rules.  Register it with
``register()`` (or monkeypatch ``engine.registry._GAME_MODULES["fake"]``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.cards import DECK_52, format_cards
from engine.outcomes import BLOCKED, CYCLE, OUTCOMES, WON
from engine.registry import Column, GameSpec, PlayResult
from engine.rules import switch


@dataclass(frozen=True)
class FakeRules:
    threshold: int = switch(6, "won when the first card's rank (A=0) is below this", lo=0, hi=13)
    scoring: str = switch(
        "plain", "plain: score = sum of the first four codes; double: twice that", choices=("plain", "double")
    )
    explode: bool = switch(False, "test-only: play_batch raises, as an engine bug would")


PRESETS = {"easy": {"threshold": 10}, "hard": {"threshold": 2, "scoring": "double"}}


def play_batch(decks: np.ndarray, rules: FakeRules) -> dict[str, np.ndarray]:
    if rules.explode:
        raise RuntimeError("fake engine exploded")
    ranks = decks.astype(np.int64) % 13
    won = ranks[:, 0] < rules.threshold
    outcome = np.where(won, WON, np.where(ranks[:, 1] < 6, CYCLE, BLOCKED)).astype(np.uint8)
    factor = 2 if rules.scoring == "double" else 1
    return {
        "outcome": outcome,
        "rounds": ranks[:, :3].sum(axis=1).astype(np.int32),
        "moves": ranks[:, 5].astype(np.int32),
        "cards_left": np.where(won, 0, ranks[:, 2] + 1).astype(np.int16),
        "score": (decks[:, :4].astype(np.int64).sum(axis=1) * factor).astype(np.int64),
        "lucky": decks[:, 0] == decks.max(axis=1),
    }


def play_one(deal: np.ndarray, rules: FakeRules, trace: bool = False) -> PlayResult:
    cols = play_batch(np.asarray(deal, dtype=np.uint8)[None, :], rules)
    row = {k: v[0].item() for k, v in cols.items()}
    row["outcome"] = OUTCOMES[row["outcome"]]
    row["won"] = row["outcome"] == "won"
    lines = [f"deal {format_cards(deal[:4])} ...", f"end: {row['outcome']}"] if trace else []
    return PlayResult(row=row, trace=lines)


GAME = GameSpec(
    name="fake",
    title="Fake game (tests only)",
    doc="Deterministic functions of the deal, for pipeline tests.",
    deck=DECK_52,
    rules_type=FakeRules,
    presets=PRESETS,
    extra_columns=(
        Column("score", "int64", "sum of the first four card codes"),
        Column("lucky", "bool", "first card has the highest code"),
    ),
    play_batch=play_batch,
    play_one=play_one,
    outcomes=("won", "cycle", "blocked"),
    deal_sources=frozenset({"seeded", "file", "microsoft"}),
)


def register() -> None:
    """Make ``get_game("fake")`` find this module (for subprocesses; tests use monkeypatch)."""
    from engine import registry

    registry._GAME_MODULES.setdefault("fake", __name__)
