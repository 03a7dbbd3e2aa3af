"""The open solitaires' position as the kernels hold it: one uint8 array, and the rule codes they read.

A position is ``STATE_SIZE`` bytes: up to MAXCOLS columns of WIDTH slots (bottom card first), their heights,
MAXCELLS cells (NOCARD when free) and the four foundation heights.  The rules reach the kernels as a small
int64 vector (the ``P_*`` indices), so one compiled kernel serves every game of the family.  Cards use
relative ranks (``rel``: rank less the deal's base, mod 13), so Penguin's beak is rank 0 like an Ace.
Layouts (how a deal is laid out) are described in docs/solvers.md, "Layouts".
"""

from __future__ import annotations

import numba as nb
import numpy as np

# --- rule codes passed to the kernels --------------------------------------
LAYOUT_PENGUIN, LAYOUT_IN_TURN = 0, 1  # Penguin's 7 columns with a beak; `columns` columns dealt in turn
LAYOUT_EIGHT = LAYOUT_IN_TURN  # the historical name (FreeCell's eight columns)
BUILD_SUIT, BUILD_ALTERNATE = 0, 1
EMPTY_ANY, EMPTY_TOP_RANK, EMPTY_NONE = 0, 1, 2  # TOP_RANK: relative rank 12 (a King; beak - 1 in Penguin)

TO_EMPTY, TO_CELL, TO_FOUNDATION = 52, 53, 54

# --- position layout in one uint8 array -------------------------------------
WIDTH = 64  # room per column; a column never holds more than 52 cards
MAXCOLS = 10
MAXCELLS = 8
O_LEN = MAXCOLS * WIDTH  # column heights
O_CELL = O_LEN + MAXCOLS  # cells, NOCARD when free
O_FND = O_CELL + MAXCELLS  # foundation heights per suit
STATE_SIZE = O_FND + 4
NOCARD = 255
# A stored position: at most 52 cards + 1 cell marker + one end marker per non-empty column = 63 symbols of
# 6 bits (cards 0..51 and three markers), packed into 48 bytes (64 symbols).
REC_SYMBOLS = 64
REC_BYTES = REC_SYMBOLS * 6 // 8
REC_WORDS = REC_BYTES // 8
SYM_CELLS_END, SYM_COLUMN_END, SYM_PAD = 61, 62, 63
# generated moves: src | pos << POS_SHIFT | dst << DST_SHIFT
SRC_CELL = MAXCOLS  # src MAXCOLS + j: cell j
DST_CELL, DST_FND = MAXCOLS, MAXCOLS + 1
POS_SHIFT, DST_SHIFT = 5, 11
SRC_MASK = (1 << POS_SHIFT) - 1

# params vector
P_NCOLS, P_NCELLS, P_BUILD, P_WRAP, P_UNLIMITED, P_EMPTY, P_MAXNODES, P_W = range(8)
# Weights of the search's guide (cards out, cards above a lower card, cells used, cards above a card its
# foundation needs next, non-empty columns); chosen on Penguin seeded deals and FreeCell MS deals 1-200.
# They steer the order of the search only, never its verdict.
HEURISTIC_WEIGHTS = np.array([3, 1, 1, 1, 2], dtype=np.int64)

# King Albert's family (engine/games/king_albert.py): slots after the heuristic weights, 0 for the other games.
P_RESERVE = P_W + len(HEURISTIC_WEIGHTS)  # 1: the cells are a reserve: cards leave it, none ever enters it
P_WORRY = P_RESERVE + 1  # 1: worrying back: a foundation's top card may go back onto the tableau
P_SINGLE = P_RESERVE + 2  # 1: one card at a time (no runs move as a unit)
P_EAGER = P_RESERVE + 3  # 1: every ready card goes up at once (the streamlined search only: not a sound pruning)
P_SUITS = P_RESERVE + 4  # 1: positions are told apart by colour and rank only (the streamlined search only)
P_LINE = P_RESERVE + 5  # 1: the line search: moves in Solvitaire's order, the line kept as records (depth_first_search)
P_FRONTIER = P_RESERVE + 6  # 1: the sweep frees each level of a layer two levels on (every move in a layer undoes)
WORRY_MOVE = 1 << 30  # a generated foundation-to-tableau move: WORRY_MOVE | suit | column << 8


@nb.njit(cache=True, inline="always")
def is_red(card):
    s = card // 13
    return s == 1 or s == 2


@nb.njit(cache=True, inline="always")
def foundation_total(st):
    return np.int64(st[O_FND]) + st[O_FND + 1] + st[O_FND + 2] + st[O_FND + 3]


STATE_WORDS = (STATE_SIZE + 7) // 8  # the search's own positions are padded to whole words, copied word by word


@nb.njit(cache=True)
def lay_out_deal(deal, layout, ncols, prefilled, st, rel):
    """The opening position of a deal (before any move) into st, relative ranks into rel.

    LAYOUT_IN_TURN: card k of the first 52 - prefilled goes to column k mod ncols; the last ``prefilled``
    cards go to cells 1, 2, ... in order (the reference's ``deal_layout`` documents the same order).
    """
    for k in range(STATE_SIZE):
        st[k] = 0
    for j in range(MAXCELLS):
        st[O_CELL + j] = NOCARD
    if layout == LAYOUT_PENGUIN:
        beak = deal[0]
        base = beak % 13
        for c in range(52):
            rel[c] = (c % 13 - base + 13) % 13
        st[0] = beak
        slot = 1  # slots are numbered row by row over 7 columns
        for k in range(1, 52):
            c = deal[k]
            if c % 13 == base:
                st[O_FND + c // 13] = 1
            else:
                col = slot % 7
                row = slot // 7
                st[col * WIDTH + row] = c
                slot += 1
        for i in range(7):
            st[O_LEN + i] = 7
    else:
        for c in range(52):
            rel[c] = c % 13
        ntab = 52 - prefilled
        for k in range(ntab):
            col = k % ncols
            st[col * WIDTH + st[O_LEN + col]] = deal[k]
            st[O_LEN + col] += 1
        for j in range(prefilled):
            st[O_CELL + j] = deal[ntab + j]


def make_position(
    columns: list[list[int]], cells: list[int], foundations: list[int], base: int
) -> tuple[np.ndarray, np.ndarray]:
    """A kernel position from plain lists (used by tests to pose mid-game positions)."""
    st = np.zeros(STATE_SIZE, dtype=np.uint8)
    st[O_CELL : O_CELL + MAXCELLS] = NOCARD
    for i, col in enumerate(columns):
        for p, c in enumerate(col):
            st[i * WIDTH + p] = c
        st[O_LEN + i] = len(col)
    for j, c in enumerate(cells):
        st[O_CELL + j] = c
    st[O_FND : O_FND + 4] = foundations
    rel = np.array([(c % 13 - base) % 13 for c in range(52)], dtype=np.int64)
    return st, rel
