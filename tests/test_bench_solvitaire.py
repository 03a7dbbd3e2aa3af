"""scripts/bench_solvitaire.py writes our deals in Solvitaire's deal format: pinned on a deal Solvitaire ships."""

import importlib.util
from pathlib import Path

import pytest

from engine.deals import microsoft_deal
from engine.outcomes import UNKNOWN, UNSOLVABLE, WON

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_solvitaire.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_solvitaire", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_microsoft_11982_is_written_as_solvitaire_ships_it(bench):
    # Solvitaire's resources/deal-presets/ImpossibleFreeCell11982.json: columns bottom first
    shipped = [
        ["AH", "3D", "KD", "JC", "6C", "JD", "KC"],
        ["AS", "3H", "6H", "5D", "2C", "7D", "8D"],
        ["4H", "QS", "5S", "5C", "10H", "8H", "2S"],
        ["AC", "QC", "4D", "8C", "QH", "9C", "3S"],
        ["2D", "8S", "9H", "9D", "6D", "2H"],
        ["6S", "7H", "JH", "10D", "10C", "QD"],
        ["10S", "AD", "9S", "KH", "4S", "4C"],
        ["JS", "KS", "3C", "7C", "7S", "5H"],
    ]
    assert bench.deal_file("freecell", {}, microsoft_deal(11982)) == {"tableau piles": shipped}


def test_king_albert_writes_its_reserve_and_rows_with_dealt_cells_are_refused(bench):
    deal = microsoft_deal(1)
    written = bench.deal_file("king_albert", {}, deal)
    assert [len(c) for c in written["tableau piles"]] == list(range(1, 10))  # ours 1..9; Solvitaire's own 9..1
    assert len(written["reserve"]) == 7
    cards = [c for col in written["tableau piles"] for c in col] + written["reserve"]
    assert len(set(cards)) == 52
    with pytest.raises(ValueError, match="no cells"):
        bench.deal_file("eight_off", {}, deal)


def test_the_final_verdict_is_the_last_field_of_a_classify_line(bench):
    # The first two are Solvitaire's own output, smart-solvability (FreeCell, seed 99 deal 16 of ours): with 2
    # cells its streamlined pass wins; with 1 cell the streamlined pass runs out of states ("unsolvable", which
    # proves nothing) and the exact pass proves it unsolvable.  The other two are written in the same format: the
    # streamlined pass runs out and the exact pass wins (its counts those of 2 cells deal 9363's exact search), and
    # both passes time out.
    two = ", solved, 49, 19048, 8096, 18228, 2775, 0, 5321, 6151, 820, 820, , , , , , , , , , , , solved"
    one = (
        ", unsolvable, 45, 19962, 6445, 19961, 581, 0, 5864, 6151, 176, 0, unsolvable, 136, 92212, 27502, 92211, "
        "1671, 0, 25831, 49157, 344, 0, unsolvable"
    )
    late = (
        ", unsolvable, 30, 260735, 80000, 260734, 581, 0, 260735, 393241, 176, 0, solved, 91066, 36889915, "
        "12289478, 36889914, 864368, 0, 11425110, 12582917, 1209245, 1209245, solved"
    )
    timed = ", timed-out, 30000, 1, 1, 1, 1, 0, 1, 1, 1, 1, timed-out, 300000, 1, 1, 1, 1, 0, 1, 1, 1, 1, timed-out"
    assert [bench.final_verdict(x) for x in (two, one, late, timed)] == [WON, UNSOLVABLE, WON, UNKNOWN]
