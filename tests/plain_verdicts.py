"""The plain exhaustive searches' verdicts, each worked out once per test process.

Many tests hold one search or another to the plain exhaustive search on the same seeded random positions: the
cross-checks of tests/test_open_solitaire.py and tests/test_king_albert.py, run again with each search alone as
the only step of the schedule by tests/test_open_solitaire_search.py.  The plain search (the readable reference,
pure Python) is deterministic and is nearly all of such a test's time (97% of it, measured 2026-12-07), so its
verdict is kept per position, rules, limit and symmetry: every test still compares its search with the plain
search's answer on every position; the answer is only not searched for again.
"""

from __future__ import annotations

from typing import Any

from engine.reference import king_albert as kref
from engine.reference import open_solitaire as ref

_VERDICTS: dict[tuple, bool | None] = {}


def open_verdict(layout: ref.Layout, rules: ref.Rules, limit: int = 200_000, symmetric: bool = False) -> bool | None:
    """``engine.reference.open_solitaire.exhaustive_verdict``, remembered."""
    return _remembered(ref.exhaustive_verdict, layout, rules, limit, symmetric=symmetric)


def king_albert_verdict(layout: kref.Layout, rules: kref.Rules, limit: int = 200_000) -> bool | None:
    """``engine.reference.king_albert.exhaustive_verdict``, remembered."""
    return _remembered(kref.exhaustive_verdict, layout, rules, limit)


def _remembered(search: Any, layout: Any, rules: Any, limit: int, **kw: Any) -> bool | None:
    # repr(layout) spells every field of the position (a dataclass of lists), rules is a frozen dataclass; the
    # search copies the layout before each move, so the layout is the same after the call as before it
    key = (search.__module__, repr(layout), rules, limit, tuple(sorted(kw.items())))
    if key not in _VERDICTS:
        _VERDICTS[key] = search(layout, rules, limit, **kw)
    return _VERDICTS[key]
