"""``patience verify``'s checks of the rows themselves: each row agrees with itself, and fixed strategies replay.

* **Consistency** (:func:`row_problems`): ``won`` is ``outcome == "won"``; ``outcome`` is one of the game's;
  ``rounds``, ``moves`` and ``cards_left`` are present and not negative, ``cards_left`` at most the deck's
  size; a solution is stored only for a won deal; where a solver states a proven ``rounds_lower``, a won
  row's lies between 1 and its ``rounds``, and equals them when it claims ``rounds_optimal``.  Vectorised
  (pyarrow compute): a reason is written only for the rows that fail.
* **Replay** (:func:`replay_problems`): a fixed strategy (forced play, greedy, ...) is a function of the
  deal, and its kernel is cheap, so the rows of a fixed-strategy variant are played again by the game's
  batch kernel with the variant's rules and compared column by column (outcome, won, rounds, moves,
  cards_left): a sample of each part by default (:func:`sample_rows`), every row with ``verify --full``.
  The solver's rows are not played again (a search costs far more); their wins are replayed from their
  stored solutions by the reference instead (pipeline.verify).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.outcomes import OUTCOMES, WON

COMMON = ("outcome", "won", "rounds", "moves", "cards_left")  # every game's columns (DESIGN section 6)
COUNTS = ("rounds", "moves", "cards_left")
REPLAYED = ("outcome", "won", "rounds", "moves", "cards_left")
SAMPLE_SHARE = 0.01  # of each fixed-strategy part's rows replayed by default ...
SAMPLE_LEAST = 20  # ... and at least this many (all of a smaller part)


def missing_columns(names: Sequence[str]) -> list[str]:
    """The common columns (:data:`COMMON`) a part lacks."""
    return [c for c in COMMON if c not in names]


def row_problems(table, allowed: Sequence[str], ncards: int, check_solutions: bool) -> list[tuple[int, str]]:
    """(row, reason) of every row that contradicts itself (see the module docstring), in row order.

    ``check_solutions``: refuse a solution stored for a deal that is not won (the solver's rows are checked
    by pipeline.verify along with their replay, so it passes False for them)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    outcome, won = table.column("outcome"), table.column("won")
    is_won = pc.fill_null(pc.equal(outcome, "won"), False)
    checks: list[tuple[Any, str]] = [
        (pc.is_null(outcome), "no outcome"),
        (pc.invert(pc.fill_null(pc.is_in(outcome, value_set=pa.array(list(allowed))), True)), "outcome"),
        (pc.fill_null(pc.not_equal(won, is_won), True), "won"),
    ]
    for name in COUNTS:
        col = table.column(name)
        checks.append((pc.is_null(col), f"no {name}"))
        checks.append((pc.fill_null(pc.less(col, 0), False), f"{name} below 0"))
    checks.append((pc.fill_null(pc.greater(table.column("cards_left"), ncards), False), "cards_left above"))
    if "rounds_lower" in table.column_names:  # a proven lower bound on the passes (Perpetual Motion's solver)
        lower, rounds = table.column("rounds_lower"), table.column("rounds")
        off = pc.or_(pc.less(lower, 1), pc.greater(lower, rounds))
        checks.append((pc.fill_null(pc.and_(is_won, off), False), "rounds_lower"))
        if "rounds_optimal" in table.column_names:
            claim = pc.and_(is_won, pc.fill_null(table.column("rounds_optimal"), False))
            checks.append((pc.fill_null(pc.and_(claim, pc.not_equal(lower, rounds)), False), "rounds_optimal"))
    if check_solutions and "solution" in table.column_names:
        text = pc.utf8_trim_whitespace(pc.fill_null(table.column("solution"), ""))
        checks.append((pc.and_(pc.greater(pc.utf8_length(text), 0), pc.invert(is_won)), "solution"))
    masks = [np.asarray(mask.to_numpy(zero_copy_only=False), dtype=bool) for mask, _ in checks]
    bad = np.logical_or.reduce(masks)
    if not bad.any():
        return []
    out = []
    for row in np.flatnonzero(bad):
        kind = next(what for mask, (_, what) in zip(masks, checks, strict=True) if mask[row])
        out.append((int(row), _reason(table, int(row), kind, allowed, ncards)))
    return out


def _reason(table, row: int, kind: str, allowed: Sequence[str], ncards: int) -> str:
    """The words for one failed check of one row."""

    def value(name: str) -> Any:
        return table.column(name)[row].as_py()

    if kind == "outcome":
        return f"outcome {value('outcome')!r} is not one of the game's ({', '.join(allowed)})"
    if kind == "won":
        return f"won is {value('won')} but outcome is {value('outcome')!r}"
    if kind == "cards_left above":
        return f"cards_left is {value('cards_left')}, more than the deck's {ncards} cards"
    if kind.endswith("below 0"):
        name = kind.split()[0]
        return f"{name} is {value(name)}, below 0"
    if kind == "rounds_lower":
        return f"rounds_lower is {value('rounds_lower')}: a won row's lies between 1 and rounds ({value('rounds')})"
    if kind == "rounds_optimal":
        return (
            f"rounds_optimal claims {value('rounds')} passes are the fewest, but the proven rounds_lower is "
            f"{value('rounds_lower')}"
        )
    if kind == "solution":
        return f"a solution is stored for a deal that is not won ({value('outcome')})"
    return f"{kind} (the column is empty in this row)"


def sample_rows(count: int, key: str, full: bool) -> np.ndarray:
    """The rows of a part replayed: all of them with ``full``, else a sample (:data:`SAMPLE_SHARE`, at least
    :data:`SAMPLE_LEAST`) drawn by a generator seeded from the unit's key, so a verify is reproducible."""
    if full or count <= SAMPLE_LEAST:
        return np.arange(count)
    k = min(count, max(SAMPLE_LEAST, int(np.ceil(count * SAMPLE_SHARE))))
    seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")
    return np.sort(np.random.default_rng(seed).choice(count, size=k, replace=False))


def _row_text(outcome: Any, values: dict[str, Any]) -> str:
    return f"{outcome} (" + ", ".join(f"{k} {v}" for k, v in values.items()) + ")"


def replay_problems(game, rules, decks: np.ndarray, table, rows: np.ndarray) -> list[tuple[int, str]]:
    """(row, reason) of each of ``rows`` whose stored columns are not what the game's kernel plays again from
    the deal (``decks[row]``) with ``rules``."""
    import pyarrow as pa

    if rows.size == 0:
        return []
    played = game.play_batch(np.ascontiguousarray(decks[rows]), rules)
    codes = np.asarray(played["outcome"], dtype=np.int64)
    want = {"outcome": np.asarray(OUTCOMES, dtype=object)[codes], "won": codes == WON}
    sub = table.take(pa.array(rows))
    got = {"outcome": np.asarray(sub.column("outcome").to_pylist(), dtype=object)}
    got["won"] = np.asarray(sub.column("won").to_pylist(), dtype=object)
    differ = (got["outcome"] != want["outcome"]) | (got["won"] != want["won"])
    counts = [c for c in COUNTS if c in played and c in sub.column_names]
    for c in counts:
        want[c] = np.asarray(played[c]).astype(np.int64)
        got[c] = np.asarray(sub.column(c).to_pylist(), dtype=object)
        differ |= got[c] != want[c]
    out = []
    for i in np.flatnonzero(differ):
        kernel = _row_text(want["outcome"][i], {c: int(want[c][i]) for c in counts})
        stored = _row_text(got["outcome"][i], {c: got[c][i] for c in counts})
        extra = f", won {got['won'][i]}" if got["won"][i] != want["won"][i] else ""
        out.append((int(rows[i]), f"the kernel plays it as {kernel}; the part says {stored}{extra}"))
    return out
