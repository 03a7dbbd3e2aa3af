"""The open-solitaire solver's memory (issue 11): the packed exact record and the arrays reserved at the budget.

The table's ``unsolvable`` rests on "two different positions are never stored as one", so the packed record must
be an exact code: decoding gives back the canonical position (columns as a set, cells as a set, foundations), and
re-encoding gives back the same bytes.  A code with a left inverse is one-to-one, so the round trip on every
position below is the proof; the distinctness checks say the same thing directly on positions one move apart.
The arrays reserved at the budget must change nothing but memory: a Workspace reused over deals of every size
answers exactly as fresh ones, and as the old grow-by-doubling path.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import open_solver as osol
import pytest

from engine.cards import DECK_52
from engine.deals import seeded_deals
from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.registry import get_game

# every game on the shared solver, with the switches that change the record's shape (cells, columns)
GAMES = (
    ("penguin", {}),
    ("bakers_game", {"cells": 8}),
    ("freecell", {}),
    ("freecell", {"cells": 0, "columns": 4}),
    ("eight_off", {}),
    ("seahaven_towers", {}),
    ("king_albert", {}),
    ("king_albert", {"layout": "raglan", "move_unit": "run"}),
)


def _srules(game: str, over: dict) -> osol.SolverRules:
    mod = __import__(f"engine.games.{game}", fromlist=["solver_rules"])
    rules = get_game(game).rules(overrides=over)
    return mod.solver_rules(rules, osol.BUILD_ALTERNATE) if game == "freecell" else mod.solver_rules(rules)


def _canonical(st: np.ndarray, srules: osol.SolverRules) -> tuple:
    cols, cells, fnd = osol.position_columns(st, srules)
    return tuple(sorted(tuple(c) for c in cols if c)), tuple(sorted(cells)), tuple(fnd)


def _encode(st: np.ndarray, srules: osol.SolverRules) -> np.ndarray:
    enc = np.zeros(osol.REC_BYTES, np.uint8)
    osol.encode_position(st, srules.params(), enc.view(np.uint64), np.zeros(osol.MAXCOLS, np.int64))
    return enc


def _reference_record(st: np.ndarray, srules: osol.SolverRules) -> bytes:
    """The record as _encode's docstring states it, packed in plain Python: the cells' cards sorted, the cells'
    marker, the non-empty columns by deepest card each with its end marker, padding; symbol k at bits 6k."""
    cols, cells, _ = osol.position_columns(st, srules)
    syms = sorted(cells) + [osol.SYM_CELLS_END]
    for col in sorted((c for c in cols if c), key=lambda c: c[0]):
        syms += col + [osol.SYM_COLUMN_END]
    syms += [osol.SYM_PAD] * (osol.REC_SYMBOLS - len(syms))
    return sum(s << (6 * k) for k, s in enumerate(syms)).to_bytes(osol.REC_BYTES, "little")


def _round_trip(st: np.ndarray, srules: osol.SolverRules) -> bytes:
    """Encode, decode, encode again: the record must be the documented one, the decoded position st's canonical
    form, the bytes the same."""
    enc = _encode(st, srules)
    assert bytes(enc) == _reference_record(st, srules)
    back = np.zeros(osol.STATE_SIZE, np.uint8)
    osol.decode_position(enc.view(np.uint64), srules.params(), back)
    assert _canonical(back, srules) == _canonical(st, srules)
    assert bytes(_encode(back, srules)) == bytes(enc)
    return bytes(enc)


def _random_walk(srules: osol.SolverRules, deal: np.ndarray, rng: np.random.Generator, steps: int):
    """Positions met by random legal moves (safe moves applied after each, as the search does)."""
    st, rel = osol.deal_position(deal, srules)
    params = srules.params()
    mv = np.zeros(2048, np.int64)
    empty = np.zeros(0, np.int64)
    osol.play_safe_moves(st, rel, params, empty, 0)
    yield st.copy()
    for _ in range(steps):
        nm = osol.gen_moves(st, rel, params, mv)
        if nm == 0:
            return
        osol.apply_move(st, mv[rng.integers(nm)], params)
        osol.play_safe_moves(st, rel, params, empty, 0)
        yield st.copy()


def _moves_trying_each_column(st: np.ndarray, rel: np.ndarray, params: np.ndarray) -> list[int]:
    """The moves of a position as _gen_moves made them before it compared whole positions' top cards at once
    (_columns_taking): each card that may move tried with _accepts on each column in turn, in the same order."""
    o = osol
    ncols, ncells = int(params[o.P_NCOLS]), int(params[o.P_NCELLS])
    free = 0 if params[o.P_RESERVE] else sum(st[o.O_CELL + j] == o.NOCARD for j in range(ncells))
    empties = [i for i in range(ncols) if st[o.O_LEN + i] == 0]
    first_empty = empties[0] if empties else -1
    if params[o.P_UNLIMITED]:
        cap_full = cap_empty = 1 << 30
    elif params[o.P_EMPTY] == o.EMPTY_ANY:
        cap_full, cap_empty = (free + 1) << len(empties), ((free + 1) << (len(empties) - 1)) if empties else 0
    else:
        cap_full = cap_empty = free + 1
    if params[o.P_SINGLE]:
        cap_full = cap_empty = 1

    def top(k: int) -> int:
        return int(st[k * o.WIDTH + int(st[o.O_LEN + k]) - 1])

    moves = []
    for i in range(ncols):
        n = int(st[o.O_LEN + i])
        if n == 0:
            continue
        if o.is_ready(top(i), st, rel):
            moves.append(i | ((n - 1) << o.POS_SHIFT) | (o.DST_FND << o.DST_SHIFT))
        for p in range(n - 1, o.run_start(st, i, rel, params) - 1, -1):
            head = int(st[i * o.WIDTH + p])
            if n - p <= cap_full:
                moves += [
                    i | (p << o.POS_SHIFT) | (k << o.DST_SHIFT)
                    for k in range(ncols)
                    if k != i and st[o.O_LEN + k] > 0 and o.accepts(head, top(k), rel, params)
                ]
            if first_empty >= 0 and p > 0 and n - p <= cap_empty and o.empty_takes(head, rel, params):
                moves.append(i | (p << o.POS_SHIFT) | (first_empty << o.DST_SHIFT))
        if free > 0:
            moves.append(i | ((n - 1) << o.POS_SHIFT) | (o.DST_CELL << o.DST_SHIFT))
    for j in range(ncells):
        c = int(st[o.O_CELL + j])
        if c == o.NOCARD:
            continue
        if o.is_ready(c, st, rel):
            moves.append((o.SRC_CELL + j) | (o.DST_FND << o.DST_SHIFT))
        moves += [
            (o.SRC_CELL + j) | (k << o.DST_SHIFT)
            for k in range(ncols)
            if st[o.O_LEN + k] > 0 and o.accepts(c, top(k), rel, params)
        ]
        if first_empty >= 0 and o.empty_takes(c, rel, params):
            moves.append((o.SRC_CELL + j) | (first_empty << o.DST_SHIFT))
    if params[o.P_WORRY]:
        mv = np.zeros(2048, np.int64)
        mv[: len(moves)] = moves
        moves = list(mv[: o.gen_worry_moves(st, rel, params, mv, len(moves))])
    return [int(m) for m in moves]


@pytest.mark.parametrize(
    "game,over", GAMES + (("freecell", {"columns": 6, "sequence_move": "unlimited"}), ("penguin", {"wrap": False}))
)
def test_moves_are_those_of_trying_each_column(game, over):
    """_gen_moves finds the columns a card may go onto from all the columns' top cards at once; on random walks'
    positions it makes the very moves, in the very order, of trying each column in turn, with the solver's
    rules and with the sweep's (single cards: ``sweep_params``)."""
    srules = _srules(game, over)
    rng = np.random.default_rng(5)
    mv = np.zeros(2048, np.int64)
    onto = 0  # moves onto a card checked: the ones the keys find
    for deal in seeded_deals(DECK_52, 99, 0, 8):
        rel = osol.deal_position(deal, srules)[1]
        for st in _random_walk(srules, deal, rng, 150):
            for params in (srules.params(), osol.sweep_params(srules)):
                nm = osol.gen_moves(st, rel, params, mv)
                assert [int(m) for m in mv[:nm]] == _moves_trying_each_column(st, rel, params)
                dst = mv[:nm] >> osol.DST_SHIFT
                onto += sum(int(d) < osol.DST_CELL and st[osol.O_LEN + int(d)] > 0 for d in dst)
    assert onto > 0


def test_moves_onto_cards_with_wrap_and_past_a_whole_suit():
    """Posed positions random walks seldom meet, with wrap in suit (Penguin's beak the 5s, relative ranks from
    the 5): a relative 12 (a 4) goes onto a relative 0 (a 5) of its suit, and a column holding a whole suit in
    one run, whose foot (the 4) wants its own top (the 5), does not offer a move onto itself.  The moves, order
    and all, are those of trying each column in turn, with runs moving as a unit or as single cards."""
    from engine.cards import parse_cards

    def cards(text: str) -> list[int]:
        return [int(c) for c in parse_cards(text)]

    columns = [
        cards("2D 5H"),
        cards("3D 4H"),
        cards("4S 3S 2S AS KS QS JS TS 9S 8S 7S 6S 5S"),
        cards("9D 4C"),
        cards("5C"),
        [],
    ]
    found = 0
    for unlimited in (True, False):
        srules = osol.SolverRules(osol.LAYOUT_PENGUIN, osol.BUILD_SUIT, 7, True, unlimited, osol.EMPTY_ANY, 1000)
        st, rel = osol.make_position(columns, cards("KC"), [0, 0, 0, 0], 4)
        padded = np.zeros(osol.STATE_WORDS * 8, np.uint8)
        padded[: osol.STATE_SIZE] = st
        for params in (srules.params(), osol.sweep_params(srules)):
            mv = np.zeros(2048, np.int64)
            nm = osol.gen_moves(padded, rel, params, mv)
            moves = [int(m) for m in mv[:nm]]
            assert moves == _moves_trying_each_column(padded, rel, params)
            found += (1 | (1 << osol.POS_SHIFT) | (0 << osol.DST_SHIFT)) in moves  # 4H onto 5H (wrap)
            found += (3 | (1 << osol.POS_SHIFT) | (4 << osol.DST_SHIFT)) in moves  # 4C onto 5C (wrap)
            assert not any((m & osol.SRC_MASK) == 2 and (m >> osol.DST_SHIFT) == 2 for m in moves)
    assert found == 8


@pytest.mark.parametrize("game,over", GAMES)
def test_packed_record_round_trips_and_tells_positions_apart(game, over):
    """Random walks from seeded deals: every position met round-trips, no two different canonical positions share
    a record, and neither do the position and its neighbours one card moved (a top card to another column's top
    or to a free cell)."""
    srules = _srules(game, over)
    rng = np.random.default_rng(11)
    seen: dict[bytes, tuple] = {}
    for deal in seeded_deals(DECK_52, 99, 0, 6):
        for st in _random_walk(srules, deal, rng, 120):
            enc = _round_trip(st, srules)
            assert seen.setdefault(enc, _canonical(st, srules)) == _canonical(st, srules)
            ncols = srules.ncols
            tops = [i for i in range(ncols) if st[osol.O_LEN + i] > 0]
            for i in tops[:3]:
                n = int(st[osol.O_LEN + i])
                c = st[i * osol.WIDTH + n - 1]
                for k in range(ncols):  # c onto column k's top (legal or not: a position all the same)
                    if k == i:
                        continue
                    nb_ = st.copy()
                    nb_[osol.O_LEN + i] = n - 1
                    d = int(nb_[osol.O_LEN + k])
                    nb_[k * osol.WIDTH + d] = c
                    nb_[osol.O_LEN + k] = d + 1
                    enc2 = _round_trip(nb_, srules)
                    if _canonical(nb_, srules) != _canonical(st, srules):
                        assert enc2 != enc
                    assert seen.setdefault(enc2, _canonical(nb_, srules)) == _canonical(nb_, srules)
                free = [j for j in range(srules.cells) if st[osol.O_CELL + j] == osol.NOCARD]
                if free:
                    nb_ = st.copy()
                    nb_[osol.O_LEN + i] = n - 1
                    nb_[osol.O_CELL + free[0]] = c
                    enc2 = _round_trip(nb_, srules)
                    assert enc2 != enc
                    assert seen.setdefault(enc2, _canonical(nb_, srules)) == _canonical(nb_, srules)
    assert len(seen) > 100  # the walks really went somewhere


def test_the_longest_records_fit():
    """The most symbols a position can need: 8 cells full and the other 44 cards in 10 columns (52 cards + the
    cells' marker + 10 column ends = 63 of the 64 symbols), every card in every slot of a column, and one
    52-card column; and random positions of 10 columns and 8 cells with random foundations."""
    srules = osol.SolverRules(
        osol.LAYOUT_IN_TURN, osol.BUILD_ALTERNATE, 8, False, False, osol.EMPTY_ANY, 100, columns=10
    )
    rng = np.random.default_rng(5)
    seen: dict[bytes, tuple] = {}
    for _ in range(300):
        perm = [int(c) for c in rng.permutation(52)]
        cells = perm[:8]
        cuts = np.sort(rng.choice(np.arange(1, 44), 9, replace=False))
        cols = [list(x) for x in np.split(np.array(perm[8:]), cuts)]
        st, _ = osol.make_position(cols, cells, [0, 0, 0, 0], 0)
        enc = _round_trip(st, srules)
        assert seen.setdefault(enc, _canonical(st, srules)) == _canonical(st, srules)
    st, _ = osol.make_position([list(range(51, -1, -1))], [], [0, 0, 0, 0], 0)
    _round_trip(st, srules)
    for _ in range(300):  # cards partly on the foundations, empty columns and free cells among them
        fnd = [int(x) for x in rng.integers(0, 14, 4)]
        left = [int(c) for c in rng.permutation([s * 13 + r for s in range(4) for r in range(fnd[s], 13)])]
        k = int(rng.integers(0, min(8, len(left)) + 1))
        cells = left[:k]
        owner = rng.integers(0, 10, len(left) - k)
        cols = [[c for c, o in zip(left[k:], owner, strict=True) if o == i] for i in range(10)]
        st, _ = osol.make_position(cols, cells, fnd, 0)
        enc = _round_trip(st, srules)
        assert seen.setdefault(enc, _canonical(st, srules)) == _canonical(st, srules)


def _frame(root: np.ndarray, rel: np.ndarray, srules: osol.SolverRules) -> tuple[np.ndarray, np.ndarray]:
    """The sweep's root (closed under safe moves) and its records' frame."""
    ref = np.zeros(osol.STATE_WORDS * 8, np.uint8)
    ref[: osol.STATE_SIZE] = root[: osol.STATE_SIZE]
    osol.play_safe_moves(ref, rel, srules.params(), np.zeros(0, np.int64), 0)
    frame = np.zeros(osol.FRAME_SIZE, np.int64)
    assert osol.sweep_frame(ref, rel, srules.params(), frame) <= 2
    return ref, frame


def _sweep_round_trip(st: np.ndarray, ref: np.ndarray, frame: np.ndarray, srules: osol.SolverRules) -> bytes:
    """The sweep's record of st: decoded, the canonical position back; encoded again, the same words."""
    words = int(frame[osol.F_WORDS])
    params = srules.params()
    enc = np.zeros(osol.REC_BYTES, np.uint8)
    osol.encode_frame(st, ref, frame, params, enc.view(np.uint64), np.zeros(osol.ORDER_SCRATCH, np.int64))
    back = np.zeros(osol.STATE_WORDS * 8, np.uint8)
    osol.decode_frame(enc.view(np.uint64)[:words].copy(), ref, frame, params, back)
    assert _canonical(back, srules) == _canonical(st, srules)
    again = np.zeros(osol.REC_BYTES, np.uint8)
    osol.encode_frame(back, ref, frame, params, again.view(np.uint64), np.zeros(osol.ORDER_SCRATCH, np.int64))
    assert bytes(again[: 8 * words]) == bytes(enc[: 8 * words])
    return bytes(enc[: 8 * words])


@pytest.mark.parametrize("game,over", GAMES + (("freecell", {"columns": 6}), ("freecell", {"cells": 1})))
def test_the_sweeps_record_round_trips_and_tells_positions_apart(game, over):
    """The sweep's records (module docstring, "The sweep's records"): relative to the walk's first position,
    every position met round-trips, the record is the same whatever the order of the columns and cells, and no
    two different canonical positions share one.  FreeCell's fit in 3 words (2 with 4 columns and no cell)."""
    srules = _srules(game, over)
    rng = np.random.default_rng(12)
    seen: dict[bytes, tuple] = {}
    for deal in seeded_deals(DECK_52, 99, 0, 6):
        _, rel = osol.deal_position(deal, srules)
        ref = frame = None
        for st in _random_walk(srules, deal, rng, 150):
            if ref is None:
                ref, frame = _frame(st, rel, srules)
                assert game != "freecell" or frame[osol.F_WORDS] <= 3
            enc = _sweep_round_trip(st, ref, frame, srules)
            assert seen.setdefault(enc, _canonical(st, srules)) == _canonical(st, srules)
            cols, cells, fnd = osol.position_columns(st, srules)
            order = rng.permutation(len(cols))
            if srules.reserve:  # a reserve's cards keep their cells
                cells = [int(st[osol.O_CELL + j]) for j in range(srules.cells)]
            else:
                cells = list(rng.permutation(cells + [osol.NOCARD] * (srules.cells - len(cells))))
            shuffled = st.copy()
            for i, k in enumerate(order):
                shuffled[osol.O_LEN + i] = len(cols[k])
                shuffled[i * osol.WIDTH : i * osol.WIDTH + len(cols[k])] = cols[k]
            shuffled[osol.O_CELL : osol.O_CELL + srules.cells] = cells
            assert _sweep_round_trip(shuffled, ref, frame, srules) == enc
        seen.clear()  # records of different roots are not comparable: one deal at a time


@pytest.mark.parametrize("ncols,ncells", [(6, 4), (10, 8), (4, 0), (8, 1)])
def test_the_sweeps_longest_records_fit(ncols, ncells):
    """The sweep's record is as wide as its worst position needs: positions of the deal's cards cut into runs (the
    four alternating chains from the Kings), every column new or grown from the root's, the cells full, round-trip
    relative to a seeded deal's opening."""
    srules = osol.SolverRules(
        osol.LAYOUT_IN_TURN, osol.BUILD_ALTERNATE, ncells, False, False, osol.EMPTY_ANY, 100, columns=ncols
    )
    root, rel = osol.deal_position(seeded_deals(DECK_52, 99, 3, 1)[0], srules)
    ref, frame = _frame(root, rel, srules)
    suits = ((0, 1, 3, 2), (3, 2, 0, 1), (1, 0, 2, 3), (2, 3, 1, 0))  # spades hearts clubs diamonds, alternating
    chains = [[suits[k][(12 - r) % 4] * 13 + r for r in range(12, -1, -1)] for k in range(4)]
    assert sorted(sum(chains, [])) == list(range(52))
    rng = np.random.default_rng(6)
    seen: dict[bytes, tuple] = {}
    for _ in range(400):
        runs = []
        for chain in chains:  # each chain cut into runs at random
            cut = [0] + sorted(int(x) for x in rng.choice(np.arange(1, 13), int(rng.integers(1, 5)), replace=False))
            runs += [chain[a:b] for a, b in zip(cut, cut[1:] + [13], strict=True)]
        rng.shuffle(runs)
        cols = runs[:ncols]
        left = [c for r in runs[ncols:] for c in r]
        cells = [int(c) for c in rng.permutation(left)[:ncells]]
        st = np.zeros(osol.STATE_WORDS * 8, np.uint8)
        st[osol.O_CELL : osol.O_CELL + osol.MAXCELLS] = osol.NOCARD
        for i, c in enumerate(cols):
            st[osol.O_LEN + i] = len(c)
            st[i * osol.WIDTH : i * osol.WIDTH + len(c)] = c
        st[osol.O_CELL : osol.O_CELL + len(cells)] = cells
        for c in set(left) - set(cells):  # the rest count as up (a foundation's height is 13 less its cards present)
            st[osol.O_FND + c // 13] += 1
        enc = _sweep_round_trip(st, ref, frame, srules)
        assert seen.setdefault(enc, _canonical(st, srules)) == _canonical(st, srules)
    assert len(seen) > 300


def _same(a: osol.Solution, b: osol.Solution) -> bool:
    return (a.outcome, a.nodes, a.best_foundation) == (b.outcome, b.nodes, b.best_foundation) and np.array_equal(
        a.codes, b.codes
    )


def test_a_reused_workspace_answers_as_fresh_ones_and_as_growing_arrays(monkeypatch):
    """Deals of very different sizes on one Workspace (a won one of thousands of positions, an unknown that fills
    the budget, small ones after it, a budget raised between deals), against a fresh Workspace per deal and
    against the grow-by-doubling path (the budget's arrays refused, as on a machine that cannot map them).  The
    unknown deal is swept last, whose records replace the other searches' smaller ones."""
    decks = seeded_deals(DECK_52, 99, 0, 8)
    small = _srules("freecell", {"cells": 2, "max_nodes": 10_000})
    large = _srules("freecell", {"cells": 2, "max_nodes": 40_000})
    runs = [(d, small) for d in decks[:4]] + [(d, large) for d in decks[4:]] + [(d, small) for d in decks[:2]]
    fresh = [osol.solve_deal(d, r, osol.Workspace()) for d, r in runs]
    ws = osol.Workspace()
    reused = [osol.solve_deal(d, r, ws) for d, r in runs]
    assert ws.recs.shape[0] == 40_000  # reserved at the larger budget, and kept for the small deals after it
    assert all(_same(a, b) for a, b in zip(fresh, reused, strict=True))
    outcomes = {s.outcome for s in fresh}
    assert WON in outcomes and (UNKNOWN in outcomes or UNSOLVABLE in outcomes)
    assert max(s.nodes for s in fresh) > 10_000 and min(s.nodes for s in fresh) < 2_000

    monkeypatch.setattr(osol.Workspace, "reserve", lambda self, n: None)
    monkeypatch.setattr(osol.Workspace, "reserve_sweep", lambda self, n, words: None)
    ws = osol.Workspace(16)
    grown = [osol.solve_deal(d, r, ws) for d, r in runs]
    assert ws.recs.shape[0] > 16 and ws.lay.shape[0] > 1  # the arrays really grew, the sweep's too
    assert all(_same(a, b) for a, b in zip(fresh, grown, strict=True))


def test_the_second_order_grows_its_heap_as_the_budget_arrays_would(monkeypatch):
    """The second order's heap (started here after 100 positions) grows with the records when the budget's arrays
    are refused, through the leaf kernel's NEED_ROOM answer (engine/leaf.py): the same verdict, expansions and
    line as with the arrays reserved."""
    monkeypatch.setattr(osol.solver, "SECOND_AT", 100)
    rules = _srules("freecell", {"cells": 2, "max_nodes": 10_000})
    decks = seeded_deals(DECK_52, 99, 228, 3)  # 230 is unknown: it fills the budget, then every search runs
    reserved = [osol.solve_deal(d, rules, osol.Workspace()) for d in decks]
    monkeypatch.setattr(osol.Workspace, "reserve", lambda self, n: None)
    monkeypatch.setattr(osol.Workspace, "reserve_sweep", lambda self, n, words: None)
    ws = osol.Workspace(16)
    grown = [osol.solve_deal(d, rules, ws) for d in decks]
    assert ws.heap2.shape[0] > 16 and max(s.nodes for s in reserved) > 10_000
    assert all(_same(a, b) for a, b in zip(reserved, grown, strict=True))


def test_reserving_the_budget_touches_no_memory():
    """numpy.empty maps the budget's arrays without writing them: reserving 4x10^7 positions (about 2.7 GiB of
    address space) raises the peak resident memory of a fresh process by less than 64 MiB.  In a child process,
    so that this process's own peak does not hide it."""
    code = (
        "import resource; from engine.search.workspace import Workspace\n"
        "r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "ws = Workspace(); ws.reserve(40_000_000)\n"
        "assert ws.recs.shape[0] == 40_000_000 and ws.heap2.shape[0] == 40_000_000\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - r0) // 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout.strip()) < 64, out.stdout
