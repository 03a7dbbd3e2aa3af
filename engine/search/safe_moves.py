"""Safe moves and the closure: cards that may go to the foundations with no loss, played at once.

A card is *safe* when no winning line needs it off its foundation; every expansion's children are closed
under safe moves (``play_safe_moves``), which shrinks the search without changing any verdict.  Each rule's
proof (suit builds, alternate colours, worrying back, reserves) is in docs/solvers.md, "Sound pruning, and
why", point 2, and tests/test_open_solitaire_search.py holds the closure to plain exhaustive search.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.search.leaf import leaf_kernel
from engine.search.positions import (
    BUILD_SUIT,
    EMPTY_NONE,
    NOCARD,
    O_CELL,
    O_FND,
    O_LEN,
    P_BUILD,
    P_EAGER,
    P_EMPTY,
    P_NCELLS,
    P_NCOLS,
    P_WORRY,
    P_WRAP,
    TO_FOUNDATION,
    WIDTH,
)


@nb.njit(cache=True, inline="always")
def is_ready(c, st, rel):
    return st[O_FND + c // 13] == rel[c]


@nb.njit(cache=True, inline="always")
def is_safe(c, in_cell, alone, st, rel, params):
    """May exposed card c go to its foundation without loss (docs/solvers.md, "Sound pruning, and why", point 3)?"""
    if not is_ready(c, st, rel):
        return False
    if params[P_EAGER] != 0:  # the streamlined search (docs/solvers.md): its wins count, its exhaustion does not
        return True
    if params[P_WORRY] != 0:
        return _safe_worrying_back(c, st, rel)
    r = rel[c]
    if params[P_BUILD] == BUILD_SUIT:
        if r > 0 or params[P_WRAP] == 0:
            return True
        return in_cell or (alone and params[P_EMPTY] != EMPTY_NONE)
    # alternating colours (points 3 and 3c): both foundations of the other colour hold at least r cards, or
    # at least r - 1 with the other foundation of c's colour at least r - 2
    return _safe_alternate(c, st, rel)


@nb.njit(cache=True, inline="always")
def _safe_alternate(c, st, rel):
    """Points 3 and 3c of docs/solvers.md, "Sound pruning, and why": without worrying back, a ready card of relative
    rank r in an alternating-colour game goes up safely when both foundations of the other colour hold at least
    r cards (point 3: nothing can ever go onto it), or at least r - 1 with the other foundation of its colour at
    least r - 2 (point 3c)."""
    r = np.int64(rel[c])
    s = c // 13
    if s == 0 or s == 3:  # black: clubs, spades; the other black suit is 3 - s
        lo = min(st[O_FND + 1], st[O_FND + 2])
    else:
        lo = min(st[O_FND + 0], st[O_FND + 3])
    # point 3: both cards that could go onto c are up; point 3c: they are next, and so is what goes onto them
    return lo >= r or (lo >= r - 1 and st[O_FND + 3 - s] >= r - 2)


@nb.njit(cache=True, inline="always")
def _safe_worrying_back(c, st, rel):
    """Point 3b of docs/solvers.md, "Sound pruning, and why": under worrying back (alternating colours, foundations
    from the Ace) a card of relative rank r goes up safely when both foundations of the other colour hold at
    least r - 1 cards and the other foundation of its colour at least r - 2 (c is ready: its own holds r).
    This is point 3c's condition; point 3's (the other colour at r, nothing asked of c's) is not safe here."""
    r = np.int64(rel[c])
    s = c // 13
    if s == 0 or s == 3:  # black: clubs, spades
        return st[O_FND + 1] >= r - 1 and st[O_FND + 2] >= r - 1 and st[O_FND + 3 - s] >= r - 2
    return st[O_FND + 0] >= r - 1 and st[O_FND + 3] >= r - 1 and st[O_FND + 3 - s] >= r - 2


@leaf_kernel
def play_safe_moves(st, rel, params, out, nout):
    """Apply safe foundation moves until none is left; record them in out[nout:] if out is non-empty."""
    ncols = params[P_NCOLS]
    ncells = params[P_NCELLS]
    changed = True
    while changed:
        changed = False
        for j in range(ncells):
            c = st[O_CELL + j]
            if c != NOCARD and is_safe(c, True, False, st, rel, params):
                st[O_CELL + j] = NOCARD
                st[O_FND + c // 13] += 1
                if out.shape[0] > 0:
                    out[nout] = c * 64 + TO_FOUNDATION
                nout += 1
                changed = True
        for i in range(ncols):
            while st[O_LEN + i] > 0:
                n = st[O_LEN + i]
                c = st[i * WIDTH + n - 1]
                if not is_safe(c, False, n == 1, st, rel, params):
                    break
                st[O_LEN + i] = n - 1
                st[O_FND + c // 13] += 1
                if out.shape[0] > 0:
                    out[nout] = c * 64 + TO_FOUNDATION
                nout += 1
                changed = True
    return nout
