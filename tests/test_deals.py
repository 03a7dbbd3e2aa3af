"""The deal generator is pinned by golden vectors and by an independent implementation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import DECK_52, DECK_AMAZONS, format_card, format_cards, parse_card, parse_cards
from engine.deals import (
    DealError,
    microsoft_deal,
    parse_deal,
    parse_number_ranges,
    read_deals_file,
    seeded_deal,
    seeded_deals,
)

M64 = (1 << 64) - 1

GOLDEN = {
    (0, 0): "QD JD 5D 5C 6D AD QH 6C 8D TC 2D AS TH AH KC 9S 3D 8S 4C 5S 8C 7H 2C TD TS JS 2S AC 3H KS 3C KD "
    "7S 9D 4S JC QS 9H 8H 7C 7D 6S JH 4H KH 9C 4D QC 5H 6H 3S 2H",
    (2009, 7): "QS 5S AS 2C JD 7D 5C 6D 4S 6S 8C 3C QH AH TS JS TH 8D 4D 9H KS QC 5D TD 6C QD 3D KD 2S 8H 7H "
    "KH TC 7C 9D 6H 4C 4H 7S JH 3S 2H 9C AD 8S JC 2D 5H 9S 3H KC AC",
}


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def independent_deal(deck: list[int], seed: int, index: int) -> list[int]:
    """DESIGN section 3 written again with Python integers, as a check on the compiled one."""
    x = _mix((seed + 0x9E3779B97F4A7C15) & M64) ^ index
    a = list(deck)
    for i in range(len(a) - 1, 0, -1):
        b = i + 1
        t = (2**64 - b) % b
        while True:
            x = (x + 0x9E3779B97F4A7C15) & M64
            r = _mix(x)
            if r >= t:
                break
        j = r % b
        a[i], a[j] = a[j], a[i]
    return a


@pytest.mark.parametrize(("key", "text"), GOLDEN.items())
def test_golden_vectors(key, text):
    seed, index = key
    assert format_cards(seeded_deal(DECK_52, seed, index)) == text
    assert independent_deal(list(DECK_52), seed, index) == parse_cards(text)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, M64), index=st.integers(0, M64 - 8), amazons=st.booleans())
def test_matches_independent_implementation(seed, index, amazons):
    deck = DECK_AMAZONS if amazons else DECK_52
    got = seeded_deals(deck, seed, index, 3)
    for k in range(3):
        assert got[k].tolist() == independent_deal(list(deck), seed, index + k)


def test_batch_boundaries_do_not_change_deals():
    whole = seeded_deals(DECK_52, 42, 100, 50)
    parts = np.concatenate([seeded_deals(DECK_52, 42, 100 + a, b - a) for a, b in [(0, 7), (7, 31), (31, 50)]])
    assert np.array_equal(whole, parts)


def test_deals_are_permutations_of_the_deck():
    for deck in (DECK_52, DECK_AMAZONS):
        d = seeded_deals(deck, 7, 0, 200)
        assert d.dtype == np.uint8 and d.shape == (200, len(deck))
        assert (np.sort(d, axis=1) == np.sort(deck)).all()


def test_accepts_read_only_deck():
    deck = np.array(DECK_52)
    deck.flags.writeable = False
    assert np.array_equal(seeded_deals(deck, 0, 0, 1)[0], seeded_deal(DECK_52, 0, 0))


def test_card_text_round_trip_and_ten():
    assert [format_card(c) for c in range(52)][:3] == ["AC", "2C", "3C"]
    assert parse_card("10d") == parse_card("TD")
    assert parse_card(" qs ") == 51 - 1
    assert format_cards(parse_cards("AC KS TD")) == "AC KS TD"


def test_seed_out_of_range():
    with pytest.raises(ValueError, match="seed"):
        seeded_deals(DECK_52, -1, 0, 1)
    with pytest.raises(ValueError, match="seed"):
        seeded_deals(DECK_52, 2**64, 0, 1)


def test_microsoft_deal_one():
    assert format_cards(microsoft_deal(1)[:8]) == "JD 2D 9H JC 5D 7H 7C 5H"
    assert sorted(microsoft_deal(11982).tolist()) == list(range(52))


def test_number_ranges():
    assert parse_number_ranges("1-3,11982, 2") == [1, 2, 3, 11982]
    with pytest.raises(ValueError):
        parse_number_ranges("5-1")


def test_deals_file(tmp_path):
    p = tmp_path / "deals.txt"
    d0 = format_cards(seeded_deal(DECK_52, 1, 0))
    d1 = format_cards(seeded_deal(DECK_52, 1, 1))
    p.write_text(f"# two deals\n\n{d0}\n   \n{d1}\n")
    got = read_deals_file(p, DECK_52)
    assert got.shape == (2, 52) and format_cards(got[1]) == d1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("XX", "unknown card 'XX'"),
        ("dup", "appears twice"),
        ("short", "51 cards"),
        ("king", "not in this game's 28-card deck"),
    ],
)
def test_deals_file_errors_name_file_line_and_problem(tmp_path, line, message):
    deck = DECK_AMAZONS if line == "king" else DECK_52
    good = seeded_deal(deck, 3, 0).tolist()
    bad = {
        "XX": format_cards(good[:-1]) + " XX",
        "dup": format_cards(good[:-1] + [good[0]]),
        "short": format_cards(good[:-1]),
        "king": format_cards(good[:-1]) + " KS",
    }[line]
    p = tmp_path / "bad.txt"
    p.write_text(f"# header\n{format_cards(good)}\n{bad}\n")
    with pytest.raises(DealError) as err:
        read_deals_file(p, deck)
    assert str(p) in str(err.value) and "line 3" in str(err.value) and message in str(err.value)


def test_parse_deal_rejects_wrong_deck():
    with pytest.raises(DealError, match="not in this game's 28-card deck"):
        parse_deal(format_cards(DECK_52[:28]), DECK_AMAZONS)
