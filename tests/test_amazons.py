"""Amazons: the compiled kernel against the readable reference, invariants, and hand-checked deals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import DECK_AMAZONS, format_cards, parse_cards
from engine.deals import seeded_deals
from engine.games.amazons import GAME, AmazonsRules
from engine.outcomes import OUTCOMES
from engine.reference import amazons as reference
from engine.reference.amazons import BUILD_ORDER, step, suit

SWITCH_VALUES = {
    "strategy": ("greedy", "one_ace"),
    "build": ("same_suit", "any_suit"),
    "queen_any_column": (False, True),
    "ace_placement": ("leftmost", "own_column"),
    "gather": ("pile4_bottom_up", "pile1_bottom_up", "pile1_top_down", "pile4_top_down"),
    "skip_completed_columns": (True, False),
    "loss_rule": ("cycle", "idle_passes"),
}
COMBINATIONS = [dict(zip(SWITCH_VALUES, values, strict=True)) for values in itertools.product(*SWITCH_VALUES.values())]
DEALS_PER_COMBINATION = 30  # played to their natural end (max_rounds 100000)
CAPPED_DEALS_PER_COMBINATION = 8  # played again under a small max_rounds, so the cap is exercised everywhere
COLUMNS = ("outcome", "rounds", "moves", "cards_left", "foundations_done", "aces_allowed")


def _kernel_rows(deals: np.ndarray, rules: AmazonsRules) -> list[dict]:
    out = GAME.play_batch(deals, rules)
    return [
        {c: (OUTCOMES[int(out[c][i])] if c == "outcome" else int(out[c][i])) for c in COLUMNS}
        for i in range(deals.shape[0])
    ]


def _reference_rows(deals: np.ndarray, rules: AmazonsRules) -> list[dict]:
    rows = []
    for deal in deals:
        row = reference.play([int(c) for c in deal], rules).row()
        rows.append({c: row[c] for c in COLUMNS})
    return rows


def _assert_same(deals: np.ndarray, rules: AmazonsRules) -> None:
    for deal, want, got in zip(deals, _reference_rows(deals, rules), _kernel_rows(deals, rules), strict=True):
        assert got == want, f"{rules}\ndeal {format_cards(deal)}\nreference {want}\nkernel    {got}"


@pytest.mark.parametrize(
    "index", range(len(COMBINATIONS)), ids=[",".join(f"{k}={v}" for k, v in c.items()) for c in COMBINATIONS]
)
def test_kernel_matches_reference_on_every_combination(index: int) -> None:
    combo = COMBINATIONS[index]
    # idle_passes varies over 1..4 across combinations so the idle rule is tested at more than its default;
    # each combination plays its own deals (seed = its index), 38 in all.
    idle = 1 + index % 4
    deals = seeded_deals(DECK_AMAZONS, index, 0, DEALS_PER_COMBINATION + CAPPED_DEALS_PER_COMBINATION)
    _assert_same(deals[:DEALS_PER_COMBINATION], GAME.rules(None, {**combo, "idle_passes": idle}))
    small_cap = (1, 2, 5, 13)[index % 4]
    _assert_same(
        deals[DEALS_PER_COMBINATION:], GAME.rules(None, {**combo, "idle_passes": idle, "max_rounds": small_cap})
    )


def test_differential_deals_reach_every_outcome_and_every_k() -> None:
    """Guard against a vacuous differential test: the deals above do reach all four outcomes and k = 1..4."""
    outcomes: set[str] = set()
    ks: set[int] = set()
    for index, combo in enumerate(COMBINATIONS):
        deals = seeded_deals(DECK_AMAZONS, index, 0, DEALS_PER_COMBINATION + CAPPED_DEALS_PER_COMBINATION)
        idle = 1 + index % 4
        rows = _kernel_rows(deals[:DEALS_PER_COMBINATION], GAME.rules(None, {**combo, "idle_passes": idle}))
        rows += _kernel_rows(
            deals[DEALS_PER_COMBINATION:],
            GAME.rules(None, {**combo, "idle_passes": idle, "max_rounds": (1, 2, 5, 13)[index % 4]}),
        )
        outcomes |= {r["outcome"] for r in rows}
        ks |= {r["aces_allowed"] for r in rows if combo["strategy"] == "one_ace"}
    assert outcomes == {"won", "cycle", "blocked", "capped"}
    assert ks == {1, 2, 3, 4}


# --- properties, checked on the reference's events ----------------------------------

rules_strategy = st.fixed_dictionaries(
    {
        **{k: st.sampled_from(v) for k, v in SWITCH_VALUES.items()},
        "idle_passes": st.integers(1, 4),
        "max_rounds": st.sampled_from([3, 40, 100000]),
    }
)
deal_strategy = st.permutations([int(c) for c in DECK_AMAZONS])


def _replay(deal: list[int], rules: AmazonsRules) -> reference.Outcome:
    """Play with events and check, event by event, that cards are conserved and foundations grow in order."""
    result = reference.play(deal, rules, record=True)
    all_cards = sorted(deal)
    stock: list[int] = []
    columns: list[list[int]] = [[], [], [], []]
    foundations: list[list[int]] = [[], [], [], []]
    k = 1 if rules.strategy == "one_ace" else 4
    for e in result.events:
        d = e.data
        if e.kind == "pass":
            assert all(not c for c in columns)
            stock = list(d["stock"])
            k = d["k"]
            assert sorted(stock + sum(foundations, [])) == all_cards  # conserved at the start of every pass
        elif e.kind == "deal":
            dealt = [d["cards"][j] for j in sorted(d["cards"])]
            assert stock[: len(dealt)] == dealt  # dealt from the front of the stock, left to right
            del stock[: len(dealt)]
            for j, c in d["cards"].items():
                columns[j].append(c)
        elif e.kind == "play":
            c, j, i = d["card"], d["column"], d["foundation"]
            assert columns[j] and columns[j][-1] == c  # only the top card of a column plays
            columns[j].pop()
            f = foundations[i]
            assert step(c) == len(f)  # the order A, 7, 8, 9, T, J, Q
            if f and rules.build == "same_suit":
                assert suit(c) == suit(f[0])
            if step(c) == 0:
                assert sum(1 for g in foundations if 0 < len(g) < 7) < k  # the strategy's Ace limit
            elif not (rules.queen_any_column and step(c) == 6):
                assert i == j  # the foundation directly above the card's column
            f.append(c)
            assert sorted(stock + sum(columns, []) + sum(foundations, [])) == all_cards
        elif e.kind == "gather":
            assert not stock
            gathered = sorted(d["stock"])
            assert gathered == sorted(sum(columns, []))
            stock = list(d["stock"])
            columns = [[], [], [], []]
        elif e.kind == "k":
            assert d["k"] == k + 1
            k = d["k"]
    assert sum(len(f) for f in foundations) == result.moves == 28 - result.cards_left
    assert result.foundations_done == sum(len(f) == 7 for f in foundations)
    assert result.aces_allowed == k
    return result


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=deal_strategy, values=rules_strategy)
def test_cards_conserved_and_foundations_grow_in_order(deal: list[int], values: dict) -> None:
    rules = GAME.rules(None, values)
    result = _replay(deal, rules)
    # and the kernel agrees on this deal too
    row = result.row()
    assert _kernel_rows(np.array([deal], dtype=np.uint8), rules)[0] == {c: row[c] for c in COLUMNS}


def _check_loss_is_real(deal: list[int], rules: AmazonsRules) -> str:
    """A ``cycle`` really returns to an earlier state; ``blocked`` really ends idle_passes passes without a play."""
    result = reference.play(deal, rules, record=True)
    events = [e for e in result.events if e.kind in ("pass", "play", "k", "gather")]
    if result.outcome == "cycle":
        # Rebuild the state at the start of each pass (after the last k change) and find the repeat.
        states = []
        foundations: list[list[int]] = [[], [], [], []]
        k = 1 if rules.strategy == "one_ace" else 4
        for e in events:
            if e.kind == "pass":
                states.append((tuple(e.data["stock"]), tuple(map(tuple, foundations)), e.data["k"]))
            elif e.kind == "play":
                foundations[e.data["foundation"]].append(e.data["card"])
            elif e.kind == "k":
                k = e.data["k"]
            elif e.kind == "gather":
                last = (tuple(e.data["stock"]), tuple(map(tuple, foundations)), k)
        first = result.events[-1].data["first_pass"]
        assert states[first - 1] == last
        assert last not in states[first:]
        assert k == 4
    elif result.outcome == "blocked":
        tail = []
        for e in reversed(events):
            tail.append(e)
            if sum(x.kind == "pass" for x in tail) == rules.idle_passes:
                break
        assert not any(e.kind == "play" for e in tail)
    return result.outcome


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=deal_strategy, values=rules_strategy)
def test_a_cycle_really_repeats_and_blocked_really_idles(deal: list[int], values: dict) -> None:
    _check_loss_is_real(deal, GAME.rules(None, {**values, "max_rounds": 100000}))


@pytest.mark.parametrize("preset", ["dick", "one_ace", "one_in_ten"])
def test_losses_are_real_on_seeded_deals(preset: str) -> None:
    # The same check on fixed deals, so that both kinds of loss are certainly exercised.
    rules = GAME.rules(preset)
    outcomes = {_check_loss_is_real([int(c) for c in d], rules) for d in seeded_deals(DECK_AMAZONS, 2009, 0, 40)}
    assert ("blocked" if rules.loss_rule == "idle_passes" else "cycle") in outcomes


# --- hand-made deals, checked by hand ---------------------------------------------------

RANK_ROWS = "AC AD AH AS 7C 7D 7H 7S 8C 8D 8H 8S 9C 9D 9H 9S TC TD TH TS JC JD JH JS QC QD QH QS"


def _play(text: str, preset: str | None = None, **overrides) -> reference.Outcome:
    deal = parse_cards(text)
    rules = GAME.rules(preset, overrides)
    result = _replay(deal, rules)
    assert _kernel_rows(np.array([deal], dtype=np.uint8), rules)[0] == {c: result.row()[c] for c in COLUMNS}
    return result


def test_rank_rows_win_in_one_pass() -> None:
    # Row 1 puts AC AD AH AS on C1..C4 and they go to F1..F4 in that order; every later row puts the
    # next rank of suit j on Cj, which plays at once onto Fj.  Won in pass 1, all 28 moves.
    r = _play(RANK_ROWS, "dick")
    assert (r.outcome, r.rounds, r.moves, r.cards_left, r.foundations_done, r.aces_allowed) == ("won", 1, 28, 0, 4, 4)
    plays = [e.data for e in r.events if e.kind == "play"]
    assert [(p["column"], p["foundation"]) for p in plays[:4]] == [(0, 0), (1, 1), (2, 2), (3, 3)]


def test_suit_columns_win_in_one_pass_even_with_one_ace() -> None:
    # Dealt Q..A row by row, C1 gets QS JS TS 9S 8S 7S AS (bottom to top), C2 the hearts, C3 the diamonds,
    # C4 the clubs; nothing plays until the Ace row.  Then AS goes to F1 and 7S..QS follow from C1,
    # completing F1, so with k = 1 the next Ace (AH on C2) may open F2, and so on: won in pass 1, k still 1.
    deal = " ".join(f"{r}{s}" for r in "QJT987A" for s in "SHDC")
    r = _play(deal, "one_ace")
    assert (r.outcome, r.rounds, r.moves, r.aces_allowed) == ("won", 1, 28, 1)
    assert [e.data["foundation"] for e in r.events if e.kind == "play"] == [0] * 7 + [1] * 7 + [2] * 7 + [3] * 7


def test_rank_rows_with_one_ace_hold_back_aces_then_raise_k() -> None:
    # k = 1.  Pass 1: AC opens F1, AD AH AS are held back (one foundation open), and 7C..QC follow
    # onto F1 from C1: F1 complete, 7 moves; C2..C4 keep AD..QD, AH..QH, AS..QS bottom to top.
    # Gathered C4 first: AS 7S..QS AH 7H..QH AD 7D..QD.  Pass 2 (F1 done, so rows of three to C2 C3 C4):
    # AS on C2 opens F2 (spades); 7S lands on C3, never C2, and AH, AD are held: 8 moves.
    # Pass 3 (stock 8S JS 7H TH AD 9D QD 7S TS AH 9H QH 8D JD 9S QS 8H JH 7D TD): 7S goes to C3 again,
    # nothing plays.  With idle_passes 1 that raises k to 2 after pass 3, and max_rounds 3 caps the game.
    r = _play(RANK_ROWS, "one_ace", loss_rule="idle_passes", idle_passes=1, max_rounds=3)
    assert (r.outcome, r.rounds, r.moves, r.foundations_done, r.aces_allowed) == ("capped", 3, 8, 1, 2)
    stocks = [format_cards(e.data["stock"]) for e in r.events if e.kind == "pass"]
    assert stocks[1] == "AS 7S 8S 9S TS JS QS AH 7H 8H 9H TH JH QH AD 7D 8D 9D TD JD QD"
    assert stocks[2] == "8S JS 7H TH AD 9D QD 7S TS AH 9H QH 8D JD 9S QS 8H JH 7D TD"
    assert [e.data["k"] for e in r.events if e.kind == "k"] == [2]


def test_ace_placement_leftmost_versus_own_column() -> None:
    # Row 1: C1 7C, C2 AD, C3 AC, C4 AH.  leftmost: AD -> F1, AC -> F2, AH -> F3 (7C cannot follow AD).
    # own_column: AD -> F2, AC -> F3, AH -> F4, and F1 stays empty.
    deal = "7C AD AC AH " + " ".join(c for c in RANK_ROWS.split() if c not in ("7C", "AD", "AC", "AH"))
    first = {}
    for placement in ("leftmost", "own_column"):
        r = _play(deal, "dick", ace_placement=placement)
        first[placement] = [(e.data["card"], e.data["foundation"]) for e in r.events if e.kind == "play"][:3]
    ad, ac, ah = parse_cards("AD AC AH")
    assert first["leftmost"] == [(ad, 0), (ac, 1), (ah, 2)]
    assert first["own_column"] == [(ad, 1), (ac, 2), (ah, 3)]


def test_sevens_never_under_their_foundation_is_blocked() -> None:
    # Row 1 AC AD AH AS opens F1..F4 as clubs, diamonds, hearts, spades; then only a 7 of suit j on Cj
    # could play.  Pass 1 puts 7D on C1, 7C on C2, 7S on C3, 7H on C4 (rows 3, 3, 4, 3).  Gathered
    # pile4_bottom_up, card X of row r (2..7) in column j sits at (3 - j) * 6 + (r - 2) of the new
    # 24-card stock and goes to column position % 4: 7D -> C4, 7C -> C2, 7S -> C1, 7H -> C2.  So pass 2
    # plays nothing, and with idle_passes 1 the game is blocked after pass 2 with 4 cards played.
    fill = iter(c for c in RANK_ROWS.split()[8:])
    rows = [
        ["AC", "AD", "AH", "AS"],
        [next(fill) for _ in range(4)],
        ["7D", "7C", next(fill), "7H"],
        [next(fill), next(fill), "7S", next(fill)],
    ]
    rows += [[next(fill) for _ in range(4)] for _ in range(3)]
    r = _play(" ".join(sum(rows, [])), "dick", loss_rule="idle_passes", idle_passes=1)
    assert (r.outcome, r.rounds, r.moves, r.cards_left, r.foundations_done) == ("blocked", 2, 4, 24, 0)


def test_presets_are_the_issue_table() -> None:
    assert GAME.rules("dick") == AmazonsRules()
    assert GAME.rules("one_ace") == AmazonsRules(strategy="one_ace")
    assert GAME.rules("one_in_ten") == AmazonsRules(gather="pile1_bottom_up", loss_rule="idle_passes")
    assert GAME.rules("pysolfc") == AmazonsRules(build="any_suit", queen_any_column=True)
    assert BUILD_ORDER == (0, 6, 7, 8, 9, 10, 11)


def test_trace_names_deals_plays_gathers_and_k() -> None:
    deal = seeded_deals(DECK_AMAZONS, 2009, 0, 40)
    rules = GAME.rules("one_ace")
    # the first of these deals whose k was raised (the differential test shows such deals exist)
    index = int(np.argmax(GAME.play_batch(deal, rules)["aces_allowed"] > 1))
    lines = GAME.play_one(deal[index], rules, True).trace
    text = "\n".join(lines)
    assert lines[0].startswith("pass 1 (k=1): stock ")
    assert "  deal C1:" in text and "    play A" in text and "  gather (pile4_bottom_up)" in text
    assert "  k -> 2:" in text
    assert lines[-1].split()[0] in ("won", "cycle:")


def test_play_batch_refuses_a_deal_that_is_not_the_amazons_pack() -> None:
    deals = seeded_deals(DECK_AMAZONS, 1, 0, 3).copy()
    deals[1, 0] = deals[1, 1]  # a duplicated card
    with pytest.raises(ValueError, match="deal 1 is not a permutation"):
        GAME.play_batch(deals, GAME.rules("dick"))
    deals[1, 0] = 1  # a Two: not in the pack
    with pytest.raises(ValueError, match="deal 1 is not a permutation"):
        GAME.play_batch(deals, GAME.rules("dick"))
