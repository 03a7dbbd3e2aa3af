"""Auld Lang Syne and Tam O'Shanter: kernel against reference, solver against a plain search, and known deals.

* The greedy kernel (engine/four_piles.py) equals the readable reference deal by deal on every
  combination of the switches, for both games, on seeded deals and on nearly sorted ones (seeded deals are
  almost never won, so nearly sorted deals make sure wins are compared too).
* The free-play solver agrees on won / unsolvable with a deliberately plain exhaustive search (every legal
  play to every foundation that takes it, in every order, and the next deal; no pruning but a set of full
  positions) on hundreds of reduced-deck deals, every switch combination; its wins replay in the reference.
* Solver wins include every greedy win on the same deals; under same_suit they are the same deals (every play
  is safe there: the proof is in the module docstring).
* Hand-checked deals, the trace, and bad values refused (exit 2 and one line from the CLI).
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from pipeline_util import cli

from engine.cards import DECK_52, format_cards, parse_cards
from engine.deals import seeded_deals
from engine.games import four_piles
from engine.games.four_piles import FourPilesRules
from engine.outcomes import OUTCOMES, UNSOLVABLE, WON, SolverError
from engine.reference import auld_lang_syne as reference
from engine.registry import get_game
from engine.rules import RuleError

GAMES = {"auld_lang_syne": True, "tam_o_shanter": False}  # name -> aces_start
SWITCHES = {"build": ("any_suit", "same_suit"), "piles": (4, 6), "mid_deal_plays": (False, True)}
COMBOS = [dict(zip(SWITCHES, v, strict=True)) for v in itertools.product(*SWITCHES.values())]
COMBO_IDS = [",".join(f"{k}={v}" for k, v in c.items()) for c in COMBOS]
COLUMNS = ("outcome", "rounds", "moves", "cards_left", "foundations_done")


def nearly_sorted(rng: random.Random, cards: list[int], spread: float) -> list[int]:
    """The cards in rank order, each rank shuffled about ``spread`` ranks either way (wins happen often)."""
    return sorted(cards, key=lambda c: c % 13 + rng.uniform(-spread, spread))


def mixed_deals(seed: int, count: int) -> np.ndarray:
    """Half seeded deals, half nearly sorted ones."""
    rng = random.Random(seed)
    seeded = seeded_deals(DECK_52, seed, 0, count // 2)
    sorted_ = [nearly_sorted(rng, list(range(52)), rng.choice((0.6, 1.2, 2.0))) for _ in range(count - count // 2)]
    return np.concatenate([seeded, np.array(sorted_, dtype=np.uint8)])


def _kernel_rows(game: str, deals: np.ndarray, rules: FourPilesRules) -> list[dict]:
    out = get_game(game).play_batch(deals, rules)
    return [
        {c: (OUTCOMES[int(out[c][i])] if c == "outcome" else int(out[c][i])) for c in COLUMNS}
        for i in range(deals.shape[0])
    ]


# --- greedy: kernel against reference ---------------------------------------------------------


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("combo", COMBOS, ids=COMBO_IDS)
def test_greedy_kernel_matches_reference(game: str, combo: dict) -> None:
    rules = get_game(game).rules(overrides=combo)
    deals = mixed_deals(COMBOS.index(combo) + 100 * GAMES[game], 160)
    got = _kernel_rows(game, deals, rules)
    outcomes = set()
    for deal, row in zip(deals, got, strict=True):
        want = reference.play([int(c) for c in deal], rules, GAMES[game]).row()
        assert row == {c: want[c] for c in COLUMNS}, f"{rules}\ndeal {format_cards(deal)}"
        outcomes.add(row["outcome"])
    assert outcomes == {"won", "blocked"}  # both outcomes compared, so the test is not vacuous


def test_greedy_events_conserve_cards_and_build_in_order() -> None:
    """Replay the reference's events: a play takes a pile's top card onto a foundation that takes it."""
    rng = random.Random(5)
    for game, aces in GAMES.items():
        for combo in COMBOS:
            rules = get_game(game).rules(overrides=combo)
            for _ in range(6):
                deal = nearly_sorted(rng, list(range(52)), 1.5)
                result = reference.play(deal, rules, aces, record=True)
                piles = [[] for _ in range(rules.piles)]
                fnd = [[13 * s] for s in range(4)] if aces else [[], [], [], []]
                dealt = 0
                for e in result.events:
                    d = e.data
                    if e.kind == "deal":
                        assert d["pile"] == dealt % rules.piles
                        piles[d["pile"]].append(d["card"])
                        dealt += 1
                    elif e.kind == "play":
                        c, p, i = d["card"], d["pile"], d["foundation"]
                        assert piles[p][-1] == c
                        f = fnd[i]
                        assert (not f and c % 13 == 0) or (f and f[-1] % 13 + 1 == c % 13)
                        if f and rules.build == "same_suit":
                            assert f[0] // 13 == c // 13
                        # greedy: the leftmost foundation that takes it
                        assert not any(reference.Table.takes(_view(fnd, rules), j, c) for j in range(i))
                        fnd[i].append(piles[p].pop())
                assert sorted(sum(piles, []) + sum(fnd, [])) == list(range(52))
                assert result.moves == sum(map(len, fnd)) - (4 if aces else 0)


def _view(fnd, rules):
    """A stand-in table for Table.takes (only foundations and rules are read)."""
    t = object.__new__(reference.Table)
    t.foundations, t.rules = fnd, rules
    return t


# --- the plain exhaustive search ---------------------------------------------------------------


class TooBig(Exception):
    """The plain search met more positions than its budget."""


def plain_search(
    deal: list[int], rules: FourPilesRules, aces_start: bool, budget: int = 30_000, start: tuple | None = None
) -> bool:
    """Can the deal be won under free play?  Every legal play to every foundation that takes it, in every
    order, and the next deal; a position already searched is not searched again (stored whole, with the
    foundations in sorted order: which place a foundation stands in changes nothing).  Nothing else: no
    safe plays, no dead-position test, no played-set encoding.  ``start``: (dealt, piles, foundations) to
    search from a position of the game instead of its beginning."""
    stock = [c for c in deal if not (aces_start and c % 13 == 0)]
    n = len(stock)
    points = reference.play_points(n, rules)
    seen: set = set()

    def takes(f: tuple, c: int) -> bool:
        if not f:
            return c % 13 == 0
        return f[-1] % 13 + 1 == c % 13 and (rules.build == "any_suit" or f[0] // 13 == c // 13)

    def search(t: int, piles: tuple, fnd: tuple) -> bool:
        if sum(map(len, fnd)) == len(deal):
            return True
        key = (t, piles, tuple(sorted(fnd)))
        if key in seen:
            return False
        seen.add(key)
        if len(seen) > budget:
            raise TooBig
        for p, pile in enumerate(piles):
            if pile:
                for i, f in enumerate(fnd):
                    if takes(f, pile[-1]):
                        np_ = piles[:p] + (pile[:-1],) + piles[p + 1 :]
                        nf = fnd[:i] + (f + (pile[-1],),) + fnd[i + 1 :]
                        if search(t, np_, nf):
                            return True
        if t < n:
            nxt = min(x for x in points if x > t)
            ps = [list(x) for x in piles]
            for k in range(t, nxt):
                ps[k % rules.piles].append(stock[k])
            if search(nxt, tuple(map(tuple, ps)), fnd):
                return True
        return False

    if start is not None:
        return search(*start)
    fnd0 = tuple((13 * s,) for s in range(4)) if aces_start else ((), (), (), ())
    return search(0, tuple(() for _ in range(rules.piles)), fnd0)


def random_position(
    rng: random.Random, deal: list[int], rules: FourPilesRules, aces_start: bool, deals_left: int, keen: float = 0.95
):
    """Play the deal by a random player (a legal play taken with probability ``keen``, else none more) until
    ``deals_left`` play points remain; the position as (dealt, piles, foundations) and as the played-set bit mask."""
    t = reference.Table(deal, rules, aces_start)
    points = reference.play_points(len(t.stock), rules)
    stop = points[max(0, len(points) - 1 - deals_left)]
    for point in points:
        while t.dealt < point:
            t.deal_card()
        while rng.random() < keen:
            moves = [(p, i) for p, pile in enumerate(t.piles) if pile for i in range(4) if t.takes(i, pile[-1])]
            if not moves:
                break
            t.play(*rng.choice(moves))
        if point == stop:
            break
    mask = sum(1 << c for f in t.foundations for c in f)
    return (t.dealt, tuple(map(tuple, t.piles)), tuple(map(tuple, t.foundations))), mask, t


def reduced_deal(rng: random.Random, nranks: int) -> list[int]:
    """A shuffled deck of ranks A..(nranks) in four suits; sometimes nearly sorted so wins are common."""
    cards = [s * 13 + r for s in range(4) for r in range(nranks)]
    if rng.random() < 0.3:
        return nearly_sorted(rng, cards, rng.choice((0.8, 1.5)))
    rng.shuffle(cards)
    return cards


def solve_reduced(deal: list[int], rules: FourPilesRules, aces_start: bool) -> tuple[int, list]:
    stock = np.array(reference.stock_of(deal, aces_start), dtype=np.uint8)
    mask0 = sum(1 << c for c in deal if aces_start and c % 13 == 0)
    code, _, _, _, plays, _ = four_piles.solve_stock(stock, mask0, len(deal), rules)
    return code, plays


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("combo", COMBOS, ids=COMBO_IDS)
def test_solver_agrees_with_plain_search_near_the_end_of_full_deals(game: str, combo: dict) -> None:
    """Full 52-card deals played by a random player (who sometimes stops playing) to one, two or three deals
    before the end: 14 positions or more a combination and game, 448 or more in all, both verdicts in each.  A
    position whose plain search passes 20,000 positions is replaced by another (counted)."""
    aces = GAMES[game]
    rng = random.Random(31 * COMBOS.index(combo) + aces)
    rules = FourPilesRules(strategy="solver", **combo)
    verdicts: list[bool] = []
    skipped = 0
    while len(verdicts) < 14 or (len(set(verdicts)) < 2 and len(verdicts) < 60):
        deal = nearly_sorted(rng, list(range(52)), rng.choice((0.2, 0.5, 1.0, 1.5, 2.5, 4.0)))
        left = rng.choice((1, 2, 3)) * (rules.piles if rules.mid_deal_plays else 1)
        start, mask, table = random_position(rng, deal, rules, aces, left, 0.6 if rules.mid_deal_plays else 0.95)
        try:
            want = plain_search(deal, rules, aces, budget=20_000, start=start)
        except TooBig:
            skipped += 1
            assert skipped <= 10
            continue
        stock = np.array(table.stock, dtype=np.uint8)
        code, _, _, _, plays, _ = four_piles.solve_stock(stock, mask, 52, rules, t0=start[0])
        assert (code == WON) == want, f"{rules} aces_start={aces}\ndeal {format_cards(deal)}\nstart {start}"
        verdicts.append(want)
    assert set(verdicts) == {True, False}


@pytest.mark.parametrize("combo", COMBOS, ids=COMBO_IDS)
def test_solver_agrees_with_plain_search_on_reduced_decks(combo: dict) -> None:
    """20 deals a combination (10 per game), 320 in all, of 4 to 6 ranks (16 to 24 cards).  A deal whose plain
    search passes 30,000 positions is replaced by another (counted).  Small decks are mostly won (with six piles
    all of them); the positions near the end of full deals below give both verdicts in every combination."""
    rng = random.Random(COMBOS.index(combo))
    rules = FourPilesRules(strategy="solver", **combo)
    skipped = 0
    for aces in (True, False):
        done = 0
        while done < 10:
            deal = reduced_deal(rng, rng.choice((4, 5, 6)))
            try:
                want = plain_search(deal, rules, aces)
            except TooBig:
                skipped += 1
                assert skipped <= 10
                continue
            done += 1
            code, plays = solve_reduced(deal, rules, aces)
            assert code in (WON, UNSOLVABLE)
            assert (code == WON) == want, f"{rules} aces_start={aces}\ndeal {format_cards(deal)}"
            if code == WON:  # the solution, located and replayed by the reference
                text = four_piles.solution_text(deal, rules, aces, plays)
                why, _ = reference.replay(deal, rules, aces, text)
                assert why is None, why


# --- solver on full deals: replay, dominance, same_suit equals greedy ---------------------------


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("combo", COMBOS, ids=COMBO_IDS)
def test_solver_wins_every_greedy_win_and_replays(game: str, combo: dict) -> None:
    g = get_game(game)
    deals = mixed_deals(7 + COMBOS.index(combo), 60)
    greedy = g.play_batch(deals, g.rules(overrides=combo))
    solver = g.play_batch(deals, g.rules(overrides={**combo, "strategy": "solver"}))
    gw = greedy["outcome"] == WON
    sw = solver["outcome"] == WON
    assert gw.any()  # the comparison is not vacuous
    assert not (gw & ~sw).any(), "a deal greedy wins and the solver does not"
    if combo["build"] == "same_suit":
        assert np.array_equal(gw, sw)  # every play is safe under same_suit: free play is greedy
    assert set(solver["outcome"]) <= {WON, UNSOLVABLE}
    for i in np.flatnonzero(sw):
        assert (
            g.check_solution(deals[i], g.rules(overrides={**combo, "strategy": "solver"}), solver["solution"][i])
            is None
        )
        assert solver["moves"][i] == len(solver["solution"][i].split()) == (48 if GAMES[game] else 52)
        assert solver["cards_left"][i] == 0 and solver["rounds"][i] == 1 and solver["rounds_optimal"][i]
    assert (solver["rounds"] == 1).all() and (greedy["rounds"] == 1).all()
    assert (greedy["nodes"] == 0).all() and (greedy["solution"] == "").all()


def test_a_corrupted_solution_is_refused() -> None:
    g = get_game("auld_lang_syne")
    rules = g.rules("pysolfc")
    deal = np.array(parse_cards(REVERSED), dtype=np.uint8)
    text = g.play_one(deal, rules, False).row["solution"]
    assert g.check_solution(deal, rules, text) is None
    tokens = text.split()
    assert tokens[0] == "48:2C>1"
    assert "not won: 1 cards" in g.check_solution(deal, rules, " ".join(tokens[:-1]))
    assert "3C is not on top of a pile" in g.check_solution(deal, rules, " ".join(["48:3C>1"] + tokens[1:]))
    # tokens[4] puts a Three on some foundation; sending the next Three to that same foundation is refused
    f = tokens[4][-1]
    wrong = tokens[:5] + [tokens[5][:-1] + f] + tokens[6:]
    assert tokens[4][3] == tokens[5][3] == "3" and f"F{f} does not take" in g.check_solution(
        deal, rules, " ".join(wrong)
    )
    assert "is not T:CD>F" in g.check_solution(deal, rules, "48:2C-1")
    assert "foundation 9 is not 1..4" in g.check_solution(deal, rules, "48:2C>9")
    assert "no plays are allowed after 3 cards" in g.check_solution(deal, rules, "3:2C>1")
    assert "the deal is not the 52 cards" in g.check_solution(deal[:51], rules, text)


def test_a_solver_win_the_reference_refuses_is_an_error(monkeypatch) -> None:
    g = get_game("auld_lang_syne")
    deal = np.array(parse_cards(REVERSED), dtype=np.uint8)
    monkeypatch.setattr(four_piles, "solution_text", lambda *a: "48:2C>1")
    with pytest.raises(SolverError, match="refused by the reference"):
        g.play_batch(deal[None, :], g.rules("pysolfc"))


# --- hand-checked deals ----------------------------------------------------------------------------

# Kings first, then Queens, ..., Twos last (Aces, for Auld Lang Syne, wherever: they start on the foundations).
# Each pile is then K Q J ... 2 bottom to top, one suit per pile; nothing can play until the last deal puts the
# Twos on top, and then every pile runs off in order: won at the very end, 48 plays.
REVERSED = " ".join(f"{r}{s}" for r in "KQJT98765432A" for s in "CDHS")


def test_reversed_deal_wins_at_the_last_deal() -> None:
    g = get_game("auld_lang_syne")
    deal = np.array(parse_cards(REVERSED), dtype=np.uint8)
    for strategy in ("greedy", "solver"):
        row = g.play_one(deal, g.rules(overrides={"strategy": strategy}), False).row
        assert (row["outcome"], row["moves"], row["cards_left"], row["foundations_done"]) == ("won", 48, 0, 4)
    result = reference.play([int(c) for c in deal], g.rules(), True, record=True)
    first_play = next(e for e in result.events if e.kind == "play")
    assert first_play.data["dealt"] == 48  # nothing played before the last deal
    # the same deal in Tam O'Shanter: the Aces come last of all and go first, then the same run-off
    row = get_game("tam_o_shanter").play_one(deal, g.rules(), False).row
    assert (row["outcome"], row["moves"]) == ("won", 52)


def test_tam_o_shanter_twos_under_everything_is_lost() -> None:
    # Twos first, then Threes, ..., Kings, Aces last: each pile is 2 3 ... K A bottom to top.  The last deal's
    # Aces start the four foundations; the Kings are then on top and no foundation takes a King: 4 plays.  The
    # solver proves it at once: after deal 2 every Two lies under a Three with no Two played (docstring, point
    # 4), so its search never plays a card, and its cards_left (52 less the most cards it had played) is 52.
    deal = np.array(parse_cards(" ".join(f"{r}{s}" for r in "23456789TJQKA" for s in "CDHS")), dtype=np.uint8)
    g = get_game("tam_o_shanter")
    for strategy in ("greedy", "solver"):
        row = g.play_one(deal, g.rules(overrides={"strategy": strategy}), False).row
        assert (row["outcome"], row["cards_left"]) == (("blocked", 48) if strategy == "greedy" else ("unsolvable", 52))
        assert row["nodes"] == (0 if strategy == "greedy" else 2)  # the start, and the position after deal 1


def test_sorted_deal_is_won_as_dealt_leftmost_foundations() -> None:
    # Auld Lang Syne, cards A..K rank by rank: every deal of four is one rank, C D H S on P1..P4.  Greedy plays
    # 2C (P1) to F1, the leftmost foundation that takes it, then 2D to F2 (F1 now wants a Three), and so on:
    # foundation i holds suit i's ladder except by rank, won after each deal is played off.
    deal = parse_cards(" ".join(f"{r}{s}" for r in "A23456789TJQK" for s in "CDHS"))
    g = get_game("auld_lang_syne")
    result = reference.play(deal, g.rules(), True, record=True)
    plays = [(e.data["card"], e.data["foundation"]) for e in result.events if e.kind == "play"]
    assert plays[:4] == [(1, 0), (14, 1), (27, 2), (40, 3)]
    assert result.outcome == "won" and result.moves == 48


def test_declining_a_play_wins_where_greedy_loses() -> None:
    # Auld Lang Syne, seed 2009 deal 318 (the first of the seeded deals that free play wins and greedy loses).
    # After deal 6 (24 cards dealt) greedy plays 5H onto F2 and runs 8C 9H TH JH onto F1 and 6C 7S onto F2;
    # it ends blocked with 25 cards played.  The solver's line plays only 8C there and keeps 5H back until
    # the very end (48:5H>4): declining a play is what wins this deal.  Its solution is the proof (replayed).
    g = get_game("auld_lang_syne")
    deal = seeded_deals(DECK_52, 2009, 318, 1)[0]
    assert format_cards(deal).startswith("2C AC AD 3C KS 2S 4C 6C 7D QS 9H JH TD 3S")
    greedy = reference.play([int(c) for c in deal], g.rules(), True, record=True)
    greedy_tokens = [
        reference.format_play(e.data["dealt"], e.data["card"], e.data["foundation"])
        for e in greedy.events
        if e.kind == "play"
    ]
    assert (greedy.outcome, greedy.moves) == ("blocked", 25) and "24:5H>2" in greedy_tokens
    row = g.play_one(deal, g.rules("pysolfc"), False).row
    assert row["outcome"] == "won" and g.check_solution(deal, g.rules("pysolfc"), row["solution"]) is None
    tokens = row["solution"].split()
    assert [t for t in tokens if t.startswith("24:")] == ["24:8C>1"] and "48:5H>4" in tokens


# --- the game surface: trace, presets, bad values -----------------------------------------------------


def test_trace_shows_deals_plays_and_the_solution() -> None:
    g = get_game("auld_lang_syne")
    deal = np.array(parse_cards(REVERSED), dtype=np.uint8)
    greedy = g.play_one(deal, g.rules(), True).trace
    assert greedy[0].startswith("start: F1:AC F2:AD F3:AH F4:AS; stock of 48 cards, 4 piles")
    assert greedy[1] == "  deal P1:KC P2:KD P3:KH P4:KS"
    assert greedy[-1] == "won: 48 cards played, 0 left"
    solver = g.play_one(deal, g.rules("pysolfc"), True).trace
    assert any(line.startswith("    play 2C from P1 to F1") for line in solver)
    assert solver[-2].startswith("solution: 48:2C>1 ")
    assert solver[-1].startswith("won: 48 plays, 0 cards left;")


def test_presets_and_defaults() -> None:
    g = get_game("tam_o_shanter")
    assert g.rules("standard") == FourPilesRules()
    assert FourPilesRules() == FourPilesRules(build="any_suit", piles=4, mid_deal_plays=False, strategy="greedy")
    assert g.rules("pysolfc").strategy == "solver"
    assert get_game("auld_lang_syne").presets is g.presets


@pytest.mark.parametrize(
    "setting, message",
    [
        ("piles=5", "switch 'piles': value '5' is not allowed; allowed: 4, 6"),
        ("piles=8", "switch 'piles'"),
        ("build=alternate", "switch 'build'"),
        ("max_nodes=0", "switch 'max_nodes'"),
        ("strategy=forced", "switch 'strategy'"),
    ],
)
def test_bad_values_exit_2_with_one_line(setting: str, message: str, capsys) -> None:
    code, out, err = cli(["play", "auld_lang_syne", "--seed", "1", "--index", "0", "--set", setting], capsys)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1
    with pytest.raises(RuleError):
        get_game("tam_o_shanter").rules(overrides=dict([setting.split("=")]))


def test_play_batch_refuses_a_deal_that_is_not_the_deck() -> None:
    deals = seeded_deals(DECK_52, 1, 0, 3).copy()
    deals[1, 0] = deals[1, 1]
    with pytest.raises(ValueError, match="deal 1 is not a permutation"):
        get_game("auld_lang_syne").play_batch(deals, FourPilesRules())
