"""The searches' shared control: the ``ctl`` vector that holds a search's scalars between slices.

Every search kernel is resumable: it runs until decided, out of room, or ``ctl[C_STOP]`` expansions, and
keeps its counters in ``ctl`` (the ``C_*`` indices).  ``ORDER_*`` names the kernel a search runs; the
move word of a stored position packs its move (``CODE_MASK``), an expanded flag and its depth.
"""

from __future__ import annotations

import numba as nb
import numpy as np


# --- the search, resumable: its scalars live in ctl between slices ------------------
(C_HSIZE, C_NREC, C_NODES, C_BEST, C_OUTCOME, C_GOALP, C_GOALC, C_STOP, C_GEN, C_HSIZE2, C_SECOND_AT, C_SECOND_ON,
 C_SINK, C_SEEN_GEN, C_ORDER, C_LAYER, C_HIGH, C_TOTAL, C_FREE, C_DONE, C_DONE_HERE, C_DEPTH,
 C_QPREV, C_QLEV, C_QHEAD, C_QEND, C_QTAIL, C_LBASE, C_RUNMIN, C_WANT, C_SPILL) = range(31)
CTL_SIZE = 31

RUNNING = -1
NEED_ROOM = -2  # a leaf kernel's answer: an array must grow before the search goes on
# A record's move word (int32, ``mcode``): the move that reached it (bits 0..11: head * 64 + target < 4096), a flag
# set once it has been expanded (each one is, exactly once), and its depth (bits 13..30, capped at DEPTH_MAX - 1).
CODE_MASK = (1 << 12) - 1
EXPANDED = 1 << 12
DEPTH_SHIFT = 13
DEPTH_MAX = 1 << 18
# The searches' orders (ctl[C_ORDER]): the guide, with the second order below once SECOND_AT positions are stored;
# or the retry's depth first order, siblings by the kind of move (module docstring, "The search").
ORDER_GUIDE, ORDER_DEPTH_FIRST = 0, 1
# The sweep (module docstring, "The sweep"): an exhaustive search by layers no move goes back to (cards up for
# good, then the cards no longer blocked) that forgets each layer once it is done; the last search a deal gets.
ORDER_SWEEP = 2

# The searches a deal gets, in turn, each only if the ones before left it unknown by max_nodes (module docstring,
# "The search"): (order, single cards) for the guide's, then the depth-first retries, with single cards and with
# runs (a search the same as one already made, as in King Albert's one-card rule, is skipped).
# The streamlined search (module docstring): depth first, every ready card sent up at once; only its wins count.
# It stores at most max_nodes // STREAMLINED_SHARE positions.
ORDER_STREAMLINED = 3

# The line search (module docstring, "The line search"): the streamlined search's kernel with no streamliner, its
# moves in Solvitaire's order, its line kept as 48-byte records; it stores at most LINE_ROOM x max_nodes positions.
ORDER_LINE = 4

# The line search replaced the depth-first retries (module docstring, "The line search"): it wins the deals they
# were kept for (Raglan, seed 99 deal 557; 7 columns 494) and deals none of the others decides.
# The long guide (module docstring, "The long guide"): the guide again from the start, with fresh atoms for its
# second order, storing up to GUIDE_ROOM x max_nodes positions; after the line search, before the sweep.
ORDER_LONG_GUIDE = 5

# The colour search (module docstring): the streamlined search's kernel (ORDER_STREAMLINED) again, with its colour
# streamliner alone, no card sent up that a safe move would not send; only where cards build in alternating
# colours (elsewhere it has no streamliner to use); max_nodes // STREAMLINED_SHARE positions, as the first.
ORDER_COLOURS = 6


@nb.njit(cache=True)
def grow_array(a, n, cap):
    b = np.empty((cap,) + a.shape[1:], dtype=a.dtype)
    b[:n] = a[:n]
    return b
