"""Outcome codes shared by every game (DESIGN section 6).

Kernels return ``uint8`` codes; the pipeline turns them into the strings below.
"""

from __future__ import annotations

OUTCOMES: tuple[str, ...] = ("won", "cycle", "blocked", "capped", "unsolvable", "unknown")
WON, CYCLE, BLOCKED, CAPPED, UNSOLVABLE, UNKNOWN = range(6)
# An exact solver's verdicts as a trace words them
SOLVER_VERDICTS: dict[int, str] = {
    WON: "won",
    UNSOLVABLE: "unsolvable (every line of play searched)",
    UNKNOWN: "unknown (max_nodes reached)",
}


def outcome_name(code: int) -> str:
    return OUTCOMES[int(code)]


class SolverError(RuntimeError):
    """A solver claimed a win that the readable reference refuses to replay: a bug, never a result."""
