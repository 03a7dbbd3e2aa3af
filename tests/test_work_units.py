"""Work units as a pure function of the study (pipeline.work_units): counted, indexed, streamed, located."""

from __future__ import annotations

import itertools
import time
import tracemalloc
from types import SimpleNamespace

import numpy as np

from pipeline.config import DealSource
from pipeline.work_units import UnitPlan, count_units


def _study(n: int, bs: int, variants=("a", "b", "c"), numbers=None):
    if numbers is not None:
        src = DealSource(kind="microsoft", count=len(numbers), ranges="x", numbers=np.asarray(numbers, dtype=np.int64))
    else:
        src = DealSource(kind="seeded", count=n, seed=1)
    return SimpleNamespace(source=src, batch_size=bs, variants={v: None for v in variants})


def _listed(n, bs, variants):
    """The units as the plan of before issue 12 listed them: chunk by chunk, every variant in a chunk."""
    out = []
    for position in range(0, n, bs):
        count = min(bs, n - position)
        for v in variants:
            out.append((v, position, count, position, position + count - 1))
    return out


def test_streamed_indexed_and_counted_units_agree_with_the_listing():
    for n, bs in [(1, 1), (10, 3), (1000, 250), (1001, 250), (7, 100)]:
        plan = UnitPlan(_study(n, bs))
        want = _listed(n, bs, ["a", "b", "c"])
        got = [(u.variant, u.position, u.count, u.first, u.last) for u in plan]
        assert got == want
        assert len(plan) == len(want) == count_units(_study(n, bs))
        assert [(u.variant, u.position, u.count, u.first, u.last) for u in (plan[i] for i in range(len(plan)))] == want
        assert sum(u.count for u in plan) == plan.total_deals == 3 * n


def test_skip_grid_leaves_out_exactly_the_finished_units():
    plan = UnitPlan(_study(1000, 100))
    skip = plan.grid()
    skip[1, 3] = skip[0, 0] = True
    skip[:, 7] = True
    keys = [u.key for u in plan.units(skip=skip)]
    assert len(keys) == len(plan) - 5
    assert "b/part-300-399" not in keys and "a/part-0-99" not in keys and "c/part-700-799" not in keys
    assert "a/part-300-399" in keys


def test_locate_names_the_unit_of_a_part_and_refuses_anything_else():
    plan = UnitPlan(_study(1001, 250))
    for i, u in enumerate(plan):
        assert plan.locate(u.variant, u.first, u.last) == (i % 3, i // 3)
        assert plan.locate_key(u.key) == (i % 3, i // 3)
    assert plan.locate("a", 1000, 1000) == (0, 4)
    for bad in [("a", 0, 248), ("a", 1, 250), ("z", 0, 249), ("a", 1250, 1499), ("a", 1000, 1001)]:
        assert plan.locate(*bad) is None, bad
    assert plan.locate_key("a/part-x-y") is None and plan.locate_key("nonsense") is None
    ms = UnitPlan(_study(0, 3, variants=("v",), numbers=[1, 2, 3, 4, 5, 6, 7, 11982]))
    assert [(u.first, u.last) for u in ms] == [(1, 3), (4, 6), (7, 11982)]
    assert ms.locate("v", 7, 11982) == (0, 2) and ms.locate("v", 2, 4) is None and ms.locate("v", 8, 11982) is None


def test_validate_scale_plan_costs_no_memory_or_time():
    """128 variants x 10^10 deals at batch 100,000 is 12.8 M units: counting and indexing them lists nothing."""
    big = _study(10**10, 100_000, variants=[f"v{i}" for i in range(128)])
    tracemalloc.start()
    t = time.perf_counter()
    plan = UnitPlan(big)
    assert len(plan) == 12_800_000
    last = plan[len(plan) - 1]
    assert (last.variant, last.first, last.last) == ("v127", 10**10 - 100_000, 10**10 - 1)
    assert plan.locate("v5", 5 * 10**9, 5 * 10**9 + 99_999) == (5, 50_000)
    first_few = [u.key for u in itertools.islice(plan, 3)]
    elapsed = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert first_few == ["v0/part-0-99999", "v1/part-0-99999", "v2/part-0-99999"]
    assert peak < 1_000_000 and elapsed < 0.5, (peak, elapsed)
