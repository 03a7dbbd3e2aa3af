"""The sweep with its levels on disk (engine/disk_sweep.py), held to the plain exhaustive search."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import os
import shutil

import numba as nb
import numpy as np
import open_solver as osol
import pytest
from test_open_solitaire_search import _srules

from engine.cards import DECK_52
from engine.deals import seeded_deals
from engine.games import penguin
from engine.outcomes import UNKNOWN, UNSOLVABLE, WON
from engine.reference import open_solitaire as reference
from engine.registry import get_game
from engine.search import disk_rows as dr
from engine.search import disk_sweep as ds
from engine.search.position_table import words_hash

# Unsolvable deals (seed 99) and how many positions the plain exhaustive search reaches from each (the guide run to
# its end: the numbers tests/test_sweep_runs.py holds the sweep in memory to).  FreeCell's empty columns take any
# card (every move within a layer undoes: levels d - 1 and d are all a child can meet); Baker's Game deal 6 too.
UNSOLVABLE_DEALS = [
    ("freecell", {"cells": 1}, 16, 25_831),
    ("bakers_game", {}, 6, 6_703),
    ("freecell", {"columns": 6, "sequence_move": "unlimited"}, 15, 11_635),
    ("freecell", {"cells": 1, "empty_column": "kings"}, 2, None),  # not frontier: every level of a layer is kept
]


@pytest.fixture(autouse=True)
def _small_blocks(monkeypatch):
    """Pending files in blocks of 64 rows, so that the small deals here read and search across many blocks."""
    monkeypatch.setattr(dr, "PACK_BLOCK", 64)


def _position(game: str, over: dict, seed: int, deal_no: int):
    rules = _srules(game, **over)
    st, rel = osol.deal_position(seeded_deals(DECK_52, seed, deal_no, 1)[0], rules)
    return rules, st, rel


@pytest.mark.parametrize("game, over, deal_no, reachable", UNSOLVABLE_DEALS)
def test_each_position_is_expanded_once_in_memory_and_through_files(game, over, deal_no, reachable, monkeypatch):
    """Unsolvable, having expanded and stored every position the plain exhaustive search reaches, each once: with
    everything in memory, and with every part of more than 300 rows written out and at most 40 deduplicated at
    once (the larger levels cut into many bucket groups).  Where empty columns take Kings only, the count is the
    sweep's in memory, alone and run to its end (it expands each position once: tests/test_sweep_runs.py)."""
    rules, st, rel = _position(game, over, 99, deal_no)
    params = osol.sweep_params(rules)
    frontier = osol.frees_levels(rules)
    assert frontier == (over.get("empty_column", "any") == "any")
    cap = 10**6  # far above what is reachable: a sweep that missed copies would end unknown here, not run on
    whole = ds.disk_sweep(st, rel, params, frontier, cap)
    small = ds.disk_sweep(st, rel, params, frontier, cap, memory_rows=300, dedup_rows=40)
    assert whole.written == 0 and small.written > 0 and small.peak_level > 40
    if reachable is None:
        monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=True),))
        memory = osol.solve_state(st, rel, dataclasses.replace(rules, max_nodes=20_000))  # room for 106,000 live
        assert memory.outcome == UNSOLVABLE and memory.nodes > 10_000
        reachable = memory.nodes
    for r in (whole, small):
        assert (r.outcome, r.nodes, r.stored) == (UNSOLVABLE, reachable, reachable)


def test_a_win_comes_with_its_line_and_the_checker_replays_it(monkeypatch):
    """Penguin (seed 1 deal 6), left unknown by the sweep in memory with room for 1,000 positions, is won by the
    sweep on disk in the sweep's own 40,122 expansions (the same layers and levels: tests/test_sweep_runs.py),
    with its parts written out; its line, read back through the links file, is replayed by play_one's checker
    (every win is)."""
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("sweep", single_cards=True),))
    monkeypatch.setattr(osol.solver, "SWEEP_SPILL_ROOM", 0)
    monkeypatch.setattr(ds, "MEMORY_ROWS", 2_000)
    g = get_game("penguin")
    deal = seeded_deals(DECK_52, 1, 6, 1)[0]
    alone = g.play_one(deal, g.rules(overrides={"max_nodes": 1_000}), False).row
    assert alone["outcome"] == "unknown"
    row = g.play_one(deal, g.rules(overrides={"max_nodes": 1_000, "disk_positions": 10**6}), False).row
    assert row["outcome"] == "won" and row["solution"]
    assert row["nodes"] == alone["nodes"] + 40_122


def test_the_caps_end_it_unknown(monkeypatch):
    """Unknown once more than ``total_cap`` positions are stored, or as soon as ``stop`` answers true (the
    max_seconds hook), and with disk_positions 0 the sweep on disk is never run."""
    rules, st, rel = _position("freecell", {"cells": 1}, 99, 16)
    params = osol.sweep_params(rules)
    capped = ds.disk_sweep(st, rel, params, True, 5_000)
    assert capped.outcome == UNKNOWN and 5_000 < capped.stored < 25_831
    stopped = ds.disk_sweep(st, rel, params, True, 10**9, stop=lambda: True)
    assert stopped.outcome == UNKNOWN and stopped.nodes <= ds.PIECE
    calls = []
    monkeypatch.setattr(osol.solver, "_sweep_on_disk", lambda *a: calls.append(a))
    monkeypatch.setattr(osol.solver, "DEFAULT_SCHEDULE", (osol.Step("guide", single_cards=False),))
    assert osol.solve_state(st, rel, dataclasses.replace(rules, max_nodes=100)).outcome == UNKNOWN and not calls


def _with_hashes(recs: list[list[int]]) -> np.ndarray:
    """Rows (record, its hash), as the expansion writes them."""
    recs = np.array(recs, dtype=np.uint64)
    return np.column_stack([recs, np.array([words_hash(r, 2) for r in recs], dtype=np.uint64)])


def test_fresh_finds_copies_word_by_word():
    """The deduplication kernel keeps the first copy of each candidate not among the old records, comparing
    records word by word (a table of 16 slots for 8 rows: probes run into each other)."""
    old = _with_hashes([[1, 2], [3, 4]])
    cand = _with_hashes([[3, 4], [5, 6], [1, 3], [5, 6], [1, 2], [7, 8]])
    assert dr.fresh(cand, old, 2).tolist() == [False, True, True, False, False, True]
    assert dr.fresh(cand, old[:0], 2).tolist() == [True, True, True, False, True, True]
    same_hash = cand.copy()
    same_hash[:, 2] = np.uint64(0xFFFF_FFFF_FFFF_FFFF)  # every slot bit and tag bit alike: the records decide
    assert dr.fresh(same_hash, same_hash[:0], 2).tolist() == [True, True, True, False, True, True]
    tags = cand.copy()
    tags[:, 2] = np.uint64(5) + (np.arange(6, dtype=np.uint64) << np.uint64(25))  # one slot, the tags differ
    assert dr.fresh(tags, tags[:0], 2).tolist() == [True] * 6  # a copy whose hash differs is not found: hashes
    # are a function of the record, so copies always share theirs


def test_bucket_sort_is_stable_and_counts():
    """Rows sorted by their hash's top 8 bits, rows of one bucket in the order they came, with the counts."""
    rng = np.random.default_rng(5)
    rows = np.column_stack(
        [
            np.arange(1000, dtype=np.uint64),
            rng.integers(0, 1 << 63, 1000, dtype=np.int64).astype(np.uint64) << np.uint64(1),
        ]
    )
    out, counts = dr.bucket_sort(rows, 1)
    order = np.argsort(rows[:, 1] >> np.uint64(dr.BUCKET_SHIFT), kind="stable")
    assert np.array_equal(out, rows[order]) and counts.sum() == 1000
    assert np.array_equal(
        counts, np.bincount((rows[:, 1] >> np.uint64(dr.BUCKET_SHIFT)).astype(np.int64), minlength=dr.NBUCKETS)
    )


@nb.njit  # not cached: a cached kernel is not compiled again when a function it inlines from another module changes
def _walk_layers(st, rel, params, masks, steps, seed):
    """Random walks from ``st`` (from it again at each dead end): at each position every child's layer key, found
    from the parent's blocked cards (``_layer_after``) and from its columns (``_sweep_layer``); returns (children
    compared, mismatches)."""
    np.random.seed(seed)
    mv = np.zeros(2048, dtype=np.int64)
    empty_out = np.zeros(0, dtype=np.int64)
    cur = st.copy()
    osol.play_safe_moves(cur, rel, params, empty_out, 0)
    compared = bad = 0
    for _ in range(steps):
        key = osol.sweep_layer(cur, rel, params)
        blocked = np.int64(ds.LAYER_CARDS) ^ (key & np.int64(ds.LAYER_CARDS))
        nm = osol.gen_moves(cur, rel, params, mv)
        if nm == 0 or osol.foundation_total(cur) == 52:  # a dead end: from the deal again
            cur = st.copy()
            osol.play_safe_moves(cur, rel, params, empty_out, 0)
            continue
        pick = np.random.randint(nm)
        nxt = cur.copy()
        for q in range(nm):
            ch = cur.copy()
            code = osol.apply_move(ch, mv[q], params)
            osol.play_safe_moves(ch, rel, params, empty_out, 0)
            compared += 1
            if ds._layer_after(blocked, code, ch, masks, params) != osol.sweep_layer(ch, rel, params):
                bad += 1
            if q == pick:
                nxt = ch
        cur = nxt
    return compared, bad


@pytest.mark.parametrize(
    "game, over",
    [
        ("freecell", {"columns": 6}),
        ("freecell", {"sequence_move": "unlimited"}),
        ("penguin", {}),
        ("king_albert", {}),
        ("king_albert", {"move_unit": "run"}),
        ("eight_off", {}),
    ],
)
def test_a_childs_layer_key_from_its_parents_is_the_sweeps(game, over):
    """The key the sweep on disk gives each child (from its parent's blocked cards, its move's head and its
    foundations) is ``_sweep_layer``'s, read off the child's columns: every child along random walks of 300
    moves from 20 deals, worrying back and King Albert's reserve among them."""
    g = get_game(game)
    mod = __import__(f"engine.games.{game}", fromlist=["SOLVER"])
    rules = mod.SOLVER.solver_rules(g.rules(overrides=over))
    params = osol.sweep_params(rules)
    compared = 0
    for i in range(20):
        st, rel = osol.deal_position(seeded_deals(DECK_52, 7, i, 1)[0], rules)
        n, bad = _walk_layers(st, rel, params, ds.up_masks(rel), 300, i)
        assert bad == 0
        compared += n
    assert compared > 5_000


@pytest.mark.parametrize("memory_rows", [40, 1_000, 100_000])
def test_pending_positions_come_back_by_layer_each_at_least_once(memory_rows):
    """Pending rows (key, record, hash, link) added in many lots, copies among them and one key with more rows
    than memory holds, come back key by key, least first: every (key, record) added, and no other, whatever
    went to files and was merged there (by tiers, at the least memory); copies merged as they met (so fewer rows
    than were added, when some met), never a position lost; each row as it was added (a packed file drops the
    hash and puts it back from the record)."""
    rng = np.random.default_rng(memory_rows)
    nw = 2
    keys = np.concatenate([rng.integers(0, 60, 6_000), np.full(300, 7)]).astype(np.uint64)  # key 7: 300+ rows
    recs = rng.integers(0, 50, (keys.shape[0], nw)).astype(np.uint64)  # many copies
    recs[:, 0] += keys * np.uint64(1000)  # a position has one key
    hashes = np.array([words_hash(r, nw) for r in recs], dtype=np.uint64)
    rows = np.column_stack([keys, recs, hashes, np.arange(keys.shape[0], dtype=np.uint64)])
    order = rng.permutation(keys.shape[0])
    pending = dr.Pending(nw + 3, memory_rows)
    for lot in np.array_split(rows[order], 97):
        pending.add(lot)
    if memory_rows == 40:  # files merged FAN_IN at a time, twice over
        assert max(c.tier for c in pending.files) >= 2
    added = set(map(tuple, rows.tolist()))
    out, last, taken = {}, -1, 0
    while (key := pending.least()) is not None:
        assert key > last
        last = key
        for piece in pending.take(key, 50):
            assert (piece[:, 0] == key).all()
            assert set(map(tuple, piece.tolist())) <= added
            out.setdefault(key, set()).update(tuple(r) for r in piece[:, 1 : 1 + nw].tolist())
            taken += piece.shape[0]
    want = {}
    for r in rows.tolist():
        want.setdefault(r[0], set()).add(tuple(r[1 : 1 + nw]))
    assert out == want
    if memory_rows < 100_000:
        assert pending.written > 0
    assert taken < keys.shape[0]  # copies merged
    pending.close()


def _paused_every_level(tmp_path, st, rel, params, frontier, every=1, **kw):
    """The sweep on disk paused at every ``every``-th level's end and resumed from its checkpoint each time (a
    fresh call), to its end: the last result, and how many pauses it made."""
    pauses = 0
    ends = itertools.count(1)
    while True:
        r = ds.disk_sweep(
            st, rel, params, frontier, 10**9, checkpoint=str(tmp_path), pause=lambda: next(ends) % every == 0, **kw
        )
        if not r.paused:
            return r, pauses
        pauses += 1
        assert (tmp_path / ds.CHECKPOINT).exists()


@pytest.mark.parametrize("memory_rows, dedup_rows", [(0, 0), (300, 40)])
def test_a_sweep_paused_at_every_level_and_resumed_is_the_sweep_never_paused(tmp_path, memory_rows, dedup_rows):
    """Paused at each level's end and resumed from the checkpoint (a fresh call each time), the sweep makes the
    same expansions, positions, rows written and largest level as when never paused, in memory and with its
    parts and pending positions in files (and pending chunks in memory, which come back into memory); once
    decided, it leaves nothing in the directory."""
    rules, st, rel = _position("freecell", {"cells": 1}, 99, 16)
    params = osol.sweep_params(rules)
    kw = {"memory_rows": memory_rows, "dedup_rows": dedup_rows}
    plain = ds.disk_sweep(st, rel, params, True, 10**9, **kw)
    resumed, pauses = _paused_every_level(tmp_path, st, rel, params, True, **kw)
    assert pauses > 50 and (plain.written > 0) == (memory_rows > 0)
    for r in (plain, resumed):
        assert (r.outcome, r.nodes, r.stored) == (UNSOLVABLE, 25_831, 25_831)
    assert (resumed.written, resumed.peak_level, resumed.paused) == (plain.written, plain.peak_level, False)
    assert list(tmp_path.iterdir()) == []


def _penguin_won_on_disk():
    """Penguin seed 1 deal 6, which the sweep on disk wins in 40,122 expansions (of the first 36 deals of seeds 1-3
    that it wins, one of the three quickest; seed 1 deal 0, used before, takes 238,632 and three times as long):
    (deal, rules, start, rel, the sweep's params, frontier)."""
    deal = seeded_deals(DECK_52, 1, 6, 1)[0]
    rules = get_game("penguin").rules()
    srules = penguin.SOLVER.solver_rules(rules)
    st, rel = osol.deal_position(deal, srules)
    return deal, rules, st, rel, osol.sweep_params(srules), osol.frees_levels(srules)


PENGUIN_ROWS = {"memory_rows": 2_000, "dedup_rows": 500}  # parts written out, candidates deduplicated in groups


@functools.cache
def _penguin_swept_by_one_thread(piece: int):
    """Penguin seed 1 deal 6 swept on disk by one thread (PENGUIN_ROWS) in pieces of ``piece`` records (the piece
    size changes how many rows go to files): the search the paused and the threaded sweeps must make, worked out
    once (about 4 s) for the tests that compare with it."""
    _, _, st, rel, params, frontier = _penguin_won_on_disk()
    assert ds.PIECE == piece
    return ds.disk_sweep(st, rel, params, frontier, 10**7, **PENGUIN_ROWS)


def test_a_win_resumed_has_the_line_of_the_win_never_paused(tmp_path):
    """Penguin seed 1 deal 6, won by the sweep on disk in 40,122 expansions over 11,580 levels: paused every
    397th level and resumed, it is won with the very same line (the positions are numbered and linked as if
    never paused, the links read back from the checkpoint's file), and the checker replays it."""
    deal, rules, st, rel, params, frontier = _penguin_won_on_disk()
    plain = _penguin_swept_by_one_thread(ds.PIECE)
    resumed, pauses = _paused_every_level(tmp_path, st, rel, params, frontier, every=397, **PENGUIN_ROWS)
    assert plain.outcome == resumed.outcome == WON and pauses == 11_580 // 397
    assert (resumed.nodes, resumed.stored, resumed.written) == (plain.nodes, plain.stored, plain.written)
    assert resumed.nodes == 40_122 and resumed.codes.tolist() == plain.codes.tolist()
    ref_rules = penguin.SOLVER.reference_rules(rules)
    assert reference.check_solution(deal, ref_rules, osol.reference_moves(deal, ref_rules, resumed.codes)) is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("piece", [ds.PIECE, 64])
def test_threads_make_the_same_search(monkeypatch, piece):
    """Expanded by 2 or 3 threads (each piece of a level cut into that many spans), the sweep on disk is the search
    one thread makes: FreeCell with 1 cell deal 16 unsolvable with the same expansions, positions, rows written and
    largest level, its parts in files; Penguin seed 1 deal 6 won in the same 40,122 expansions with the very same
    line, which the checker replays (each level's candidates deduplicated in many groups of buckets, as many at
    once as threads).  With pieces of 64 records, a level is many pieces, and candidates are filed between
    them."""
    monkeypatch.setattr(ds, "PIECE", piece)
    rules, st, rel = _position("freecell", {"cells": 1}, 99, 16)
    params = osol.sweep_params(rules)
    kw = {"memory_rows": 300, "dedup_rows": 40}
    one = ds.disk_sweep(st, rel, params, True, 10**9, **kw)
    assert (one.outcome, one.nodes, one.stored) == (UNSOLVABLE, 25_831, 25_831) and one.written > 0
    for threads in (2, 3):
        r = ds.disk_sweep(st, rel, params, True, 10**9, threads=threads, **kw)
        assert (r.outcome, r.nodes, r.stored, r.written, r.peak_level) == (
            one.outcome,
            one.nodes,
            one.stored,
            one.written,
            one.peak_level,
        )
    deal, rules, st, rel, params, frontier = _penguin_won_on_disk()
    one = _penguin_swept_by_one_thread(piece)  # a level's candidates deduplicated in many groups
    two = ds.disk_sweep(st, rel, params, frontier, 10**7, threads=2, **PENGUIN_ROWS)
    assert one.outcome == two.outcome == WON and one.nodes == 40_122
    assert (two.nodes, two.stored, two.written) == (one.nodes, one.stored, one.written)
    assert two.codes.tolist() == one.codes.tolist()
    ref_rules = penguin.SOLVER.reference_rules(rules)
    assert reference.check_solution(deal, ref_rules, osol.reference_moves(deal, ref_rules, two.codes)) is None


def test_a_checkpoint_of_another_deal_is_refused_and_kept(tmp_path):
    """A checkpoint resumed with another deal, or written in another format (its files laid out otherwise), ends
    with CheckpointError naming it, and is left as it was: the right deal still resumes from it.  A pause without
    a checkpoint directory is refused."""
    rules, st, rel = _position("freecell", {"cells": 1}, 99, 16)
    _, other, other_rel = _position("freecell", {"cells": 1}, 99, 17)
    params = osol.sweep_params(rules)
    first = ds.disk_sweep(st, rel, params, True, 10**9, memory_rows=300, checkpoint=str(tmp_path), pause=lambda: True)
    assert first.paused and first.outcome == UNKNOWN
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(ds.CheckpointError, match="another deal"):
        ds.disk_sweep(other, other_rel, params, True, 10**9, checkpoint=str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    manifest = tmp_path / ds.CHECKPOINT
    kept = manifest.read_text()
    manifest.write_text(kept.replace(f'"format": {ds.CHECKPOINT_FORMAT}', '"format": 2'))  # plain level files
    with pytest.raises(ds.CheckpointError, match=f"format 2; allowed: {ds.CHECKPOINT_FORMAT}"):
        ds.disk_sweep(st, rel, params, True, 10**9, checkpoint=str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    manifest.write_text(kept)
    done = ds.disk_sweep(st, rel, params, True, 10**9, memory_rows=300, checkpoint=str(tmp_path))
    assert (done.outcome, done.stored, done.paused) == (UNSOLVABLE, 25_831, False)
    with pytest.raises(ValueError, match="checkpoint"):
        ds.disk_sweep(st, rel, params, True, 10**9, pause=lambda: False)


def test_a_damaged_checkpoint_is_refused_naming_its_file(tmp_path):
    """A checkpoint whose level file is cut short, or holds another file's rows, ends with CheckpointError naming
    that file, nothing in the directory is removed or changed, and none of its files is left open: put back, the
    file resumes the sweep."""
    rules, st, rel = _position("freecell", {"cells": 1}, 99, 16)
    params = osol.sweep_params(rules)
    first = ds.disk_sweep(st, rel, params, True, 10**9, memory_rows=300, checkpoint=str(tmp_path), pause=lambda: True)
    assert first.paused
    doc = json.loads((tmp_path / ds.CHECKPOINT).read_text())
    level, chunk = doc["level"]["file"], doc["pending"]["chunks"][0]["file"]
    assert doc["level"]["starts"][-1] != doc["pending"]["chunks"][0]["n"]
    assert doc["levels"], "a kept level is opened before the level refused"

    def open_here() -> list[str]:
        return [
            t
            for t in (
                os.readlink(f"/proc/self/fd/{fd}")
                for fd in os.listdir("/proc/self/fd")
                if os.path.exists(f"/proc/self/fd/{fd}")
            )
            if t.startswith(str(tmp_path))
        ]

    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for damage, why in (
        (lambda: (tmp_path / level).write_bytes(before[level][:-5]), "not a packed rows file"),
        (lambda: shutil.copy(tmp_path / chunk, tmp_path / level), "holds .* rows, not"),
    ):
        damage()
        damaged = (tmp_path / level).read_bytes()
        refusal = f"its file {level}: .*{why}.*allowed: a checkpoint whole"
        with pytest.raises(ds.CheckpointError, match=refusal) as refused:
            ds.disk_sweep(st, rel, params, True, 10**9, memory_rows=300, checkpoint=str(tmp_path))
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == {**before, level: damaged}
        assert open_here() == []  # closed by the load itself, not when the error (and its frames) is dropped
        del refused
        (tmp_path / level).write_bytes(before[level])
    done = ds.disk_sweep(st, rel, params, True, 10**9, memory_rows=300, checkpoint=str(tmp_path))
    assert (done.outcome, done.stored) == (UNSOLVABLE, 25_831)


def test_one_sweep_a_directory_and_no_files_left_behind(tmp_path, monkeypatch):
    """A directory in use (its lock held) is refused; a sweep finding files of a killed run and no manifest
    removes them; a pause whose checkpoint cannot be written (a full disk) leaves no file, only its error."""
    import fcntl

    rules, st, rel = _position("freecell", {"cells": 1}, 99, 16)
    params = osol.sweep_params(rules)
    with open(tmp_path / ds.LOCK, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(ds.CheckpointError, match="in use by another sweep"):
            ds.disk_sweep(st, rel, params, True, 10**9, checkpoint=str(tmp_path))
    (tmp_path / ds.LOCK).unlink()
    (tmp_path / "rows-killed.u64").write_bytes(b"\0" * 64)
    (tmp_path / "notes.txt").write_text("the user's")
    done = ds.disk_sweep(st, rel, params, True, 10**9, memory_rows=300, checkpoint=str(tmp_path))
    assert done.outcome == UNSOLVABLE and [p.name for p in tmp_path.iterdir()] == ["notes.txt"]

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ds.json, "dump", full)
    with pytest.raises(OSError, match="No space"):
        ds.disk_sweep(st, rel, params, True, 10**9, memory_rows=300, checkpoint=str(tmp_path), pause=lambda: True)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


class _Killed(Exception):
    """A run stopped without a pause, as a killed process is (its files closed, or not, its checkpoint as saved)."""


@pytest.mark.parametrize("memory_rows", [0, 300])
def test_a_run_killed_goes_on_from_its_last_save(tmp_path, memory_rows):
    """Saving at every 7th level's end and killed at the 10th, 25th, 41st... (an error from its progress hook, so
    the search stops without a pause), the sweep goes on each time from its last save: the same expansions,
    positions, rows written and largest level as never stopped, files a killed run made after its save (and an
    orphan put there each time) removed, and nothing left in the directory at the end."""
    rules, st, rel = _position("freecell", {"cells": 1}, 99, 16)
    params = osol.sweep_params(rules)
    plain = ds.disk_sweep(st, rel, params, True, 10**9, memory_rows=memory_rows)
    ends, saves = itertools.count(1), itertools.count(1)
    kills = 0

    def progress(*_):
        if next(ends) % 15 == 10:
            raise _Killed()

    while True:
        try:
            r = ds.disk_sweep(
                st,
                rel,
                params,
                True,
                10**9,
                memory_rows=memory_rows,
                progress=progress,
                checkpoint=str(tmp_path),
                save=lambda: next(saves) % 7 == 0,
            )
            break
        except _Killed:
            kills += 1
            assert (tmp_path / ds.CHECKPOINT).exists()
            (tmp_path / f"{dr.ROWS_PREFIX}orphan{kills}{dr.ROWS_SUFFIX}").write_bytes(b"\0" * 80)
    assert kills > 5
    assert (r.outcome, r.nodes, r.stored) == (UNSOLVABLE, 25_831, 25_831)
    assert (r.written, r.peak_level, r.paused) == (plain.written, plain.peak_level, False)
    assert list(tmp_path.iterdir()) == []


def test_files_kept_only_for_a_checkpoint_bring_on_a_new_one(tmp_path, monkeypatch):
    """Once the files the sweep is done with but its checkpoint names pass HELD_MAX bytes, it saves a new
    checkpoint at the level's end, which lets them go (here HELD_MAX 0: after the one save asked for, a save at
    every level's end where the sweep let go of a file the checkpoint named); the search is the same and leaves
    nothing behind."""
    monkeypatch.setattr(ds, "HELD_MAX", 0)
    rules, st, rel = _position("freecell", {"cells": 1}, 99, 16)
    params = osol.sweep_params(rules)
    plain = ds.disk_sweep(st, rel, params, True, 10**9, memory_rows=40, dedup_rows=40)
    saves, save = [], ds._save

    def counted(files, *state):
        saves.append(files.held)
        save(files, *state)

    monkeypatch.setattr(ds, "_save", counted)
    ends = itertools.count(1)
    r = ds.disk_sweep(
        st,
        rel,
        params,
        True,
        10**9,
        memory_rows=40,
        dedup_rows=40,
        checkpoint=str(tmp_path),
        save=lambda: next(ends) == 20,
    )  # asked for once, when the levels are in files
    assert len(saves) > 20 and saves[0] == 0 and all(h > 0 for h in saves[1:])
    assert (r.outcome, r.stored, r.written) == (UNSOLVABLE, 25_831, plain.written)
    assert list(tmp_path.iterdir()) == []


def test_the_heartbeat_counts_each_levels_work_to_its_end(monkeypatch):
    """Within each level (pieces of 64 records, parts written out, many bucket groups), the heartbeat counts each
    kind of work up to its whole: the layer's waiting rows gathered into level 0, every level's positions
    expanded (as many as the level holds, by the progress hook: in all, every position, once), and the next
    level's bucket groups made.  The search is the one made without it."""
    monkeypatch.setattr(ds, "PIECE", 64)
    rules, st, rel = _position("freecell", {"cells": 1}, 99, 16)
    params = osol.sweep_params(rules)
    kw = {"memory_rows": 300, "dedup_rows": 40}
    plain = ds.disk_sweep(st, rel, params, True, 10**9, **kw)
    beats: dict[tuple[int, int, str], list[tuple[int, int]]] = {}
    sizes: dict[tuple[int, int], int] = {}
    r = ds.disk_sweep(
        st,
        rel,
        params,
        True,
        10**9,
        **kw,
        heartbeat=lambda layer, level, what, done, of: beats.setdefault((layer, level, what), []).append((done, of)),
        progress=lambda layer, level, n, *_: sizes.__setitem__((layer, level), n),
    )
    assert (r.outcome, r.nodes, r.stored, r.written, r.peak_level) == (
        plain.outcome,
        plain.nodes,
        plain.stored,
        plain.written,
        plain.peak_level,
    )
    for (_layer, level, what), seen in beats.items():
        dones = [d for d, _ in seen]
        assert len({of for _, of in seen}) == 1 and dones == sorted(set(dones)) and dones[-1] == seen[0][1]
        assert what in ("gathering", "expanding", "deduplicating") and (level == 0) >= (what == "gathering")
    expanding = {(layer, level): seen[-1][1] for (layer, level, what), seen in beats.items() if what == "expanding"}
    assert sum(expanding.values()) == r.nodes == 25_831
    assert all(expanding[k] == n for k, n in sizes.items() if n > 0)
    layers = {layer for layer, _, _ in beats}
    assert len(layers) > 5 and all((layer, 0, "gathering") in beats for layer in layers)
    assert max(len(seen) for (_, _, what), seen in beats.items() if what == "expanding") > 10
    assert max(len(seen) for (_, _, what), seen in beats.items() if what == "deduplicating") > 3
