"""Tam O'Shanter: Auld Lang Syne's near twin, where an Ace starts a foundation when it turns up.

The game is configured from the engine it shares with Auld Lang Syne (``engine/four_piles.py``: switches,
readings, the greedy kernel and the free-play solver); the readable rules are in
``engine/reference/auld_lang_syne.py`` (``aces_start`` false).
"""

from __future__ import annotations

from engine.games.four_piles import make_game

GAME = make_game(
    name="tam_o_shanter",
    title="Tam O'Shanter",
    doc="52 cards; deal a card onto each of four piles, covering what is there; an Ace played from a pile starts a "
    "foundation, built up to the King (regardless of suit by default).  No building on the piles, no redeal.  "
    "strategy: solver searches free play (plays optional) for a win.",
    aces_start=False,
)
