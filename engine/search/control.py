"""The searches' shared control: the ``ctl`` vector that holds a search's scalars between slices.

Every search kernel is resumable: it runs until decided, out of room, or ``ctl[C_STOP]`` expansions, and
keeps its counters in ``ctl`` (the ``C_*`` indices).  ``ORDER_*`` names the kernel a search runs; the
move word of a stored position packs its move (``CODE_MASK``), an expanded flag and its depth.
"""

from __future__ import annotations

import numba as nb
import numpy as np

# --- the search, resumable: its scalars live in ctl between slices ------------------
(
    C_HSIZE,
    C_NREC,
    C_NODES,
    C_BEST,
    C_OUTCOME,
    C_GOALP,
    C_GOALC,
    C_STOP,
    C_GEN,
    C_HSIZE2,
    C_SECOND_AT,
    C_SECOND_ON,
    C_SINK,
    C_SEEN_GEN,
    C_ORDER,
    C_LAYER,
    C_HIGH,
    C_TOTAL,
    C_FREE,
    C_DONE,
    C_DONE_HERE,
    C_DEPTH,
    C_QPREV,
    C_QLEV,
    C_QHEAD,
    C_QEND,
    C_QTAIL,
    C_LBASE,
    C_RUNMIN,
    C_WANT,
    C_SPILL,
) = range(31)
CTL_SIZE = 31

RUNNING = -1
NEED_ROOM = -2  # a leaf kernel's answer: an array must grow before the search goes on
# A record's move word (int32, ``mcode``): the move that reached it (bits 0..11: head * 64 + target < 4096), a flag
# set once it has been expanded (each one is, exactly once), and its depth (bits 13..30, capped at DEPTH_MAX - 1).
CODE_MASK = (1 << 12) - 1
EXPANDED = 1 << 12
DEPTH_SHIFT = 13
DEPTH_MAX = 1 << 18
# The kernels' orders (ctl[C_ORDER]), which engine/search/schedule.py's searches run (docs/solvers.md):
ORDER_GUIDE = 0  # best first by the guide, then also by novelty (best_first.py)
ORDER_DEPTH_FIRST = 1  # the same kernel depth first, siblings by the kind of move (the retry, the probe)
ORDER_SWEEP = 2  # by layers no move goes back to, each forgotten once done (sweep.py)
ORDER_STREAMLINED = 3  # one line at a time, its streamliners as the step sets them (depth_first.py)
ORDER_LINE = 4  # the same kernel, moves in Solvitaire's order, the line kept as records (depth_first.py)
ORDER_LONG_GUIDE = 5  # the guide's kernel again, in room of its own (best_first.py)


@nb.njit(cache=True)
def grow_array(a, n, cap):
    b = np.empty((cap,) + a.shape[1:], dtype=a.dtype)
    b[:n] = a[:n]
    return b
