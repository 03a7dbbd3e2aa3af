"""King Albert, Raglan and Queen Victoria: the shared solver against the readable reference.

* Layouts: a known deal is pinned card by card, and the solver's opening
  position equals the reference's on many seeded deals.
* Every `won` is replayed move by move by engine/reference/king_albert.py
  (play_batch does it for every deal; the tests also call the checker).
* `unsolvable` verdicts, and the safe foundation moves under worrying back
  (engine/search/, point 3b), are confirmed by the reference's plain
  exhaustive search with no pruning at all, on random positions with few cards
  out under every switch combination.
"""

from __future__ import annotations

import random

import numpy as np
import open_solver as osol
import plain_verdicts
import pytest

from engine.cards import DECK_52, format_cards, parse_card, parse_cards
from engine.deals import seeded_deal, seeded_deals
from engine.games import king_albert as ka
from engine.outcomes import OUTCOMES, UNKNOWN, UNSOLVABLE, WON
from engine.reference import king_albert as ref
from engine.registry import get_game
from engine.rules import RuleError

GAME = get_game("king_albert")


def _rules(preset: str | None = None, **overrides):
    return GAME.rules(preset, overrides)


def _kernel_layout(deal, rules) -> tuple[list[list[int]], list[int], list[int]]:
    st, _ = ka.deal_position(np.asarray(deal, dtype=np.uint8), rules)
    return osol.position_columns(st, ka.solver_rules(rules))


# --- layouts ----------------------------------------------------------------------------------------


def test_the_canonical_deck_is_laid_out_row_by_row():
    """Deal AC 2C ... KS: row 1 is AC..9C over columns 1-9, row 2 TC..4D over columns 2-9, and so on;
    the last 7 cards (7S..KS) are the reserve.  Raglan: the Aces go up, the other 48 cards fill columns of
    1..7, 7, 7 and a reserve of 6."""
    deal = list(range(52))
    layout = ref.deal_layout(deal, ref.Rules("king_albert"))
    assert [format_cards(c) for c in layout.columns] == [
        "AC",
        "2C TC",
        "3C JC 5D",
        "4C QC 6D QD",
        "5C KC 7D KD 5H",
        "6C AD 8D AH 6H TH",
        "7C 2D 9D 2H 7H JH AS",
        "8C 3D TD 3H 8H QH 2S 4S",
        "9C 4D JD 4H 9H KH 3S 5S 6S",
    ]
    assert format_cards(layout.reserve) == "7S 8S 9S TS JS QS KS" and layout.foundations == [0, 0, 0, 0]
    layout = ref.deal_layout(deal, ref.Rules("raglan"))
    assert [format_cards(c) for c in layout.columns] == [
        "2C",
        "3C JC",
        "4C QC 7D",
        "5C KC 8D 2H",
        "6C 2D 9D 3H 8H",
        "7C 3D TD 4H 9H KH",
        "8C 4D JD 5H TH 2S 5S",
        "9C 5D QD 6H JH 3S 6S",
        "TC 6D KD 7H QH 4S 7S",
    ]
    assert format_cards(layout.reserve) == "8S 9S TS JS QS KS" and layout.foundations == [1, 1, 1, 1]


def test_a_seeded_deal_is_pinned_card_by_card():
    deal = seeded_deal(DECK_52, 2024, 0)
    assert format_cards(deal).startswith("8C TD KC 5D JC 9S TS QS AH 3S")
    layout = ref.deal_layout(list(deal), ref.Rules("king_albert"))
    assert [format_cards(c) for c in layout.columns] == [
        "8C",
        "TD 3S",
        "KC 9H JS",
        "5D 5S 8H 6H",
        "JC AD 5H 6D TC",
        "9S JH QC 7C TH KD",
        "TS 3H AC 2H 2C 4H 4S",
        "QS 6S 2D 4C 8S AS QD 6C",
        "AH 4D KS 7S 9D 8D 3D 9C QH",
    ]
    assert format_cards(layout.reserve) == "JD 7H 3C 2S 7D KH 5C"
    layout = ref.deal_layout(list(deal), ref.Rules("raglan"))
    assert [format_cards(c) for c in layout.columns] == [
        "8C",
        "TD 9H",
        "KC 5S 5H",
        "5D JH QC 2H",
        "JC 3H 2D 4C 8S",
        "9S 6S KS 7S 9D 4S",
        "TS 4D 6H TC KD QD 9C",
        "QS JS 6D TH 4H 3D QH",
        "3S 8H 7C 2C 8D 6C JD",
    ]
    assert format_cards(layout.reserve) == "7H 3C 2S 7D KH 5C"


@pytest.mark.parametrize("preset", ["king_albert", "raglan"])
def test_kernel_and_reference_lay_out_deals_alike(preset):
    rules = _rules(preset)
    for deal in seeded_deals(DECK_52, 11, 0, 40):
        cols, reserve, fnd = _kernel_layout(deal, rules)
        layout = ref.deal_layout(list(deal), ka.reference_rules(rules))
        assert cols == layout.columns
        assert reserve == layout.reserve
        assert fnd == layout.foundations
        assert sum(map(len, cols)) + len(reserve) + sum(fnd) == 52


# --- fixture deals ---------------------------------------------------------------------------------

# No move at all, checked by hand: the nine column tops and the seven reserve cards are all black (no
# alternating-colour build among them) and none is an Ace; no column is empty and no foundation holds a card.
_black = parse_cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2S 3S 4S 5S")
_rest = [c for c in range(52) if c not in _black]
_tops, _reserve = _black[:9], _black[9:]


def _deal_with(tops: list[int], reserve: list[int], others: list[int]) -> list[int]:
    """A King Albert deal whose column tops and reserve are given (the slot of a column's top is its last)."""
    sizes = ref.COLUMN_SIZES["king_albert"]
    slots = [(row, col) for row in range(9) for col in range(9) if row < sizes[col]]
    deal, rest = [], list(others)
    for row, col in slots:
        deal.append(tops[col] if row == sizes[col] - 1 else rest.pop(0))
    return deal + reserve


STUCK = _deal_with(_tops, _reserve, _rest)


def test_stuck_fixture_has_no_move_and_is_unsolvable():
    assert sorted(STUCK) == list(range(52))
    rules = _rules()
    layout = ref.deal_layout(STUCK, ka.reference_rules(rules))
    assert [c[-1] for c in layout.columns] == _tops and layout.reserve == _reserve
    assert list(ref.legal_moves(layout, ka.reference_rules(rules))) == []
    res = GAME.play_one(np.asarray(STUCK, dtype=np.uint8), rules, True)
    assert res.row["outcome"] == "unsolvable" and res.row["cards_left"] == 52 and res.row["nodes"] == 1


@pytest.mark.parametrize("preset", ["king_albert", "raglan", "queen_victoria"])
def test_solver_solutions_are_replayed_by_the_reference(preset):
    rules = _rules(preset, max_nodes=50_000)
    decks = seeded_deals(DECK_52, 31, 0, 12)
    out = GAME.play_batch(decks, rules)
    rrules = ka.reference_rules(rules)
    wins = 0
    for deal, code, text, moves in zip(decks, out["outcome"], out["solution"], out["moves"], strict=True):
        if code != WON:
            assert text == ""
            continue
        wins += 1
        assert len(text.split()) == moves
        assert ref.check_solution_text(list(deal), rrules, text) is None
        assert GAME.check_solution(deal, rules, text) is None
        # parse -> format gives the text back
        layout = ref.deal_layout(list(deal), rrules)
        parsed = []
        for token in text.split():
            parsed.append(ref.parse_move(token, layout))
            ref.apply_move(layout, parsed[-1])
        assert ref.format_solution(list(deal), rrules, parsed) == text
        # one move short is refused
        assert ref.check_solution_text(list(deal), rrules, " ".join(text.split()[:-1])) is not None
    assert wins >= 3, out["outcome"]


def test_corrupted_solutions_are_refused_with_a_reason():
    rules = _rules(max_nodes=300_000)
    for deal in seeded_deals(DECK_52, 2024, 0, 10):  # the first won deal
        out = GAME.play_batch(deal[None, :], rules)
        if out["outcome"][0] == WON:
            break
    tokens = out["solution"][0].split()
    assert GAME.check_solution(deal, rules, " ".join(tokens)) is None
    bad = {
        "zz": "is not a move",
        "3x": "is not a move",
        "hx3": "is not a move",
        "3hv2": "count",
        "a": "is not a move",
        "h": "is not a move",
        "0h": "is not a move",
        "hs3": "foundation is empty",
        "3H": "is not a move",
        "54v0": "moves no card",
    }
    for text, expected in bad.items():
        why = GAME.check_solution(deal, rules, text + " " + " ".join(tokens))
        assert why is not None and why.startswith("move 1") and expected in why, (text, why)
    assert "only" in GAME.check_solution(deal, rules, "")
    assert GAME.check_solution(deal, rules, None) is not None
    assert GAME.check_solution(deal[:51], rules, " ".join(tokens)) is not None


def test_single_cards_only_unless_queen_victoria():
    """Two cards in a run move together only under move_unit: run."""
    layout = ref.Layout([parse_cards("9C 8D 7S"), parse_cards("9S")] + [[] for _ in range(7)], [None] * 7, [0] * 4)
    two = ref.Move("column", 0, 2, "column", 1)
    assert "one card at a time" in ref.illegal_reason(layout, two, ref.Rules(move_unit="card"))
    assert ref.illegal_reason(layout, two, ref.Rules(move_unit="run")) is None
    assert "reserve" not in " ".join(m.target for m in ref.legal_moves(layout, ref.Rules()))


# --- pruning soundness -----------------------------------------------------------------------------


def test_the_freecell_safe_rule_would_lose_a_won_game_under_worrying_back():
    """KH is exposed and next on its foundation, and both black foundations are at the Queen: FreeCell's safe
    rule (point 3) would send it up.  But the game is won only with KH still out: QS comes back onto it and
    takes JD, which frees 8D and 9D (empty columns take nothing here).  The diamonds are far behind, so point
    3b does not move KH; the plain search confirms both verdicts, and the solver must win."""
    rules = _rules(empty_column="none", max_nodes=100_000)
    rrules = ka.reference_rules(rules)
    columns = [parse_cards("9D 8D JD"), parse_cards("KH"), parse_cards("KD KS")] + [[] for _ in range(6)]
    reserve = parse_cards("QD 7D TD") + [None] * 4
    layout = ref.Layout(columns, reserve, [13, 6, 12, 12])
    assert ref.exhaustive_verdict(layout, rrules) is True
    up = layout.copy()
    ref.apply_move(up, ref.Move("column", 1, 1, "foundation"))
    assert ref.exhaustive_verdict(up, rrules) is False
    sol = _solver_verdict(layout, rules)
    assert sol.outcome == WON
    assert ref.check_from(layout, rrules, ka.reference_moves(layout, rrules, sol.codes)) is None
    text = ref.format_solution(layout, rrules, ka.reference_moves(layout, rrules, sol.codes))
    assert "hs2" in text.split()  # QS played back onto KH in column 2, written h + suit
    assert ref.check_solution_text(layout, rrules, text) is None
    off = ka.reference_rules(_rules(empty_column="none", worrying_back=False))
    assert "worrying_back: false" in ref.check_solution_text(layout, off, text)
    assert _solver_verdict(layout, _rules(empty_column="none", worrying_back=False)).outcome == UNSOLVABLE
    assert ref.exhaustive_verdict(layout, off) is False


# Positions found by a random search with the plain exhaustive search: KH is exposed and next, and won only
# while it stays out.  One rank looser on either condition of point 3b would send it up and lose the game.
LOOSER_RULE_LOSES = {
    # the other colour at r - 2 (Jacks up), but the diamonds at r - 4 (9D): QC must come onto KH to take JD
    # off TD, which is next for its foundation only after the Jack
    "same colour one rank short": (["KC TD JD", "QS KD QD KH"], "KS QC", [11, 9, 12, 11]),
    # the diamonds at r - 3 (TD), but the clubs at r - 3 (TC) too: QC has to come onto KH to free JC
    "other colour one rank short": (["KS KD JC QC JS", "JD KC", "KH"], "QD QS", [10, 10, 12, 10]),
}


@pytest.mark.parametrize("name", sorted(LOOSER_RULE_LOSES))
def test_point_3b_is_tight_a_looser_rule_would_lose_a_won_game(name):
    """Point 3b asks both other-colour foundations for r - 2 cards and the other one of c's colour for r - 3;
    a rule asking one rank less of either would send KH up in these positions and lose them (point 3's rule,
    which asks nothing of c's colour, loses the position of the test above).  The plain search confirms both verdicts,
    and the solver must win, with a solution the reference replays."""
    cols, reserve, fnd = LOOSER_RULE_LOSES[name]
    rules = _rules(empty_column="none", max_nodes=100_000)
    rrules = ka.reference_rules(rules)
    columns = [parse_cards(c) for c in cols] + [[] for _ in range(9 - len(cols))]
    layout = ref.Layout(columns, parse_cards(reserve) + [None] * (7 - len(reserve.split())), fnd)
    assert ref.exhaustive_verdict(layout, rrules) is True
    up = layout.copy()
    kh = parse_card("KH")
    ref.apply_move(up, ref.Move("column", next(i for i, c in enumerate(columns) if c and c[-1] == kh), 1, "foundation"))
    assert ref.exhaustive_verdict(up, rrules) is False
    sol = _solver_verdict(layout, rules)
    assert sol.outcome == WON
    assert ref.check_from(layout, rrules, ka.reference_moves(layout, rrules, sol.codes)) is None


def _random_position(rng: random.Random):
    """A random position with few cards out, and random rules, for the cross-check."""
    rules = ka.KingAlbertRules(
        layout=rng.choice(["king_albert", "raglan"]),
        move_unit=rng.choice(["card", "run"]),
        worrying_back=rng.random() < 0.75,
        empty_column=rng.choice(["any", "kings", "none", "none", "none"]),
        max_nodes=1_000_000,
    )
    fnd = [rng.randint(7, 13) for _ in range(4)]
    left = [s * 13 + r for s in range(4) for r in range(fnd[s], 13)]
    if not 2 <= len(left) <= 7:  # more cards out make the plain search (foundation cards come back) too slow
        return None
    rng.shuffle(left)
    nres = rng.randint(0, min(len(left), ref.RESERVE_SIZE[rules.layout]))
    columns: list[list[int]] = [[] for _ in range(9)]
    used = rng.randint(1, 4)  # few columns in use, so that some positions are lost
    for c in left[nres:]:
        columns[rng.randrange(used)].append(c)
    rng.shuffle(columns)
    reserve = left[:nres] + [None] * (ref.RESERVE_SIZE[rules.layout] - nres)
    rng.shuffle(reserve)
    return ref.Layout(columns, reserve, fnd), rules


def _solver_verdict(layout: ref.Layout, rules):
    st, rel = osol.make_position(layout.columns, [c for c in layout.reserve if c is not None], layout.foundations, 0)
    return osol.solve_state(st, rel, ka.solver_rules(rules))


def test_solver_verdicts_match_a_plain_exhaustive_search_on_small_positions():
    """Soundness of every pruning (safe moves under worrying back, canonical order, duplicates) and
    completeness of the move generator: the solver's verdict equals that of a search that tries every legal
    move, foundation cards played back included, and prunes nothing.  Every win is replayed."""
    rng = random.Random(20261201)
    verdicts = {True: 0, False: 0}
    tried = 0
    while tried < 70:
        made = _random_position(rng)
        if made is None:
            continue
        layout, rules = made
        rrules = ka.reference_rules(rules)
        truth = plain_verdicts.king_albert_verdict(layout, rrules, 1_500)
        if truth is None:
            continue
        tried += 1
        sol = _solver_verdict(layout, rules)
        assert sol.outcome == (WON if truth else UNSOLVABLE), (layout, rules)
        if truth:
            moves = ka.reference_moves(layout, rrules, sol.codes)
            assert ref.check_from(layout, rrules, moves) is None, (layout, rules)
        verdicts[truth] += 1
    assert verdicts[True] >= 25 and verdicts[False] >= 10, verdicts


def test_the_sweep_alone_agrees_with_the_plain_exhaustive_search(monkeypatch):
    """The sweep as the only search (docs/solvers.md, "The sweep"), whose layers under worrying back
    count only the foundation cards that can never come back: the same cross-check, wins replayed, so no layer
    it forgets is ever met again; and it proves the lost whole deals below lost."""
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=False),))
    test_solver_verdicts_match_a_plain_exhaustive_search_on_small_positions()
    for preset in ("king_albert", "raglan"):
        rules = _rules(preset)
        for index in LOST_DEALS[preset]:
            assert ka.solve_deal(seeded_deal(DECK_52, 2024, index), rules).outcome == UNSOLVABLE, (preset, index)


# Whole seeded deals (seed 2024) whose plain exhaustive search ends in moments: the search with no pruning
# tries every legal move from the deal, foundation cards played back included, and finds no win.
LOST_DEALS = {"king_albert": (6, 13, 47, 128), "raglan": (4, 30, 70, 136)}


@pytest.mark.parametrize("preset", ["king_albert", "raglan"])
def test_unsolvable_whole_deals_agree_with_the_plain_exhaustive_search(preset):
    rules = _rules(preset)
    rrules = ka.reference_rules(rules)
    for index in LOST_DEALS[preset]:
        deal = seeded_deal(DECK_52, 2024, index)
        assert ka.solve_deal(deal, rules).outcome == UNSOLVABLE, index
        assert ref.exhaustive_verdict(ref.deal_layout(list(deal), rrules), rrules, 100_000) is False, index
    # the same budget wins deal 1: the verdicts above are not a solver that answers unsolvable to everything
    deal = seeded_deal(DECK_52, 2024, 1)
    assert ka.solve_deal(deal, rules).outcome == WON


# --- the game surface ------------------------------------------------------------------------------


def test_presets_and_switches():
    assert _rules("raglan").layout == "raglan" and _rules("queen_victoria").move_unit == "run"
    default = _rules()
    assert (default.layout, default.move_unit, default.worrying_back, default.empty_column) == (
        "king_albert",
        "card",
        True,
        "any",
    )
    for bad in (
        {"move_unit": "pile"},
        {"layout": "klondike"},
        {"empty_column": "queens"},
        {"max_nodes": 0},
        {"worrying_back": "maybe"},
    ):
        with pytest.raises(RuleError, match=next(iter(bad))):
            GAME.rules(overrides=bad)


def test_bad_input_exits_2_from_the_command_line():
    from typer.testing import CliRunner

    from pipeline.cli import app

    runner = CliRunner()
    for setting in ("move_unit=pile", "layout=canfield", "max_nodes=0"):
        res = runner.invoke(app, ["play", "king_albert", "--seed", "1", "--index", "0", "--set", setting])
        assert res.exit_code == 2, (setting, res.output)
        assert setting.split("=")[0] in res.output


def test_play_one_agrees_with_play_batch_and_traces():
    rules = _rules(max_nodes=100_000)
    decks = seeded_deals(DECK_52, 99, 0, 6)
    out = GAME.play_batch(decks, rules)
    for i in range(len(decks)):
        res = GAME.play_one(decks[i], rules, True)
        assert res.row["outcome"] == OUTCOMES[out["outcome"][i]]
        for k in ("moves", "cards_left", "nodes", "solution"):
            assert res.row[k] == out[k][i]
        assert res.trace[0].startswith("foundations") and res.trace[1].startswith("reserve")
    assert set(np.unique(out["outcome"])) <= {WON, UNSOLVABLE, UNKNOWN}
