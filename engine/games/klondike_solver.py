"""Thoughtful Klondike's solver: a depth-first search over the legal moves, each position stored whole.

The rules are the readable reference's (engine/reference/klondike.py), which replays every line this search
reports before it is believed.  The search sees every card (thoughtful play).  What it prunes, each point proven
in docs/solvers.md, "Klondike's solver":

1. A position already stored is not searched again (the table stores every position whole, so two positions are
   never merged; engine/search/position_table.py).
2. A run that is a whole column (no face-down card under it) never moves into an empty column: the position it
   leads to is the one before it with two columns' names swapped, and no rule names a column.

3. Safe moves home, after every move: an Ace, or a Two on its Ace, from a column's top; without worrying back,
   any next card on which nothing can still be built; under draw 1 also from the waste's top (``_safe``).
4. No draw or redeal move: each card the draws can bring to the waste's top, with the fewest redeals, is one
   move (``_talon_moves``); the line written out has the draws and the redeal.

Nothing else is pruned (no bound, no dominance between positions).  tests/test_klondike.py holds the verdicts to
the reference's plain exhaustive search on reduced decks under every combination of the switches.

A position, as the kernel holds it: ``col[j, 0:ch[j]]`` column j bottom first, its first ``fd[j]`` cards face
down (always the deal's first ``fd[j]`` cards of that column: cards arrive only on face-up tops or in empty
columns); ``tal[0:tl]`` the cards of stock and waste left, in the order the stock gives them, ``tal[0:wp]`` the
waste (its top ``tal[wp - 1]``) and ``tal[wp:tl]`` the stock (next drawn ``tal[wp]``), so a redeal is ``wp = 0``;
``fnd[s]`` the cards of suit s on its foundation; ``rd`` the redeals made.  Its key (``KEY_WORDS`` words) holds
each column's face-down count, face-up count and face-up cards, which of the deal's stock cards are left, ``wp``,
the foundations and, when redeals are counted, ``rd``: everything the future depends on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba as nb
import numpy as np

from engine.deals import read_only_uint8
from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.search.position_table import add, new_table, next_gen

KEY_WORDS = 7  # 7 x (3 + 4) + 52 x 6 + 32 + 6 + 16 + 8 = 423 bits at most
MAXC = 7  # columns
MAXH = 20  # a column's cards: 6 face down + 13 face up, and one more
MAXT = 32  # stock and waste
# Legal moves of one position, at most: 7 column tops home, 32 talon cards home, 28 runs onto cards (each top takes
# at most 4 cards), 28 talon cards onto cards, 32 x 6 talon cards and 52 x 6 runs into empty columns, 28 worried
# back: 627 (the moves are int32, in one pool: each frame takes the rows it needs)
MAXM = 640
MOVES_PER_FRAME = 48  # the move pool's size a frame of the stack, on average (the stack doubles when it is short)

# Move codes: kind | a << 3 | b << 9 | c << 15
M_COL_F, M_WASTE_F, M_WASTE_COL, M_RUN, M_F_COL, M_DRAW, M_REDEAL, M_TALON = range(8)
T_FOUNDATION = 7  # M_TALON's target for the foundation (0..6: a column)
# Rule codes
EMPTY_KINGS, EMPTY_ANY, EMPTY_NONE = 0, 1, 2
BUILD_ALTERNATE, BUILD_SUIT, BUILD_ANY = 0, 1, 2
EMPTY_CODES = {"kings": EMPTY_KINGS, "any": EMPTY_ANY, "none": EMPTY_NONE}
BUILD_CODES = {"alternate": BUILD_ALTERNATE, "suit": BUILD_SUIT, "any": BUILD_ANY}

STACK_TOO_SMALL = -1


@nb.njit(cache=True, inline="always")
def _bits(w, pos, val, n):
    """Write the n low bits of val at bit pos of the words w; the next free bit."""
    word = pos >> 6
    off = pos & 63
    v = np.uint64(val)
    w[word] |= v << np.uint64(off)
    if off + n > 64:
        w[word + 1] |= v >> np.uint64(64 - off)
    return pos + n


@nb.njit(cache=True, inline="always")
def _encode(w, col, ch, fd, tal, tl, wp, fnd, rd, ncols, talpos, count_redeals):
    """The key of a position (module docstring): every word of w rewritten."""
    for t in range(KEY_WORDS):
        w[t] = np.uint64(0)
    pos = 0
    for j in range(ncols):
        pos = _bits(w, pos, fd[j], 3)
        pos = _bits(w, pos, ch[j] - fd[j], 4)
        for i in range(fd[j], ch[j]):
            pos = _bits(w, pos, col[j, i], 6)
    mask = np.uint64(0)
    for i in range(tl):
        mask |= np.uint64(1) << np.uint64(talpos[tal[i]])
    pos = _bits(w, pos, mask, 32)
    pos = _bits(w, pos, wp, 6)
    for s in range(4):
        pos = _bits(w, pos, fnd[s], 4)
    if count_redeals:
        pos = _bits(w, pos, min(rd, 255), 8)


@nb.njit(cache=True, inline="always")
def _takes(card, col, ch, k, top_rank, build, empty):
    """May card (with any run on it) go onto column k?"""
    if ch[k] == 0:
        if empty == EMPTY_ANY:
            return True
        if empty == EMPTY_KINGS:
            return card % 13 == top_rank
        return False
    t = col[k, ch[k] - 1]
    if t % 13 != card % 13 + 1:
        return False
    if build == BUILD_ANY:
        return True
    if build == BUILD_SUIT:
        return t // 13 == card // 13
    red_t = t // 13 == 1 or t // 13 == 2
    red_c = card // 13 == 1 or card // 13 == 2
    return red_t != red_c


@nb.njit(cache=True)
def _talon_plays(out, n, p, flag, col, ch, tal, fnd, ncols, top_rank, build, empty, home):
    """The plays of tal[p - 1], reached by draws (and a redeal when flag is 1): home, or onto the tableau."""
    c = tal[p - 1]
    if home:
        if fnd[c // 13] == c % 13:
            out[n] = M_TALON | (p << 3) | (flag << 9) | (T_FOUNDATION << 10)
            n += 1
        return n
    for k in range(ncols):
        if _takes(c, col, ch, k, top_rank, build, empty):
            out[n] = M_TALON | (p << 3) | (flag << 9) | (k << 10)
            n += 1
    return n


@nb.njit(cache=True)
def _talon_moves(out, n, col, ch, tal, tl, wp, fnd, rd, ncols, top_rank, draw, redeals, build, empty, home):
    """Point 4: every card the draws can bring to the waste's top, each with the fewest redeals (none, or one),
    played home (``home``) or onto the tableau."""
    if tl == 0:
        return n
    p = wp
    while True:
        if p > 0:
            n = _talon_plays(out, n, p, 0, col, ch, tal, fnd, ncols, top_rank, build, empty, home)
        if p == tl:
            break
        p = min(p + draw, tl)
    if redeals < 0 or rd < redeals:
        q = 0
        while q < tl:
            q = min(q + draw, tl)
            if q != wp and not (q > wp and ((q - wp) % draw == 0 or q == tl)):  # not reached without a redeal
                n = _talon_plays(out, n, q, 1, col, ch, tal, fnd, ncols, top_rank, build, empty, home)
    return n


@nb.njit(cache=True, inline="always")
def _runs_onto_cards(out, n, j, i, col, ch, ncols, top_rank, build, empty):
    """The moves of column j's run from col[j, i] onto the other columns' top cards."""
    for k in range(ncols):
        if k != j and ch[k] > 0 and _takes(col[j, i], col, ch, k, top_rank, build, empty):
            out[n] = M_RUN | (j << 3) | (i << 9) | (k << 15)
            n += 1
    return n


@nb.njit(cache=True, inline="always")
def _moves(out, col, ch, fd, tal, tl, wp, fnd, rd, ncols, top_rank, draw, redeals, build, empty, worry, partial):
    """Every move of the search (point 2 left out, point 4's talon moves for the draws and redeals), in the order
    tried: to the foundations (columns, then the talon), whole face-up runs onto cards, talon cards onto the
    tableau, parts of runs onto cards, runs into empty columns, worrying back.  ``partial``: may any part of a run
    move onto a card (partial_runs: any), or only one that uncovers a card next home?"""
    n = 0
    for j in range(ncols):
        if ch[j] > 0:
            c = col[j, ch[j] - 1]
            if fnd[c // 13] == c % 13:
                out[n] = M_COL_F | (j << 3)
                n += 1
    n = _talon_moves(out, n, col, ch, tal, tl, wp, fnd, rd, ncols, top_rank, draw, redeals, build, empty, True)
    for j in range(ncols):  # whole face-up runs onto cards: each turns a card or empties a column
        if ch[j] > 0:
            n = _runs_onto_cards(out, n, j, fd[j], col, ch, ncols, top_rank, build, empty)
    n = _talon_moves(out, n, col, ch, tal, tl, wp, fnd, rd, ncols, top_rank, draw, redeals, build, empty, False)
    for j in range(ncols):  # parts of runs onto cards
        for i in range(fd[j] + 1, ch[j]):
            if partial or fnd[col[j, i - 1] // 13] == col[j, i - 1] % 13:  # else partial_runs: uncovers_home
                n = _runs_onto_cards(out, n, j, i, col, ch, ncols, top_rank, build, empty)
    for j in range(ncols):
        for i in range(fd[j], ch[j]):
            if i == 0:
                continue  # point 2: a whole column into an empty one
            for k in range(ncols):
                if ch[k] == 0 and _takes(col[j, i], col, ch, k, top_rank, build, empty):
                    out[n] = M_RUN | (j << 3) | (i << 9) | (k << 15)
                    n += 1
    if worry:
        for s in range(4):
            if fnd[s] > 0:
                c = s * 13 + fnd[s] - 1
                for k in range(ncols):
                    if _takes(c, col, ch, k, top_rank, build, empty):
                        out[n] = M_F_COL | (s << 3) | (k << 9)
                        n += 1
    return n


@nb.njit(cache=True, inline="always")
def _flip(fd, ch, j):
    """A face-down card left on top is turned face up."""
    if fd[j] > 0 and fd[j] == ch[j]:
        fd[j] -= 1


@nb.njit(cache=True, inline="always")
def _play_waste(col, ch, tal, sc, fnd, target):
    """The waste's top home (target T_FOUNDATION) or onto column target."""
    wp = sc[1]
    card = tal[wp - 1]
    for i in range(wp - 1, sc[0] - 1):
        tal[i] = tal[i + 1]
    sc[0] -= 1
    sc[1] -= 1
    if target == T_FOUNDATION:
        fnd[card // 13] += 1
    else:
        col[target, ch[target]] = card
        ch[target] += 1


@nb.njit(cache=True, inline="always")
def _apply(m, col, ch, fd, tal, sc, fnd, draw):
    """Play move m on the position (sc = [tl, wp, rd])."""
    kind = m & 7
    a = (m >> 3) & 63
    b = (m >> 9) & 63
    c = (m >> 15) & 63
    if kind == M_COL_F:
        card = col[a, ch[a] - 1]
        fnd[card // 13] += 1
        ch[a] -= 1
        _flip(fd, ch, a)
    elif kind == M_WASTE_F:
        _play_waste(col, ch, tal, sc, fnd, T_FOUNDATION)
    elif kind == M_WASTE_COL:
        _play_waste(col, ch, tal, sc, fnd, a)
    elif kind == M_RUN:
        n = ch[a] - b
        for i in range(n):
            col[c, ch[c] + i] = col[a, b + i]
        ch[c] += n
        ch[a] = b
        _flip(fd, ch, a)
    elif kind == M_F_COL:
        fnd[a] -= 1
        col[b, ch[b]] = a * 13 + fnd[a]
        ch[b] += 1
    elif kind == M_TALON:
        if (m >> 9) & 1:
            sc[2] += 1
        sc[1] = a
        _play_waste(col, ch, tal, sc, fnd, (m >> 10) & 7)
    elif kind == M_DRAW:
        sc[1] = min(sc[1] + draw, sc[0])
    else:
        sc[1] = 0
        sc[2] += 1


@nb.njit(cache=True, inline="always")
def _safe(card, fnd, build, worry):
    """Point 3: may this card, the next for its foundation, go there at once?  An Ace or a Two always; without
    worrying back, any card every card that could be built on it is home (docs/solvers.md has the proofs)."""
    r = card % 13
    if r <= 1:
        return True
    if worry:
        return False
    if build == BUILD_SUIT:
        return True  # only lower cards of its own suit build on it, and they are home
    if build == BUILD_ANY:
        return fnd[0] >= r and fnd[1] >= r and fnd[2] >= r and fnd[3] >= r
    if card // 13 == 0 or card // 13 == 3:  # black: the red suits' cards one lower
        return fnd[1] >= r and fnd[2] >= r
    return fnd[0] >= r and fnd[3] >= r


@nb.njit(cache=True, inline="always")
def _auto(col, ch, fd, tal, sc, fnd, ncols, draw, build, worry, out):
    """Point 3's closure: the safe cards on column tops (and, under draw 1, the waste's top) go home until none
    is left; each move and its card written to out.  Returns how many."""
    n = 0
    again = True
    while again:
        again = False
        for j in range(ncols):
            if ch[j] > 0:
                c = col[j, ch[j] - 1]
                if fnd[c // 13] == c % 13 and _safe(c, fnd, build, worry):
                    out[n, 0] = M_COL_F | (j << 3)
                    out[n, 1] = c
                    n += 1
                    fnd[c // 13] += 1
                    ch[j] -= 1
                    _flip(fd, ch, j)
                    again = True
        if draw == 1 and sc[1] > 0:
            c = tal[sc[1] - 1]
            if fnd[c // 13] == c % 13 and _safe(c, fnd, build, worry):
                out[n, 0] = M_WASTE_F
                out[n, 1] = c
                n += 1
                _play_waste(col, ch, tal, sc, fnd, T_FOUNDATION)
                again = True
    return n


@nb.njit(cache=True, inline="always")
def _moved_card(m, col, ch, tal, sc, fnd):
    """The card move m takes, in the position before it (-1 for a draw or a redeal)."""
    kind = m & 7
    a = (m >> 3) & 63
    if kind == M_COL_F:
        return col[a, ch[a] - 1]
    if kind == M_WASTE_F or kind == M_WASTE_COL:
        return tal[sc[1] - 1]
    if kind == M_RUN:
        return col[a, (m >> 9) & 63]
    if kind == M_F_COL:
        return a * 13 + fnd[a] - 1
    if kind == M_TALON:
        return tal[a - 1]
    return -1


@nb.njit(cache=True, inline="always")
def _frame_moves(g, MV, BASE, COL, CH, FD, TAL, SC, FND, ncols, top_rank, draw, redeals, build, empty, worry, partial):
    """The moves of the stack's frame g, written to the pool MV from BASE[g]; how many."""
    return _moves(
        MV[BASE[g] : BASE[g] + MAXM],
        COL[g],
        CH[g],
        FD[g],
        TAL[g],
        SC[g, 0],
        SC[g, 1],
        FND[g],
        SC[g, 2],
        ncols,
        top_rank,
        draw,
        redeals,
        build,
        empty,
        worry,
        partial,
    )


@nb.njit(cache=True, inline="always")
def _talon_steps(m, tl, wp, draw):
    """Point 4's move m from a talon of tl cards, wp in the waste: (draws before a redeal, redeals, draws after)."""
    p = (m >> 3) & 63
    if (m >> 9) & 1:
        return (tl - wp + draw - 1) // draw, 1, (p + draw - 1) // draw
    return (p - wp + draw - 1) // draw, 0, 0


@nb.njit(cache=True, inline="always")
def _won_line(g, MV, BASE, NX, AUTO, NA, COL, CH, TAL, SC, FND, draw):
    """The line to frame g in the reference's moves: each frame's safe moves (point 3), then the move tried from
    it, a talon move (point 4) written out as its draws, its redeal and the play of the waste's top."""
    n = 0
    for t in range(g + 1):
        n += NA[t]
        if t < g:
            m = MV[BASE[t] + NX[t] - 1]
            n += 1
            if m & 7 == M_TALON:
                d1, r, d2 = _talon_steps(m, SC[t, 0], SC[t, 1], draw)
                n += d1 + r + d2
    line = np.zeros((n, 2), dtype=np.int64)
    n = 0
    for t in range(g + 1):
        for i in range(NA[t]):
            line[n, 0] = AUTO[t, i, 0]
            line[n, 1] = AUTO[t, i, 1]
            n += 1
        if t < g:
            m = MV[BASE[t] + NX[t] - 1]
            card = _moved_card(m, COL[t], CH[t], TAL[t], SC[t], FND[t])
            if m & 7 == M_TALON:
                d1, r, d2 = _talon_steps(m, SC[t, 0], SC[t, 1], draw)
                for _ in range(d1):
                    line[n, 0] = M_DRAW
                    line[n, 1] = -1
                    n += 1
                if r:
                    line[n, 0] = M_REDEAL
                    line[n, 1] = -1
                    n += 1
                for _ in range(d2):
                    line[n, 0] = M_DRAW
                    line[n, 1] = -1
                    n += 1
                target = (m >> 10) & 7
                m = M_WASTE_F if target == T_FOUNDATION else M_WASTE_COL | (target << 3)
            line[n, 0] = m
            line[n, 1] = card
            n += 1
    return line


@nb.njit(cache=True)
def _solve(
    deal,
    ncols,
    draw,
    redeals,
    build,
    empty,
    worry,
    partial,
    safe,
    max_nodes,
    recs,
    table,
    gen,
    COL,
    CH,
    FD,
    TAL,
    SC,
    FND,
    MV,
    BASE,
    NM,
    NX,
    AUTO,
    NA,
):
    """Depth-first search from the deal.  Returns (outcome or STACK_TOO_SMALL, positions stored, most cards on
    the foundations, the winning line as rows of (move code, card moved), recs, table)."""
    ncards = deal.shape[0]
    top_rank = ncards // 4 - 1
    depth = CH.shape[0]
    talpos = np.zeros(64, dtype=np.int64)
    # the deal: row by row, column r's card face up
    d = 0
    CH[0, :] = 0
    for r in range(ncols):
        for j in range(r, ncols):
            COL[0, j, CH[0, j]] = deal[d]
            CH[0, j] += 1
            d += 1
    for j in range(ncols):
        FD[0, j] = j
    tl = ncards - d
    for i in range(tl):
        TAL[0, i] = deal[d + i]
        talpos[deal[d + i]] = i
    SC[0, 0] = tl
    SC[0, 1] = 0
    SC[0, 2] = 0
    FND[0, :] = 0
    count_redeals = redeals >= 0
    NA[0] = _auto(COL[0], CH[0], FD[0], TAL[0], SC[0], FND[0], ncols, draw, build, worry, AUTO[0]) if safe else 0
    best = FND[0, 0] + FND[0, 1] + FND[0, 2] + FND[0, 3]
    line = np.zeros((0, 2), dtype=np.int64)
    if best == ncards:
        return WON, 0, best, _won_line(0, MV, BASE, NX, AUTO, NA, COL, CH, TAL, SC, FND, draw), recs, table
    w = np.zeros(KEY_WORDS, dtype=np.uint64)
    _encode(w, COL[0], CH[0], FD[0], TAL[0], SC[0, 0], SC[0, 1], FND[0], 0, ncols, talpos, count_redeals)
    recs, table, _, _ = add(recs, table, 0, w, gen)
    nrec = 1
    BASE[0] = 0
    NM[0] = _frame_moves(
        0, MV, BASE, COL, CH, FD, TAL, SC, FND, ncols, top_rank, draw, redeals, build, empty, worry, partial
    )
    NX[0] = 0
    sp = 1
    while sp > 0:
        f = sp - 1
        if NX[f] == NM[f]:
            sp -= 1
            continue
        m = MV[BASE[f] + NX[f]]
        NX[f] += 1
        if sp == depth:
            return STACK_TOO_SMALL, nrec, best, line, recs, table
        g = sp
        COL[g, :, :] = COL[f, :, :]
        CH[g, :] = CH[f, :]
        FD[g, :] = FD[f, :]
        TAL[g, :] = TAL[f, :]
        SC[g, :] = SC[f, :]
        FND[g, :] = FND[f, :]
        _apply(m, COL[g], CH[g], FD[g], TAL[g], SC[g], FND[g], draw)
        NA[g] = _auto(COL[g], CH[g], FD[g], TAL[g], SC[g], FND[g], ncols, draw, build, worry, AUTO[g]) if safe else 0
        home = FND[g, 0] + FND[g, 1] + FND[g, 2] + FND[g, 3]
        if home > best:
            best = home
        if home == ncards:
            return WON, nrec, best, _won_line(g, MV, BASE, NX, AUTO, NA, COL, CH, TAL, SC, FND, draw), recs, table
        _encode(w, COL[g], CH[g], FD[g], TAL[g], SC[g, 0], SC[g, 1], FND[g], SC[g, 2], ncols, talpos, count_redeals)
        if nrec >= max_nodes:
            return UNKNOWN, nrec, best, line, recs, table
        recs, table, _, added = add(recs, table, nrec, w, gen)
        if not added:
            continue
        nrec += 1
        BASE[g] = BASE[f] + NM[f]
        if BASE[g] + MAXM > MV.shape[0]:
            return STACK_TOO_SMALL, nrec, best, line, recs, table
        NM[g] = _frame_moves(
            g, MV, BASE, COL, CH, FD, TAL, SC, FND, ncols, top_rank, draw, redeals, build, empty, worry, partial
        )
        NX[g] = 0
        sp += 1
    return UNSOLVABLE, nrec, best, line, recs, table


class Workspace:
    """A search's arrays, reused from deal to deal: the table (a new generation each search) and the stack."""

    def __init__(self, depth: int = 1 << 12) -> None:
        self.recs, self.table = new_table(KEY_WORDS, 1 << 14)
        self.gen = 0
        self.stack(depth)

    def stack(self, depth: int) -> None:
        self.COL = np.zeros((depth, MAXC, MAXH), dtype=np.uint8)
        self.CH = np.zeros((depth, MAXC), dtype=np.int64)
        self.FD = np.zeros((depth, MAXC), dtype=np.int64)
        self.TAL = np.zeros((depth, MAXT), dtype=np.uint8)
        self.SC = np.zeros((depth, 3), dtype=np.int64)
        self.FND = np.zeros((depth, 4), dtype=np.int64)
        self.MV = np.zeros(depth * MOVES_PER_FRAME, dtype=np.int32)  # the frames' moves, one after another
        self.BASE = np.zeros(depth + 1, dtype=np.int64)  # where each frame's moves start in MV
        self.NM = np.zeros(depth, dtype=np.int64)
        self.NX = np.zeros(depth, dtype=np.int64)
        self.AUTO = np.zeros((depth, 52, 2), dtype=np.int32)
        self.NA = np.zeros(depth, dtype=np.int64)

    @property
    def depth(self) -> int:
        return self.CH.shape[0]

    def arrays(self) -> tuple:
        return (
            self.COL,
            self.CH,
            self.FD,
            self.TAL,
            self.SC,
            self.FND,
            self.MV,
            self.BASE,
            self.NM,
            self.NX,
            self.AUTO,
            self.NA,
        )

    def next_gen(self) -> int:
        self.gen = next_gen(self.table, self.gen)
        return self.gen


@dataclass(frozen=True)
class Searched:
    """The search's answer for one deal: the outcome code, positions stored, most cards home, the line."""

    code: int
    nodes: int
    most_home: int
    line: np.ndarray
    seconds: float


def search(
    deal: np.ndarray,
    columns: int,
    draw: int,
    redeals: int,
    build: str,
    empty_column: str,
    worrying_back: bool,
    max_nodes: int,
    ws: Workspace | None = None,
    safe: bool = True,
    partial_runs: str = "uncovers_home",
) -> Searched:
    """One deal searched (``redeals`` -1 for unlimited; ``safe`` False leaves out point 3, for the bench and the
    tests; ``partial_runs`` as the switch); the stack doubles until the line fits."""
    ws = ws or Workspace()
    deal = read_only_uint8(np.asarray(deal).reshape(-1))
    if not 1 <= columns <= MAXC or deal.shape[0] - columns * (columns + 1) // 2 > MAXT:
        raise ValueError(f"the solver takes 1..{MAXC} columns and at most {MAXT} cards in the stock")
    t0 = time.perf_counter()
    while True:
        code, nodes, best, line, ws.recs, ws.table = _solve(
            deal,
            np.int64(columns),
            np.int64(draw),
            np.int64(redeals),
            np.int64(BUILD_CODES[build]),
            np.int64(EMPTY_CODES[empty_column]),
            bool(worrying_back),
            bool(partial_runs == "any"),
            bool(safe),
            np.int64(max_nodes),
            ws.recs,
            ws.table,
            np.int64(ws.next_gen()),
            *ws.arrays(),
        )
        if code != STACK_TOO_SMALL:
            return Searched(int(code), int(nodes), int(best), line, time.perf_counter() - t0)
        ws.stack(2 * ws.depth)
