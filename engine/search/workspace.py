"""The searches' tables, kept between deals so that easy deals do not pay for allocation.

A :class:`Workspace` holds the records, links, heaps and position table of the best-first search, the
stacks of the depth-first searches, and the sweep's arrays, links file and runs on disk; it maps each at
its budget (untouched pages cost nothing) and gives back what the next search does not use.
"""

from __future__ import annotations

import tempfile
from typing import IO

import numpy as np

from engine.outcomes import UNKNOWN
from engine.search.control import (
    C_DONE,
    C_DONE_HERE,
    C_FREE,
    C_GEN,
    C_GOALC,
    C_GOALP,
    C_HIGH,
    C_HSIZE,
    C_LAYER,
    C_LBASE,
    C_NREC,
    C_OUTCOME,
    C_RUNMIN,
    C_SPILL,
    C_TOTAL,
    CODE_MASK,
    ORDER_LINE,
    ORDER_LONG_GUIDE,
    ORDER_SWEEP,
    grow_array,
)
from engine.search.depth_first import DFS_DEPTH, DFS_MOVES, LINE_DEPTH, LINE_MOVES
from engine.search.encoding import FRAME_SIZE
from engine.search.guide import N_ATOMS
from engine.search.heap import SORT_STACK, sort_pairs
from engine.search.position_table import big_table_full, next_gen, reinsert
from engine.search.positions import REC_BYTES, REC_WORDS, STATE_WORDS
from engine.search.sweep import (
    SPILL_KEEP,
    SWEEP_LINK_BUFFER,
    SWEEP_LOAD_SHARE,
    keys_of,
    level_cut,
    mark,
    split_at,
    sweep_drop,
    sweep_load,
    sweep_room,
)
from engine.search.sweep_runs import WaitingRuns


class Workspace:
    """The search's tables, kept between deals so easy deals do not pay for allocation.

    The per-position arrays (records, parent links, move words, the two heaps) are allocated once at the budget
    (:meth:`reserve`, called with ``max_nodes`` by :func:`solve_state`) and never grow: numpy.empty maps the
    memory without touching it, so a page costs memory only once a search has written to it (an easy deal uses a
    few of them; the same pages are reused by the next deals).  Growing by doubling instead held the old and the
    new arrays at once.  If the budget's arrays cannot be mapped (a huge ``max_nodes`` on a small machine) they
    start small and grow by doubling as before.  The position table still grows by doubling (a table sized for the
    budget would spread an easy deal's probes over many pages).  Its slots carry a generation stamp (``gen``): a
    new search takes the next stamp instead of clearing the table; after GEN_MAX searches it is cleared once.
    """

    def __init__(self, capacity: int = 1 << 14) -> None:
        self.recs = np.zeros((capacity, REC_WORDS), dtype=np.uint64)
        self.parent = np.zeros(capacity, dtype=np.int32)
        self.mcode = np.zeros(capacity, dtype=np.int32)  # move, expanded flag and depth (see CODE_MASK)
        self.heap = np.zeros(capacity, dtype=np.int64)
        self.heap2 = np.zeros(1, dtype=np.int64)  # the second order's heap, sized when it starts or by reserve
        self.table = np.zeros(4 * capacity, dtype=np.uint64)
        self.gen = 0
        self.seen = np.zeros((53, N_ATOMS), dtype=np.uint16)  # the second order's atoms (see is_novel), by cards up
        self.seen_gen = 0
        self.probe: Workspace | None = None  # the probe's tables, made when first needed
        self.dfs: tuple | None = None  # the streamlined search's line (dfs_stack), made when first needed
        self.line: tuple | None = None  # the line search's (line_stack), made when first needed
        # the sweep's (made at its first use): cards up and number of each live record, links of every position
        self.lay = np.zeros(1, dtype=np.int64)
        self.rid = np.zeros(1, dtype=np.int32)
        self.sweep_heap = np.zeros(1, dtype=np.int32)
        self.sweep_fifo = np.zeros(1, dtype=np.int32)
        self.sweep_parent = np.zeros(1, dtype=np.int32)
        self.sweep_code = np.zeros(1, dtype=np.int32)
        self.sweep_ref = np.zeros(STATE_WORDS * 8, dtype=np.uint8)  # the sweep's root, and its records' frame
        self.sweep_frame = np.zeros(FRAME_SIZE, dtype=np.int64)
        self.sweep_file: IO[bytes] | None = None  # the sweep's links written out (int32 parent, move), unlinked
        self.runs: WaitingRuns | None = None  # the sweep's waiting positions on disk (made at its start)

    def reserve(self, max_nodes: int) -> None:
        """Make the per-position arrays hold ``max_nodes`` positions (mapped, not touched: see the class doc).
        Records the sweep left narrower are mapped anew at REC_WORDS."""
        n = int(max_nodes)
        if self.recs.shape[0] >= n and self.recs.shape[1] == REC_WORDS and self.heap2.shape[0] >= n:
            return
        try:
            recs = np.empty((n, REC_WORDS), dtype=np.uint64)
            parent = np.empty(n, dtype=np.int32)
            mcode = np.empty(n, dtype=np.int32)
            heap = np.empty(n, dtype=np.int64)
            heap2 = np.empty(n, dtype=np.int64)
        except MemoryError:  # the search grows the arrays it has, by doubling, up to max_nodes
            self.records_of_width(REC_WORDS)
            return
        self.recs, self.parent, self.mcode, self.heap, self.heap2 = recs, parent, mcode, heap, heap2

    def reserve_sweep(self, max_nodes: int, words: int) -> None:
        """Map the sweep's arrays (mapped, not touched, as :meth:`reserve`): the records (``words`` words each)
        and per-record arrays at SWEEP_LIVE x ``max_nodes`` (the records replace the other searches' array,
        which is dropped, so the two never hold memory at once: a line search with more room than the sweep's
        leaves a larger one, whose touched pages would stay), the links' buffer at SWEEP_LINK_BUFFER."""
        n, total = sweep_room(max_nodes), SWEEP_LINK_BUFFER
        if self.recs.shape == (n, words) and self.lay.shape[0] >= n and self.sweep_parent.shape[0] >= total:
            return
        try:
            if self.recs.shape != (n, words):
                self.recs = np.empty((n, words), dtype=np.uint64)
            lay, rid, heap = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32)
            fifo = np.empty(n, dtype=np.int32)
            parent, code = np.empty(total, dtype=np.int32), np.empty(total, dtype=np.int32)
        except MemoryError:  # the sweep grows the arrays it has, by doubling
            self.records_of_width(words)
            return
        self.lay, self.rid, self.sweep_heap, self.sweep_parent, self.sweep_code = lay, rid, heap, parent, code
        self.sweep_fifo = fifo

    def release(self, order: int) -> None:
        """Give back what the searches before touched and the next one (the line search, the long guide or the
        sweep) does not use.

        These are the searches a deal gets only when the others leave it unknown, where the room they may take
        is the most any search takes (King Albert's line search: 5 x max_nodes), so a few mappings cost nothing
        beside them.  The table starts small again: a table the kernel outgrows is dropped there, but the one
        it started with stays alive while this workspace holds it, so the line search held the guide's 256 MiB
        table beside its own 1 GiB.  The guide's per-position arrays are mapped anew, untouched (229 MiB at
        10^7), and so are the streamlined search's line and, before the long guide and the sweep, the line
        search's (its records are re-mapped by :meth:`reserve` at the long guide's room, or by
        :meth:`reserve_sweep`).  King Albert deal 1856 (seed 99): its line
        search, 5 x 10^7 positions, peaked at 4,308 MiB without this.  An earlier deal's sweep's per-record
        arrays (about 1 GiB once touched) are dropped too, so neither of the others holds them beside its own.
        """
        self.table = np.zeros(4 * (1 << 14), dtype=np.uint64)
        self.gen = 0
        self.parent = np.empty(self.parent.shape[0], dtype=np.int32)
        self.mcode = np.empty(self.mcode.shape[0], dtype=np.int32)
        self.heap = np.empty(self.heap.shape[0], dtype=np.int64)
        self.heap2 = np.empty(self.heap2.shape[0], dtype=np.int64)
        self.dfs = None
        if order in (ORDER_LONG_GUIDE, ORDER_SWEEP):
            self.line = None
        # a sweep's per-record arrays, touched by an earlier deal's, mapped anew by reserve_sweep when next needed
        self.lay, self.rid = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int32)
        self.sweep_heap, self.sweep_fifo = np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.int32)

    def dfs_stack(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The streamlined search's line (positions, move stack, its bounds per depth, next move, move made),
        mapped at its first use (pages cost memory only as deep as a line goes)."""
        if self.dfs is None:
            self.dfs = (
                np.empty((DFS_DEPTH, STATE_WORDS * 8), dtype=np.uint8),
                np.empty(DFS_MOVES, dtype=np.int64),
                np.empty(DFS_DEPTH + 1, dtype=np.int64),
                np.empty(DFS_DEPTH, dtype=np.int64),
                np.empty(DFS_DEPTH, dtype=np.int64),
            )
        return self.dfs

    def line_stack(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The line search's line, as :meth:`dfs_stack` but its positions as 48-byte records, and deeper."""
        if self.line is None:
            self.line = (
                np.empty((LINE_DEPTH, REC_BYTES), dtype=np.uint8),
                np.empty(LINE_MOVES, dtype=np.int64),
                np.empty(LINE_DEPTH + 1, dtype=np.int64),
                np.empty(LINE_DEPTH, dtype=np.int64),
                np.empty(LINE_DEPTH, dtype=np.int64),
            )
        return self.line

    def stack(self, order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The line of a depth-first search of one line at a time (the streamlined or the line search)."""
        return self.line_stack() if order == ORDER_LINE else self.dfs_stack()

    def reserve_records(self, n: int) -> None:
        """Map the records at ``n`` (the line search's room), as :meth:`reserve` does."""
        if self.recs.shape[0] < n or self.recs.shape[1] != REC_WORDS:
            try:
                self.recs = np.empty((int(n), REC_WORDS), dtype=np.uint64)
            except MemoryError:  # the search grows the records it has, by doubling
                self.records_of_width(REC_WORDS)

    def records_of_width(self, words: int) -> None:
        """Make the records ``words`` wide (the sweep's are narrower than the others'), starting small (they grow
        by doubling) if they are not: where they could not be mapped at the budget, and before every search."""
        if self.recs.shape[1] != words:
            self.recs = np.zeros((16, words), dtype=np.uint64)

    def spill(self, ctl: np.ndarray) -> None:
        """Write the sweep's links in memory to its file (made at the first call) and empty the buffer."""
        n = int(ctl[C_TOTAL] - ctl[C_LBASE])
        if self.sweep_file is None:
            self.sweep_file = tempfile.TemporaryFile(prefix="patience-sweep-links-")
        self.sweep_file.seek(8 * int(ctl[C_LBASE]))
        self.sweep_file.write(np.stack((self.sweep_parent[:n], self.sweep_code[:n]), axis=1).astype(np.int32).tobytes())
        ctl[C_LBASE] += n

    def close_spill(self) -> None:
        """Drop the sweep's file of links and its runs (their disk space is freed with them)."""
        if self.sweep_file is not None:
            self.sweep_file.close()
            self.sweep_file = None
        if self.runs is not None:
            self.runs.close()

    def spill_waiting(self, ctl: np.ndarray, above: int | None = None) -> None:
        """Write the heap's highest layers out to a run (docs/solvers.md, "The sweep's runs"): those with keys
        above ``above``, or by default every level (u + |S|) from that of the heap's SPILL_KEEP-th least entry up
        (the whole heap when its lowest level is that large), and free their records (marked layer 0, below every
        layer, so ``sweep_drop`` takes them with the finished ones); the rest, sorted by (layer, record), is the
        heap again (a sorted array is a heap).  The memory it takes beyond the sweep's is one key per entry
        written out, and a part of the run at a time."""
        h = int(ctl[C_HSIZE])
        heap = self.sweep_heap[:h]
        cut = level_cut(heap, h, self.lay, SPILL_KEEP, np.zeros(128, dtype=np.int64)) if above is None else above + 1
        k = split_at(heap, h, self.lay, cut)
        out = heap[k:]
        if out.shape[0] == 0:
            return
        keys = np.empty(out.shape[0], dtype=np.int64)
        keys_of(out, self.lay, keys)
        sort_pairs(keys, out, np.zeros(SORT_STACK, dtype=np.int64))
        part = 1 << 21
        for i in range(0, out.shape[0], part):  # copied out of the records a part at a time
            e = out[i : i + part]
            self.runs.write_part(keys[i : i + part], self.rid[e], self.recs[e], last=i + part >= out.shape[0])
        del keys
        mark(out, self.lay, 0)
        self._drop(ctl, int(ctl[C_LAYER]))
        kept = heap[:k]
        keys = np.empty(k, dtype=np.int64)
        keys_of(kept, self.lay, keys)
        sort_pairs(keys, kept, np.zeros(SORT_STACK, dtype=np.int64))
        ctl[C_HSIZE] = k
        ctl[C_RUNMIN] = self.runs.least()

    def _drop(self, ctl: np.ndarray, below: int) -> None:
        """Free the sweep's live records of layers 0..below-1 (``sweep_drop``), as the kernel does: the expanded
        ones left live are then those of the layer being expanded."""
        freed, gen, free = sweep_drop(
            self.recs, self.lay, int(ctl[C_HIGH]), below, self.table, int(ctl[C_GEN]), int(ctl[C_FREE])
        )
        ctl[C_NREC] -= freed
        ctl[C_DONE] = ctl[C_DONE_HERE]
        ctl[C_GEN], ctl[C_FREE] = gen, free

    def load_waiting(self, ctl: np.ndarray, room: int) -> None:
        """Read the runs' entries of the least layer on disk, and of the next ones while they are few (module
        docstring, "The sweep's runs"), into the live records and the heap; called at a layer's end.  Makes room
        first by freeing the finished layers and, if need be, by writing out the heap's layers above those read;
        answers unknown (ctl[C_OUTCOME]) when even the least layer alone has no room."""
        runs = self.runs
        upto = runs.bound(max(1, room // (SWEEP_LOAD_SHARE * len(runs.runs))))
        n = runs.count(upto)
        if int(ctl[C_NREC]) + n + int(ctl[C_SPILL]) > room and ctl[C_DONE] > 0:  # the layers done: all expanded
            ctl[C_DONE_HERE] = 0  # the layer just done is freed too
            self._drop(ctl, int(ctl[C_LAYER]) + 1)
        if int(ctl[C_NREC]) + n + int(ctl[C_SPILL]) > room:
            upto = runs.least()
            n = runs.count(upto)
            if ctl[C_HSIZE] > 0 and int(ctl[C_NREC]) + n + int(ctl[C_SPILL]) > room:
                self.spill_waiting(ctl, above=upto)
        if int(ctl[C_NREC]) + n + int(ctl[C_SPILL]) > room:
            ctl[C_OUTCOME] = UNKNOWN  # one layer is more than the room holds
            return
        need = max(int(ctl[C_HIGH]), int(ctl[C_NREC]) + n)  # the free records (high less the live) are used first
        if self.recs.shape[0] < need:
            self.recs = grow_array(self.recs, int(ctl[C_HIGH]), max(need, 2 * self.recs.shape[0]))
        if self.lay.shape[0] < need:
            self.lay = grow_array(self.lay, int(ctl[C_HIGH]), max(need, 2 * self.lay.shape[0]))
            self.rid = grow_array(self.rid, int(ctl[C_HIGH]), max(need, 2 * self.rid.shape[0]))
        if self.sweep_heap.shape[0] < int(ctl[C_HSIZE]) + n:
            self.sweep_heap = grow_array(self.sweep_heap, int(ctl[C_HSIZE]), 2 * (int(ctl[C_HSIZE]) + n))
        gen = int(ctl[C_GEN])
        while big_table_full(int(ctl[C_NREC]) + n, self.table.shape[0]):
            self.table = np.zeros(2 * self.table.shape[0], dtype=np.uint64)
            gen = 1
            reinsert(self.recs, int(ctl[C_HIGH]), self.table, gen, self.lay)
        ctl[C_GEN] = gen
        for keys, rids, recs in runs.take(upto):  # a piece at a time; copies merge through the table
            ctl[C_HSIZE], ctl[C_FREE], ctl[C_HIGH], ctl[C_NREC] = sweep_load(
                keys,
                rids,
                recs,
                self.recs,
                self.lay,
                self.rid,
                self.sweep_heap,
                int(ctl[C_HSIZE]),
                self.table,
                gen,
                int(ctl[C_FREE]),
                int(ctl[C_HIGH]),
                int(ctl[C_NREC]),
            )
        ctl[C_RUNMIN] = runs.least()

    def sweep_codes(self, ctl: np.ndarray) -> np.ndarray:
        """The moves from the sweep's root to position number ctl[C_GOALP] and its winning move ctl[C_GOALC], read
        back through the links, those written out from the file."""
        lbase = int(ctl[C_LBASE])
        codes = [int(ctl[C_GOALC])] if ctl[C_GOALP] != -1 else []
        e = int(ctl[C_GOALP])
        while e > 0:
            if e >= lbase:
                p, c = int(self.sweep_parent[e - lbase]), int(self.sweep_code[e - lbase])
            else:
                self.sweep_file.seek(8 * e)
                p, c = (int(x) for x in np.frombuffer(self.sweep_file.read(8), dtype=np.int32))
            codes.append(c & CODE_MASK)
            e = p
        return np.array(codes[::-1], dtype=np.int64)

    def links(self, order: int) -> tuple[np.ndarray, np.ndarray]:
        """(parent, move word) of the stored positions of the last search of this order made here (not the
        sweep's: :meth:`sweep_codes`)."""
        return self.parent, self.mcode

    def probe_workspace(self, max_nodes: int) -> Workspace:
        """The probe's own tables (docs/solvers.md, "The probe"), made at the first probe and kept with these."""
        if self.probe is None:
            self.probe = Workspace()
        self.probe.reserve(max_nodes)
        self.probe.seen_gen = self.seen_gen
        return self.probe

    def next_seen_gen(self) -> int:
        """A new stamp for the second order's atoms (``seen``): every atom is unseen again."""
        self.seen_gen += 1
        if self.seen_gen > 65535:  # the stamps wrap: forget every deal's atoms once
            self.seen[:] = 0
            self.seen_gen = 1
        return self.seen_gen

    def next_gen(self) -> int:
        self.gen = next_gen(self.table, self.gen)
        return self.gen
