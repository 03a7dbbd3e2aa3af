"""Auld Lang Syne and Tam O'Shanter: the engine both games configure.

Deal a card onto each of four piles, play top cards to four foundations that
build up to the King, no building on the piles, no redeal.  The rules are
spelled out in ``engine/reference/auld_lang_syne.py``, the readable oracle (one
reference for both games, ``aces_start`` true for Auld Lang Syne); this module
holds the rule switches, a numba kernel for the greedy player (held identical
to the reference deal by deal on every switch combination by
``tests/test_auld_lang_syne.py``) and an exact solver for free play.

Readings where the sources leave room (the same in the reference):

* Auld Lang Syne's Aces start on F1..F4 in suit order C D H S; the other 48
  cards are dealt in the order the deal lists them.  In Tam O'Shanter an Ace
  goes to the leftmost empty foundation under ``greedy`` (any empty one under
  ``solver``).
* With ``piles: 6`` a deal is six cards; Tam O'Shanter's last deal has four,
  to P1..P4 (52 = 8 x 6 + 4).  Auld Lang Syne's 48 cards make 8 full deals.
* ``mid_deal_plays: true``: plays may be made after every single card dealt,
  not only after a whole deal.  After the last card plays go on until none.
* ``greedy``: scan P1.. for the first top card a foundation takes, play it to
  the leftmost foundation that takes it, scan again from P1.
* ``rounds`` is 1 for every game, under both strategies: there is one pass
  through the stock and a game always deals all of it.  ``rounds_optimal`` is
  true for every solver win (no solution can take fewer than one pass).
* ``moves``: cards played to the foundations (Auld Lang Syne's starting Aces
  are not moves).  ``cards_left``: 52 less the cards on the foundations when
  the game ended; for a solver deal not won, 52 less the most cards on the
  foundations in any position the search visited (positions cut off by point
  4 are not visited, so this is a lower bound on what free play can reach),
  with ``moves`` 0 and ``foundations_done`` the Kings played in that position.

The solver (``strategy: solver``): plays are optional, and a card may go to
any foundation that takes it.  It is a depth-first search over positions at
the points where plays are allowed, with an exact transposition table of the
positions already proven lost.  A position is (T = stock cards dealt, the set
of cards on the foundations), keyed by one 64-bit word ``T << 52 | played``,
stored whole, so the table can never confuse two positions.  Sound pruning (the
proofs, and why the played set determines the foundations: docs/solvers.md,
"Auld Lang Syne and Tam O'Shanter (four piles)"):

1. Foundation choice: the search tracks the played set only; the solution text
   names the leftmost foundation that takes each card.
2. Duplicate positions: a position proven lost is never searched again.
3. Safe plays, made at once ("closure"): a playable top card c of rank r is
   played at once under ``same_suit`` always, under ``any_suit`` when r = 0 (an
   Ace) or all four cards of rank r - 1 are already played.  Under ``same_suit``
   every play is safe, so free play wins exactly the deals greedy wins, and the
   search is one line.
4. Hopeless positions (``any_suit``): for a rank b with cards still to play,
   none of them in the stock, some rank-b card y on the piles must pass
   n[a] + (rank-a cards above y now) <= n[b] for every a > b (n[r]: the rank-r
   cards played); if none does, no line wins and the position is not searched.

``tests/test_auld_lang_syne.py`` checks all of this against a plain exhaustive
search.  Budget: ``max_nodes`` positions expanded; past it the deal is ``unknown``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba as nb
import numpy as np

from engine.cards import DECK_52
from engine.deals import batch_of_deals
from engine.outcomes import BLOCKED, OUTCOMES, SOLVER_VERDICTS, UNKNOWN, UNSOLVABLE, WON, SolverError
from engine.reference import auld_lang_syne as reference
from engine.registry import Column, GameSpec, PlayResult, new_columns
from engine.rules import RuleError, switch
from engine.search.position_table import find_h, grown, must_grow, new_table, next_gen, put, words_hash

MAX_NODES_HI = 200_000_000  # lost positions: at most 2 x this many 8-byte records, 4 x this many 8-byte slots


@dataclass(frozen=True)
class FourPilesRules:
    build: str = switch(
        "any_suit",
        "any_suit: a foundation builds up by rank regardless of suit; same_suit: in the suit of its Ace",
        choices=("any_suit", "same_suit"),
    )
    piles: int = switch(
        4, "piles dealt to, one card each per deal: 4, or 6 ('Old Fashioned' in PySolFC)", choices=(4, 6)
    )
    mid_deal_plays: bool = switch(False, "true: plays may be made after every card dealt, not only after a whole deal")
    strategy: str = switch(
        "greedy",
        "greedy: every play made (scan P1.., the first playable top card to the leftmost foundation that takes it); "
        "solver: plays optional and the foundation chosen; exact search for a win",
        choices=("greedy", "solver"),
    )
    max_nodes: int = switch(
        2_000_000,
        "solver: positions the search may expand before it answers unknown (no effect under greedy)",
        lo=1,
        hi=MAX_NODES_HI,
    )

    def __post_init__(self) -> None:
        if self.piles not in (4, 6):
            raise RuleError(f"switch 'piles': value {self.piles} is not allowed; allowed: 4, 6")


PRESETS: dict[str, dict] = {
    "standard": {},  # the consensus rules, every play made
    "pysolfc": {"strategy": "solver"},  # PySolFC: foundations by rank only, every play optional
    "same_suit": {"build": "same_suit"},
}
PRESET_SOURCES: dict[str, str] = {  # each preset, and the source it is named for
    "standard": "the rules as the books agree on them, every play made; it reproduces no published figure (Auld Lang "
    "Syne's 1 in 100 and 1 in 300; Tam O'Shanter's 1 in 10,000 wants plays between a deal's cards)",
    "pysolfc": "PySolFC: foundations by rank only, every play optional; it reproduces no published figure (Auld Lang "
    "Syne's '1 in 3,000 if plays may be declined' is not reproduced; Tam O'Shanter has none)",
    "same_suit": "the reading in which a foundation builds in the suit of its Ace; no published figure",
}

EXTRA_COLUMNS = (
    Column("foundations_done", "int8", "complete foundations (A to K) when the game ended"),
    Column("nodes", "int64", "solver: positions the search expanded (0 under greedy)"),
    Column("seconds", "float64", "solver: search time for the deal (not reproducible: depends on the machine)"),
    Column("rounds_optimal", "bool", "solver: true for a win (one pass is the fewest possible); false otherwise"),
    Column(
        "solution",
        "string",
        "solver: the winning plays, 'T:CD>F' each (after T stock cards dealt, card CD to "
        "foundation F); empty unless won",
    ),
)

NOCARD = 255
MAXDEPTH = 128  # a line has at most 52 plays and 52 deals


# --- the stock ---------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _stock_of(deal, aces_start, stock):
    """Fill stock with the cards dealt onto the piles; return their number and the played-set of the start."""
    n = 0
    mask0 = np.uint64(0)
    for i in range(deal.shape[0]):
        c = deal[i]
        if aces_start and c % 13 == 0:
            mask0 |= np.uint64(1) << np.uint64(c)
        else:
            stock[n] = c
            n += 1
    return n, mask0


@nb.njit(cache=True)
def _first_bad_deal(decks):
    for g in range(decks.shape[0]):
        seen = np.uint64(0)
        for i in range(52):
            c = decks[g, i]
            if c >= 52:
                return g
            b = np.uint64(1) << np.uint64(c)
            if seen & b:
                return g
            seen |= b
    return -1


# --- greedy ----------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _greedy_plays(piles, ph, npiles, fh, fs, same_suit):
    """Scan P1.. for the first top card a foundation takes, play it to the leftmost such, scan again; plays made."""
    made = 0
    while True:
        played = False
        for p in range(npiles):
            h = ph[p]
            if h == 0:
                continue
            c = piles[p, h - 1]
            r = c % 13
            s = c // 13
            for i in range(4):
                if fh[i] == r and (r == 0 or not same_suit or fs[i] == s):
                    if r == 0:
                        fs[i] = s
                    fh[i] += 1
                    ph[p] = h - 1
                    made += 1
                    played = True
                    break
            if played:
                break
        if not played:
            return made


@nb.njit(cache=True)
def _greedy_batch(decks, aces_start, npiles, mid, same_suit, out_outcome, out_moves, out_left, out_done):
    piles = np.zeros((6, 52), dtype=np.uint8)
    ph = np.zeros(6, dtype=np.int64)
    fh = np.zeros(4, dtype=np.int64)  # cards on each foundation
    fs = np.zeros(4, dtype=np.int64)  # the suit of its Ace
    stock = np.zeros(52, dtype=np.uint8)
    for g in range(decks.shape[0]):
        n, _ = _stock_of(decks[g], aces_start, stock)
        for p in range(npiles):
            ph[p] = 0
        for i in range(4):
            fh[i] = 1 if aces_start else 0
            fs[i] = i
        moves = 0
        p = 0
        for t in range(n):
            piles[p, ph[p]] = stock[t]
            ph[p] += 1
            p += 1
            if p == npiles:
                p = 0
            if mid or p == 0 or t == n - 1:
                moves += _greedy_plays(piles, ph, npiles, fh, fs, same_suit)
        done = 0
        on = 0
        for i in range(4):
            on += fh[i]
            if fh[i] == 13:
                done += 1
        out_outcome[g] = WON if on == 52 else BLOCKED
        out_moves[g] = moves
        out_left[g] = 52 - on
        out_done[g] = done


# --- the solver ---------------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _bit(c):
    return np.uint64(1) << np.uint64(c)


@nb.njit(cache=True, inline="always")
def _top(stock, t, mask, npiles, p):
    """The top card of pile p after t stock cards dealt, or NOCARD: the last dealt to p and not played."""
    if t <= p:
        return NOCARD
    i = p + ((t - 1 - p) // npiles) * npiles
    while i >= 0:
        c = stock[i]
        if not (mask & _bit(c)):
            return c
        i -= npiles
    return NOCARD


@nb.njit(cache=True, inline="always")
def _legal(c, cnt, same_suit):
    """May card c (not yet played) go to a foundation now?  cnt[0..12]: played per rank; cnt[13..16]: per suit."""
    r = c % 13
    if same_suit:
        return cnt[13 + c // 13] == r
    if r == 0:
        return True
    return cnt[r - 1] > cnt[r]


@nb.njit(cache=True, inline="always")
def _safe(c, cnt, same_suit):
    """Is playing c now safe (module docstring, point 3)?  Call only when c is legal."""
    r = c % 13
    return same_suit or r == 0 or cnt[r - 1] == 4


@nb.njit(cache=True, inline="always")
def _do_play(c, cnt):
    cnt[c % 13] += 1
    cnt[13 + c // 13] += 1


@nb.njit(cache=True)
def _closure(stock, t, mask, npiles, cnt, same_suit, log_t, log_c, nlog):
    """Make every safe play until none is left; log them.  Returns (mask, nlog)."""
    changed = True
    while changed:
        changed = False
        for p in range(npiles):
            while True:
                c = _top(stock, t, mask, npiles, p)
                if c == NOCARD or not _legal(c, cnt, same_suit) or not _safe(c, cnt, same_suit):
                    break
                mask |= _bit(c)
                _do_play(c, cnt)
                log_t[nlog] = t
                log_c[nlog] = c
                nlog += 1
                changed = True
    return mask, nlog


@nb.njit(cache=True)
def _hopeless(stock, t, mask, npiles, cnt, undealt, feasible, present, above, seen):
    """True when no line of play can win from here (module docstring, point 4; any_suit only).

    undealt[r]: rank-r cards not yet dealt; feasible, present, above, seen: scratch arrays of 13."""
    for r in range(13):
        feasible[r] = False
        present[r] = False
    for p in range(npiles):
        if t <= p:
            continue
        for r in range(13):
            above[r] = 0
            seen[r] = False
        i = p + ((t - 1 - p) // npiles) * npiles
        while i >= 0:
            c = stock[i]
            if not (mask & _bit(c)):
                b = c % 13
                present[b] = True
                if not seen[b]:
                    seen[b] = True
                    if not feasible[b] and undealt[b] == 0:
                        ok = True
                        for a in range(b + 1, 13):
                            if cnt[a] + above[a] > cnt[b]:
                                ok = False
                                break
                        if ok:
                            feasible[b] = True
                above[b] += 1
            i -= npiles
    for b in range(13):
        if present[b] and undealt[b] == 0 and not feasible[b]:
            return True
    return False


@nb.njit(cache=True, inline="always")
def _next_point(t, n, npiles, mid):
    if mid:
        return t + 1
    nt = (t // npiles + 1) * npiles
    return nt if nt < n else n


@nb.njit(cache=True, inline="always")
def _popcount(x):
    k = 0
    while x:
        x &= x - np.uint64(1)
        k += 1
    return k


@nb.njit(cache=True)
def _solve(stock, n, t0, mask0, total, npiles, mid, same_suit, max_nodes, recs, table, gen, out_t, out_c):
    """Depth-first search for a win from the position (T = t0, played = mask0); t0 = 0 for a deal's start.

    Returns (outcome code, nodes expanded, most cards ever played incl. mask0, Kings played in that position,
    plays in the solution, recs, table): the lost positions, one word each (T << 52 | played), in the table;
    the solution's plays are (out_t[k], out_c[k]) for k < plays, safe plays included.
    """
    fr_t = np.zeros(MAXDEPTH, dtype=np.int64)
    fr_mask = np.zeros(MAXDEPTH, dtype=np.uint64)
    fr_cnt = np.zeros((MAXDEPTH, 17), dtype=np.int64)
    fr_cand = np.zeros((MAXDEPTH, 8), dtype=np.int64)  # unsafe plays (card codes), then -1 = deal
    fr_ncand = np.zeros(MAXDEPTH, dtype=np.int64)
    fr_next = np.zeros(MAXDEPTH, dtype=np.int64)
    fr_log = np.zeros(MAXDEPTH, dtype=np.int64)
    log_t = np.zeros(64, dtype=np.int64)
    log_c = np.zeros(64, dtype=np.int64)
    cnt = np.zeros(17, dtype=np.int64)
    kw = np.zeros(1, dtype=np.uint64)  # a position as the table's one-word record
    stored = 0
    # undealt[t, r]: rank-r cards still in the stock after t dealt; scratch arrays for _hopeless
    undealt = np.zeros((n + 1, 13), dtype=np.int64)
    for i in range(n - 1, -1, -1):
        undealt[i, :] = undealt[i + 1, :]
        undealt[i, stock[i] % 13] += 1
    feasible = np.zeros(13, dtype=np.bool_)
    present = np.zeros(13, dtype=np.bool_)
    above = np.zeros(13, dtype=np.int64)
    seen = np.zeros(13, dtype=np.bool_)
    # the root: the start position after its safe plays, with its moves
    for c in range(52):
        if mask0 & _bit(c):
            _do_play(c, cnt)
    mask, nlog = _closure(stock, t0, mask0, npiles, cnt, same_suit, log_t, log_c, 0)
    nodes = 1
    best = _popcount(mask)
    best_kings = cnt[12]  # Kings played (= complete foundations) in that best position
    if best == total:
        for k in range(nlog):
            out_t[k] = log_t[k]
            out_c[k] = log_c[k]
        return WON, nodes, best, best_kings, nlog, recs, table
    fr_cnt[0, :] = cnt
    fr_t[0] = t0
    fr_mask[0] = mask
    fr_log[0] = nlog
    fr_next[0] = 0
    k = 0
    for p in range(npiles):
        c = _top(stock, t0, mask, npiles, p)
        if c != NOCARD and _legal(c, cnt, same_suit):
            fr_cand[0, k] = c
            k += 1
    if t0 < n:
        fr_cand[0, k] = -1
        k += 1
    fr_ncand[0] = k
    d = 0
    while d >= 0:
        if fr_next[d] == fr_ncand[d]:
            # every move from here is lost: remember the position
            kw[0] = (np.uint64(fr_t[d]) << np.uint64(52)) | fr_mask[d]
            h = words_hash(kw, 1)
            slot, e, want = find_h(kw, h, recs, table, gen)
            if e < 0:
                if must_grow(recs, table, stored):
                    recs, table = grown(recs, table, stored, gen)
                    slot, e, want = find_h(kw, h, recs, table, gen)
                put(kw, slot, want, recs, stored, table)
                stored += 1
            d -= 1
            continue
        move = fr_cand[d, fr_next[d]]
        fr_next[d] += 1
        t = fr_t[d]
        mask = fr_mask[d]
        for k in range(17):
            cnt[k] = fr_cnt[d, k]
        nlog = fr_log[d]
        if move < 0:
            t = _next_point(t, n, npiles, mid)
        else:
            mask |= _bit(move)
            _do_play(move, cnt)
            log_t[nlog] = t
            log_c[nlog] = move
            nlog += 1
        mask, nlog = _closure(stock, t, mask, npiles, cnt, same_suit, log_t, log_c, nlog)
        played = _popcount(mask)
        if played > best:
            best = played
            best_kings = cnt[12]
        if played == total:
            for k in range(nlog):
                out_t[k] = log_t[k]
                out_c[k] = log_c[k]
            return WON, nodes, best, 4, nlog, recs, table
        kw[0] = (np.uint64(t) << np.uint64(52)) | mask
        if find_h(kw, words_hash(kw, 1), recs, table, gen)[1] >= 0:
            continue
        if not same_suit and _hopeless(stock, t, mask, npiles, cnt, undealt[t], feasible, present, above, seen):
            continue
        if nodes >= max_nodes:
            return UNKNOWN, nodes, best, best_kings, 0, recs, table
        nodes += 1
        d += 1
        fr_t[d] = t
        fr_mask[d] = mask
        for k in range(17):
            fr_cnt[d, k] = cnt[k]
        fr_log[d] = nlog
        fr_next[d] = 0
        k = 0
        for p in range(npiles):
            c = _top(stock, t, mask, npiles, p)
            if c != NOCARD and _legal(c, cnt, same_suit):  # after the closure, never safe
                fr_cand[d, k] = c
                k += 1
        if t < n:
            fr_cand[d, k] = -1
            k += 1
        fr_ncand[d] = k
    return UNSOLVABLE, nodes, best, best_kings, 0, recs, table


# --- Python side --------------------------------------------------------------------


class Workspace:
    """The solver's table of lost positions (engine/search/position_table.py), kept between deals (a
    generation stamp empties it)."""

    def __init__(self, capacity: int = 1 << 12) -> None:
        self.recs, self.table = new_table(1, capacity)
        self.gen = 0
        self.out_t = np.zeros(64, dtype=np.int64)
        self.out_c = np.zeros(64, dtype=np.int64)

    def next_gen(self) -> int:
        self.gen = next_gen(self.table, self.gen)
        return self.gen


@dataclass(frozen=True)
class Solved:
    code: int
    moves: int
    cards_left: int
    foundations_done: int
    nodes: int
    seconds: float
    solution: str


def solve_stock(
    stock: np.ndarray, mask0: int, total: int, rules: FourPilesRules, ws: Workspace | None = None, t0: int = 0
):
    """Search from a stock (uint8[n], cards dealt P1, P2, ...), ``t0`` of them dealt (a point where plays are
    allowed, or 0) and a set of played cards (a bit per card code), won when ``total`` cards are played.
    Returns (code, nodes, best, kings, plays [(T, card)], seconds):
    best is the most cards the search had played (the start set included), kings the Kings played there.

    Any deck whose ranks run A up with all four suits of each works (the tests use reduced decks)."""
    ws = ws or Workspace()
    stock = np.ascontiguousarray(stock, dtype=np.uint8)
    gen = ws.next_gen()
    if not (0 <= t0 <= stock.shape[0]):
        raise ValueError(f"t0 = {t0} is outside 0..{stock.shape[0]}")
    clock = time.perf_counter()
    code, nodes, best, kings, nplays, ws.recs, ws.table = _solve(
        stock,
        stock.shape[0],
        int(t0),
        np.uint64(mask0),
        total,
        int(rules.piles),
        bool(rules.mid_deal_plays),
        rules.build == "same_suit",
        int(rules.max_nodes),
        ws.recs,
        ws.table,
        np.int64(gen),
        ws.out_t,
        ws.out_c,
    )
    seconds = time.perf_counter() - clock
    plays = [(int(ws.out_t[k]), int(ws.out_c[k])) for k in range(nplays)]
    return int(code), int(nodes), int(best), int(kings), plays, seconds


_WARM = [False]


def _warm_up() -> None:
    """Compile (or load from numba's cache) once, so no deal's ``seconds`` includes compilation."""
    if not _WARM[0]:
        _WARM[0] = True
        solve_stock(np.array([1, 2, 3, 4], dtype=np.uint8), 1, 5, FourPilesRules(strategy="solver"))


def solution_text(deal: list[int], rules: FourPilesRules, aces_start: bool, plays: list[tuple[int, int]]) -> str:
    """The solver's plays as text, each card to the leftmost foundation that takes it (point 1 of the docstring).

    This only locates the foundations; legality is judged afterwards by the reference's replay."""
    t = reference.Table(deal, rules, aces_start)
    tokens = []
    for dealt, card in plays:
        while t.dealt < min(dealt, len(t.stock)):
            t.deal_card()
        p = t.pile_of(card)
        targets = [i for i in range(4) if t.takes(i, card)]
        if p is None or not targets:
            tokens.append(reference.format_play(dealt, card, 0))  # the replay will say what is wrong
            break
        t.play(p, targets[0])
        tokens.append(reference.format_play(dealt, card, targets[0]))
    return " ".join(tokens)


def solve_one(deal: np.ndarray, rules: FourPilesRules, aces_start: bool, ws: Workspace | None = None) -> Solved:
    """Free play on one deal; a win's solution text is replayed by the reference (SolverError if refused)."""
    _warm_up()
    cards = [int(c) for c in deal]
    stock = np.array(reference.stock_of(cards, aces_start), dtype=np.uint8)
    mask0 = sum(1 << c for c in cards if aces_start and c % 13 == 0)
    code, nodes, best, kings, plays, seconds = solve_stock(stock, mask0, 52, rules, ws)
    if code != WON:
        return Solved(code, 0, 52 - best, kings, nodes, seconds, "")
    text = solution_text(cards, rules, aces_start, plays)
    why = reference.check_solution(cards, rules, aces_start, text)
    if why is not None:
        raise SolverError(f"four-piles solver's solution refused by the reference: {why}")
    return Solved(WON, len(plays), 0, 4, nodes, seconds, text)


def _greedy_into(decks: np.ndarray, rules: FourPilesRules, aces_start: bool, out: dict[str, np.ndarray]) -> None:
    _greedy_batch(
        decks,
        aces_start,
        int(rules.piles),
        bool(rules.mid_deal_plays),
        rules.build == "same_suit",
        out["outcome"],
        out["moves"],
        out["cards_left"],
        out["foundations_done"],
    )


def play_batch_with(decks: np.ndarray, rules: FourPilesRules, aces_start: bool) -> dict[str, np.ndarray]:
    """Play every deal of ``decks`` (uint8[n, 52]); one array per output column."""
    decks = batch_of_deals(decks, 52)
    bad = _first_bad_deal(decks)
    if bad >= 0:
        raise ValueError(f"deal {bad} is not a permutation of the 52-card deck: {decks[bad].tolist()}")
    out = new_columns(decks.shape[0], EXTRA_COLUMNS)
    out["rounds"][:] = 1
    if rules.strategy == "greedy":
        _greedy_into(decks, rules, aces_start, out)
        return out
    ws = Workspace()
    for g in range(decks.shape[0]):
        r = solve_one(decks[g], rules, aces_start, ws)
        out["outcome"][g] = r.code
        out["moves"][g] = r.moves
        out["cards_left"][g] = r.cards_left
        out["foundations_done"][g] = r.foundations_done
        out["nodes"][g] = r.nodes
        out["seconds"][g] = r.seconds
        out["rounds_optimal"][g] = r.code == WON
        out["solution"][g] = r.solution
    return out


def play_one_with(deal: np.ndarray, rules: FourPilesRules, aces_start: bool, trace: bool = False) -> PlayResult:
    """One deal: greedy play by the readable reference, or the solver's verdict with its solution replayed by
    the reference, deal by deal."""
    cards = [int(c) for c in np.asarray(deal).reshape(-1)]
    if rules.strategy == "greedy":
        result = reference.play(cards, rules, aces_start, record=trace)
        row = dict(result.row(), nodes=0, seconds=0.0, rounds_optimal=False, solution="")
        lines = reference.trace_lines(result.events, rules.piles) if trace else []
        return PlayResult(row=row, trace=lines)
    r = solve_one(np.asarray(cards, dtype=np.uint8), rules, aces_start)
    row = {
        "outcome": OUTCOMES[r.code],
        "won": r.code == WON,
        "rounds": 1,
        "moves": r.moves,
        "cards_left": r.cards_left,
        "foundations_done": r.foundations_done,
        "nodes": r.nodes,
        "seconds": r.seconds,
        "rounds_optimal": r.code == WON,
        "solution": r.solution,
    }
    lines: list[str] = []
    if trace:
        if r.code == WON:
            _, table = reference.replay(cards, rules, aces_start, r.solution, record=True)
            lines += reference.trace_lines(table.events, rules.piles)
            lines.append(f"solution: {r.solution}")
        verdict = SOLVER_VERDICTS[r.code]
        lines.append(
            f"{verdict}: {r.moves} plays, {r.cards_left} cards left; {r.nodes} positions expanded, {r.seconds:.4f} s"
        )
    return PlayResult(row=row, trace=lines)


def make_game(name: str, title: str, doc: str, aces_start: bool) -> GameSpec:
    """The GameSpec of Auld Lang Syne (``aces_start``) or Tam O'Shanter."""

    def play_batch(decks: np.ndarray, rules: FourPilesRules) -> dict[str, np.ndarray]:
        return play_batch_with(decks, rules, aces_start)

    def play_one(deal: np.ndarray, rules: FourPilesRules, trace: bool = False) -> PlayResult:
        return play_one_with(deal, rules, aces_start, trace)

    def check_solution(deal: np.ndarray, rules: FourPilesRules, text: str) -> str | None:
        try:
            cards = [int(c) for c in np.asarray(deal).reshape(-1)]
        except (TypeError, ValueError) as exc:
            return f"the deal cannot be read ({exc})"
        return reference.check_solution(cards, rules, aces_start, text)

    return GameSpec(
        name=name,
        title=title,
        doc=doc,
        deck=DECK_52,
        rules_type=FourPilesRules,
        presets=PRESETS,
        preset_sources=PRESET_SOURCES,
        extra_columns=EXTRA_COLUMNS,
        play_batch=play_batch,
        play_one=play_one,
        check_solution=check_solution,
        outcomes=tuple(OUTCOMES[c] for c in (WON, BLOCKED, UNSOLVABLE, UNKNOWN)),
    )
