"""Aces Up: rule switches, presets, the compiled greedy kernel and the exact solver.

The rules are spelled out in ``engine/reference/aces_up.py``, the readable
oracle; its docstring fixes every reading where sources disagree, and this
module plays the very same game (tests/test_aces_up.py holds the greedy kernel
to the reference deal by deal on every combination of the switches, and the
solver to a plain exhaustive search).  The readings, repeated here:

* Aces high; a top card may be discarded when another pile's top card is of the
  same suit and higher; an Ace is never discarded.
* A deal puts the next four cards on P1..P4, empty piles included; the first
  deal is made at once; 13 deals, one pass, no redeal.  The piles are not
  interchangeable (the next deal's first card goes on P1).
* A fill moves a pile's top card into a space; ``fill_from: aces`` allows only
  Aces; ``move_lone_card: false`` needs a source pile of two or more cards.
* ``discards: forced``: while a discard is possible only discards are made
  (no fill, no deal); the order does not matter (their closure is unique).
* ``fill: compulsory``: no deal while a space could be filled from a pile of
  two or more cards; a lone card's move never counts toward the compulsion.
* ``fill: immediate`` (needs ``discards: forced``): the game makes the discards
  in order (the first top card from P1 to P4 that may go, then again from P1)
  and a space is filled as soon as it appears: while a space could be filled
  from a pile of two or more cards, only such fills are legal.  The order
  matters here and is fixed.  This reading reproduces Masten's 11.57%.
* ``win: four_aces``: won the moment the 48 other cards are discarded;
  ``one_ace_per_pile`` (PySolFC's isGameWon): the 48 are discarded and each
  pile holds one card, an Ace.  Both win the same deals here (fills of Aces
  reach one per pile); moves may differ.  A win always follows the 13th deal
  (a suit's King goes only by its Ace).
* Lost (``blocked``) when the stock is empty and no move is left.
* ``greedy``: discard whenever possible (P1..P4 first), else fill the leftmost
  space from a pile of two or more (an Ace first, else a card whose removal
  lets the card under it be discarded at once, else the tallest pile, leftmost
  on ties), else deal.  So under greedy only ``fill_from`` and ``win`` matter.
* ``rounds`` is 1 for every deal (the stock is passed once; every game makes
  all 13 deals); ``cards_left`` the cards not discarded (4 for a win).

The solver (``strategy: solver``) decides free play exactly: a depth-first
search over every legal move with a transposition table that stores every
position whole (64 bytes, the hash only picks the slot), so a collision can
never merge two positions.  What it prunes, each point proven sound in
docs/solvers.md, "Aces Up's solver" (with what a position is):

1. A position already stored is not searched again.
2. ``discards: forced``: after every move the discards are made at once, P1..P4
   first, until none is possible (under ``fill: immediate`` until a fill falls due).
2b. Safe discards, with ``discards: optional``, ``fill: optional`` and
   ``move_lone_card: true`` (PySolFC's rules): a top card that may be discarded,
   and whose suit has no lower card left on the piles or in the stock, is
   discarded at once after every move.
3. A position whose only legal move is the deal is dealt at once and not stored.
4. Nothing else is pruned: no bound, no move ordering that drops a move.

``won`` comes with a solution (notation in the reference's docstring) that the
reference replays from the deal before it is reported (SolverError otherwise);
``unknown`` when storing one more position would exceed ``max_nodes``.
``nodes`` counts the positions stored; ``cards_left`` of a deal not won is the
fewest any position reached had.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba as nb
import numpy as np

from engine.cards import DECK_52
from engine.deals import batch_of_deals, read_only_uint8
from engine.outcomes import BLOCKED, OUTCOMES, SOLVER_VERDICTS, UNKNOWN, UNSOLVABLE, WON, SolverError
from engine.reference import aces_up as reference
from engine.registry import Column, GameSpec, PlayResult, new_columns, uses_solver
from engine.rules import RuleError, switch
from engine.search.position_table import find_h, grown, must_grow, next_gen, put, words_hash

NCARDS = 52
MAX_NODES_DEFAULT = 2_000_000
MAX_NODES_HI = 50_000_000


@dataclass(frozen=True)
class AcesUpRules:
    discards: str = switch(
        "forced",
        "forced: while a discard is possible only discards are made; optional: any "
        "discard may be made or left (free play)",
        choices=("forced", "optional"),
    )
    fill: str = switch(
        "compulsory",
        "compulsory: no deal while a space could be filled from a pile of two or more "
        "cards; optional: the player may deal with spaces left; immediate (discards: forced only): "
        "discards go in order P1..P4 and a space is filled as soon as it appears",
        choices=("compulsory", "optional", "immediate"),
    )
    fill_from: str = switch("any", "which top cards may fill a space: any, or aces only", choices=("any", "aces"))
    move_lone_card: bool = switch(
        False, "true: a pile's only card may fill a space (it matters: the next deal's cards go to fixed piles)"
    )
    win: str = switch(
        "four_aces",
        "four_aces: won when the 48 other cards are discarded; one_ace_per_pile "
        "(PySolFC): each pile holds exactly one card, an Ace",
        choices=("four_aces", "one_ace_per_pile"),
    )
    strategy: str = switch(
        "greedy",
        "greedy: discard when possible, else fill a space (an Ace first, else a card uncovering a "
        "discard, else the tallest pile), else deal; solver: exact search of free play, sees the stock",
        choices=("greedy", "solver"),
    )
    max_nodes: int = switch(
        MAX_NODES_DEFAULT, "solver: positions the search may store before it answers unknown", lo=1, hi=MAX_NODES_HI
    )

    def __post_init__(self) -> None:
        if self.fill == "immediate" and self.discards != "forced":
            raise RuleError(
                "switch 'fill': value 'immediate' needs discards: forced (the game makes the discards "
                "in order); allowed with discards: optional: compulsory, optional"
            )


PRESETS: dict[str, dict] = {
    "masten": {"discards": "forced", "fill": "immediate", "move_lone_card": False, "strategy": "solver"},
    "fill_before_deal": {"discards": "forced", "fill": "compulsory", "move_lone_card": False, "strategy": "solver"},
    "pysolfc": {"discards": "optional", "fill": "optional", "move_lone_card": True, "win": "one_ace_per_pile"},
}
PRESET_SOURCES: dict[str, str] = {  # each preset, and the source it is named for
    "masten": "Masten's 11.57% winnable, by his solver (solitairewinrates.com): the game makes the discards in "
    "order and fills a space as soon as it appears (11.62% here at 10^6 deals, consistent)",
    "fill_before_deal": "no source: Masten's rules read with discards in any order and a space filled at any time "
    "before the next deal; wins 11.95% at 10^6 deals, not Masten's 11.57% (z = +12)",
    "pysolfc": "PySolFC's Aces Up: discards and fills optional, a lone card may move, won with an Ace on each pile; "
    "no published figure",
}

# Aces high: 2 = 1, ..., K = 12, A = 13.
VALUE = np.array([13 if c % 13 == 0 else c % 13 for c in range(52)], dtype=np.int64)


# --- shared table helpers (piles[4, 52] bottom first, heights h[4]) ------------------------------


@nb.njit(cache=True)
def _may_discard(piles, h, j):
    if h[j] == 0:
        return False
    c = piles[j, h[j] - 1]
    for k in range(4):
        if k != j and h[k] > 0:
            t = piles[k, h[k] - 1]
            if t // 13 == c // 13 and VALUE[t] > VALUE[c]:
                return True
    return False


@nb.njit(cache=True)
def _first_discard(piles, h):
    for j in range(4):
        if _may_discard(piles, h, j):
            return j
    return -1


@nb.njit(cache=True)
def _won(piles, h, disc, non_aces, one_per_pile):
    if disc != non_aces:
        return False
    if not one_per_pile:
        return True
    for j in range(4):
        if h[j] != 1 or piles[j, 0] % 13 != 0:
            return False
    return True


@nb.njit(cache=True)
def _fill_due(piles, h, aces_only):
    """A space exists and a pile of two or more cards has a top card allowed to fill it."""
    space = False
    for j in range(4):
        if h[j] == 0:
            space = True
    if not space:
        return False
    for j in range(4):
        if h[j] >= 2 and (not aces_only or piles[j, h[j] - 1] % 13 == 0):
            return True
    return False


@nb.njit(cache=True)
def _deal(piles, h, deal, pos):
    for j in range(4):
        piles[j, h[j]] = deal[pos + j]
        h[j] += 1


# --- greedy ----------------------------------------------------------------------------


@nb.njit(cache=True)
def _greedy_fill(piles, h, aces_only):
    """The greedy's source pile (see the reference's greedy_fill), or -1."""
    best = -1
    best_key = -1
    for j in range(4):
        if h[j] < 2:
            continue
        c = piles[j, h[j] - 1]
        ace = c % 13 == 0
        if aces_only and not ace:
            continue
        under = piles[j, h[j] - 2]
        uncovers = c // 13 == under // 13 and VALUE[c] > VALUE[under]
        if not uncovers:
            for k in range(4):
                if k != j and h[k] > 0:
                    t = piles[k, h[k] - 1]
                    if t // 13 == under // 13 and VALUE[t] > VALUE[under]:
                        uncovers = True
                        break
        key = (1000 if ace else 0) + (100 if uncovers else 0) + h[j]
        if key > best_key:
            best = j
            best_key = key
    return best


@nb.njit(cache=True)
def _first_bad_deal(decks):
    for g in range(decks.shape[0]):
        seen = np.zeros(52, dtype=np.bool_)
        for i in range(decks.shape[1]):
            c = decks[g, i]
            if c >= 52 or seen[c]:
                return g
            seen[c] = True
    return -1


@nb.njit(cache=True)
def _play_greedy(decks, aces_only, one_per_pile, immediate, out_outcome, out_moves, out_left):
    n = decks.shape[1]
    piles = np.zeros((4, 52), dtype=np.uint8)
    h = np.zeros(4, dtype=np.int64)
    for g in range(decks.shape[0]):
        deal = decks[g]
        non_aces = 0
        for i in range(n):
            if deal[i] % 13 != 0:
                non_aces += 1
        for j in range(4):
            h[j] = 0
        _deal(piles, h, deal, 0)
        pos = 4
        moves = 0
        disc = 0
        outcome = BLOCKED
        while True:
            if _won(piles, h, disc, non_aces, one_per_pile):
                outcome = WON
                break
            if immediate and _fill_due(piles, h, aces_only):
                e = 0
                while h[e] != 0:
                    e += 1
                j = _greedy_fill(piles, h, aces_only)
                h[j] -= 1
                piles[e, 0] = piles[j, h[j]]
                h[e] = 1
                moves += 1
                continue
            j = _first_discard(piles, h)
            if j >= 0:
                h[j] -= 1
                disc += 1
                moves += 1
                continue
            e = -1
            for k in range(4):
                if h[k] == 0:
                    e = k
                    break
            if e >= 0:
                j = _greedy_fill(piles, h, aces_only)
                if j >= 0:
                    h[j] -= 1
                    piles[e, 0] = piles[j, h[j]]
                    h[e] = 1
                    moves += 1
                    continue
            if pos < n:
                _deal(piles, h, deal, pos)
                pos += 4
                continue
            break
        out_outcome[g] = outcome
        out_moves[g] = moves
        out_left[g] = n - disc


# --- the solver --------------------------------------------------------------------------

KEY_WORDS = 8  # a position: 64 bytes
CODE_FILL = 100  # move codes: a discard is the card (0..51); a fill 100 + card * 4 + target; a deal CODE_DEAL
CODE_DEAL = 1000
_EMPTY_KEY_BYTE = 0xFE


@nb.njit(cache=True)
def _encode(piles, h, pos, kb):
    """The whole position in 64 bytes: cards dealt, then each pile bottom first closed by 0xFF."""
    kb[0] = pos
    k = 1
    for j in range(4):
        for i in range(h[j]):
            kb[k] = piles[j, i]
            k += 1
        kb[k] = 0xFF
        k += 1
    while k < 64:
        kb[k] = _EMPTY_KEY_BYTE
        k += 1


@nb.njit(cache=True)
def _closure(piles, h, log, lp, immediate, aces_only):
    """Forced discards, P1..P4 first, until none is possible (or, under fill: immediate, a fill is due); each
    logged.  Returns (new log length, count)."""
    count = 0
    while True:
        if immediate and _fill_due(piles, h, aces_only):
            return lp, count
        j = _first_discard(piles, h)
        if j < 0:
            return lp, count
        h[j] -= 1
        log[lp] = piles[j, h[j]]
        lp += 1
        count += 1


@nb.njit(cache=True)
def _safe_closure(piles, h, deal, pos, log, lp):
    """Safe discards (point 2b): a top card that may be discarded and whose suit has no lower card left (on
    the piles or in the stock) goes at once, until none is left; each logged.  Returns (log length, count)."""
    count = 0
    while True:
        present = np.zeros(52, dtype=np.bool_)
        for i in range(pos, deal.shape[0]):
            present[deal[i]] = True
        for j in range(4):
            for i in range(h[j]):
                present[piles[j, i]] = True
        found = -1
        for j in range(4):
            if _may_discard(piles, h, j):
                x = piles[j, h[j] - 1]
                s = x // 13
                lone_in_suit = True
                for y in range(s * 13, s * 13 + 13):
                    if y != x and present[y] and VALUE[y] < VALUE[x]:
                        lone_in_suit = False
                        break
                if lone_in_suit:
                    found = j
                    break
        if found < 0:
            return lp, count
        h[found] -= 1
        log[lp] = piles[found, h[found]]
        lp += 1
        count += 1


@nb.njit(cache=True)
def _gen_moves(piles, h, pos, n, forced, compulsory, aces_only, lone, immediate, out):
    """Every legal move of a position that is not won, into out; returns how many."""
    m = 0
    if immediate and _fill_due(piles, h, aces_only):  # only fills from piles of two or more, into any space
        for e in range(4):
            if h[e] != 0:
                continue
            for j in range(4):
                if h[j] >= 2:
                    c = piles[j, h[j] - 1]
                    if not aces_only or c % 13 == 0:
                        out[m] = CODE_FILL + np.int64(c) * 4 + e
                        m += 1
        return m
    any_discard = False
    for j in range(4):
        if _may_discard(piles, h, j):
            out[m] = piles[j, h[j] - 1]
            m += 1
            any_discard = True
    if forced and any_discard:
        return m
    # fills from piles of two or more cards, into every space
    for e in range(4):
        if h[e] != 0:
            continue
        for j in range(4):
            if h[j] >= 2:
                c = piles[j, h[j] - 1]
                if not aces_only or c % 13 == 0:
                    out[m] = CODE_FILL + np.int64(c) * 4 + e
                    m += 1
    if pos < n and not (compulsory and _fill_due(piles, h, aces_only)):
        out[m] = CODE_DEAL
        m += 1
    if lone:
        for e in range(4):
            if h[e] != 0:
                continue
            for j in range(4):
                if h[j] == 1:
                    c = piles[j, 0]
                    if not aces_only or c % 13 == 0:
                        out[m] = CODE_FILL + np.int64(c) * 4 + e
                        m += 1
    return m


@nb.njit(cache=True)
def _solve(
    deal,
    forced,
    compulsory,
    aces_only,
    lone,
    one_per_pile,
    immediate,
    max_nodes,
    recs,
    table,
    gen,
    P,
    H,
    POS,
    DISC,
    MOVES,
    NM,
    NXT,
    LP,
    log,
):
    """Depth-first search of free play from the deal (docs/solvers.md), on the stack arrays P..log (one
    row per level; ``log`` holds the line's move codes).

    Returns (outcome, nodes, most discards reached, the winning line's move codes, tables); outcome -1 when
    the stack is too shallow (the caller retries with a deeper one)."""
    n = deal.shape[0]
    non_aces = 0
    for i in range(n):
        if deal[i] % 13 != 0:
            non_aces += 1
    safe = not forced and not compulsory and lone
    cap = P.shape[0]
    kb = np.zeros(64, dtype=np.uint8)
    w = kb.view(np.uint64)
    # the root: the first deal, and its forced discards
    for j in range(4):
        H[0, j] = 0
    DISC[0] = 0
    _deal(P[0], H[0], deal, 0)
    POS[0] = 4
    lp = 0
    log[lp] = CODE_DEAL
    lp += 1
    if forced:
        lp, c = _closure(P[0], H[0], log, lp, immediate, aces_only)
        DISC[0] = c
    elif safe:
        lp, c = _safe_closure(P[0], H[0], deal, 4, log, lp)
        DISC[0] = c
    best = DISC[0]
    nrec = 0
    outcome = UNSOLVABLE
    final_lp = 0
    if _won(P[0], H[0], DISC[0], non_aces, one_per_pile):
        outcome = WON
        final_lp = lp
    else:
        _encode(P[0], H[0], POS[0], kb)
        slot, e, want = find_h(w, words_hash(w, KEY_WORDS), recs, table, gen)
        put(w, slot, want, recs, 0, table)
        nrec = 1
        NM[0] = _gen_moves(P[0], H[0], POS[0], n, forced, compulsory, aces_only, lone, immediate, MOVES[0])
        NXT[0] = 0
        LP[0] = lp
        depth = 0
        while depth >= 0:
            if NXT[depth] == NM[depth]:
                depth -= 1
                continue
            m = MOVES[depth, NXT[depth]]
            NXT[depth] += 1
            d1 = depth + 1
            if d1 + 1 >= cap:
                outcome = -1
                break
            pl = P[d1]
            hh = H[d1]
            for j in range(4):
                hh[j] = H[depth, j]
                for i in range(hh[j]):
                    pl[j, i] = P[depth, j, i]
            pos = POS[depth]
            disc = DISC[depth]
            lp = LP[depth]
            log[lp] = m
            lp += 1
            if m < CODE_FILL:
                for j in range(4):
                    if hh[j] > 0 and pl[j, hh[j] - 1] == m:
                        hh[j] -= 1
                        break
                disc += 1
            elif m < CODE_DEAL:
                c = (m - CODE_FILL) // 4
                e = (m - CODE_FILL) % 4
                for j in range(4):
                    if hh[j] > 0 and pl[j, hh[j] - 1] == c:
                        hh[j] -= 1
                        break
                pl[e, 0] = c
                hh[e] = 1
            else:
                _deal(pl, hh, deal, pos)
                pos += 4
            if forced:
                lp, c = _closure(pl, hh, log, lp, immediate, aces_only)
                disc += c
            elif safe:
                lp, c = _safe_closure(pl, hh, deal, pos, log, lp)
                disc += c
            won = _won(pl, hh, disc, non_aces, one_per_pile)
            nm = 0
            while not won:
                # a position whose only move is the deal is dealt at once and not stored (point 3)
                nm = _gen_moves(pl, hh, pos, n, forced, compulsory, aces_only, lone, immediate, MOVES[d1])
                if nm != 1 or MOVES[d1, 0] != CODE_DEAL:
                    break
                _deal(pl, hh, deal, pos)
                pos += 4
                log[lp] = CODE_DEAL
                lp += 1
                if forced:
                    lp, c = _closure(pl, hh, log, lp, immediate, aces_only)
                    disc += c
                elif safe:
                    lp, c = _safe_closure(pl, hh, deal, pos, log, lp)
                    disc += c
                won = _won(pl, hh, disc, non_aces, one_per_pile)
            if disc > best:
                best = disc
            if won:
                outcome = WON
                final_lp = lp
                break
            _encode(pl, hh, pos, kb)
            h = words_hash(w, KEY_WORDS)
            slot, e, want = find_h(w, h, recs, table, gen)
            if e >= 0:
                continue
            if nrec >= max_nodes:
                outcome = UNKNOWN
                break
            if must_grow(recs, table, nrec):
                recs, table = grown(recs, table, nrec, gen)
                slot, e, want = find_h(w, h, recs, table, gen)
            put(w, slot, want, recs, nrec, table)
            nrec += 1
            POS[d1] = pos
            DISC[d1] = disc
            LP[d1] = lp
            NM[d1] = nm
            NXT[d1] = 0
            depth = d1
    line = np.zeros(final_lp if outcome == WON else 0, dtype=np.int64)
    for i in range(line.shape[0]):
        line[i] = log[i]
    return outcome, nrec, best, line, recs, table


class Workspace:
    """The transposition table (engine/search/position_table.py), kept between deals (a generation stamp
    empties it in O(1))."""

    def __init__(self, capacity: int = 1 << 12, depth: int = 256) -> None:
        self.recs = np.zeros((capacity, KEY_WORDS), dtype=np.uint64)
        self.table = np.zeros(4 * capacity, dtype=np.uint64)
        self.gen = 0
        self.stack(depth)

    def stack(self, depth: int) -> None:
        """The search's stack: one row per level of the current line."""
        self.depth = depth
        self.P = np.zeros((depth, 4, 52), dtype=np.uint8)
        self.H = np.zeros((depth, 4), dtype=np.int64)
        self.POS = np.zeros(depth, dtype=np.int64)
        self.DISC = np.zeros(depth, dtype=np.int64)
        self.MOVES = np.zeros((depth, 32), dtype=np.int64)
        self.NM = np.zeros(depth, dtype=np.int64)
        self.NXT = np.zeros(depth, dtype=np.int64)
        self.LP = np.zeros(depth, dtype=np.int64)
        self.log = np.zeros(depth + 128, dtype=np.int64)

    def arrays(self) -> tuple:
        return self.P, self.H, self.POS, self.DISC, self.MOVES, self.NM, self.NXT, self.LP, self.log

    def next_gen(self) -> int:
        self.gen = next_gen(self.table, self.gen)
        return self.gen


@dataclass(frozen=True)
class Solved:
    code: int
    nodes: int
    cards_left: int
    moves: int
    solution: str
    seconds: float


def line_text(line: np.ndarray) -> tuple[str, int]:
    """The solver's move codes as solution text: (text, moves)."""
    phases: list[list[tuple[int, int | None]]] = []
    moves = 0
    for code in line.tolist():
        if code == CODE_DEAL:
            phases.append([])
        elif code < CODE_FILL:
            phases[-1].append((code, None))
            moves += 1
        else:
            phases[-1].append(((code - CODE_FILL) // 4, (code - CODE_FILL) % 4))
            moves += 1
    return reference.solution_text(phases), moves


_WARM = [False]


def _warm_up() -> None:
    """Compile (or load from numba's cache) once, so no deal's ``seconds`` includes compilation."""
    if _WARM[0]:
        return
    _WARM[0] = True
    ws = Workspace(16, 8)
    deal = read_only_uint8(np.array(DECK_52[:8]))
    _solve(deal, True, True, False, False, False, False, 10, ws.recs, ws.table, np.int64(ws.next_gen()), *ws.arrays())


def solve(deal: np.ndarray, rules: AcesUpRules, ws: Workspace | None = None) -> Solved:
    """Free play on one deal (52 cards, or a reduced deck of a multiple of four cards for the tests): the
    solver's verdict, every win replayed by the reference first (SolverError if it is refused)."""
    _warm_up()
    ws = ws or Workspace()
    deal = read_only_uint8(np.asarray(deal).reshape(-1))
    n = deal.shape[0]
    t0 = time.perf_counter()
    while True:
        gen = ws.next_gen()
        code, nodes, best, line, ws.recs, ws.table = _solve(
            deal,
            rules.discards == "forced",
            rules.fill != "optional",
            rules.fill_from == "aces",
            bool(rules.move_lone_card),
            rules.win == "one_ace_per_pile",
            rules.fill == "immediate",
            int(rules.max_nodes),
            ws.recs,
            ws.table,
            np.int64(gen),
            *ws.arrays(),
        )
        if code >= 0:
            break
        ws.stack(2 * ws.depth)  # a line longer than the stack (lone-card moves): search again, deeper
    seconds = time.perf_counter() - t0
    if code == WON:
        text, moves = line_text(line)
        why = reference.check_solution([int(c) for c in deal], rules, text)
        if why is not None:
            raise SolverError(f"aces_up solver's solution refused by the reference: {why} ({text})")
        non_aces = sum(1 for c in deal.tolist() if c % 13)
        return Solved(WON, int(nodes), n - non_aces, moves, text, seconds)
    return Solved(int(code), int(nodes), n - int(best), 0, "", seconds)


# --- the game surface --------------------------------------------------------------------

EXTRA_COLUMNS = (
    Column("nodes", "int64", "solver: positions the search stored (0 under greedy)"),
    Column("seconds", "float64", "solver: search time for the deal (not reproducible: depends on the machine)"),
    Column(
        "solution",
        "string",
        "solver: the winning line, deal by deal ('5H' discards, 'KS>3' fills P3, ' / ' "
        "between deals; engine/reference/aces_up.py); empty when not won",
    ),
)


def play_batch(decks: np.ndarray, rules: AcesUpRules) -> dict[str, np.ndarray]:
    """Play every deal of ``decks`` (uint8[n, 52]) under ``rules``; one array per output column."""
    decks = batch_of_deals(decks, NCARDS)
    bad = _first_bad_deal(decks)
    if bad >= 0:
        raise ValueError(f"deal {bad} is not a permutation of the 52 cards: {decks[bad].tolist()}")
    out = new_columns(decks.shape[0], EXTRA_COLUMNS)
    out["rounds"][:] = 1
    if not uses_solver(rules):
        _play_greedy(
            decks,
            rules.fill_from == "aces",
            rules.win == "one_ace_per_pile",
            rules.fill == "immediate",
            out["outcome"],
            out["moves"],
            out["cards_left"],
        )
        return out
    ws = Workspace()
    for g in range(decks.shape[0]):
        r = solve(decks[g], rules, ws)
        out["outcome"][g] = r.code
        out["moves"][g] = r.moves
        out["cards_left"][g] = r.cards_left
        out["nodes"][g] = r.nodes
        out["seconds"][g] = r.seconds
        out["solution"][g] = r.solution
    return out


def play_one(deal: np.ndarray, rules: AcesUpRules, trace: bool = False) -> PlayResult:
    """One deal: greedy play by the readable reference, or the solver's verdict with its solution replayed
    deal by deal by the reference."""
    cards = [int(c) for c in np.asarray(deal).reshape(-1)]
    if not uses_solver(rules):
        result = reference.play(cards, rules, record=trace)
        return PlayResult(row=result.row(), trace=reference.trace_lines(result.events, cards) if trace else [])
    r = solve(np.asarray(deal, dtype=np.uint8), rules)
    row = {
        "outcome": OUTCOMES[r.code],
        "won": r.code == WON,
        "rounds": 1,
        "moves": r.moves,
        "cards_left": r.cards_left,
        "nodes": r.nodes,
        "seconds": r.seconds,
        "solution": r.solution,
    }
    lines: list[str] = []
    if trace:
        if r.code == WON:
            lines += reference.solution_lines(cards, rules, r.solution)
            lines.append(f"solution: {r.solution}")
        verdict = SOLVER_VERDICTS[r.code]
        lines.append(
            f"{verdict}: {r.moves} moves, {r.cards_left} cards left; {r.nodes} positions stored, {r.seconds:.4f} s"
        )
    return PlayResult(row=row, trace=lines)


def check_solution(deal: np.ndarray, rules: AcesUpRules, text: str) -> str | None:
    """None if the reference replays ``text`` from ``deal`` to a win under free play; else why not."""
    cards = [int(c) for c in np.asarray(deal).reshape(-1)]
    if sorted(cards) != list(range(NCARDS)):
        return "the deal is not the 52 cards of the deck"
    return reference.check_solution(cards, rules, text)


GAME = GameSpec(
    name="aces_up",
    title="Aces Up (Idiot's Delight, Firing Squad)",
    doc="Deal four piles one card each; discard a top card when a higher one of its suit shows on another pile, "
    "fill spaces from other piles, deal four more; 13 deals, no redeal; won when only the Aces are left.  "
    "strategy: solver decides free play exactly, seeing the stock.",
    deck=DECK_52,
    rules_type=AcesUpRules,
    presets=PRESETS,
    preset_sources=PRESET_SOURCES,
    extra_columns=EXTRA_COLUMNS,
    play_batch=play_batch,
    play_one=play_one,
    outcomes=tuple(OUTCOMES[c] for c in (WON, BLOCKED, UNSOLVABLE, UNKNOWN)),
    check_solution=check_solution,
)
