"""Eight Day Clock: the compiled kernel against the readable reference, every move checked, hand-made deals."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import DECK_52, format_cards, parse_cards
from engine.deals import seeded_deals
from engine.games.eight_day_clock import AFTER_DISCARD, EMPTY_PILE, GAME, STARTS, EightDayClockRules
from engine.outcomes import OUTCOMES
from engine.reference import eight_day_clock as reference
from engine.reference.eight_day_clock import hour
from engine.rules import RuleError

COMBINATIONS = [
    dict(after_discard=a, start=s, empty_pile=e) for a, s, e in itertools.product(AFTER_DISCARD, STARTS, EMPTY_PILE)
]
IDS = [",".join(f"{k}={v}" for k, v in c.items()) for c in COMBINATIONS]
COLUMNS = ("outcome", "rounds", "moves", "cards_left", "discards", "cycle_length")
SEEDED = 40  # seeded deals per combination, as they come (about 1% are won)
POOL = 8_000  # ... plus the first won and blocked deals the kernel finds among this many (a second seed)
PICKED = 8


def _kernel_rows(deals: np.ndarray, rules: EightDayClockRules) -> list[dict]:
    out = GAME.play_batch(deals, rules)
    return [
        {c: (OUTCOMES[int(out[c][i])] if c == "outcome" else int(out[c][i])) for c in COLUMNS}
        for i in range(deals.shape[0])
    ]


def _reference_row(deal, rules: EightDayClockRules, record: bool = False) -> dict:
    row = reference.play([int(c) for c in deal], rules, record).row()
    return {c: row[c] for c in COLUMNS}


@functools.cache
def _differential_deals(index: int) -> np.ndarray:
    """Seeded deals, plus won and blocked ones picked by the kernel from a pool (so the rare outcomes are tested)."""
    rules = GAME.rules(None, COMBINATIONS[index])
    deals = seeded_deals(DECK_52, 100 + index, 0, SEEDED)
    pool = seeded_deals(DECK_52, 5000 + index, 0, POOL)
    outcome = GAME.play_batch(pool, rules)["outcome"]
    won = np.flatnonzero(outcome == OUTCOMES.index("won"))[:PICKED]
    blocked = np.flatnonzero(outcome == OUTCOMES.index("blocked"))[:PICKED]
    return np.concatenate([deals, pool[won], pool[blocked]])


@pytest.mark.parametrize("index", range(len(COMBINATIONS)), ids=IDS)
def test_kernel_matches_reference_on_every_combination(index: int) -> None:
    rules = GAME.rules(None, COMBINATIONS[index])
    deals = _differential_deals(index)
    for deal, got in zip(deals, _kernel_rows(deals, rules), strict=True):
        want = _reference_row(deal, rules)
        assert got == want, f"{rules}\ndeal {format_cards(deal)}\nreference {want}\nkernel    {got}"


def test_differential_deals_reach_every_outcome() -> None:
    """Guard against a vacuous differential test: its deals reach won, cycle and blocked, and fills happen."""
    seen: set[str] = set()
    for index, combo in enumerate(COMBINATIONS):
        rules = GAME.rules(None, combo)
        seen |= {r["outcome"] for r in _kernel_rows(_differential_deals(index), rules)}
    assert seen == {"won", "cycle", "blocked"}
    rules = GAME.rules(None, {"after_discard": "first_open", "empty_pile": "fill"})
    fills = sum(
        e.kind == "fill"
        for d in seeded_deals(DECK_52, 105, 0, 300)
        for e in reference.play([int(c) for c in d], rules, record=True).events
    )
    assert fills > 0


# --- every move checked against the rules, from the reference's own events ---------------------


def _is_open(piles: list[list[int]], h: int) -> bool:
    return bool(piles[h]) and hour(piles[h][-1]) != h


def _between(a: int, b: int) -> list[int]:
    """The piles strictly after a and before b, round the clock (all others when a == b)."""
    out, h = [], (a + 1) % 13
    while h != b:
        out.append(h)
        h = (h + 1) % 13
    return out


def _first_open(piles: list[list[int]], h: int) -> int | None:
    return next(((h + k) % 13 for k in range(13) if _is_open(piles, (h + k) % 13)), None)


def _place(piles: list[list[int]], card: int, rules: EightDayClockRules) -> int | None:
    """Where a set-aside card goes: its own pile unless that shows its hour, else the next that takes it."""
    h = hour(card)
    if not (piles[h] and hour(piles[h][-1]) == h):
        return h
    for k in range(1, 13):
        q = (h + k) % 13
        if _is_open(piles, q) or (not piles[q] and rules.empty_pile == "fill"):
            return q
    return None


def _check_game(deal: list[int], rules: EightDayClockRules) -> reference.Outcome:
    """Replay a recorded game event by event and check each against the rules as written in the docstring."""
    result = reference.play(deal, rules, record=True)
    piles = [list(deal[h::13]) for h in range(13)]  # card i to pile i mod 13, bottom first
    assert result.events[0].kind == "layout" and result.events[0].data["piles"] == piles
    hand, last, discards, moves, gone = None, -1, 0, 0, []
    states: list[tuple] = []  # the state after each move of the current stretch
    take_from = 0  # with an empty hand: the next card comes from the first open pile at or after this one
    for e in result.events[1:]:
        d = e.data
        if e.kind == "take":
            assert hand is None and piles[d["pile"]] and piles[d["pile"]][-1] == d["card"]
            if moves == 0 and rules.start == "pile1":
                assert d["pile"] == 0
            else:
                assert d["pile"] == _first_open(piles, take_from)
            if last >= 0:
                assert rules.after_discard != "placed_pile" or discards == 0
            hand, last = piles[d["pile"]].pop(), d["pile"]
            moves += 1
        elif e.kind in ("step", "fill"):
            q = d["pile"]
            assert hand == d["card"]
            if e.kind == "step" and d.get("placed"):  # placed_pile: the set-aside card, then a step from there
                assert rules.after_discard == "placed_pile" and q == _place(piles, hand, rules)
            else:  # the next pile after the last take that takes the card: none in between would
                assert not any(_is_open(piles, h) for h in _between(last, q))
                if rules.empty_pile != "pass":
                    assert not any(
                        not piles[h] and (rules.empty_pile == "fill" or hour(hand) == h) for h in _between(last, q)
                    )
            if e.kind == "fill":
                assert not piles[q] and rules.empty_pile != "pass"
                assert rules.empty_pile == "fill" or hour(hand) == q
                piles[q].append(hand)
                hand, take_from = None, q + 1
                continue
            assert d.get("placed") or _is_open(piles, q)
            piles[q].insert(0, hand)
            hand, last = piles[q].pop(), q
            assert hand == d["taken"]
            moves += 1
        elif e.kind == "discard":
            assert hand == d["aside"]  # the card in hand is set aside (None: a full clock with an empty hand)
            assert all(piles[h] and hour(piles[h][-1]) == h for h in range(13))  # the full clock
            tops = [p.pop() for p in piles]
            assert tops == d["cards"]
            gone += tops
            discards += 1
            states = []
            take_from = 0
            continue
        elif e.kind == "place":
            assert hand == d["card"] and d["pile"] == _place(piles, hand, rules)
            p = d["pile"]
            take_from = {
                "placed_pile": p + 1,
                "after_last_taken": last + 1,
                "first_open": 0,
                "after_placed_pile": p + 1,
            }[rules.after_discard]
            assert rules.after_discard != "placed_pile" or not piles[p]
            piles[p].insert(0, hand)
            hand = None
            continue
        else:
            assert e.kind in ("won", "cycle", "blocked") and e is result.events[-1]
            break
        # after every move: cards conserved, the state recorded
        assert sorted(sum(piles, []) + [hand] + gone) == sorted(deal)
        states.append((tuple(tuple(hour(c) for c in p) for p in piles), hour(hand), last))
    assert (result.moves, result.discards) == (moves, discards)
    if result.outcome == "won":
        assert discards == 3
    elif result.outcome == "cycle":
        # the last state repeats one of the same stretch, and is the first state that repeats any
        assert states[-1] in states[:-1]
        assert len(set(states[:-1])) == len(states) - 1
        assert result.cycle_length == len(states) - 1 - states.index(states[-1])
    else:
        assert not any(_is_open(piles, h) for h in range(13))
        assert any(not p for p in piles)  # and not a full clock: some pile is empty
    return result


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=st.permutations([int(c) for c in DECK_52]), index=st.integers(0, len(COMBINATIONS) - 1))
def test_every_move_follows_the_rules(deal: list[int], index: int) -> None:
    rules = GAME.rules(None, COMBINATIONS[index])
    result = _check_game(deal, rules)
    assert _kernel_rows(np.array([deal], dtype=np.uint8), rules)[0] == {c: result.row()[c] for c in COLUMNS}


@pytest.mark.parametrize("index", range(len(COMBINATIONS)), ids=IDS)
def test_every_move_follows_the_rules_on_won_and_blocked_deals(index: int) -> None:
    rules = GAME.rules(None, COMBINATIONS[index])
    outcomes = {_check_game([int(c) for c in d], rules).outcome for d in _differential_deals(index)[SEEDED:]}
    assert "won" in outcomes


def test_placed_pile_never_empties_a_pile() -> None:
    # The docstring's argument: under placed_pile only the opening takes a card without putting one under, so no
    # pile is empty before the third discard: never blocked, and empty_pile changes nothing, deal by deal.
    deals = seeded_deals(DECK_52, 77, 0, 10_000)
    outs = [GAME.play_batch(deals, GAME.rules(None, {"empty_pile": e, "start": s})) for e in EMPTY_PILE for s in STARTS]
    for out in outs:
        assert not (out["outcome"] == OUTCOMES.index("blocked")).any()
    for a, b in ((0, 2), (0, 4), (1, 3), (1, 5)):
        for c in COLUMNS:
            assert np.array_equal(outs[a][c], outs[b][c]), c


# --- hand-made deals, checked by hand ------------------------------------------------------------


def _deal_from_ranks(piles: dict[int, list[int]]) -> list[int]:
    """A deal whose pile h (1..13) holds the given ranks (1..13), bottom first; piles not given hold their own
    rank four times.  Suits go C, D, H, S in order of appearance of each rank."""
    layout = {h: [h] * 4 for h in range(1, 14)} | piles
    used: dict[int, int] = {}
    deal = [0] * 52
    for h, ranks in layout.items():
        for k, r in enumerate(ranks):
            s = used.get(r, 0)
            used[r] = s + 1
            deal[k * 13 + h - 1] = s * 13 + r - 1
    assert sorted(deal) == list(range(52))
    return deal


def _play(deal: list[int], **overrides) -> reference.Outcome:
    rules = GAME.rules(None, overrides)
    result = _check_game(deal, rules)
    assert _kernel_rows(np.array([deal], dtype=np.uint8), rules)[0] == {c: result.row()[c] for c in COLUMNS}
    return result


def _row(r: reference.Outcome) -> tuple:
    return r.outcome, r.moves, r.rounds, r.discards, r.cycle_length


def test_the_deal_order() -> None:
    # Card i goes to pile i mod 13: the deal "AC 2C .. KC AD .. KS" puts every rank on its own pile.
    deal = list(range(52))
    piles = reference.deal_piles(deal)
    assert [format_cards(p) for p in piles[:2]] == ["AC AD AH AS", "2C 2D 2H 2S"]
    assert format_cards(piles[12]) == "KC KD KH KS"


def test_every_pile_home_is_won_at_once() -> None:
    # Every pile holds its own rank: the clock is full at the deal with an empty hand, three times over
    # (start first_open: no move at all).  With start pile1 the Ace on P1 is taken anyway; no pile is open,
    # the clock is full, the Ace is set aside and the tops discarded; its own pile P1 shows an Ace, no other
    # pile is open, so it stays aside and the clock is full again, twice: won in 1 move.
    deal = _deal_from_ranks({})
    for a in AFTER_DISCARD:
        assert _row(_play(deal, after_discard=a)) == ("won", 0, 1, 3, 0)
        assert _row(_play(deal, after_discard=a, start="pile1")) == ("won", 1, 1, 3, 0)


def test_three_piles_turning_round_are_won() -> None:
    # P1 holds four 3s, P2 four Aces, P3 four 2s; every other pile is home.  Only P1..P3 are open, so the
    # card in hand goes P1 -> P2 -> P3 -> P1 ...: the 3 from P1 under P2, an Ace from P2 under P3, a 2 from
    # P3 under P1, and so on.  Each lap of three moves puts one card of each pile's own rank under it; after
    # 24 moves (8 laps) P1 holds AH AD AC (top AC), P2 2S 2H 2D 2C ... all home, AC in hand: the full clock.
    # The Ace set aside finds its own pile showing its hour and no pile open, so the clock is full three times.
    deal = _deal_from_ranks({1: [3] * 4, 2: [1] * 4, 3: [2] * 4})
    for a in AFTER_DISCARD:
        r = _play(deal, after_discard=a)
        assert _row(r) == ("won", 24, 8, 3, 0)
        assert [e.data["aside"] for e in r.events if e.kind == "discard"] == parse_cards("AC AC AC")


def test_a_pile_turning_on_itself_is_a_cycle() -> None:
    # P3 holds (bottom to top) 2 A 2 A; P1's top is an Ace and P2's a 2, so only P3 is open.  Take its A
    # (P3: 2 A 2, top 2, open); the only open pile is P3 itself: the A goes under it and the 2 comes up
    # (P3: A 2 A); then the 2 goes under and the A comes up (P3: 2 A 2): the state after move 3 is the
    # state after move 1.  Lost: cycle after 3 moves, a cycle of 2.  Every move is a wrap (P3 after P3).
    deal = _deal_from_ranks({1: [2, 3, 3, 1], 2: [3, 3, 1, 2], 3: [2, 1, 2, 1]})
    for a in AFTER_DISCARD:
        assert _row(_play(deal, after_discard=a)) == ("cycle", 3, 3, 0, 2)


def test_the_four_readings_of_after_discard_differ() -> None:
    # P1 2C AC 3C AD, P2 AH 2D 2H 3D, P3 AS 3H 2S 3S (bottom to top), the rest home.  Only P2 is open: take
    # 3D; P2 shows 2H, nothing is open: the full clock with 3D in hand.  Discard AD 2H 3S ...; now P1 shows
    # 3C, P2 2D (home), P3 2S; 3D's own pile P3 does not show a 3, so 3D goes under P3.
    # * placed_pile: take P3's top 2S, under P1, take 3C (P1 shows AC): full, 3C aside; discard AC 2D 3H ...;
    #   3C under P3 (showing AS), take AS; under P1 (2S 2C), take 2C; under P2 (AH), take AH; under P1, take
    #   2S: every pile home: the third discard.  Won in 7 moves.
    # * after_last_taken (P2 last): P3 is the next open pile: the same 2S, 3C, discard; 3C under P3; after P1
    #   comes P2: take AH, P2 is empty; AH under P3 (AS), take AS; under P1 (2C), take 2C; P2 is empty and P3
    #   shows 3D, so 2C goes under P1 itself and 2S comes up; P1 shows AS, P3 3D, P2 is empty: blocked after 7.
    # * first_open: take 3C from P1 (P1 shows AC), under P3 (3D AS 3H 2S), take 2S: full, 2S aside; discard
    #   AC 2D 3H ...; 2S under P2 (AH); from P1: take 2C (P1 empty), under P2, take AH, under P3, take AS:
    #   P1 is empty, P2 shows 2S, P3 3D: blocked after 6.
    # * after_placed_pile: as first_open to the second discard (P3 comes after P2); 2S under P2, then from P3:
    #   take AS, under P1 (2S 2C), take 2C, under P2, take AH: every pile home, the third discard.  Won in 6.
    # Under fill, the empty P1 / P2 takes the card in hand instead of blocking, and the game goes on.
    deal = _deal_from_ranks({1: [2, 1, 3, 1], 2: [1, 2, 2, 3], 3: [1, 3, 2, 3]})
    assert format_cards(reference.deal_piles(deal)[0]) == "2C AC 3C AD"
    got = {a: _row(_play(deal, after_discard=a))[:2] for a in AFTER_DISCARD}
    assert got == {
        "placed_pile": ("won", 7),
        "after_last_taken": ("blocked", 7),
        "first_open": ("blocked", 6),
        "after_placed_pile": ("won", 6),
    }
    for a in ("after_last_taken", "first_open"):
        r = _play(deal, after_discard=a, empty_pile="fill")
        assert any(e.kind == "fill" for e in r.events) and r.outcome != "blocked"


def test_trace_shows_layout_moves_and_discards() -> None:
    deal = _deal_from_ranks({1: [2, 1, 3, 1], 2: [1, 2, 2, 3], 3: [1, 3, 2, 3]})
    lines = GAME.play_one(
        np.array(deal, dtype=np.uint8), GAME.rules(None, {"after_discard": "after_last_taken"}), True
    ).trace
    assert lines[:2] == ["layout (bottom to top; P13 is the centre):", "  P1  2C AC 3C AD"]
    text = "\n".join(lines)
    assert "take 3D from P2" in text
    assert "full clock (3D set aside): discard AD 2H 3S 4S 5S 6S 7S 8S 9S TS JS QS KS" in text
    assert "  place the set-aside card 3D under P3" in text and "  put 2S under P1, take 3C" in text
    assert lines[-1] == "blocked after move 7: no pile is open and the clock is not full (2 discards)"


def test_presets() -> None:
    assert GAME.rules("masten") == EightDayClockRules(after_discard="after_last_taken", empty_pile="fill_own")
    assert GAME.rules() == EightDayClockRules("placed_pile", "first_open", "pass")  # the first values


# --- input ---------------------------------------------------------------------------------------


def test_bad_values_are_refused() -> None:
    with pytest.raises(RuleError, match="switch 'after_discard': value 'next' is not allowed; allowed: placed_pile"):
        GAME.rules(None, {"after_discard": "next"})
    with pytest.raises(RuleError, match="switch 'start': value 'pile2' is not allowed"):
        GAME.rules(None, {"start": "pile2"})
    with pytest.raises(RuleError, match="switch 'empty_pile'"):
        GAME.rules(None, {"empty_pile": True})
    with pytest.raises(RuleError, match="switch 'strategy' is not known"):
        GAME.rules(None, {"strategy": "solver"})


def test_bad_values_exit_2_from_the_command_line(capsys) -> None:
    from pipeline_util import cli

    code, _, err = cli(
        ["play", "eight_day_clock", "--seed", "1", "--index", "0", "--set", "after_discard=next"], capsys
    )
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "after_discard" in err and "placed_pile" in err
    code, out, _ = cli(["play", "eight_day_clock", "--seed", "1", "--index", "0", "--trace"], capsys)
    assert code == 0 and "layout (bottom to top; P13 is the centre):" in out


def test_play_batch_refuses_a_deal_that_is_not_the_pack() -> None:
    deals = seeded_deals(DECK_52, 1, 0, 3).copy()
    deals[1, 0] = deals[1, 1]
    with pytest.raises(ValueError, match="deal 1 is not a permutation"):
        GAME.play_batch(deals, GAME.rules())
