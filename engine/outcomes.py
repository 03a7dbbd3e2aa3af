"""Outcome codes shared by every game (DESIGN section 6).

Kernels return ``uint8`` codes; the pipeline turns them into the strings below.
"""

from __future__ import annotations

OUTCOMES: tuple[str, ...] = ("won", "cycle", "blocked", "capped", "unsolvable", "unknown")
WON, CYCLE, BLOCKED, CAPPED, UNSOLVABLE, UNKNOWN = range(6)


def outcome_name(code: int) -> str:
    return OUTCOMES[int(code)]


class SolverError(RuntimeError):
    """A solver claimed a win that the readable reference refuses to replay: a bug, never a result."""
