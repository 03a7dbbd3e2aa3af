"""Cards as small unsigned integers, and their text form (DESIGN section 3).

A card is ``suit * 13 + rank`` with suits C, D, H, S = 0..3 and ranks
A, 2, ..., K = 0..12, so the canonical 52-card order (``AC 2C ... KC AD ... KS``)
is simply ``0..51``.  Every game uses the same codes; a smaller deck such as the
28-card Amazons pack is a subset of them in canonical order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

RANKS = "A23456789TJQK"
SUITS = "CDHS"
NCARDS_FULL = 52


class CardError(ValueError):
    """A card text that does not name a card."""


def card_code(rank: int, suit: int) -> int:
    """The code of the card with 0-based ``rank`` (A=0) and ``suit`` (C=0)."""
    return suit * 13 + rank


def rank_of(code: int) -> int:
    return code % 13


def suit_of(code: int) -> int:
    return code // 13


def parse_card(text: str) -> int:
    """Parse ``"TD"``, ``"10d"``, ``"qs"`` into a card code; raise CardError otherwise."""
    t = text.strip().upper()
    if len(t) == 3 and t.startswith("10"):
        t = "T" + t[2]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise CardError(f"unknown card {text!r} (expected rank A 2-9 T/10 J Q K and suit C D H S, e.g. TD)")
    return card_code(RANKS.index(t[0]), SUITS.index(t[1]))


def format_card(code: int) -> str:
    code = int(code)
    if not 0 <= code < NCARDS_FULL:
        raise CardError(f"card code {code} is outside 0..51")
    return RANKS[code % 13] + SUITS[code // 13]


def parse_cards(text: str) -> list[int]:
    """Parse a deal in card text (cards separated by white space)."""
    return [parse_card(t) for t in text.split()]


def format_cards(codes: Iterable[int]) -> str:
    return " ".join(format_card(c) for c in codes)


def make_deck(ranks: Sequence[int] | None = None) -> np.ndarray:
    """The canonical deck of the given ranks (all 13 by default): suits C D H S, ranks ascending."""
    ranks = range(13) if ranks is None else sorted(ranks)
    return np.array([card_code(r, s) for s in range(4) for r in ranks], dtype=np.uint8)


DECK_52 = make_deck()
DECK_52.flags.writeable = False
# Amazons: a Piquet pack less its Kings: A 7 8 9 T J Q of each suit.
DECK_AMAZONS = make_deck([0, 6, 7, 8, 9, 10, 11])
DECK_AMAZONS.flags.writeable = False
