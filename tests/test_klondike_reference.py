"""Thoughtful Klondike's readable reference: the layout, each rule on a hand-made position, the solution checker,
and the plain exhaustive search on small reduced decks (and that each rule switch changes what it should)."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from engine.cards import format_cards, make_deck, parse_card, parse_cards
from engine.reference import klondike as K


def deck(ranks: int) -> list[int]:
    """The canonical deck of ranks A.. (``ranks`` of them) of all four suits."""
    return [int(c) for c in make_deck(range(ranks))]


def seeded(ranks: int, seed: int) -> list[int]:
    """A reduced deck shuffled by Python's random with a fixed seed."""
    cards = deck(ranks)
    random.Random(seed).shuffle(cards)
    return cards


def table(*columns: str, stock: str = "", waste: str = "", foundations: str = "", ranks: int = 13) -> K.Table:
    """A hand-made position.  Columns are written as ``layout_lines`` shows them, bottom card first, face-down
    cards in brackets (``"[5C QH] 7S 6H"``; ``"-"`` an empty column); ``foundations`` names each top card."""
    cols, down = [], []
    for text in columns:
        hidden, _, shown = text.rpartition("]")
        cols.append(parse_cards(hidden.lstrip("[")) + parse_cards(shown.replace("-", "")))
        down.append(len(parse_cards(hidden.lstrip("["))))
    tops = [-1, -1, -1, -1]
    for c in parse_cards(foundations):
        tops[c // 13] = c % 13
    return K.Table(cols, down, parse_cards(stock), parse_cards(waste), tops, ranks)


def tokens(t: K.Table, rules) -> list[str]:
    return [str(m) for m in K.legal_moves(t, rules)]


def to_column(t: K.Table, rules, column: int) -> set[str]:
    """The legal moves onto column ``column`` (1-based)."""
    return {m for m in tokens(t, rules) if m.endswith(f">{column}")}


def play(t: K.Table, rules, line: str) -> K.Table:
    """Apply a line of moves to a hand-made position, each checked legal first."""
    for token in line.split():
        move = K.parse_move(token)
        assert K.illegal_reason(t, rules, move) is None, token
        t = K.apply(t, rules, move)
    return t


# A hand-checked 8-card deal, one column.  Column 1 holds 2C; the stock is AD 2D AH 2H AS 2S AC.  AD is the
# stock's first card on every pass and 2D the second, so a draw of 2 or more always covers AD with 2D; 2D leaves
# the waste only to its foundation (after AD) or into an empty column (2 is this deck's King), so with
# empty_column: none AD never plays: unsolvable with draw 3, whatever the redeals.  With draw 1 each card can be
# played as it is turned: the line below wins.
EIGHT = parse_cards("2C AD 2D AH 2H AS 2S AC")
EIGHT_RULES = K.Rules(draw=3, empty_column="none")
EIGHT_DRAW_ONE = K.Rules(draw=1, redeals=0, empty_column="none")
EIGHT_WIN = "D AD>F D 2D>F D AH>F D 2H>F D AS>F D 2S>F D AC>F 2C>F"


# --- the layout ------------------------------------------------------------------------------------------------


def test_the_layout_of_a_full_deal() -> None:
    deal = list(range(52))  # AC 2C ... KS: card i is dealt i-th
    t = K.deal_layout(deal)
    assert [len(c) for c in t.columns] == [1, 2, 3, 4, 5, 6, 7]
    assert t.face_down == [0, 1, 2, 3, 4, 5, 6]  # exactly each column's top is face up
    # row by row: row 1 is cards 0..6 (columns 1..7), row 2 cards 7..12 (columns 2..7), ..., row 7 card 27
    assert t.columns[0] == [0] and t.columns[1] == [1, 7] and t.columns[2] == [2, 8, 13]
    assert t.columns[6] == [6, 12, 17, 21, 24, 26, 27]
    assert len(t.stock) == 24 and t.stock == list(range(28, 52)) and format_cards(t.stock[:1]) == "3H"
    assert t.waste == [] and t.foundations == [-1, -1, -1, -1] and t.redeals_used == 0 and t.ranks == 13
    assert K.layout_lines(t)[-1] == "7: [7C KC 5D 9D QD AH] 2H"
    assert [str(m) for m in K.legal_moves(t, K.Rules())] == ["AC>F", "AC>7", "AD>F", "D"]
    shuffled = seeded(13, 2026)
    s = K.deal_layout(shuffled)
    assert [c[-1] for c in s.columns] == [shuffled[i] for i in (0, 7, 13, 18, 22, 25, 27)]
    assert s.stock[0] == shuffled[28] and K.apply(s, K.Rules(), K.DRAW).waste == shuffled[28:31]


def test_a_reduced_deck_with_three_columns_and_its_picture() -> None:
    t = K.deal_layout(deck(4), columns=3)  # AC 2C 3C 4C AD 2D 3D 4D AH ... 4S
    assert t.ranks == 4 and [len(c) for c in t.columns] == [1, 2, 3] and t.face_down == [0, 1, 2]
    assert format_cards(t.stock) == "3D 4D AH 2H 3H 4H AS 2S 3S 4S"
    assert K.layout_lines(t) == [
        "foundations  C:--  D:--  H:--  S:--",
        "stock 10  waste 0  (redeals made: 0)",
        "1: AC",
        "2: [2C] 4C",
        "3: [3C AD] 2D",
    ]
    t = play(t, K.Rules(), "AC>F D D 4C>1")  # 4 is this deck's King: it may fill the empty column
    assert K.layout_lines(t) == [
        "foundations  C:AC  D:--  H:--  S:--",
        "stock 4  waste 6: .. 2H 3H 4H  (redeals made: 0)",
        "1: 4C",
        "2: 2C",
        "3: [3C AD] 2D",
    ]


def test_bad_deals_and_bad_rules_are_refused() -> None:
    with pytest.raises(ValueError, match="not the lowest ranks"):
        K.deal_layout([*deck(4)[:-1], parse_card("5S")], columns=3)  # 4S swapped for 5S
    with pytest.raises(ValueError, match="not the lowest ranks"):
        K.deal_layout(deck(4)[1:], columns=3)
    with pytest.raises(ValueError, match="distinct"):
        K.deal_layout([*deck(2)[:-1], 0], columns=2)
    with pytest.raises(ValueError, match="need at least 28"):
        K.deal_layout(deck(4))  # 16 cards, 7 columns
    with pytest.raises(ValueError, match="need at least 6"):
        K.deal_layout(deck(1), columns=3)
    assert K.Rules() == K.Rules(
        draw=3, redeals="unlimited", worrying_back=True, empty_column="kings", build="alternate"
    )
    for bad in ({"draw": 0}, {"draw": 14}, {"redeals": -1}, {"redeals": "many"}, {"build": "down"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            K.Rules(**bad)
    with pytest.raises(ValueError, match="empty_column"):
        K.Rules(empty_column="queens")
    with pytest.raises(ValueError, match="worrying_back"):
        K.Rules(worrying_back="yes")


# --- each rule on a hand-made position ------------------------------------------------------------------------


def test_building_alternate_suit_and_any() -> None:
    t = table("8S", "7H", "7S", "7C", "6D")
    assert to_column(t, K.Rules(build="alternate"), 1) == {"7H>1"}
    assert to_column(t, K.Rules(build="suit"), 1) == {"7S>1"}
    assert to_column(t, K.Rules(build="any"), 1) == {"7H>1", "7S>1", "7C>1"}
    assert K.illegal_reason(t, K.Rules(), K.parse_move("7S>1")) == "7S does not build on 8S (build: alternate)"
    assert "does not build on 8S" in K.illegal_reason(t, K.Rules(build="any"), K.parse_move("6D>1"))  # rank
    assert to_column(t, K.Rules(), 3) == {"6D>3"} and to_column(t, K.Rules(build="suit"), 3) == set()


def test_empty_columns_kings_any_none() -> None:
    t = table("-", "[2C] KD", "[3C] QS", stock="5C", waste="KH", foundations="AH")
    assert to_column(t, K.Rules(empty_column="kings"), 1) == {"KD>1", "KH>1"}
    assert to_column(t, K.Rules(empty_column="any"), 1) == {"KD>1", "KH>1", "QS>1", "AH>1"}
    assert to_column(t, K.Rules(empty_column="none"), 1) == set()
    why = K.illegal_reason(t, K.Rules(), K.parse_move("QS>1"))
    assert why == "an empty column takes only a card of rank K (empty_column: kings)"
    assert "empty_column: none" in K.illegal_reason(t, K.Rules(empty_column="none"), K.parse_move("KD>1"))
    # a reduced deck's highest rank plays the King's part: here 4, and a King-less deck has no K to wait for
    small = table("-", "[AC] 4D", "[2C] 3S", ranks=4)
    assert to_column(small, K.Rules(), 1) == {"4D>1"}
    assert "rank 4" in K.illegal_reason(small, K.Rules(), K.parse_move("3S>1"))
    assert to_column(small, K.Rules(empty_column="any"), 1) == {"4D>1", "3S>1"}
    assert to_column(table("-", "[AC] 4D", ranks=13), K.Rules(), 1) == set()  # in a full deck 4D is no King


def test_a_run_moves_as_a_unit_and_the_card_under_it_is_turned() -> None:
    t = table("[AC 2C] 9H 8S 7D", "TS", "9D", "-", foundations="6D")
    rules = K.Rules(partial_runs="any")
    assert {"9H>2", "8S>3", "7D>F"} <= set(tokens(t, rules))
    after = K.apply(t, rules, K.parse_move("9H>2"))
    assert after.columns[:2] == [parse_cards("AC 2C"), parse_cards("TS 9H 8S 7D")] and after.face_down[:2] == [1, 0]
    assert K.describe(t, rules, K.parse_move("9H>2")) == (
        "9H and 2 cards on it from column 1 onto TS in column 2; 2C turned face up"
    )
    assert t.columns[0] == parse_cards("AC 2C 9H 8S 7D") and t.face_down[0] == 2  # apply left t as it was
    middle = K.apply(t, rules, K.parse_move("8S>3"))  # part of the run: nothing is uncovered
    assert middle.columns[0] == parse_cards("AC 2C 9H") and middle.face_down[0] == 2
    assert middle.columns[2] == parse_cards("9D 8S 7D")
    assert K.illegal_reason(t, rules, K.parse_move("AC>F")) == "AC is face down in column 1"
    assert "has cards on it" in K.illegal_reason(t, rules, K.parse_move("9H>F"))
    assert "already in column 1" in K.illegal_reason(t, rules, K.parse_move("8S>1"))
    emptied = play(table("[AC] 2D", "3S", foundations="AD"), rules, "2D>F")
    assert emptied.columns[0] == [parse_card("AC")] and emptied.face_down[0] == 0  # the last card turned
    whole = play(table("KS", "-"), rules, "KS>2")  # a whole column moves too (the plain search prunes nothing)
    assert whole.columns == [[], [parse_card("KS")]] and whole.face_down == [0, 0]


def test_partial_runs_uncovers_home_and_any() -> None:
    # 8S (with 7D) would leave 9H behind: only under partial_runs: any, since 9H cannot go home (8H is not
    # there); 7D alone would uncover 8S, which cannot either.  The whole run from 9H may always move.
    t = table("[AC 2C] 9H 8S 7D", "TS", "9D", "8C", foundations="6D")
    assert set(tokens(t, K.Rules(partial_runs="any"))) >= {"9H>2", "8S>3", "7D>4"}
    home_only = set(tokens(t, K.Rules()))
    assert "9H>2" in home_only and not {"8S>3", "7D>4"} & home_only
    why = K.illegal_reason(t, K.Rules(), K.parse_move("8S>3"))
    assert (
        why == "8S is part of a run: it may leave 9H only when that card goes home next (partial_runs: uncovers_home)"
    )
    # once 9H is next home, the part may go, and 9H then goes home
    t8 = table("[AC 2C] 9H 8S 7D", "TS", "9D", "8C", foundations="6D 8H")
    assert "8S>3" in tokens(t8, K.Rules()) and "9H>F" in tokens(play(t8, K.Rules(), "8S>3"), K.Rules())
    # into an empty column any part may move (empty_column: any), as in Solvitaire
    te = table("[AC 2C] 9H 8S 7D", "-", foundations="6D")
    assert {"8S>2", "7D>2"} <= set(tokens(te, K.Rules(empty_column="any")))


def test_draw_three_with_fewer_left_and_the_redeal_keeps_the_order() -> None:
    deal = seeded(4, 1)
    rules = K.Rules(draw=3)
    t = K.deal_layout(deal, columns=3)  # 10 cards in the stock
    order = deal[6:]
    assert t.stock == order
    t = play(t, rules, "D D D")
    assert t.waste == order[:9] and t.stock == order[9:]
    assert K.illegal_reason(t, rules, K.REDEAL) == "the stock is not empty (1 card): draw first"
    t = play(t, rules, "D")  # one card left: a draw of 3 turns it alone
    assert t.waste == order and t.stock == [] and t.waste[-1] == order[-1]
    assert K.illegal_reason(t, rules, K.DRAW) == "the stock is empty"
    assert "D" not in tokens(t, rules) and tokens(t, rules)[-1] == "R"
    t = play(t, rules, "R")
    assert t.stock == order and t.waste == [] and t.redeals_used == 1  # the first card drawn comes first again
    assert K.illegal_reason(t, rules, K.REDEAL) == "the stock is not empty (10 cards): draw first"
    short = play(table("KC", stock="2C 3C", waste="KD"), rules, "D")
    assert short.waste == parse_cards("KD 2C 3C") and short.stock == []
    assert K.describe(table("KC", stock="2C 3C"), rules, K.DRAW) == "draw 2: 2C 3C"
    assert K.illegal_reason(table("KC"), rules, K.REDEAL) == "the waste is empty: nothing to redeal"


def test_the_redeal_count() -> None:
    t = table("KC", waste="2C 3C")
    assert "R" not in tokens(t, K.Rules(redeals=0))
    assert K.illegal_reason(t, K.Rules(redeals=0), K.REDEAL) == "no redeal left (0 of 0 made)"
    once = K.Rules(redeals=1)
    assert tokens(t, once)[-1] == "R"
    again = play(t, once, "R D")
    assert again.redeals_used == 1 and again.stock == [] and "R" not in tokens(again, once)
    assert "R" in tokens(again, K.Rules())  # unlimited
    # the key holds the redeals made when they are counted, and leaves them out when unlimited
    assert K.key(again, K.Rules()) == K.key(t, K.Rules()) == K.key(play(t, K.Rules(), "R D R D"), K.Rules())
    assert K.key(again, once) != K.key(t, once) and K.key(again) != K.key(t)


def test_worrying_back_allowed_and_forbidden() -> None:
    t = table("6S", "-", foundations="5H 3C")
    assert to_column(t, K.Rules(worrying_back=True), 1) == {"5H>1"}
    assert to_column(t, K.Rules(worrying_back=True, empty_column="any"), 2) == {"6S>2", "5H>2", "3C>2"}
    assert to_column(t, K.Rules(worrying_back=False), 1) == set()
    why = K.illegal_reason(t, K.Rules(worrying_back=False), K.parse_move("5H>1"))
    assert why == "foundation cards never leave (worrying_back: false)"
    back = K.apply(t, K.Rules(), K.parse_move("5H>1"))
    assert back.foundations[2] == 3 and back.columns[0] == parse_cards("6S 5H")
    assert K.illegal_reason(t, K.Rules(), K.parse_move("4H>1")) == "4H is on its foundation under 5H"
    assert K.illegal_reason(t, K.Rules(), K.parse_move("5H>F")) == "5H is already on its foundation"


def test_only_the_waste_top_plays() -> None:
    t = table("8S", "TC", stock="4C", waste="9D 7H", foundations="6H")
    moves = set(tokens(t, K.Rules()))
    assert {"7H>1", "7H>F"} <= moves and not any(m.startswith("9D") for m in moves)
    assert K.illegal_reason(t, K.Rules(), K.parse_move("9D>2")) == (
        "9D is in the waste under 7H (only the waste's top plays)"
    )
    assert K.illegal_reason(t, K.Rules(), K.parse_move("4C>1")) == "4C is in the stock"
    t = play(t, K.Rules(), "7H>F")
    assert "9D>2" in tokens(t, K.Rules())


def test_legal_moves_in_the_documented_order() -> None:
    # column 1's face-up cards, then columns 2, 3, the waste's top, the foundations' tops; each to F, then 1..n
    t = table("[AC] 2D", "3S", "2C", stock="KC", waste="AH", foundations="AD")
    assert tokens(t, K.Rules()) == ["2D>F", "2D>2", "AH>F", "AH>3", "AD>3", "D"]
    assert K.legal_moves(table("-", foundations="AC AD AH AS", ranks=1), K.Rules()) == []  # won: nothing more


def test_illegal_moves_and_bad_tokens_are_refused_with_a_reason() -> None:
    t = table("8S", "7H", foundations="5H")
    rules = K.Rules()
    assert K.illegal_reason(t, rules, K.parse_move("7H>3")) == "no column 3 (columns 1..2)"
    assert K.illegal_reason(t, rules, K.parse_move("7H>F")) == "7H is not next on its foundation"
    won = table("-", foundations="AC AD AH AS", ranks=1)
    assert K.illegal_reason(won, rules, K.DRAW) == "the game is already won"
    for bad, why in (("XX>1", "unknown card"), ("7H>0", "bad target"), ("7H>G", "bad target"), ("7H", "expected")):
        with pytest.raises(ValueError, match=why):
            K.parse_move(bad)
    assert K.parse_move("10h>f") == K.card_move(parse_card("TH"), None) and str(K.parse_move("d")) == "D"
    moves = [K.DRAW, K.REDEAL, K.card_move(parse_card("7H"), 3), K.card_move(parse_card("7H"), None)]
    assert K.solution_text(moves) == "D R 7H>4 7H>F" and K.parse_solution("D R 7H>4 7H>F") == moves
    with pytest.raises(ValueError, match="move 2 'Q'"):
        K.parse_solution("D Q")


def test_check_solution_on_the_hand_checked_deal() -> None:
    assert K.check_solution(EIGHT, EIGHT_DRAW_ONE, EIGHT_WIN, columns=1) is None
    # any object with the six attributes will do as rules
    namespace = SimpleNamespace(
        draw=1, redeals=0, worrying_back=True, empty_column="none", build="alternate", partial_runs="any"
    )
    assert K.check_solution(EIGHT, namespace, EIGHT_WIN, columns=1) is None
    words = EIGHT_WIN.split()
    removed = " ".join(words[:2] + words[3:])  # the second draw left out
    assert K.check_solution(EIGHT, EIGHT_DRAW_ONE, removed, columns=1) == "move 3 '2D>F': 2D is in the stock"
    changed = EIGHT_WIN.replace("2S>F", "2S>1")
    assert K.check_solution(EIGHT, EIGHT_DRAW_ONE, changed, columns=1) == (
        "move 12 '2S>1': 2S does not build on 2C (build: alternate)"
    )
    assert K.check_solution(EIGHT, EIGHT_DRAW_ONE, " ".join(words[:-1]), columns=1) == (
        "not won: 1 card off the foundations after 14 moves"
    )
    assert K.check_solution(EIGHT, EIGHT_DRAW_ONE, EIGHT_WIN + " D", columns=1) == (
        "move 16 'D': the game is already won"
    )
    assert K.check_solution(EIGHT, EIGHT_DRAW_ONE, "D AD>F 2D", columns=1).startswith("move 3 '2D': expected")
    assert (
        K.check_solution(EIGHT, EIGHT_DRAW_ONE, "", columns=1) == "not won: 8 cards off the foundations after 0 moves"
    )
    assert K.check_solution(EIGHT, EIGHT_RULES, "D D D D", columns=1) == "move 4 'D': the stock is empty"
    after, why = K.replay_solution(EIGHT, EIGHT_DRAW_ONE, "D AD>F D", columns=1)
    assert why is None and after.foundations == [-1, 0, -1, -1] and after.waste == [parse_card("2D")]
    after, why = K.replay_solution(EIGHT, EIGHT_DRAW_ONE, "D AD>F 2D>F", columns=1)
    assert why == "move 3 '2D>F': 2D is in the stock" and after.foundations == [-1, 0, -1, -1]  # after move 2
    # the verdicts, by the plain search: a draw of 3 never frees AD, a draw of 1 wins
    assert K.exhaustive_search(EIGHT, EIGHT_RULES, columns=1) == ("unsolvable", None)
    assert K.exhaustive_search(EIGHT, K.Rules(draw=3, redeals=0, empty_column="none"), columns=1)[0] == "unsolvable"
    assert K.exhaustive_search(EIGHT, K.Rules(draw=2, empty_column="none"), columns=1)[0] == "unsolvable"
    verdict, line = K.exhaustive_search(EIGHT, EIGHT_DRAW_ONE, columns=1)
    assert verdict == "won" and K.check_solution(EIGHT, EIGHT_DRAW_ONE, line, columns=1) is None


def test_check_solution_refuses_a_corrupted_search_line() -> None:
    deal, rules = seeded(4, 3), K.Rules()
    verdict, line = K.exhaustive_search(deal, rules, columns=3, limit=20_000)
    assert verdict == "won" and K.check_solution(deal, rules, line, columns=3) is None
    words = line.split()
    assert K.check_solution(deal, rules, " ".join(words[1:]), columns=3) is not None  # the first move left out
    refused = sum(
        K.check_solution(deal, rules, " ".join(words[:k] + words[k + 1 :]), columns=3) is not None
        for k in range(len(words))
    )
    assert refused > len(words) // 2  # most moves cannot be left out (a few, e.g. a pointless draw, can)
    for k, word in enumerate(words):  # the first move onto a column sent to a column beside it instead
        if ">" in word and not word.endswith("F"):
            card, column = word.split(">")
            other = f"{card}>{int(column) % 3 + 1}"
            assert K.check_solution(deal, rules, " ".join([*words[:k], other, *words[k + 1 :]]), columns=3) is not None
            break
    assert K.check_solution(deal, rules, " ".join(words[:-1]), columns=3).startswith("not won: 1 card off")


def test_the_trace() -> None:
    lines = K.trace_lines(EIGHT, EIGHT_DRAW_ONE, EIGHT_WIN, columns=1)
    assert lines[:4] == [
        "deal:",
        "  foundations  C:--  D:--  H:--  S:--",
        "  stock 7  waste 0  (redeals made: 0)",
        "  1: 2C",
    ]
    assert lines[4:6] == ["   1. D      draw 1: AD", "   2. AD>F   AD from the waste to its foundation"]
    assert lines[-6:] == [
        "  15. 2C>F   2C from column 1 to its foundation",
        "after the line:",
        "  foundations  C:2C  D:2D  H:2H  S:2S",
        "  stock 0  waste 0  (redeals made: 0)",
        "  1: -",
        "won in 15 moves",
    ]
    assert len(lines) == 4 + 15 + 5
    refused = K.trace_lines(EIGHT, EIGHT_RULES, "D 2C>F", columns=1)
    assert refused[-2:] == ["   1. D      draw 3: AD 2D AH", "refused: move 2 '2C>F': 2C is not next on its foundation"]
    lost = K.trace_lines(EIGHT, EIGHT_RULES, "D AH>1 D D R", columns=1)
    assert lost[8] == "   5. R      redeal 1: the waste turned over, 6 cards in the stock"
    assert lost[-3:] == ["  stock 6  waste 0  (redeals made: 1)", "  1: 2C AH", "not won: 8 cards left"]


SWITCHES = {
    "draw": (1, 2, 3),
    "redeals": (0, 1, "unlimited"),
    "worrying_back": (True, False),
    "empty_column": ("kings", "any", "none"),
    "build": ("alternate", "suit", "any"),
    "partial_runs": ("uncovers_home", "any"),
}


def _check_invariants(t: K.Table, rules: K.Rules, deal: list[int]) -> None:
    """What every reachable position keeps: the cards are the deck's, each once; a non-empty column's top is face
    up; above a column's bottom face-up card every card is built on the one below it; legal_moves is exactly the
    set of moves illegal_reason lets through, taken over every token there is."""
    on_foundations = [s * 13 + r for s in range(4) for r in range(t.foundations[s] + 1)]
    cards = [c for col in t.columns for c in col] + t.stock + t.waste + on_foundations
    assert sorted(cards) == sorted(deal)
    for col, down in zip(t.columns, t.face_down, strict=True):
        assert 0 <= down < len(col) or down == 0 == len(col)
        assert all(K.builds_on(col[i + 1], col[i], rules.build) for i in range(down, len(col) - 1))
    universe = [K.card_move(c, target) for c in deal for target in [None, *range(len(t.columns))]]
    universe += [K.DRAW, K.REDEAL]
    assert K.legal_moves(t, rules) == [m for m in K.legal_moves(t, rules) if m in universe]
    assert set(K.legal_moves(t, rules)) == {m for m in universe if K.illegal_reason(t, rules, m) is None}
    assert K.won(t) == (K.cards_off(t) == 0)


@pytest.mark.parametrize(("ranks", "columns", "walks", "steps"), [(4, 3, 12, 80), (13, 7, 5, 60)])
def test_random_walks_keep_the_invariants(ranks: int, columns: int, walks: int, steps: int) -> None:
    rng = random.Random(53)
    seen = set()  # what the walks did: where the cards moved came from, redeals
    for _ in range(walks):
        rules = K.Rules(**{name: rng.choice(values) for name, values in SWITCHES.items()})
        deal = seeded(ranks, rng.randrange(10**6))
        t, line = K.deal_layout(deal, columns), []
        for _ in range(steps):
            _check_invariants(t, rules, deal)
            moves = K.legal_moves(t, rules)
            if not moves:
                break
            move = rng.choice(moves)
            seen.add(K.where(t, move.card)[0] if move.kind == "card" else move.kind)
            before = K.key(t)
            line.append(move)
            t = K.apply(t, rules, move)
            assert K.key(t) != before
        replayed, why = K.replay_solution(deal, rules, K.solution_text(line), columns=columns)
        assert why is None and K.key(replayed) == K.key(t)
    assert seen == {"column", "waste", "foundation", "draw", "redeal"}


# --- the plain search on small reduced decks --------------------------------------------------------------------


def test_the_plain_search_finds_both_verdicts_and_every_win_replays() -> None:
    verdicts = []
    for ranks, columns, rules, seeds in ((3, 2, K.Rules(redeals=0), range(16)), (4, 3, K.Rules(), range(4))):
        for seed in seeds:
            deal = seeded(ranks, seed)
            verdict, line = K.exhaustive_search(deal, rules, columns=columns, limit=20_000)
            verdicts.append(verdict)
            if verdict == "won":
                assert K.check_solution(deal, rules, line, columns=columns) is None
            else:
                assert line is None
    assert set(verdicts) == {"won", "unsolvable"}
    assert K.exhaustive_search(seeded(4, 0), K.Rules(), columns=3, limit=10) == ("unknown", None)


def _first_difference(ranks: int, columns: int, fewer: K.Rules, more: K.Rules, seeds: range) -> int | None:
    """The first seed whose deal ``more`` wins and ``fewer`` does not.  ``more`` allows every line of play that
    ``fewer`` does, so it must never lose a deal ``fewer`` wins: checked on every deal scanned."""
    for seed in seeds:
        deal = seeded(ranks, seed)
        a = K.exhaustive_search(deal, fewer, columns=columns, limit=20_000)[0]
        b = K.exhaustive_search(deal, more, columns=columns, limit=20_000)[0]
        assert not (a == "won" and b == "unsolvable"), seed
        if (a, b) == ("unsolvable", "won"):
            return seed
    return None


def _sources(deal: list[int], rules: K.Rules, line: str, columns: int) -> list[str]:
    """Where each card moved by a line came from: "column", "waste" or "foundation"."""
    t, out = K.deal_layout(deal, columns), []
    for move in K.parse_solution(line):
        if move.kind == "card":
            out.append(K.where(t, move.card)[0])
        t = K.apply(t, rules, move)
    return out


def test_build_any_and_suit_against_alternate() -> None:
    assert _first_difference(3, 2, K.Rules(build="alternate"), K.Rules(build="any"), range(30)) is not None
    # suit and alternate are not nested: each wins a deal the other loses
    found = set()
    for seed in range(20):
        deal = seeded(3, seed)
        pair = (K.exhaustive_search(deal, K.Rules(redeals=0, build=b), columns=2)[0] for b in ("alternate", "suit"))
        found.add(tuple(pair))
    assert {("won", "unsolvable"), ("unsolvable", "won")} <= found


def test_empty_column_any_kings_and_none() -> None:
    assert _first_difference(3, 1, K.Rules(redeals=0), K.Rules(redeals=0, empty_column="any"), range(10)) is not None
    assert _first_difference(3, 2, K.Rules(empty_column="none"), K.Rules(), range(5)) is not None


def test_worrying_back_wins_a_deal_that_is_lost_without_it() -> None:
    seed = _first_difference(3, 1, K.Rules(worrying_back=False), K.Rules(), range(10))
    assert seed is not None
    verdict, line = K.exhaustive_search(seeded(3, seed), K.Rules(), columns=1)
    assert verdict == "won" and "foundation" in _sources(seeded(3, seed), K.Rules(), line, 1)


def test_draw_one_and_draw_three_differ() -> None:
    # Three draws of one leave the stock and waste as one draw of three does, so draw 1 can play every line
    # draw 3 can (the redeals made are the same): it never loses a deal draw 3 wins.
    assert _first_difference(3, 2, K.Rules(draw=3), K.Rules(draw=1), range(30)) is not None
    assert _first_difference(3, 2, K.Rules(draw=3, redeals=0), K.Rules(draw=1, redeals=0), range(10)) is not None


def test_redeals_zero_one_and_unlimited_differ() -> None:
    assert _first_difference(3, 2, K.Rules(redeals=0), K.Rules(), range(10)) is not None
    assert _first_difference(3, 2, K.Rules(redeals=0), K.Rules(redeals=1), range(10)) is not None
    assert _first_difference(4, 1, K.Rules(redeals=1), K.Rules(), range(30)) is not None
