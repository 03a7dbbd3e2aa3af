"""scripts/bench_solvitaire.py writes our deals in Solvitaire's deal format: pinned on a deal Solvitaire ships."""

import importlib.util
from pathlib import Path

import pytest

from engine.deals import microsoft_deal

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_solvitaire.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_solvitaire", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_microsoft_11982_is_written_as_solvitaire_ships_it(bench):
    # Solvitaire's resources/deal-presets/ImpossibleFreeCell11982.json: columns bottom first
    shipped = [["AH", "3D", "KD", "JC", "6C", "JD", "KC"], ["AS", "3H", "6H", "5D", "2C", "7D", "8D"],
               ["4H", "QS", "5S", "5C", "10H", "8H", "2S"], ["AC", "QC", "4D", "8C", "QH", "9C", "3S"],
               ["2D", "8S", "9H", "9D", "6D", "2H"], ["6S", "7H", "JH", "10D", "10C", "QD"],
               ["10S", "AD", "9S", "KH", "4S", "4C"], ["JS", "KS", "3C", "7C", "7S", "5H"]]
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
