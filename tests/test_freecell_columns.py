"""FreeCell's `columns` switch (4..8, dealt in turn): layouts, wins replayed, verdicts against a plain search.

Solvitaire's table has FreeCell with 4, 5, 6 and 7 piles (4 cells); the deal goes round the columns in turn,
card k to column (k mod columns) + 1, so a column holds 52 / columns cards or one more.
"""

from __future__ import annotations

import random

import numpy as np
import open_solver as osol
import pytest

from engine.cards import DECK_52, format_card
from engine.deals import microsoft_deal, seeded_deals
from engine.games import freecell
from engine.games.bakers_game import EMPTY_CODES
from engine.outcomes import UNSOLVABLE, WON
from engine.reference import open_solitaire as ref
from engine.registry import get_game
from engine.rules import RuleError


def _pair(**overrides):
    g = get_game("freecell")
    rules = g.rules(overrides=overrides)
    return g, rules, freecell.solver_rules(rules, osol.BUILD_ALTERNATE), freecell.reference_rules(rules, "alternate")


def test_four_columns_of_the_sorted_deck_card_by_card():
    _, _, srules, rrules = _pair(columns=4)
    layout = ref.deal_layout(list(range(52)), rrules)
    assert [" ".join(format_card(c) for c in col) for col in layout.columns] == [
        "AC 5C 9C KC 4D 8D QD 3H 7H JH 2S 6S TS",
        "2C 6C TC AD 5D 9D KD 4H 8H QH 3S 7S JS",
        "3C 7C JC 2D 6D TD AH 5H 9H KH 4S 8S QS",
        "4C 8C QC 3D 7D JD 2H 6H TH AS 5S 9S KS",
    ]
    assert layout.cells == [None] * 4


@pytest.mark.parametrize("columns", [4, 5, 6, 7, 8])
def test_kernel_and_reference_lay_out_deals_alike(columns):
    _, _, srules, rrules = _pair(columns=columns)
    for deal in seeded_deals(DECK_52, 13, 0, 10):
        st, _ = osol.deal_position(deal, srules)
        cols, cells, _ = osol.position_columns(st, srules)
        layout = ref.deal_layout(list(deal), rrules)
        assert cols == layout.columns and cells == []
        assert [len(c) for c in cols] == [52 // columns + (i < 52 % columns) for i in range(columns)]
        assert all(cols[k % columns][k // columns] == deal[k] for k in range(52))


def test_default_is_eight_columns_as_before():
    g = get_game("freecell")
    assert g.rules().columns == 8
    layout = ref.deal_layout(list(microsoft_deal(1)), freecell.reference_rules(g.rules(), "alternate"))
    assert [len(c) for c in layout.columns] == [7, 7, 7, 7, 6, 6, 6, 6]


@pytest.mark.parametrize("bad", [3, 9, 0])
def test_columns_out_of_range_are_refused(bad):
    with pytest.raises(RuleError, match=r"columns.*allowed"):
        get_game("freecell").rules(overrides={"columns": bad})


@pytest.mark.parametrize("columns,cells", [(7, 4), (6, 6)])
def test_wins_are_replayed_by_the_reference(columns, cells):
    g, rules, _, rrules = _pair(columns=columns, cells=cells, max_nodes=100_000)  # a hard deal ends unknown, soon
    decks = seeded_deals(DECK_52, 43, 0, 6)
    out = g.play_batch(decks, rules)  # the checker replays every win (SolverError otherwise)
    wins = [i for i in range(len(decks)) if out["outcome"][i] == WON]
    assert len(wins) >= 2
    for i in wins:
        text = out["solution"][i]
        assert ref.check_solution_text([int(c) for c in decks[i]], rrules, text) is None
        assert g.check_solution(decks[i], rules, " ".join(text.split()[:-1])) is not None


def test_verdicts_match_plain_exhaustive_search_in_fewer_columns():
    """Small positions in 4..7 columns, alternating colours, every switch: solver = plain search (no pruning)."""
    rng = random.Random(4242)
    verdicts = {True: 0, False: 0}
    tried = 0
    while tried < 80:
        ncols = rng.choice([4, 5, 6, 7])
        cells = rng.choice([0, 1, 2])
        seq = rng.choice(["limited", "unlimited"])
        empty = rng.choice(["any", "kings", "none"])
        fnd = [rng.randint(9, 13) for _ in range(4)]
        left = [s * 13 + r for s in range(4) for r in range(fnd[s], 13)]
        if not 3 <= len(left) <= 10:
            continue
        rng.shuffle(left)
        k = rng.randint(0, cells)
        columns: list[list[int]] = [[] for _ in range(ncols)]
        used = rng.randint(1, ncols)
        for c in left[k:]:
            columns[rng.randrange(used)].append(c)
        rrules = ref.Rules("in_turn", "alternate", cells, False, seq, empty, columns=ncols)
        layout = ref.Layout(columns, left[:k] + [None] * (cells - k), fnd, 0)
        truth = ref.exhaustive_verdict(layout, rrules, 3_000, symmetric=True)
        if truth is None:
            continue
        tried += 1
        srules = osol.SolverRules(
            osol.LAYOUT_IN_TURN,
            osol.BUILD_ALTERNATE,
            cells,
            False,
            seq == "unlimited",
            EMPTY_CODES[empty],
            100_000,
            columns=ncols,
        )
        st, rel = osol.make_position(columns, left[:k], fnd, 0)
        sol = osol.solve_state(st, rel, srules)
        assert sol.outcome == (WON if truth else UNSOLVABLE), (layout, rrules)
        if truth:
            assert ref.check_from(layout, rrules, osol.reference_moves(layout, rrules, sol.codes)) is None
        verdicts[truth] += 1
    assert verdicts[True] >= 10 and verdicts[False] >= 10, verdicts


def test_play_batch_agrees_with_play_one_in_seven_columns():
    g, rules, _, _ = _pair(columns=7, cells=3, max_nodes=50_000)
    decks = seeded_deals(DECK_52, 44, 0, 3)
    out = g.play_batch(decks, rules)
    for i in range(len(decks)):
        row = g.play_one(np.asarray(decks[i]), rules, False).row
        assert row["solution"] == out["solution"][i] and row["nodes"] == out["nodes"][i]
