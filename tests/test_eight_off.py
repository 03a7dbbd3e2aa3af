"""Eight Off and Seahaven Towers: the solver against the readable reference and a plain exhaustive search.

* Layouts: the deal order is pinned card by card (the sorted deck, and a seeded deal), and the kernel lays
  out every deal as the reference does, under every count of cells and dealt cells.
* Every `won` is replayed by the reference's checker (play_batch does it for every deal; the tests also call
  the checker directly and corrupt a solution to see it refused).
* Verdicts agree with the reference's plain exhaustive search (no pruning) on small positions in 8 and 10
  columns under every switch combination, and `limited` runs agree with a plain search that moves one card
  at a time: the proof in engine/search/ ("Sequence moves") under test.
* Bad input: more dealt cells than cells is refused (RuleError; exit 2 at the command line).
"""

from __future__ import annotations

import random

import numpy as np
import open_solver as osol
import pytest

from engine.cards import DECK_52, format_card, parse_cards
from engine.deals import seeded_deal, seeded_deals
from engine.games import eight_off, seahaven_towers
from engine.outcomes import UNSOLVABLE, WON
from engine.reference import open_solitaire as ref
from engine.registry import get_game
from engine.rules import RuleError

MODULES = {"eight_off": eight_off, "seahaven_towers": seahaven_towers}


def _pair(game: str, **overrides):
    g = get_game(game)
    rules = g.rules(overrides=overrides)
    mod = MODULES[game]
    return g, rules, mod.solver_rules(rules), mod.reference_rules(rules)


def _text(cards) -> str:
    return " ".join(format_card(c) for c in cards)


# --- layouts ---------------------------------------------------------------------------------------


def test_eight_off_layout_of_the_sorted_deck_card_by_card():
    """Card k of the first 48 to column (k mod 8) + 1, the last four to cells 1-4 (deck order AC..KC, AD..)."""
    _, _, srules, rrules = _pair("eight_off")
    layout = ref.deal_layout(list(range(52)), rrules)
    assert [_text(c) for c in layout.columns] == [
        "AC 9C 4D QD 7H 2S",
        "2C TC 5D KD 8H 3S",
        "3C JC 6D AH 9H 4S",
        "4C QC 7D 2H TH 5S",
        "5C KC 8D 3H JH 6S",
        "6C AD 9D 4H QH 7S",
        "7C 2D TD 5H KH 8S",
        "8C 3D JD 6H AS 9S",
    ]
    assert [format_card(c) if c is not None else ".." for c in layout.cells] == ["TS", "JS", "QS", "KS"] + [".."] * 4
    assert layout.foundations == [0, 0, 0, 0]
    st, _ = osol.deal_position(np.arange(52, dtype=np.uint8), srules)
    cols, cells, fnd = osol.position_columns(st, srules)
    assert cols == layout.columns and cells == parse_cards("TS JS QS KS") and fnd == [0, 0, 0, 0]


def test_seahaven_layout_of_the_sorted_deck_card_by_card():
    """Card k of the first 50 to column (k mod 10) + 1, the last two to cells 1-2 of four."""
    _, _, srules, rrules = _pair("seahaven_towers")
    layout = ref.deal_layout(list(range(52)), rrules)
    assert [_text(c) for c in layout.columns] == [
        "AC JC 8D 5H 2S",
        "2C QC 9D 6H 3S",
        "3C KC TD 7H 4S",
        "4C AD JD 8H 5S",
        "5C 2D QD 9H 6S",
        "6C 3D KD TH 7S",
        "7C 4D AH JH 8S",
        "8C 5D 2H QH 9S",
        "9C 6D 3H KH TS",
        "TC 7D 4H AS JS",
    ]
    assert layout.cells == parse_cards("QS KS") + [None, None]
    st, _ = osol.deal_position(np.arange(52, dtype=np.uint8), srules)
    cols, cells, _ = osol.position_columns(st, srules)
    assert cols == layout.columns and cells == parse_cards("QS KS")


def test_seeded_deal_layout_is_pinned():
    """Seed 2024, index 0 (the first deal of the studies): its Eight Off layout, as `patience play --trace` shows."""
    deal = seeded_deal(DECK_52, 2024, 0)
    _, _, _, rrules = _pair("eight_off")
    layout = ref.deal_layout(list(deal), rrules)
    assert [_text(c) for c in layout.columns] == [
        "8C AH 4D 6H 2C QD",
        "TD 3S JS 6D 8S 3D",
        "KC 9H 8H 7C 9D 6C",
        "5D 5S 5H 2H KD 9C",
        "JC AD QC 4C 4H QH",
        "9S JH AC 7S AS JD",
        "TS 3H 2D TC 8D 7H",
        "QS 6S KS TH 4S 3C",
    ]
    assert [c for c in layout.cells if c is not None] == parse_cards("2S 7D KH 5C")
    # the same deal in Seahaven Towers: the same order, ten columns, the last two cards in cells
    sea = ref.deal_layout(list(deal), _pair("seahaven_towers")[3])
    assert [c for c in sea.cells if c is not None] == parse_cards("KH 5C")
    assert _text(sea.columns[9]) == "3S 5H 7S 4S 7D" and _text(sea.columns[0]) == "8C 9H QC TC QD"


@pytest.mark.parametrize("game", list(MODULES))
@pytest.mark.parametrize("cells,prefilled", [(8, 4), (4, 4), (4, 2), (2, 0), (0, 0), (8, 8)])
def test_kernel_and_reference_lay_out_deals_alike(game, cells, prefilled):
    _, _, srules, rrules = _pair(game, cells=cells, prefilled_cells=prefilled)
    for deal in seeded_deals(DECK_52, 12, 0, 15):
        st, _ = osol.deal_position(deal, srules)
        cols, kcells, fnd = osol.position_columns(st, srules)
        layout = ref.deal_layout(list(deal), rrules)
        assert cols == layout.columns and fnd == layout.foundations == [0, 0, 0, 0]
        assert kcells == [c for c in layout.cells if c is not None] == [int(c) for c in deal[52 - prefilled :]]
        assert sum(map(len, cols)) == 52 - prefilled


def test_fore_cell_same_suit_preset_is_eight_off_with_four_full_cells():
    g = get_game("eight_off")
    rules = g.rules("fore_cell_same_suit")
    assert (rules.cells, rules.prefilled_cells, rules.empty_column) == (4, 4, "kings")
    layout = ref.deal_layout(list(seeded_deal(DECK_52, 1, 1)), eight_off.reference_rules(rules))
    assert None not in layout.cells and len(layout.cells) == 4 and [len(c) for c in layout.columns] == [6] * 8


# --- wins are replayed by the reference ---------------------------------------------------------------


@pytest.mark.parametrize(
    "game,overrides",
    [
        ("eight_off", {}),
        ("eight_off", {"cells": 6}),
        ("eight_off", {"empty_column": "any", "sequence_move": "unlimited"}),
        ("seahaven_towers", {}),
        ("seahaven_towers", {"cells": 6, "empty_column": "any"}),
    ],
)
def test_solutions_are_replayed_by_the_reference(game, overrides):
    g, rules, _, rrules = _pair(game, **overrides)
    decks = seeded_deals(DECK_52, 41, 0, 8)
    out = g.play_batch(decks, rules)  # raises SolverError if the checker refuses any win
    wins = 0
    for deal, code, text in zip(decks, out["outcome"], out["solution"], strict=True):
        if code != WON:
            assert text == ""
            continue
        wins += 1
        assert ref.check_solution_text([int(c) for c in deal], rrules, text) is None
        assert g.check_solution(deal, rules, text) is None
        tokens = text.split()
        assert g.check_solution(deal, rules, " ".join(tokens[:-1])) is not None
    assert wins >= 4


def test_a_corrupted_seahaven_solution_is_refused_where_it_breaks():
    g, rules, _, _ = _pair("seahaven_towers")
    deal = seeded_deal(DECK_52, 2024, 0)
    text = g.play_one(deal, rules, False).row["solution"]
    tokens = text.split()
    assert g.check_solution(deal, rules, text) is None
    refused = 0
    for j in range(len(tokens) - 1):
        swapped = tokens[:j] + [tokens[j + 1], tokens[j]] + tokens[j + 2 :]
        why = g.check_solution(deal, rules, " ".join(swapped))
        if why is not None:
            assert int(why.split()[1]) >= j + 1, (j, why)
            refused += 1
            if refused == 3:
                break
    assert refused == 3


def test_column_ten_is_written_zero():
    _, _, _, rrules = _pair("seahaven_towers")
    layout = ref.deal_layout(list(range(52)), rrules)
    assert ref.parse_move("0c", layout, rrules) == ref.Move("column", 9, 1, "cell", 2)
    assert ref.move_token(layout, ref.Move("column", 9, 1, "cell", 2), rrules) == "0c"
    assert ref.parse_move("a0", layout, rrules) == ref.Move("cell", 0, 1, "column", 9)
    # in an eight-column game 0 is not a column
    _, _, _, r8 = _pair("eight_off")
    assert "is not a move" in ref.parse_move("0h", ref.deal_layout(list(range(52)), r8), r8)


# --- verdicts against the plain exhaustive search ---------------------------------------------------


def _random_position(rng: random.Random):
    """Few cards left, 8 or 10 columns, random switches (cells with cards in them, empty columns of every kind)."""
    ncols = rng.choice([8, 10])
    cells = rng.choice([0, 1, 1, 2, 3])
    seq = rng.choice(["limited", "limited", "unlimited"])
    empty = rng.choice(["kings", "kings", "any", "none"])
    fnd = [rng.randint(9, 13) for _ in range(4)]
    if rng.random() < 0.4:
        fnd[rng.randrange(4)] = rng.randint(4, 8)
    left = [s * 13 + r for s in range(4) for r in range(fnd[s], 13)]
    if not 3 <= len(left) <= 10:
        return None
    rng.shuffle(left)
    n_cell = rng.randint(0, cells)
    cell_cards, tableau = left[:n_cell], left[n_cell:]
    used = rng.randint(1, 4)  # crowd the cards into a few columns: the rest are empty
    columns: list[list[int]] = [[] for _ in range(ncols)]
    for c in tableau:
        columns[rng.randrange(used)].append(c)
    rrules = ref.Rules("in_turn", "suit", cells, False, seq, empty, columns=ncols)
    srules = osol.SolverRules(
        osol.LAYOUT_IN_TURN,
        osol.BUILD_SUIT,
        cells,
        False,
        seq == "unlimited",
        eight_off.EMPTY_CODES[empty],
        200_000,
        columns=ncols,
    )
    return ref.Layout(columns, cell_cards + [None] * (cells - n_cell), fnd, 0), rrules, srules


def test_verdicts_match_plain_exhaustive_search_and_single_card_play():
    """The solver's verdict = a plain search's (every legal move, nothing pruned) under the same rules, and
    under `limited` also = a plain search moving one card at a time: limited runs change no verdict."""
    rng = random.Random(20261201)
    verdicts = {True: 0, False: 0}
    singles = 0
    tried = 0
    while tried < 120:
        made = _random_position(rng)
        if made is None:
            continue
        layout, rrules, srules = made
        truth = ref.exhaustive_verdict(layout, rrules, 3_000, symmetric=True)
        if truth is None:
            continue
        tried += 1
        st, rel = osol.make_position(layout.columns, [c for c in layout.cells if c is not None], layout.foundations, 0)
        sol = osol.solve_state(st, rel, srules)
        assert sol.outcome == (WON if truth else UNSOLVABLE), (layout, rrules)
        if truth:
            assert ref.check_from(layout, rrules, osol.reference_moves(layout, rrules, sol.codes)) is None
        if rrules.sequence_move == "limited":
            single = ref.Rules(
                "in_turn", "suit", rrules.cells, False, "single", rrules.empty_column, columns=rrules.columns
            )
            by_one = ref.exhaustive_verdict(layout, single, 20_000, symmetric=True)
            if by_one is not None:
                assert by_one == truth, (layout, rrules)
                singles += 1
        verdicts[truth] += 1
    assert verdicts[True] >= 15 and verdicts[False] >= 15 and singles >= 40, (verdicts, singles)


def test_kings_only_empty_columns_do_not_double_a_run():
    """8D | KD JD TD | 9D QD | (empty), no cells, diamonds up to 7 (found by a random search).  One card at a
    time this is lost: JD and TD have nowhere to go (an empty column takes only a King).  Counting the two
    empty columns, as (free cells + 1) x 2^(empty columns) does, would let JD-TD move onto QD and win: the
    capacity must be free cells + 1 here, and is."""
    columns = [parse_cards(t) for t in ("8D", "KD JD TD", "9D QD")] + [[]]
    fnd = [13, 7, 13, 13]
    kings = ref.Rules("in_turn", "suit", 0, False, "limited", "kings", columns=4)
    layout = ref.Layout([list(c) for c in columns], [], fnd, 0)
    single = ref.Rules("in_turn", "suit", 0, False, "single", "kings", columns=4)
    assert ref.exhaustive_verdict(layout, single) is False
    assert ref.exhaustive_verdict(layout, kings) is False
    after = layout.copy()
    ref.apply_move(after, ref.Move("column", 0, 1, "foundation"))  # 8D up: two empty columns besides the target
    assert ref.run_capacity(after, kings, 2) == 1
    assert ref.run_capacity(after, ref.Rules("in_turn", "suit", 0, False, "limited", "any", columns=4), 2) == 4
    st, rel = osol.make_position(columns, [], fnd, 0)
    srules = osol.SolverRules(
        osol.LAYOUT_IN_TURN, osol.BUILD_SUIT, 0, False, False, osol.EMPTY_TOP_RANK, 10_000, columns=4
    )
    assert osol.solve_state(st, rel, srules).outcome == UNSOLVABLE
    # with empty columns taking any card the doubling is real, and the same position is won
    anyr = ref.Rules("in_turn", "suit", 0, False, "limited", "any", columns=4)
    sol = osol.solve_state(
        st,
        rel,
        osol.SolverRules(osol.LAYOUT_IN_TURN, osol.BUILD_SUIT, 0, False, False, osol.EMPTY_ANY, 10_000, columns=4),
    )
    assert sol.outcome == WON
    assert ref.check_from(layout, anyr, osol.reference_moves(layout, anyr, sol.codes)) is None


# --- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", list(MODULES))
def test_more_dealt_cells_than_cells_is_refused(game):
    g = get_game(game)
    with pytest.raises(RuleError, match=r"prefilled_cells.*value 5 is more than the 3 cells"):
        g.rules(overrides={"cells": 3, "prefilled_cells": 5})
    with pytest.raises(RuleError, match="cells"):
        g.rules(overrides={"cells": 9})
    with pytest.raises(RuleError, match="empty_column"):
        g.rules(overrides={"empty_column": "beak_minus_one"})
    assert g.rules(overrides={"cells": 0, "prefilled_cells": 0}).cells == 0


def test_bad_input_exits_2_from_the_command_line():
    from typer.testing import CliRunner

    from pipeline.cli import app

    runner = CliRunner()
    cases = (
        ("eight_off", "cells=3", "prefilled_cells"),
        ("seahaven_towers", "cells=1", "prefilled_cells"),
        ("freecell", "columns=9", "columns"),
        ("freecell", "columns=3", "columns"),
    )
    for game, setting, word in cases:
        res = runner.invoke(app, ["play", game, "--seed", "1", "--index", "0", "--set", setting])
        assert res.exit_code == 2, (setting, res.output)
        assert word in res.output and len(res.output.strip().splitlines()) == 1, res.output
