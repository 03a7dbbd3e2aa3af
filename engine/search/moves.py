"""Move generation and application on a kernel position: which cards may go where, and moving them.

``gen_moves`` lists a position's moves (a card, or a run where the rules move runs as a unit, to a column,
an empty column, a cell or a foundation), finding the columns a card may go onto from every top card at
once (6-bit keys in one word).  ``apply_move`` plays one; ``apply_code`` plays a move recorded by cards
(``head * 64 + target``), the form solutions are kept in.  Worrying back (a foundation's top card back onto
the tableau) has moves of its own.  Sequence moves: docs/solvers.md, "Sequence moves".
"""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.search.leaf import leaf_kernel
from engine.search.positions import (
    BUILD_SUIT,
    DST_CELL,
    DST_FND,
    DST_SHIFT,
    EMPTY_ANY,
    EMPTY_TOP_RANK,
    MAXCOLS,
    NOCARD,
    O_CELL,
    O_FND,
    O_LEN,
    P_BUILD,
    P_EMPTY,
    P_NCELLS,
    P_NCOLS,
    P_RESERVE,
    P_SINGLE,
    P_UNLIMITED,
    P_WORRY,
    P_WRAP,
    POS_SHIFT,
    SRC_CELL,
    SRC_MASK,
    TO_CELL,
    TO_EMPTY,
    TO_FOUNDATION,
    WIDTH,
    WORRY_MOVE,
    is_red,
)
from engine.search.safe_moves import is_ready, is_safe

_INF_CAP = 1 << 30


@nb.njit(cache=True, inline="always")
def accepts(x, y, rel, params):
    """Can card x be built on card y in the tableau?"""
    if params[P_BUILD] == BUILD_SUIT:
        if x // 13 != y // 13:
            return False
    else:
        if is_red(x) == is_red(y):
            return False
    rx = rel[x]
    ry = rel[y]
    if ry == rx + 1:
        return True
    return params[P_WRAP] != 0 and rx == 12 and ry == 0


# Where a card may go, found a whole position at a time: each column's top as a 6-bit key (its suit, or colour in
# alternating colours, times 16, plus its relative rank; EMPTY_KEY for an empty column), the keys of up to ten
# columns in one word, and a card's wanted key compared with all of them at once (_columns_taking).  Exact:
# accepts(x, y) holds if and only if y's key is x's wanted key (y of x's suit, or of the other colour, and of the
# relative rank one above x's, or 0 above 12 with wrap).  gen_moves had tried accepts on each column in turn for
# each card that could move: 12.8% of the sweep on disk's samples (perf, 6 columns deal 4934).
KEY_BITS = 6
EMPTY_KEY = 63  # above any wanted key (at most 3 x 16 + 12)
_KEY_ONES = sum(1 << (KEY_BITS * k) for k in range(MAXCOLS))
_KEY_LOW = 31 * _KEY_ONES
_KEY_HIGH = 32 * _KEY_ONES
assert KEY_BITS * MAXCOLS <= 63, "every column's key in one int64 word, clear of its sign bit"


@nb.njit(cache=True, inline="always")
def _target_key(y, rel, params):
    """Card y's key as a card to build on: its suit (building in suit) or colour, times 16, plus its relative
    rank."""
    g = np.int64(y // 13) if params[P_BUILD] == BUILD_SUIT else np.int64(is_red(y))
    return g * 16 + np.int64(rel[y])


@nb.njit(cache=True, inline="always")
def _wanted_key(x, rel, params):
    """The key (_target_key) of the cards x builds on, or -1 if none (a relative rank of 12 without wrap)."""
    r = np.int64(rel[x]) + 1
    if r > 12:
        if params[P_WRAP] == 0:
            return np.int64(-1)
        r = 0
    g = np.int64(x // 13) if params[P_BUILD] == BUILD_SUIT else 1 - np.int64(is_red(x))
    return g * 16 + r


@nb.njit(cache=True, inline="always")
def _top_keys(st, rel, params):
    """The keys of the columns' top cards (EMPTY_KEY for an empty column), column k's at bits 6k.."""
    keys = np.int64(0)
    for k in range(params[P_NCOLS]):
        n = st[O_LEN + k]
        key = np.int64(EMPTY_KEY) if n == 0 else _target_key(st[k * WIDTH + n - 1], rel, params)
        keys |= key << np.int64(KEY_BITS * k)
    return keys


@nb.njit(cache=True, inline="always")
def _columns_taking(keys, want):
    """Bit 6k + 5 set for each column k whose top's key in ``keys`` is ``want`` (none for -1): a field is 0 in
    keys ^ want's copies exactly when its low 5 bits added to 31 do not reach its top bit and its top bit is
    clear (no carry leaves a field: 31 + 31 < 64)."""
    if want < 0:
        return np.int64(0)
    v = keys ^ (want * np.int64(_KEY_ONES))
    y = ((v & np.int64(_KEY_LOW)) + np.int64(_KEY_LOW)) | v
    return ~y & np.int64(_KEY_HIGH)


@nb.njit(cache=True, inline="always")
def empty_takes(x, rel, params):
    e = params[P_EMPTY]
    if e == EMPTY_ANY:
        return True
    if e == EMPTY_TOP_RANK:
        return rel[x] == 12
    return False


@nb.njit(cache=True, inline="always")
def run_start(st, i, rel, params):
    """Index of the deepest card of the movable run at the top of column i (column non-empty)."""
    n = st[O_LEN + i]
    base = i * WIDTH
    p = n - 1
    while p > 0 and accepts(st[base + p], st[base + p - 1], rel, params):
        p -= 1
    return p


@leaf_kernel
def gen_worry_moves(st, rel, params, mv, nm):
    """Append every foundation-to-tableau move: WORRY_MOVE | suit | column << 8 (into the first empty column
    when empty columns take the card).  A card the closure would send straight back up is not played back:
    the move would lead to the position it starts from."""
    ncols = params[P_NCOLS]
    first_empty = -1
    for i in range(ncols):
        if st[O_LEN + i] == 0:
            first_empty = i
            break
    for s in range(4):
        h = np.int64(st[O_FND + s])
        if h == 0:
            continue
        c = s * 13 + h - 1  # foundations from the Ace: the top card's rank is h - 1
        st[O_FND + s] = h - 1
        back_up = is_safe(c, False, False, st, rel, params)
        st[O_FND + s] = h
        if back_up:
            continue
        for k in range(ncols):
            n = st[O_LEN + k]
            if n > 0 and accepts(c, st[k * WIDTH + n - 1], rel, params):
                mv[nm] = WORRY_MOVE | s | (k << 8)
                nm += 1
        if first_empty >= 0 and empty_takes(c, rel, params):
            mv[nm] = WORRY_MOVE | s | (first_empty << 8)
            nm += 1
    return nm


@leaf_kernel
def _apply_worry(st, m):
    """Play the top card of foundation (m & 15) onto column (m >> 8) & 255; return its card code."""
    s = m & 15
    k = (m >> 8) & 255
    h = np.int64(st[O_FND + s])
    c = s * 13 + h - 1
    st[O_FND + s] = h - 1
    d = st[O_LEN + k]
    target = TO_EMPTY if d == 0 else np.int64(st[k * WIDTH + d - 1])
    st[k * WIDTH + d] = c
    st[O_LEN + k] = d + 1
    return np.int64(c) * 64 + target


@leaf_kernel
def _apply_worry_code(st, code, params):
    """apply_code for a head found neither in a cell nor in a column: the top card of its foundation."""
    head = code // 64
    target = code % 64
    s = head // 13
    if st[O_FND + s] != head % 13 + 1:
        return False
    dst = -1
    for i in range(params[P_NCOLS]):
        n = st[O_LEN + i]
        if (target == TO_EMPTY and n == 0) or (target < 52 and n > 0 and st[i * WIDTH + n - 1] == target):
            dst = i
            break
    if dst < 0:
        return False
    _apply_worry(st, WORRY_MOVE | s | (dst << 8))
    return True


@leaf_kernel
def gen_moves(st, rel, params, mv):
    """All moves of the position (safe foundation moves are already done): codes src|pos<<5|dst<<11.

    src 0..MAXCOLS-1 a column (pos = index of the run's deepest card), SRC_CELL + j cell j;
    dst 0..MAXCOLS-1 a column, DST_CELL a cell, DST_FND the foundation.
    """
    ncols = params[P_NCOLS]
    ncells = params[P_NCELLS]
    unlimited = params[P_UNLIMITED] != 0
    free = 0
    for j in range(ncells):
        if st[O_CELL + j] == NOCARD:
            free += 1
    if params[P_RESERVE] != 0:
        free = 0  # a reserve is never entered: no move to a cell
    empties = 0
    first_empty = -1
    for i in range(ncols):
        if st[O_LEN + i] == 0:
            empties += 1
            if first_empty < 0:
                first_empty = i
    # limited runs (docs/solvers.md, "Sequence moves"): empty columns double the capacity only where they
    # take any card; otherwise a run is limited to free cells + 1, into an empty column as onto a card
    if unlimited:
        cap_full = _INF_CAP
        cap_empty = _INF_CAP
    elif params[P_EMPTY] == EMPTY_ANY:
        cap_full = (free + 1) << empties
        cap_empty = (free + 1) << (empties - 1) if empties > 0 else 0
    else:
        cap_full = free + 1
        cap_empty = free + 1
    if params[P_SINGLE] != 0:
        cap_full = 1
        cap_empty = 1
    tops = _top_keys(st, rel, params)
    nm = 0
    for i in range(ncols):
        n = st[O_LEN + i]
        if n == 0:
            continue
        base = i * WIDTH
        top = st[base + n - 1]
        if is_ready(top, st, rel):
            mv[nm] = i | ((n - 1) << POS_SHIFT) | (DST_FND << DST_SHIFT)
            nm += 1
        rs = run_start(st, i, rel, params)
        for p in range(n - 1, rs - 1, -1):
            head = st[base + p]
            length = n - p
            if length <= cap_full:
                taking = _columns_taking(tops, _wanted_key(head, rel, params))
                if taking != 0:
                    for k in range(ncols):
                        if k != i and (taking >> np.int64(KEY_BITS * k + KEY_BITS - 1)) & 1:
                            mv[nm] = i | (p << POS_SHIFT) | (k << DST_SHIFT)
                            nm += 1
            if first_empty >= 0 and p > 0 and length <= cap_empty and empty_takes(head, rel, params):
                mv[nm] = i | (p << POS_SHIFT) | (first_empty << DST_SHIFT)
                nm += 1
        if free > 0:
            mv[nm] = i | ((n - 1) << POS_SHIFT) | (DST_CELL << DST_SHIFT)
            nm += 1
    for j in range(ncells):
        c = st[O_CELL + j]
        if c == NOCARD:
            continue
        if is_ready(c, st, rel):
            mv[nm] = (SRC_CELL + j) | (DST_FND << DST_SHIFT)
            nm += 1
        taking = _columns_taking(tops, _wanted_key(c, rel, params))
        if taking != 0:
            for k in range(ncols):
                if (taking >> np.int64(KEY_BITS * k + KEY_BITS - 1)) & 1:
                    mv[nm] = (SRC_CELL + j) | (k << DST_SHIFT)
                    nm += 1
        if first_empty >= 0 and empty_takes(c, rel, params):
            mv[nm] = (SRC_CELL + j) | (first_empty << DST_SHIFT)
            nm += 1
    if params[P_WORRY] != 0:
        nm = gen_worry_moves(st, rel, params, mv, nm)
    return nm


@nb.njit(cache=True, inline="always")
def apply_move(st, m, params):
    """Apply a generated move; return its card code (head * 64 + target)."""
    if m & WORRY_MOVE:
        return _apply_worry(st, m)
    src = m & SRC_MASK
    pos = (m >> POS_SHIFT) & 63
    dst = m >> DST_SHIFT
    if src >= SRC_CELL:
        head = st[O_CELL + src - SRC_CELL]
        st[O_CELL + src - SRC_CELL] = NOCARD
        length = 1
    else:
        n = st[O_LEN + src]
        head = st[src * WIDTH + pos]
        length = n - pos
    if dst == DST_FND:
        target = TO_FOUNDATION
        st[O_FND + head // 13] += 1
    elif dst == DST_CELL:
        target = TO_CELL
        for j in range(params[P_NCELLS]):
            if st[O_CELL + j] == NOCARD:
                st[O_CELL + j] = head
                break
    else:
        d = st[O_LEN + dst]
        target = TO_EMPTY if d == 0 else st[dst * WIDTH + d - 1]
        if src >= SRC_CELL:
            st[dst * WIDTH + d] = head
        else:
            for t in range(length):
                st[dst * WIDTH + d + t] = st[src * WIDTH + pos + t]
        st[O_LEN + dst] = d + length
    if src < SRC_CELL:
        st[O_LEN + src] = pos
    return np.int64(head) * 64 + target


@leaf_kernel
def apply_code(st, code, params):
    """Apply a move given by cards (head, target) on any column order; return False if impossible."""
    head = code // 64
    target = code % 64
    ncols = params[P_NCOLS]
    src = -1
    pos = 0
    for j in range(params[P_NCELLS]):
        if st[O_CELL + j] == head:
            src = SRC_CELL + j
    if src < 0:
        for i in range(ncols):
            for p in range(np.int64(st[O_LEN + i])):
                if st[i * WIDTH + p] == head:
                    src = i
                    pos = p
    if src < 0 and params[P_WORRY] != 0:
        return _apply_worry_code(st, code, params)
    if src < 0:
        return False
    if target == TO_FOUNDATION:
        dst = DST_FND
    elif target == TO_CELL:
        dst = DST_CELL
    elif target == TO_EMPTY:
        dst = -1
        for i in range(ncols):
            if st[O_LEN + i] == 0:
                dst = i
                break
    else:
        dst = -1
        for i in range(ncols):
            n = st[O_LEN + i]
            if n > 0 and st[i * WIDTH + n - 1] == target:
                dst = i
                break
    if dst < 0:
        return False
    m = src | (pos << POS_SHIFT) | (dst << DST_SHIFT)
    apply_move(st, m, params)
    return True
