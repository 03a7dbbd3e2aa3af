"""Auld Lang Syne: the four Aces start on the foundations; deal four piles, play top cards up to the King.

The game is configured from the engine it shares with Tam O'Shanter (``engine/four_piles.py``: switches,
readings, the greedy kernel and the free-play solver); the readable rules are in
``engine/reference/auld_lang_syne.py`` (``aces_start`` true).
"""

from __future__ import annotations

from engine.games.four_piles import make_game

GAME = make_game(
    name="auld_lang_syne",
    title="Auld Lang Syne",
    doc="52 cards; the four Aces start on the foundations.  Deal a card onto each of four piles, covering what is "
    "there; top cards go to the foundations, built up to the King (regardless of suit by default).  No building on "
    "the piles, no redeal.  strategy: solver searches free play (plays optional) for a win.",
    aces_start=True,
)
