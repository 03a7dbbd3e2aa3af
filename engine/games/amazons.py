"""Amazons: rule switches, presets and the compiled batch kernel.

The rules are spelled out in ``engine/reference/amazons.py``, the readable
oracle; this module plays the same game on small integer arrays, many deals per
call, and must agree with the oracle deal by deal (``tests/test_amazons.py``
holds it to that on every combination of the switches).

Readings of the issue text where it leaves room (the same in both
implementations):

* The active columns of ``skip_completed_columns`` are fixed when a row is
  dealt (no plays happen inside a row).  Columns that are no longer active keep
  their cards until the gather, and the greedy scan still looks at them (an Ace
  or a free Queen on top of one may still play).
* ``gather``: the first card listed is dealt first (as in Perpetual Motion).
* At the start of a pass the loss rule is judged first, then ``max_rounds``: a
  game is ``capped`` when it would start pass ``max_rounds + 1``; ``rounds``
  never exceeds ``max_rounds``.  ``idle_passes`` is judged after each pass's
  gather.
* ``one_ace``: "started and incomplete" counts foundations holding 1..6 cards;
  an Ace may play while that count is below k.  At k = 4 this is greedy.
* ``any_suit``: a foundation takes the next rank of any suit; a free Queen goes
  to the leftmost foundation that takes it, even if its own does too.

Kernel layout (a card is ``suit * 7 + step``, step A=0, 7=1, ..., Q=6; columns
``cols[4, 28]`` with heights ``ch``; foundations ``fh`` and ``fs``; ``mask`` of
playable tops) and the exact cycle detection, which needs only one stored
stock: docs/solvers.md, "Amazons' solver".

Free play (``strategy: solver``), the search for the fewest passes, is in
``engine/games/amazons_solver.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from engine.cards import DECK_AMAZONS
from engine.deals import batch_of_deals, read_only_uint8
from engine.games.amazons_solver import check_solution, solve_batch, solve_deal
from engine.outcomes import BLOCKED, CAPPED, CYCLE, OUTCOMES, UNKNOWN, UNSOLVABLE, WON
from engine.reference import amazons as reference
from engine.reference.amazons import GATHERS, NCARDS
from engine.reference.events import play_one_by
from engine.registry import Column, GameSpec, PlayResult, new_columns, uses_solver
from engine.rules import switch

MAX_NODES_DEFAULT = 10_000_000  # see "Memory" in engine/games/amazons_solver.py
MAX_NODES_HI = 200_000_000


@dataclass(frozen=True)
class AmazonsRules:
    strategy: str = switch(
        "greedy",
        "greedy: play every legal card, first found in C1..C4; one_ace: start a new foundation only while "
        "fewer than k are started and incomplete (k from 1, raised by one when the loss rule fires); "
        "solver: free play, every play optional, searched for the fewest passes that win",
        choices=("greedy", "one_ace", "solver"),
    )
    build: str = switch(
        "same_suit",
        "same_suit: a foundation builds in its Ace's suit; any_suit: ranks only",
        choices=("same_suit", "any_suit"),
    )
    queen_any_column: bool = switch(
        False, "true: a Queen may go to any foundation that takes it, not only the one above its column"
    )
    ace_placement: str = switch(
        "leftmost",
        "leftmost: an Ace goes to the leftmost empty foundation; own_column: to the one above its "
        "column when empty, else the leftmost empty",
        choices=("leftmost", "own_column"),
    )
    gather: str = switch(
        "pile4_bottom_up",
        "order in which the columns become the new stock (first listed is dealt first)",
        choices=GATHERS,
    )
    skip_completed_columns: bool = switch(True, "true: a column whose foundation is complete gets no more cards")
    loss_rule: str = switch(
        "cycle",
        "cycle: lost when the state at the start of a pass repeats; idle_passes: lost after "
        "idle_passes consecutive passes without a play (no effect under solver)",
        choices=("cycle", "idle_passes"),
    )
    idle_passes: int = switch(
        2,
        "passes in a row without a play that lose the game (loss_rule: idle_passes; no effect under solver)",
        lo=1,
        hi=2**31 - 1,
    )
    max_rounds: int = switch(
        100000,
        "passes through the stock before a game is stopped as capped (solver: the most "
        "passes searched; unknown if positions remain)",
        lo=1,
        hi=2**31 - 1,
    )
    max_nodes: int = switch(
        MAX_NODES_DEFAULT,
        "solver only: start-of-pass positions the search may store before it answers unknown",
        lo=1,
        hi=MAX_NODES_HI,
    )


PRESETS: dict[str, dict] = {
    "dick": {},
    "one_ace": {"strategy": "one_ace"},
    "one_in_ten": {"gather": "pile1_bottom_up", "loss_rule": "idle_passes"},
    "pysolfc": {"build": "any_suit", "queen_any_column": True},
}
PRESET_SOURCES: dict[str, str] = {  # each preset, and the source it is named for
    "dick": "Dick's Games of Patience (1898), the rules read literally; Dick gives no figure, so it reproduces no "
    "published figure (Wikipedia's '1 in 10' states no rules)",
    "one_ace": "the one-Ace strategy that wins 'as many as half the games'; it wins 92% here, so it reproduces no "
    "published figure (the claim states no rules of play)",
    "one_in_ten": "a reading tried against the '1 in 10' of Wikipedia's infobox, whose rules are unstated: 11.4% here, "
    "near it, but with no rules to check it against it reproduces no published figure",
    "pysolfc": "PySolFC's Amazons: foundations in any suit, a free Queen from any column; no published figure",
}


@nb.njit(cache=True, inline="always")
def _target(c, j, fh, fs, started, k, any_suit, queen_any, own_column):
    """The foundation card c on top of column j may go to now, or -1 (see Table.target in the reference)."""
    st = c % 7
    if st == 0:  # an Ace: to an empty place, if the strategy allows another foundation open
        if started >= k:
            return -1
        if own_column and fh[j] == 0:
            return j
        for i in range(4):
            if fh[i] == 0:
                return i
        return -1
    s = c // 7
    if queen_any and st == 6:
        for i in range(4):
            if fh[i] == 6 and (any_suit or fs[i] == s):
                return i
        return -1
    if fh[j] == st and (any_suit or fs[j] == s):
        return j
    return -1


@nb.njit(cache=True, inline="always")
def _refresh_step(mask, st, fh, fs, any_suit):
    """Recompute which columns' foundations take each card of build step ``st`` (1..6) by its own column."""
    for s in range(4):
        m = 0
        for q in range(4):
            if fh[q] == st and (any_suit or fs[q] == s):
                m |= 1 << q
        mask[s * 7 + st] = m


@nb.njit(cache=True, inline="always")
def _refresh_free(mask, fh, fs, started, k, any_suit, queen_any):
    """Aces (playable anywhere while fewer than k foundations are open) and, with queen_any_column, Queens."""
    m = 15 if started < k else 0
    for s in range(4):
        mask[s * 7] = m
    if queen_any:
        for s in range(4):
            m = 0
            for i in range(4):
                if fh[i] == 6 and (any_suit or fs[i] == s):
                    m = 15
            mask[s * 7 + 6] = m


@nb.njit(cache=True)
def _first_bad_deal(decks):
    """The index of the first row that is not a permutation of the 28-card pack, or -1."""
    for g in range(decks.shape[0]):
        seen = 0
        for i in range(NCARDS):
            c = decks[g, i]
            r = c % 13
            if c >= 52 or (r != 0 and r < 6) or r == 12:
                return g
            bit = 1 << ((c // 13) * 7 + (0 if r == 0 else r - 5))
            if seen & bit:
                return g
            seen |= bit
    return -1


@nb.njit(cache=True)
def _play_batch(
    decks,
    one_ace,
    any_suit,
    queen_any,
    own_column,
    gather,
    skip_completed,
    idle_rule,
    idle_passes,
    max_rounds,
    out_outcome,
    out_rounds,
    out_moves,
    out_left,
    out_done,
    out_aces,
):
    ndeals = decks.shape[0]
    cols = np.zeros((4, NCARDS), dtype=np.uint8)
    ch = np.zeros(4, dtype=np.int64)
    fh = np.zeros(4, dtype=np.int64)
    fs = np.zeros(4, dtype=np.int64)
    stock = np.zeros(NCARDS, dtype=np.uint8)
    saved = np.zeros(NCARDS, dtype=np.uint8)  # the stock at the start of the current move-free stretch
    active = np.zeros(4, dtype=np.int64)
    # mask[c]: bit q set when card c on top of column Cq has a legal play now.  Kept up to date
    # after every play and k change, so scanning a column is one table look-up; _target then
    # says where the card goes.
    mask = np.zeros(NCARDS, dtype=np.int64)
    order = np.zeros(4, dtype=np.int64)  # columns in gather order
    for q in range(4):
        order[q] = q if (gather == 1 or gather == 2) else 3 - q
    bottom_up = gather == 0 or gather == 1
    for g in range(ndeals):
        for i in range(NCARDS):
            c = decks[g, i]
            r = c % 13
            stock[i] = (c // 13) * 7 + (0 if r == 0 else r - 5)
        n = NCARDS
        for q in range(4):
            ch[q] = 0
            fh[q] = 0
            fs[q] = 0
            active[q] = q
        na = 4  # active columns, recomputed when a foundation completes
        k = 1 if one_ace else 4
        started = 0  # foundations started and incomplete
        for c in range(NCARDS):
            mask[c] = 0
        _refresh_free(mask, fh, fs, started, k, any_suit, queen_any)
        moves = 0
        rounds = 0
        idle = 0
        have_saved = False
        outcome = CAPPED
        while True:
            # --- the start of a pass: the loss rule first, then the cap ---
            if not idle_rule:
                if have_saved:
                    same = True
                    for i in range(n):
                        if stock[i] != saved[i]:
                            same = False
                            break
                    if same:
                        if k < 4:
                            k += 1  # the repeat raises k; the stretch starts afresh here
                            _refresh_free(mask, fh, fs, started, k, any_suit, queen_any)
                        else:
                            outcome = CYCLE
                            break
                else:
                    for i in range(n):
                        saved[i] = stock[i]
                    have_saved = True
            if rounds == max_rounds:
                outcome = CAPPED
                break
            rounds += 1
            moves_before = moves
            # --- the pass ---
            pos = 0
            while pos < n:
                m = na if n - pos >= na else n - pos
                for a in range(m):
                    q = active[a]
                    cols[q, ch[q]] = stock[pos + a]
                    ch[q] += 1
                pos += m
                # Plays: the first legal one in C1..C4, then scan again from C1.  Before this row no
                # play was legal and no foundation has changed since, so the first scan need only
                # look at the columns just dealt to (in C1..C4 order, which `active` keeps).
                j = -1
                for a in range(m):
                    q = active[a]
                    if (mask[cols[q, ch[q] - 1]] >> q) & 1:
                        j = q
                        break
                while j >= 0:
                    c = cols[j, ch[j] - 1]
                    i = _target(c, j, fh, fs, started, k, any_suit, queen_any, own_column)
                    ch[j] -= 1
                    if fh[i] == 0:
                        fs[i] = c // 7
                        started += 1
                    fh[i] += 1
                    moves += 1
                    if fh[i] == 7:
                        started -= 1
                        if skip_completed:
                            na = 0
                            for q in range(4):
                                if fh[q] < 7:
                                    active[na] = q
                                    na += 1
                    h = fh[i]
                    _refresh_step(mask, h - 1, fh, fs, any_suit)  # harmless when h - 1 == 0 (Aces are redone below)
                    if h < 7:
                        _refresh_step(mask, h, fh, fs, any_suit)
                    _refresh_free(mask, fh, fs, started, k, any_suit, queen_any)
                    j = -1
                    for q in range(4):
                        if ch[q] > 0 and (mask[cols[q, ch[q] - 1]] >> q) & 1:
                            j = q
                            break
                if moves == NCARDS:
                    break
            if moves == NCARDS:
                outcome = WON
                break
            if moves != moves_before:
                have_saved = False  # the foundations grew: no earlier state can come back
            # --- gather: the columns become the new stock ---
            n = 0
            for qq in range(4):
                q = order[qq]
                if bottom_up:
                    for i in range(ch[q]):
                        stock[n] = cols[q, i]
                        n += 1
                else:
                    for i in range(ch[q] - 1, -1, -1):
                        stock[n] = cols[q, i]
                        n += 1
                ch[q] = 0
            if idle_rule:
                if moves == moves_before:
                    idle += 1
                else:
                    idle = 0
                if idle >= idle_passes:
                    if k < 4:
                        k += 1
                        idle = 0
                        _refresh_free(mask, fh, fs, started, k, any_suit, queen_any)
                    else:
                        outcome = BLOCKED
                        break
        done = 0
        for q in range(4):
            if fh[q] == 7:
                done += 1
        out_outcome[g] = outcome
        out_rounds[g] = rounds
        out_moves[g] = moves
        out_left[g] = NCARDS - moves
        out_done[g] = done
        out_aces[g] = k


EXTRA_COLUMNS = (
    Column(
        "foundations_done",
        "int8",
        "complete foundations (0..4); solver, not won: in the position with the fewest cards left",
    ),
    Column(
        "aces_allowed",
        "int8",
        "the strategy's k at the end: foundations allowed open at once (4 under greedy and solver)",
    ),
    Column("nodes", "int64", "solver: start-of-pass positions whose pass the search explored (0 otherwise)"),
    Column("seconds", "float64", "solver: search time for this deal, compilation excluded (0 otherwise)"),
    Column(
        "rounds_optimal",
        "bool",
        "solver: true when no solution with fewer passes exists (proven by the breadth-first search)",
    ),
    Column(
        "solution", "string", "solver: the winning line in the Amazons solution notation (README); empty when not won"
    ),
)


def play_batch(decks: np.ndarray, rules: AmazonsRules) -> dict[str, np.ndarray]:
    """Play every deal of ``decks`` (uint8[n, 28] Amazons deals) under ``rules``; one array per output column."""
    decks = batch_of_deals(decks, NCARDS)
    bad = _first_bad_deal(decks)
    if bad >= 0:
        raise ValueError(f"deal {bad} is not a permutation of the 28-card Amazons pack: {decks[bad].tolist()}")
    out = new_columns(decks.shape[0], EXTRA_COLUMNS)
    if uses_solver(rules):
        solve_batch(decks, rules, out)
        return out
    _play_batch(
        decks,
        rules.strategy == "one_ace",
        rules.build == "any_suit",
        bool(rules.queen_any_column),
        rules.ace_placement == "own_column",
        GATHERS.index(rules.gather),
        bool(rules.skip_completed_columns),
        rules.loss_rule == "idle_passes",
        int(rules.idle_passes),
        int(rules.max_rounds),
        out["outcome"],
        out["rounds"],
        out["moves"],
        out["cards_left"],
        out["foundations_done"],
        out["aces_allowed"],
    )
    return out


_play_one_fixed = play_one_by(reference)


def play_one(deal: np.ndarray, rules: AmazonsRules, trace: bool = False) -> PlayResult:
    """One deal: a fixed strategy by the readable reference; under solver the search, and with ``trace`` its
    solution replayed pass by pass by the reference."""
    if not uses_solver(rules):
        result = _play_one_fixed(deal, rules, trace)
        row = dict(result.row, nodes=0, seconds=0.0, rounds_optimal=False, solution="")
        return PlayResult(row=row, trace=result.trace)
    deal = read_only_uint8(np.asarray(deal))
    solved = solve_deal(deal, rules)
    lines: list[str] = []
    if trace:
        if solved.outcome == WON:
            lines += reference.solution_lines([int(c) for c in deal], rules, solved.solution)
        verdict = {
            WON: f"won in {solved.rounds} passes, the fewest possible",
            UNSOLVABLE: "unsolvable (exhaustive search)",
            UNKNOWN: "unknown (max_nodes or max_rounds reached)",
        }[solved.outcome]
        lines.append(
            f"{verdict}: {solved.rounds} passes searched, {solved.nodes} start-of-pass positions, "
            f"{solved.seconds:.3f} s"
            if solved.outcome != WON
            else f"{verdict}: {solved.nodes} start-of-pass positions, {solved.seconds:.3f} s"
        )
    return PlayResult(row=solved.row(), trace=lines)


GAME = GameSpec(
    name="amazons",
    title="Amazons (Dick's Games of Patience, 1898)",
    doc="28 cards (A 7-Q); deal a card to each of four columns, build each foundation from the column below it "
    "A 7 8 9 T J Q, gather the columns and redeal, until all are built or the game repeats or stalls.",
    deck=DECK_AMAZONS,
    rules_type=AmazonsRules,
    presets=PRESETS,
    preset_sources=PRESET_SOURCES,
    extra_columns=EXTRA_COLUMNS,
    play_batch=play_batch,
    play_one=play_one,
    outcomes=tuple(OUTCOMES[c] for c in (WON, CYCLE, BLOCKED, CAPPED, UNSOLVABLE, UNKNOWN)),
    check_solution=check_solution,
)
