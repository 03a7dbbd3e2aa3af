"""The sweep with its levels on disk: an exhaustive search of an open solitaire whose positions live in files.

The sweep (docs/solvers.md, "The sweep") expands a deal's positions by *layers* that no move goes back
to, and within a layer breadth first, finding duplicates through a table in memory.  Some deals reach more
positions than any table in 4 GiB holds (FreeCell with 6 columns, seed 99 deal 3499: one level of one layer is
157.4 M positions, 3.8 GB of records alone).  This search makes the same layers and levels, but finds
duplicates the way Korf's external-memory searches do, *delayed*: a level's children are written out, and only
once the whole level is expanded are they sorted into buckets by hash and each bucket deduplicated in memory
against the same bucket of the levels they could repeat.  Memory then holds one group of buckets at a time,
however large the level.

Claim (soundness): ``unsolvable`` only when every position reached has been expanded, so the positions stored
are closed under the search's moves, hold the root and no won position, and the verdict is the plain exhaustive
search's; and a position is always found again exactly (its record is canonical, its hash a function of the
record, and records are compared word by word), so no position is ever taken for another.  Where every move
within a layer can be undone (``frontier``), a level's candidates are checked against levels d - 1 and d only;
elsewhere against every level of the layer so far.  The proof: docs/solvers.md, "The sweep on disk: design".

Each child's layer key is found from its parent's and its move (``_layer_after``, with its proof; a test holds it
to ``_sweep_layer`` on every child along random walks), and the expansions are the sweep's own (tests: the same
positions, each once, and a Penguin deal won in the sweep's own count).  ``won`` comes with the line: every
position stored has a number and a link (its parent's number and the move), written in number order to a file of
8 bytes each and read back along the winning line only; the line is replayed by the kernel from the deal, and the
caller's checker replays it again.

Files: a level's candidates beyond ``memory_rows``, and every level larger than that, are written to temporary
files (unlinked: the system frees them when closed), sorted by bucket, each with its bucket offsets; so are the
pending positions of higher layers, sorted by layer key, once those in memory pass ``memory_rows``, and every
position's link.  Each file is written once and read back by ranges of rows, so each is packed
(engine/packed_rows.py: compressed in blocks, without the hash, which is a function of the record and is put back
as the rows are read; what it saves: docs/solvers.md, "The sweep on disk: design").  Memory holds at most about
``memory_rows`` rows of each kind (candidates, the level being written, pending positions) and a group of buckets
of at most ``dedup_rows`` rows with its table: about 2 GiB at the defaults.  A layer's levels are closed as soon
as no candidate can meet them again (two levels on, or at the layer's end).

Checkpoints: a deal such as 6 columns' 1058 takes more than 2.9x10^9 positions and 3.3 CPU-hours, longer than a
session or a preemptible worker may last.  With a ``checkpoint`` directory the files are named files there instead,
and a save at a level's end (asked for, or before a pause) writes what the next level needs (the layer's kept
levels, the new one, the pending positions from their cursors, the links, the counts) and a manifest naming those
files; the files a checkpoint names are kept until a newer one no longer names them, so the directory always holds
one whole checkpoint, and a run killed at any moment goes on from its last save.  Run again, the sweep reads it
back and goes on.  It is the same search: a save copies what is in memory without changing it, and on resuming the
pending chunks that were in memory come back into memory, the files with their merge tiers and cursors, so every
later merge, number and link is the one the sweep never stopped makes (tests pause at every level, or kill the run
after saves, and compare, rows written and a win's line included).

Threads (``threads``, for a sweep run alone on a machine): each piece of a level is expanded in as many spans at
once, the next piece while this one's children are filed, and a level's candidates deduplicated as many groups of
buckets at once; everything is filed in the order one thread files it, so it is the same search (``_Expander``).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO, TypeVar

import numba as nb
import numpy as np

from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.search.disk_rows import (
    NBUCKETS,
    ROWS_PREFIX,
    ROWS_SUFFIX,
    TEMP,
    Chunk,
    Files,
    Links,
    Part,
    PartWriter,
    Pending,
    Rows,
    bucket_groups,
    bucket_sort,
    bucketed_part,
    close_file,
    fresh,
    joined,
)
from engine.search.encoding import F_WORDS, FRAME_SIZE, ORDER_SCRATCH, decode_frame, encode_record, sweep_frame
from engine.search.expansion import KID_CHUNK, expansion_buffers, prepare_children
from engine.search.lines import replay_line
from engine.search.moves import gen_moves
from engine.search.packed_rows import PackedFileError
from engine.search.positions import O_FND, P_WORRY, REC_WORDS, STATE_SIZE, STATE_WORDS, foundation_total
from engine.search.safe_moves import play_safe_moves
from engine.search.sweep import sweep_layer

T, R = TypeVar("T"), TypeVar("R")
CODE_BITS = 12  # a link: parent number << CODE_BITS | the move's code (codes are below 2^12: CODE_MASK)
NO_PARENT = np.uint64(np.iinfo(np.uint64).max)  # the root's link
OUT_ROWS = 1 << 16  # children of each kind the expansion kernel writes before it returns to have them filed
PIECE = 1 << 16  # records of a level read and expanded at once
MEMORY_ROWS = 1 << 22  # rows of one kind (candidates, a level, pending positions) kept in memory before files
DEDUP_ROWS = 1 << 23  # candidates and old records deduplicated together at most (one group of buckets; at least
# one bucket, however large)

LAYER_CARDS = (1 << 52) - 1  # a layer key's low 52 bits: the cards not blocked


def up_masks(rel: np.ndarray) -> np.ndarray:
    """``masks[s, h]``: the cards of suit s on its foundation when it holds h cards (card c is there when its
    relative rank ``rel[c]`` is below h), as 52 bits."""
    masks = np.zeros((4, 14), dtype=np.int64)
    for c in range(52):
        masks[c // 13, int(rel[c]) + 1 :] |= np.int64(1) << np.int64(c)
    return masks


@nb.njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.int64(1)) & np.int64(0x5555555555555555))
    x = (x & np.int64(0x3333333333333333)) + ((x >> np.int64(2)) & np.int64(0x3333333333333333))
    x = (x + (x >> np.int64(4))) & np.int64(0x0F0F0F0F0F0F0F0F)
    return (x * np.int64(0x0101010101010101)) >> np.int64(56)


@nb.njit(cache=True, inline="always")
def _layer_after(blocked, code, st, masks, params):
    """The layer key (``_sweep_layer``) of a child ``st``, made by the move whose code is ``code`` (head card x 64
    + target) from a position whose blocked cards are ``blocked``, with its safe moves, without looking at its
    columns.  Claim: the child's blocked cards are the parent's less the head and less the cards now up.  Proof
    (the sweep's, docs/solvers.md, "The sweep"): no move makes a card blocked, and a blocked card stays
    so until it moves, with the card under it; a move moves one blocked card at most, its head (the cards above
    a run's head each lie on a card they build on), and the safe moves after it move cards up only.  A card
    played back from a foundation was not blocked, nor is any card in a cell.  The cards up are read off the
    foundations' heights (``masks``: :func:`up_masks`); the kept cards up as ``_sweep_layer`` counts them."""
    blocked &= ~(np.int64(1) << (code >> np.int64(6)))
    f0, f1 = np.int64(st[O_FND]), np.int64(st[O_FND + 1])
    f2, f3 = np.int64(st[O_FND + 2]), np.int64(st[O_FND + 3])
    blocked &= ~(masks[0, f0] | masks[1, f1] | masks[2, f2] | masks[3, f3])
    up = f0 + f1 + f2 + f3
    if params[P_WORRY] != 0:
        m = min(min(f0, f1), min(f2, f3))
        up = min(f0, m + 1) + min(f1, m + 1) + min(f2, m + 1) + min(f3, m + 1)
    return ((up + 52 - _popcount(blocked)) << np.int64(52)) | (np.int64(LAYER_CARDS) ^ blocked)


@nb.njit(cache=True, nogil=True)
def _expand(recs, i0, first_id, ref, frame, rel, params, layer, masks, same, up):
    """Expand records i0.. of ``recs`` (numbered first_id + i) until they end or the out arrays might not hold
    the next one's children: each child in ``layer`` into ``same`` (record, hash, link), each in a higher layer
    into ``up`` (layer key, record, hash, link).  Returns (the next record, rows in same, rows in up, the most
    cards up, the winning record's number or -1, the winning move's code, 1 if a child's layer key was below
    ``layer``: never, by the sweep's claim).  Every record is in ``layer``, whose low bits say which cards are
    not blocked: each child's key is found from them (:func:`_layer_after`)."""
    blocked = np.int64(LAYER_CARDS) ^ (layer & np.int64(LAYER_CARDS))
    empty_out, mv, order, cur, kids, encs, codes, kinds, hashes = expansion_buffers()
    table = np.zeros(1, dtype=np.uint64)
    nw = frame[F_WORDS]
    ns = nu = 0
    best = 0
    i = i0
    while i < recs.shape[0]:
        if ns + mv.shape[0] > same.shape[0] or nu + mv.shape[0] > up.shape[0]:
            break
        decode_frame(recs[i], ref, frame, params, cur)
        nm = gen_moves(cur, rel, params, mv)
        link = np.uint64(first_id + i) << np.uint64(CODE_BITS)
        for q0 in range(0, nm, KID_CHUNK):
            q1 = min(nm, q0 + KID_CHUNK)
            f, won, _ = prepare_children(
                cur,
                mv,
                q0,
                q1,
                kids,
                encs,
                hashes,
                codes,
                kinds,
                np.bool_(False),  # a bool, as best_first passes: one compiled version, not two
                rel,
                params,
                order,
                table,
                empty_out,
                ref,
                frame,
            )
            best = max(best, f)
            if won >= 0:
                return i, ns, nu, best, first_id + i, codes[won - q0], 0
            for q in range(q0, q1):
                w = encs[q - q0]
                key = _layer_after(blocked, codes[q - q0], kids[q - q0], masks, params)
                if key < layer:
                    return i, ns, nu, best, np.int64(-1), np.int64(0), 1
                if key == layer:
                    for t in range(nw):
                        same[ns, t] = w[t]
                    same[ns, nw] = hashes[q - q0]
                    same[ns, nw + 1] = link | np.uint64(codes[q - q0])
                    ns += 1
                else:
                    up[nu, 0] = np.uint64(key)
                    for t in range(nw):
                        up[nu, 1 + t] = w[t]
                    up[nu, nw + 1] = hashes[q - q0]
                    up[nu, nw + 2] = link | np.uint64(codes[q - q0])
                    nu += 1
        i += 1
    return i, ns, nu, best, np.int64(-1), np.int64(0), 0


@dataclass
class _Span:
    """What expanding a span of a level's records made: the children in the layer (rows: record, hash, link) and
    above it (layer key, record, hash, link), in the order met, the records expanded (the winning one included),
    the most cards up, and the winning record's number (-1: none) and move."""

    same: list[np.ndarray]
    up: list[np.ndarray]
    nodes: int
    best: int
    won_id: int
    won_code: int


class _Expander:
    """Expands a piece of a level's records, in ``threads`` spans at once (numba's ``_expand`` runs without
    Python's lock), each span with its own out arrays.  The spans are contiguous and taken back in record order,
    and the sweep files a piece's children only once the whole piece is expanded, so what it stores, numbers and
    links is the same for any count of threads (tests/test_disk_sweep.py).  With more than one thread the sweep
    also starts the next piece before it files this one's children (``_sweep``), so that the filing (sorting,
    deduplicating and packing, in kernels that also run without the lock) overlaps the expansions; a piece
    started and not needed (after a win, or a stop) is left unfiled, so it changes nothing; and each level's
    candidates are deduplicated that many bucket groups at once (``_Expander.in_order``), each group of a
    thread's share of ``dedup_rows``, so memory holds about what one thread's does.  Measured on 6 columns deal
    4934 (seed 99), its first 66,418,639 positions on the project's 2-core VM: 205 s of wall time with one
    thread, 127 s with two (192 CPU-s), the same levels and rows written, peak 1,672 MiB against 1,634."""

    def __init__(
        self,
        threads: int,
        nw: int,
        root: np.ndarray,
        frame: np.ndarray,
        rel: np.ndarray,
        params: np.ndarray,
        masks: np.ndarray,
    ) -> None:
        self.threads = max(1, threads)
        self.args = (root, frame, rel, params)
        self.masks = masks
        self.outs = [
            (np.zeros((OUT_ROWS, nw + 2), dtype=np.uint64), np.zeros((OUT_ROWS, nw + 3), dtype=np.uint64))
            for _ in range(self.threads)
        ]
        self.pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None

    def span(self, k: int, recs: np.ndarray, first_id: int, layer: int) -> _Span:
        """Every record of ``recs`` (numbered from ``first_id``) in order, until the last or a win, with span
        ``k``'s out arrays."""
        same_out, up_out = self.outs[k]
        root, frame, rel, params = self.args
        out = _Span([], [], 0, 0, -1, 0)
        i = 0
        while i < recs.shape[0]:
            i1, ns, nu, b, won_id, won_code, below = _expand(
                recs, i, first_id, root, frame, rel, params, layer, self.masks, same_out, up_out
            )
            if below:
                raise AssertionError("a move lowered the sweep's layer key")
            out.nodes += i1 - i + (1 if won_id >= 0 else 0)
            out.best = max(out.best, int(b))
            if won_id >= 0:
                out.won_id, out.won_code = int(won_id), int(won_code)
                break
            i = i1
            out.same.append(same_out[:ns].copy())
            out.up.append(up_out[:nu].copy())
        return out

    def start(self, recs: np.ndarray, first_id: int, layer: int) -> Callable[[], list[_Span]]:
        """Start expanding a piece: a call that waits for its spans and gives them, in record order.  With one
        thread nothing starts: the call expands the piece."""
        if self.pool is None:
            return lambda: [self.span(0, recs, first_id, layer)]
        cuts = [recs.shape[0] * k // self.threads for k in range(self.threads + 1)]
        jobs = [
            self.pool.submit(self.span, k, recs[cuts[k] : cuts[k + 1]], first_id + cuts[k], layer)
            for k in range(self.threads)
        ]
        return lambda: [j.result() for j in jobs]

    def in_order(self, fn: Callable[[T], R], items: list[T]) -> Iterator[R]:
        """``fn`` of each item, in the items' order; with more than one thread, up to ``threads`` of them made at
        once ahead of the one given (``fn`` must then only read what the caller does not change meanwhile)."""
        if self.pool is None:
            yield from (fn(x) for x in items)
            return
        jobs: deque = deque()
        for x in items:
            jobs.append(self.pool.submit(fn, x))
            if len(jobs) >= self.threads:
                yield jobs.popleft().result()
        while jobs:
            yield jobs.popleft().result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


@dataclass
class DiskSweepResult:
    """The verdict (WON, UNSOLVABLE or UNKNOWN), positions expanded and stored, the most cards up, the winning
    line's codes from the start (the safe moves in: :func:`engine.search.lines.replay_line`), the rows written to
    disk and the largest level; ``paused`` when it stopped UNKNOWN at a pause, its state left in the checkpoint."""

    outcome: int
    nodes: int
    stored: int
    best: int
    codes: np.ndarray
    written: int
    peak_level: int
    paused: bool = False


CHECKPOINT = "checkpoint.json"  # a paused sweep's state, in its checkpoint directory beside its files
LOCK = "lock"  # held by the sweep using the directory
CHECKPOINT_FORMAT = 3  # 2: pending files and links packed (engine/packed_rows.py); 3: every file
HELD_MAX = 1 << 31  # bytes of files kept only for the checkpoint before a new one is saved at a level's end (without
# it they stay until the next save asked for: a bound on what a checkpoint costs beside the sweep's own files)


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed here: of another deal or rules, another format, or files missing."""


def _identity(start: np.ndarray, rel: np.ndarray, params: np.ndarray, frontier: bool) -> str:
    """What a checkpoint is of: the deal's position, its ranks and the sweep's rules (a digest)."""
    h = hashlib.sha256()
    for a in (start[:STATE_SIZE], rel, params):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(b"frontier" if frontier else b"layers")
    return h.hexdigest()


def _save(
    files: Files,
    identity: str,
    nw: int,
    counters: dict,
    levels: list[tuple[Part, int]],
    level: tuple[Part, int],
    pending: Pending,
    links: Links,
) -> None:
    """Write the sweep's state at a level's end: the layer's kept levels and the new one, every pending chunk
    from its cursor on, the links, and the counters, and a manifest naming them, written last and replaced whole
    (``os.replace``), so the directory always holds one whole checkpoint, the newest.  Files are named as they are;
    rows held in memory are copied to new files, the search's own rows left as they were (so the search goes on
    the same).  Then the files only the checkpoint before named are removed.  If it fails part way (a full
    disk), the copies it made are removed and the checkpoint before stays."""
    copies: list[str] = []

    def name(r: Rows, lo: int) -> str:
        if r.file is not None:
            return r.file.sweep_path
        f = r.write(files, lo)
        copies.append(f.sweep_path)
        f.close()
        return f.sweep_path

    try:
        levels_doc = [
            {"file": name(p, 0), "starts": p.starts.tolist(), "width": p.width, "first_id": i}
            for p, i in list(levels) + [level]
        ]
        chunks = [
            {"file": name(c, c.cursor), "memory": True, "n": c.left(), "cursor": 0, "tier": c.tier}
            for c in pending.memory
        ]  # what is left of each, to come back into memory
        chunks += [
            {"file": name(c, 0), "memory": False, "n": c.n, "cursor": c.cursor, "tier": c.tier} for c in pending.files
        ]
        offsets, ends = links.index()
        doc = {
            "format": CHECKPOINT_FORMAT,
            "identity": identity,
            "nw": nw,
            "counters": counters,
            "levels": levels_doc[:-1],
            "level": levels_doc[-1],
            "pending": {"chunks": chunks, "written": pending.written, "width": pending.width},
            "links": {"file": links.file.sweep_path, "offsets": offsets, "ends": ends},
        }
        named = {d["file"] for d in levels_doc + chunks} | {links.file.sweep_path}
        for d in levels_doc + chunks + [doc["links"]]:
            d["file"] = os.path.basename(d["file"])
        path = os.path.join(files.directory, CHECKPOINT)
        with open(path + ".new", "w") as out:
            json.dump(doc, out)
        os.replace(path + ".new", path)
    except BaseException:
        for p in copies + [os.path.join(files.directory, CHECKPOINT + ".new")]:
            if os.path.exists(p):
                os.unlink(p)
        raise
    for p in files.pinned - named:
        if os.path.exists(p):
            os.unlink(p)
    files.pinned, files.held = named, 0


def _load(
    files: Files, identity: str, nw: int, memory_rows: int
) -> tuple[dict, list[tuple[Part, int]], tuple[Part, int], Pending, Links]:
    """The sweep's state from its checkpoint (``_save``), its files reopened.  The checkpoint stays, and so do the
    files it names, until a newer one replaces it: a resumed sweep that is killed goes on from it again."""
    path = os.path.join(files.directory, CHECKPOINT)
    doc = _manifest(files.directory)
    if doc.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"checkpoint {path}: format {doc.get('format')!r}; allowed: {CHECKPOINT_FORMAT}")
    if doc["identity"] != identity or doc["nw"] != nw:
        raise CheckpointError(
            f"checkpoint {path}: of another deal or other rules; allowed: the deal and rules it "
            "was made with (or another directory)"
        )
    named = _named_files(files.directory, doc)
    missing = [os.path.basename(n) for n in named if not os.path.exists(n)]
    if missing:
        raise CheckpointError(f"checkpoint {path}: its file {missing[0]} is missing; allowed: a checkpoint whole")
    files.pinned = named
    handles: list[IO[bytes]] = []  # every file reopened so far: all closed if the load ends in an error

    def opened(name: str, make):
        """``make`` of the named file, reopened; a file that is not what the checkpoint says (cut short, not
        finished, other rows) ends the load with CheckpointError naming it, every file left as it is."""
        f = files.open(os.path.join(files.directory, name))
        handles.append(f)
        try:
            return make(f)
        except PackedFileError as e:
            raise CheckpointError(f"checkpoint {path}: its file {name}: {e}; allowed: a checkpoint whole") from e

    def part(d: dict) -> tuple[Part, int]:
        starts = np.array(d["starts"], dtype=np.int64)
        return opened(d["file"], lambda f: Part(starts, d["width"], None, f, nw)), d["first_id"]

    def in_memory(f: IO[bytes], n: int, width: int) -> Chunk:
        rows = Chunk(None, f, n, width).read(0, n)
        close_file(f)
        return Chunk(rows, None, n, width)

    try:
        levels = [part(d) for d in doc["levels"]]
        level = part(doc["level"])
        pend = doc["pending"]
        pending = Pending(pend["width"], memory_rows, files)
        pending.written = pend["written"]
        for d in pend["chunks"]:  # back where they were: the pending rows merge and spill as if never paused
            if d["memory"]:
                pending.memory.append(opened(d["file"], lambda f, d=d: in_memory(f, d["n"], pend["width"])))
            else:
                c = opened(d["file"], lambda f, d=d: Chunk(None, f, d["n"], pend["width"]))
                c.cursor, c.tier = d["cursor"], d["tier"]
                pending.files.append(c)
        # links a killed run wrote past its checkpoint are cut off
        links = opened(doc["links"]["file"], lambda f: Links(files, f, (doc["links"]["offsets"], doc["links"]["ends"])))
    except BaseException:
        for h in handles:
            h.close()  # not close_file: the checkpoint's files stay
        raise
    return doc["counters"], levels, level, pending, links


def _manifest(directory: str) -> dict:
    with open(os.path.join(directory, CHECKPOINT)) as f:
        return json.load(f)


def _named_files(directory: str, doc: dict) -> set[str]:
    """The paths of the files a checkpoint's manifest names."""
    names = [d["file"] for d in doc["levels"] + [doc["level"]] + doc["pending"]["chunks"]] + [doc["links"]["file"]]
    return {os.path.join(directory, n) for n in names}


def disk_sweep(
    start: np.ndarray,
    rel: np.ndarray,
    params: np.ndarray,
    frontier: bool,
    total_cap: int,
    memory_rows: int = 0,
    dedup_rows: int = 0,
    progress: Callable[..., None] | None = None,
    stop: Callable[[], bool] | None = None,
    checkpoint: str | None = None,
    pause: Callable[[], bool] | None = None,
    save: Callable[[], bool] | None = None,
    threads: int = 1,
    heartbeat: Callable[[int, int, str, int, int], None] | None = None,
) -> DiskSweepResult:
    """The sweep with its levels on disk (docs/solvers.md) from position ``start`` under ``params`` (the sweep's:
    :func:`engine.search.solver.sweep_params`), until decided or more than ``total_cap`` positions are stored
    (then UNKNOWN).  ``frontier``: every move within a layer can be undone (``engine.search.solver.frees_levels``).
    ``memory_rows`` and ``dedup_rows`` (0: MEMORY_ROWS and DEDUP_ROWS) bound what is held in memory.
    ``progress``, if given, is called at each level's end with (layer key, level, its positions, expanded,
    stored, rows written out); ``stop``, if given, is asked after each piece of a level is expanded, and when it
    answers true the search ends UNKNOWN (``max_seconds``).  ``heartbeat``, if given, is called within a level,
    for watchers of levels of minutes: (layer key, level, what, done, of) with what "gathering" (the layer's
    waiting rows read into its first level, level 0), "expanding" (the level's positions expanded) or
    "deduplicating" (the next level's bucket groups made), each ``done`` counting up to ``of`` in its level.

    Checkpoints, for searches of hours: with ``checkpoint`` (a directory, made if missing) the files are named
    files in it, and at each level's end ``save`` and ``pause``, if given, are asked: when either answers true
    the state is written there (``_save``: one checkpoint, the newest, replacing the one before), and after a
    pause the search returns UNKNOWN with ``paused`` set.  Called again with the same directory, deal and rules,
    it goes on from the checkpoint there (``_load``; CheckpointError for another deal or rules), whether the run
    before paused or was killed after its last save, and makes exactly the levels, numbers and verdict of a
    search never stopped: the state saved is all a level's end carries to the next (the layer's kept levels, the
    new one, the pending positions, the links, the counts).  Once decided (or over ``total_cap``, or stopped) it
    leaves nothing in the directory; a run ended by an error leaves its last checkpoint.  One sweep at a time may
    use a directory (a lock, held while it runs: CheckpointError for a second), and files no checkpoint names (a
    killed run's newer ones) are removed when the next run starts.

    ``threads``: the expansions of each piece of a level are shared among that many threads (``_Expander``), for
    a sweep run alone on a machine (a study's workers run one deal a core, so the solver passes 1).  The search
    is the same for any count, so a checkpoint made with one count resumes with another."""
    memory_rows = memory_rows or MEMORY_ROWS
    dedup_rows = dedup_rows or DEDUP_ROWS
    if (pause is not None or save is not None) and checkpoint is None:
        raise ValueError("disk_sweep: pause and save need a checkpoint directory")
    if checkpoint is None:
        return _sweep(
            start,
            rel,
            params,
            frontier,
            total_cap,
            memory_rows,
            dedup_rows,
            progress,
            stop,
            TEMP,
            None,
            None,
            threads,
            heartbeat,
        )
    lock = _claim(checkpoint)
    try:
        files = Files(checkpoint)
        result = _sweep(
            start,
            rel,
            params,
            frontier,
            total_cap,
            memory_rows,
            dedup_rows,
            progress,
            stop,
            files,
            pause,
            save,
            threads,
            heartbeat,
        )
        if not result.paused:  # done with: the checkpoint goes
            if os.path.exists(os.path.join(checkpoint, CHECKPOINT)):
                os.unlink(os.path.join(checkpoint, CHECKPOINT))
            for p in files.pinned:
                if os.path.exists(p):
                    os.unlink(p)
        return result
    finally:
        os.unlink(lock.name)
        lock.close()


def _claim(directory: str) -> IO[str]:
    """The checkpoint directory's lock (made with the directory if missing), held until closed; then every file
    of rows the checkpoint there does not name (all of them, if there is none) is removed: a killed run's."""
    os.makedirs(directory, exist_ok=True)
    lock = open(os.path.join(directory, LOCK), "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        raise CheckpointError(
            f"checkpoint {directory}: in use by another sweep; allowed: one sweep per directory"
        ) from None
    try:
        keep = (
            _named_files(directory, _manifest(directory))
            if os.path.exists(os.path.join(directory, CHECKPOINT))
            else set()
        )
    except (ValueError, KeyError, TypeError):
        keep = None  # not a manifest of ours: leave everything for _load to refuse
    if keep is not None:
        for name in os.listdir(directory):
            path = os.path.join(directory, name)
            if name.startswith(ROWS_PREFIX) and name.endswith(ROWS_SUFFIX) and path not in keep:
                os.unlink(path)
    return lock


def _sweep(
    start: np.ndarray,
    rel: np.ndarray,
    params: np.ndarray,
    frontier: bool,
    total_cap: int,
    memory_rows: int,
    dedup_rows: int,
    progress: Callable[..., None] | None,
    stop: Callable[[], bool] | None,
    files: Files,
    pause: Callable[[], bool] | None,
    save: Callable[[], bool] | None,
    threads: int = 1,
    heartbeat: Callable[[int, int, str, int, int], None] | None = None,
) -> DiskSweepResult:
    """:func:`disk_sweep`, its files made by ``files`` (a checkpoint's when ``files.directory`` is set)."""
    checkpoint = files.directory
    root = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
    root[:STATE_SIZE] = start[:STATE_SIZE]
    play_safe_moves(root, rel, params, np.zeros(0, dtype=np.int64), 0)
    if foundation_total(root) == 52:
        return DiskSweepResult(WON, 0, 1, 52, np.zeros(0, dtype=np.int64), 0, 1)
    frame = np.zeros(FRAME_SIZE, dtype=np.int64)
    if sweep_frame(root, rel, params, frame) > 2 or frame[F_WORDS] > REC_WORDS:
        raise AssertionError("the sweep's record cannot hold these rules' positions")
    nw = int(frame[F_WORDS])
    enc = np.zeros(REC_WORDS, dtype=np.uint64)
    hv = encode_record(root, params, enc, np.zeros(ORDER_SCRATCH, dtype=np.int64), root, frame)
    masks = up_masks(rel)
    identity = _identity(start, rel, params, frontier)
    levels: list[tuple[Part, int]] = []  # the layer's levels kept for deduplication: (part, first number)
    level: tuple[Part, int] | None = None  # the level to expand next
    resumed = None
    if checkpoint is not None and os.path.exists(os.path.join(checkpoint, CHECKPOINT)):
        counters, levels, level, pending, links = _load(files, identity, nw, memory_rows)
        stored, nodes, best, written, peak_level = (
            counters[k] for k in ("stored", "nodes", "best", "written", "peak_level")
        )
        resumed = (counters["layer"], counters["depth"])
    else:
        links = Links(files)
        pending = Pending(nw + 3, memory_rows, files)
        first = np.zeros((1, nw + 3), dtype=np.uint64)
        first[0, 0] = sweep_layer(root, rel, params)
        first[0, 1 : nw + 1] = enc[:nw]
        first[0, nw + 1], first[0, nw + 2] = hv, NO_PARENT
        pending.add(first)
        stored = nodes = best = written = peak_level = 0
    cparts: list[Part] = []
    outcome, goal, paused = UNSOLVABLE, (-1, 0), False

    def make_level(parts: list[Part], made_level: int) -> tuple[Part, int]:
        """Candidates (parts sorted by bucket) deduplicated, bucket group by bucket group, against the kept
        levels; the new ones numbered and linked in the order written, as one part sorted by bucket (level
        ``made_level`` of the layer, for the heartbeat)."""
        nonlocal stored, written
        counts = np.zeros(NBUCKETS, dtype=np.int64)
        for p in parts + [lv for lv, _ in levels]:
            counts += np.diff(p.starts)
        out = PartWriter(nw + 1, nw, memory_rows, files)

        def group(buckets: tuple[int, int]) -> tuple[np.ndarray, np.ndarray] | None:
            """The group's new candidates, sorted by bucket, and their counts (None: no candidate)."""
            b0, b1 = buckets
            cand = joined([c for c in (p.buckets(b0, b1) for p in parts) if c.shape[0]], nw + 2)
            if cand.shape[0] == 0:
                return None
            old = joined([lv.buckets(b0, b1) for lv, _ in levels], nw + 1)
            return bucket_sort(cand[fresh(cand, old, nw)], nw)

        # with threads, as many groups at once, each of a thread's share of dedup_rows (the same memory); the
        # groups are written in order, so the level is the same part however its buckets are grouped
        groups = bucket_groups(counts, max(1, dedup_rows // expander.threads))
        for done, made in enumerate(expander.in_order(group, groups), 1):
            if made is not None:
                new, counted = made
                links.add(new[:, nw + 1])
                out.add(new[:, : nw + 1], counted)
            if heartbeat is not None:
                heartbeat(layer, made_level, "deduplicating", done, len(groups))
        for p in parts:
            p.close()
        part = out.done()
        if part.file is not None:
            written += part.n
        first_id = stored
        stored += part.n
        return part, first_id

    def file_same(rows: np.ndarray) -> None:
        """Candidates for the next level, one copy of each position among them, as a part: kept in memory while
        those of the level in memory stay within ``memory_rows``, else written out.  (About half the children of
        a piece of a level are copies of each other: FreeCell 6 columns deals 220 and 2478.  ``make_level``
        would drop them; dropping them here halves what is sorted, written and read.)"""
        nonlocal written
        rows = rows[fresh(rows, rows[:0], nw)]
        held = sum(p.n for p in cparts if p.rows is not None)
        cparts.append(bucketed_part(rows, nw, memory_rows - held, files))
        if cparts[-1].file is not None:
            written += rows.shape[0]

    expander = _Expander(threads, nw, root, frame, rel, params, masks)  # its threads start at its first piece
    try:
        while outcome == UNSOLVABLE:
            if resumed is not None:
                (layer, depth), resumed = resumed, None
            else:
                layer = pending.least()
                if layer is None:
                    break  # every position stored was expanded: unsolvable
                for lv, _ in levels + ([level] if level is not None else []):
                    lv.close()  # the last level is empty (in a file only when it came from a checkpoint)
                levels = []
                cparts = []
                waiting, gathered = (pending.count(layer) if heartbeat is not None else 0), 0
                for rows in pending.take(layer, memory_rows):
                    file_same(rows[:, 1:])
                    if heartbeat is not None:
                        gathered += rows.shape[0]
                        heartbeat(layer, 0, "gathering", gathered, waiting)
                level = make_level(cparts, 0)
                depth = 0
            while level[0].n > 0:
                if stored > total_cap:
                    outcome = UNKNOWN
                    level[0].close()
                    break
                levels.append(level)
                peak_level = max(peak_level, level[0].n)
                part, first_id = level
                cparts = []
                same: list[np.ndarray] = []
                same_rows = 0

                def begin(lo: int, part=part, first_id=first_id, layer=layer) -> Callable[[], list[_Span]]:
                    recs = np.ascontiguousarray(part.read(lo, min(part.n, lo + PIECE))[:, :nw])
                    return expander.start(recs, first_id + lo, layer)

                job = begin(0)
                for lo in range(0, part.n, PIECE):
                    spans = job()
                    if lo + PIECE < part.n:  # with threads, expanded while this piece's children are filed
                        job = begin(lo + PIECE)
                    for sp in spans:
                        nodes += sp.nodes
                        best = max(best, sp.best)
                        if sp.won_id >= 0:  # the first win in record order, as one thread would meet it
                            outcome, goal = WON, (sp.won_id, sp.won_code)
                            break
                    if outcome == WON:
                        break
                    for sp in spans:
                        same += sp.same
                        same_rows += sum(a.shape[0] for a in sp.same)
                    pending.add(joined([a for sp in spans for a in sp.up], nw + 3))
                    if same_rows > memory_rows:
                        file_same(np.concatenate(same))
                        same, same_rows = [], 0
                    if heartbeat is not None:
                        heartbeat(layer, depth, "expanding", min(part.n, lo + PIECE), part.n)
                    if stop is not None and stop():
                        outcome = UNKNOWN
                        break
                if outcome != UNSOLVABLE:
                    break
                if same_rows:
                    file_same(np.concatenate(same))
                if frontier and len(levels) > 2:
                    levels.pop(0)[0].close()  # two levels on: no candidate can meet it (docs/solvers.md)
                level = make_level(cparts, depth + 1)
                cparts = []
                depth += 1
                if progress is not None:
                    progress(layer, depth, level[0].n, nodes, stored, written + pending.written)
                stopping = pause is not None and pause()
                if stopping or (save is not None and save()) or files.held > HELD_MAX:
                    counters = {
                        "layer": layer,
                        "depth": depth,
                        "stored": stored,
                        "nodes": nodes,
                        "best": best,
                        "written": written,
                        "peak_level": peak_level,
                    }
                    _save(files, identity, nw, counters, levels, level, pending, links)
                    if stopping:
                        outcome, paused = UNKNOWN, True
                        break
        codes = np.zeros(0, dtype=np.int64)
        if outcome == WON:
            path = [goal[1]]
            e = goal[0]
            while True:
                link = links.get(e)
                if link == int(NO_PARENT):
                    break
                path.append(link & ((1 << CODE_BITS) - 1))
                e = link >> CODE_BITS
            codes = replay_line(start, rel, params, np.array(path[::-1], dtype=np.int64))
        return DiskSweepResult(outcome, nodes, stored, best, codes, written + pending.written, peak_level, paused)
    finally:
        expander.close()
        for p in [lv for lv, _ in levels] + cparts + ([level[0]] if level is not None else []):
            p.close()
        pending.close()
        links.close()
