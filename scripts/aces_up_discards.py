"""Can a discard hurt in Aces Up?  Deals of a small deck, each decided by the reference's plain exhaustive search
with discards optional and with discards forced, under each fill and lone-card setting (issue 52, item 5).

A deck is the top ``--ranks`` ranks of each suit (3: Q, K, A; 12 cards, three deals).  Forced discards can only
lose deals the optional game wins, so a deal won with them optional and unsolvable with them forced is one where
some discard hurts; the first one of each setting is printed.  ``--all`` tries every deal (suits up to renaming:
the first card is taken a club), else ``--deals`` seeded random ones.  Results: docs/solvers.md, "Can a discard
hurt?"; the deals found are held in tests/test_aces_up.py.

    .venv/bin/python scripts/aces_up_discards.py --ranks 2 --all
    .venv/bin/python scripts/aces_up_discards.py --ranks 3 --deals 3000 --seed 1
    .venv/bin/python scripts/aces_up_discards.py --ranks 4 --deals 2000 --seed 6 --lone true
"""

from __future__ import annotations

import argparse
import itertools
import random
from collections.abc import Iterator
from dataclasses import replace

from engine.cards import format_cards
from engine.games.aces_up import AcesUpRules
from engine.reference import aces_up as reference


def deck(ranks: int) -> list[int]:
    """The Ace and the ``ranks - 1`` ranks below the King of each suit, King included."""
    kept = [0, *range(12, 13 - ranks, -1)]
    return [suit * 13 + rank for suit in range(4) for rank in kept]


def deals(cards: list[int], every: bool, count: int, seed: int) -> Iterator[list[int]]:
    if every:
        clubs = set(cards[: len(cards) // 4])
        yield from (list(p) for p in itertools.permutations(cards) if p[0] in clubs)
        return
    rng = random.Random(seed)
    for _ in range(count):
        deal = cards[:]
        rng.shuffle(deal)
        yield deal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=3, help="ranks of each suit, from the Ace down (2 to 13)")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--all", action="store_true", help="every deal, suits up to renaming")
    ap.add_argument("--lone", choices=("true", "false", "both"), default="both", help="move_lone_card")
    args = ap.parse_args()
    lone = {"true": (True,), "false": (False,), "both": (True, False)}[args.lone]
    settings = [{"fill": fill, "move_lone_card": m} for fill in ("optional", "compulsory") for m in lone]
    base = AcesUpRules(strategy="solver")
    found: dict[str, int] = {}
    tried = 0
    for deal in deals(deck(args.ranks), args.all, args.deals, args.seed):
        tried += 1
        for over in settings:
            name = ", ".join(f"{k}: {v}" for k, v in over.items())
            if name in found:
                continue
            optional = reference.exhaustive_search(deal, replace(base, discards="optional", **over))[0]
            forced = reference.exhaustive_search(deal, replace(base, discards="forced", **over))[0]
            if (optional, forced) == ("won", "unsolvable"):
                found[name] = tried
                print(f"{name}: deal {tried} ({format_cards(deal)}) is won only with discards optional", flush=True)
        if len(found) == len(settings):
            break
    print(f"{tried} deals of {len(deck(args.ranks))} cards tried; a discard hurt under {len(found)} of the settings")


if __name__ == "__main__":
    main()
