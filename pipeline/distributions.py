"""Per-deal distributions (percentiles, box plots) from streamed histograms, in flat memory.

The HTML report draws, per variant and won/not won, the 5th/25th/50th/75th/95th
percentiles, the mean and the maximum of a column (``rounds``, ``nodes``,
``seconds``).  Sorting the column would cost memory in proportion to the deals;
instead the rows stream past in batches (polars' streaming engine, one variant's
files at a time) and numpy counts them per *bin*; the percentiles come out of
the counts.  Every column a report draws is counted in the same pass:

* an integer column whose values span at most ``EXACT_SPAN`` (``rounds``, and
  ``nodes`` under most budgets) is binned by value: every figure is exact.
  Its range comes from the Parquet footers when the caller has them (no pass).
  A wider integer column still counts its values in [0, ``EXACT_LOW``) one by
  one and keeps its largest value apart; only its values outside that range
  are binned as below.
* any other column (floats such as ``seconds``, integers spread wider) is binned
  by the top bits of its float64 value: sign, exponent and the first
  ``MANTISSA_BITS`` bits of the mantissa, so ``2**MANTISSA_BITS`` bins per factor
  of two, each under 1/128 of its values wide.  The bin of a value is an integer
  shift of its bits (no logarithm, exactly ordered like the values), counted with
  ``numpy.bincount``.  The order statistics the percentiles need are found by
  rank; a second pass keeps the rows of only those few bins (at most
  ``REFINE_ROWS`` rows in all) and reads them back exactly.  A bin too full for
  that gives its smallest and largest value only: a percentile that is its first
  or last row, or in a bin of one value, is still exact, the others are the
  middle of the bin's range, off by at most half its width (under 0.4% of the
  value), and the report says so with the largest such error.

Percentiles are numpy's default (linear) definition, computed with numpy's own
arithmetic, so an exact figure is the very number ``numpy.quantile`` gives on all
the rows.  The mean is exact for integers; for floats it is a sum in another
order than numpy's, so equal up to float rounding (about 1e-15 relative).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
NAMES = ("p05", "q1", "med", "q3", "p95")
EXACT_SPAN = 1 << 12  # integer columns spanning at most this many values are counted value by value
# Bins: a float64's top 1 + 11 + MANTISSA_BITS bits.  7 mantissa bits: 128 bins per doubling, each at most 1/128
# of its values wide; 2**20 bins in all (a 16 MB count array per column) cover every float.
MANTISSA_BITS = 7
BINS_PER_DOUBLING = 1 << MANTISSA_BITS
_SHIFT = 52 - MANTISSA_BITS
_HALF = 1 << (63 - _SHIFT)  # keys run over [-_HALF, _HALF): shifted by _HALF to index the count array
REFINE_ROWS = 4_000_000  # rows the second pass may keep in memory (about 64 MB), per variant
# An integer column's values in [0, EXACT_LOW) are counted value by value even when its span is wide (solver
# ``nodes``: its percentiles sit there, its maximum far above): those percentiles need no second pass.
EXACT_LOW = 1 << 16


@dataclass
class Distribution:
    """One (variant, won) group's figures: numbers as ``numpy`` gives them, plus how exact they are."""

    n: int
    p05: float
    q1: float
    med: float
    q3: float
    p95: float
    mean: float
    max: float
    max_error: float = 0.0  # largest absolute error bound of the percentiles (0: exact)
    max_relative_error: float = 0.0
    reread: int = 0  # order statistics the second pass read back exactly
    binned: bool = False  # log bins (True) or a count of every value (False)

    def as_dict(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in ("n", "p05", "q1", "med", "q3", "p95", "mean", "max")}


def lerp_quantiles(n: int, value_at_rank) -> tuple[np.ndarray, np.ndarray]:
    """numpy's linear quantiles of ``n`` sorted values, given a function rank array -> value array.

    Mirrors ``numpy.lib._function_base_impl._quantile`` (method "linear") operation by operation,
    so the floats come out bit for bit the same.  Returns (values, the weights ``t``).
    """
    q = np.asarray(QUANTILES, dtype=np.float64)
    virtual = (n - 1) * q
    prev = np.floor(virtual)
    nxt = prev + 1
    above = virtual >= n - 1
    prev[above] = -1
    nxt[above] = -1
    t = np.asanyarray(virtual - prev, dtype=virtual.dtype)
    prev_i = np.where(prev < 0, n - 1, prev).astype(np.int64)
    next_i = np.where(nxt < 0, n - 1, nxt).astype(np.int64)
    a, b = value_at_rank(prev_i), value_at_rank(next_i)
    diff = b - a
    out = a + diff * t
    np.subtract(b, diff * (1 - t), out=out, where=t >= 0.5)
    return out, t


def bin_keys(values: np.ndarray) -> np.ndarray:
    """The bin of each (non-NaN) float64: its top bits, as an integer that orders like the values.

    A non-negative float's bits order like the float; a negative one's magnitude bits order backwards,
    so its key is ``-magnitude - 1`` (-0.0 falls just below +0.0: equal values, neighbouring bins).
    """
    bits = values.view(np.int64)
    mag = (bits & np.int64(0x7FFF_FFFF_FFFF_FFFF)) >> _SHIFT
    return np.where(bits < 0, -mag - 1, mag)


def column_distributions(
    lf: pl.LazyFrame,
    column: str,
    variants: list[str],
    by_value: pl.DataFrame | None = None,
    ranges: dict[str, tuple[int, int]] | None = None,
) -> dict[tuple[str, bool], Distribution]:
    """(variant, won) -> :class:`Distribution` of ``column``, by streamed histograms.

    ``by_value``, when given, is a ready histogram with columns variant, won, ``column``, n (the report's
    own rounds histogram), which saves a pass.  ``ranges``: see :func:`distributions`.
    """
    if by_value is not None:
        return _from_values(by_value, column, variants)
    return distributions(lf, [column], variants, ranges)[column]


def distributions(
    lf: pl.LazyFrame, columns: list[str], variants: list[str], ranges: dict[str, tuple[int, int]] | None = None
) -> dict[str, dict[tuple[str, bool], Distribution]]:
    """column -> (variant, won) -> :class:`Distribution`, every column counted in the same passes.

    ``ranges``: column -> (smallest, largest) value over the run, e.g. from the Parquet footers' statistics
    (:func:`pipeline.parts.column_ranges`); an integer column missing from it costs one pass for its range.
    """
    schema = lf.collect_schema()
    integer = {c: schema[c].is_integer() or schema[c] == pl.Boolean for c in columns}
    ranges = dict(ranges or {})
    unknown = [c for c in columns if integer[c] and c not in ranges]
    if unknown:
        row = (
            lf.select(
                *(e for c in unknown for e in (pl.col(c).min().alias(f"{c}_lo"), pl.col(c).max().alias(f"{c}_hi")))
            )
            .collect(engine="streaming")
            .row(0)
        )
        for k, c in enumerate(unknown):
            lo, hi = row[2 * k], row[2 * k + 1]
            ranges[c] = (0, 0) if lo is None else (int(lo), int(hi))
    by_value = {c: ranges[c][0] for c in columns if integer[c] and ranges[c][1] - ranges[c][0] <= EXACT_SPAN}
    out: dict[str, dict[tuple[str, bool], Distribution]] = {c: {} for c in columns}
    for v in variants:
        part = lf.filter(pl.col("variant") == v).select("won", *columns)
        counters = {
            c: _ValueCounter(ranges[c][0], ranges[c][1]) if c in by_value else _BinCounter(integer[c]) for c in columns
        }
        for won, batch in _batches(part, columns):
            for c in columns:
                counters[c].add(won, *batch[c])
        refine = {c: k for c, k in counters.items() if isinstance(k, _BinCounter) and k.plan()}
        if refine:
            _refine(part, refine)
        for c, counter in counters.items():
            for flag, dist in counter.finish().items():
                out[c][(v, flag)] = dist
    return out


def _batches(part: pl.LazyFrame, columns: list[str]):
    """(won as int8: 1, 0, or -1 for a missing flag; {column: (values, valid mask or None)}) per batch."""
    for df in part.collect_batches(maintain_order=False):
        if df.height == 0:
            continue
        w = df["won"]
        won = (
            w.cast(pl.Int8).fill_null(-1).to_numpy()
            if w.null_count()
            else w.to_numpy().astype(np.int8, copy=False)
            if w.dtype == pl.Boolean
            else w.cast(pl.Int8).to_numpy()
        )
        batch = {}
        for c in columns:
            s = df[c]
            if s.null_count():
                batch[c] = (s.fill_null(0).to_numpy(), s.is_not_null().to_numpy())
            else:
                batch[c] = (s.to_numpy(), None)
        yield won, batch


class _ValueCounter:
    """Counts of every value of an integer column over [lo, hi], per won flag: exact figures."""

    def __init__(self, lo: int, hi: int):
        self.lo = lo
        self.counts = np.zeros((2, hi - lo + 1), dtype=np.int64)

    def add(self, won: np.ndarray, values: np.ndarray, valid: np.ndarray | None) -> None:
        keep = won >= 0 if valid is None else (won >= 0) & valid
        idx = (values[keep].astype(np.int64) - self.lo) * 2 + won[keep]
        flat = np.bincount(idx, minlength=self.counts.size)
        self.counts += flat.reshape(-1, 2).T

    def finish(self) -> dict[bool, Distribution]:
        out = {}
        for flag in (True, False):
            counts = self.counts[int(flag)]
            present = np.nonzero(counts)[0]
            if present.size == 0:
                continue
            values, counts = present + self.lo, counts[present]
            n = int(counts.sum())
            cum = np.cumsum(counts)
            as_float = values.astype(np.float64)
            qs, _ = lerp_quantiles(n, lambda r, v=as_float, c=cum: v[np.searchsorted(c, r, side="right")])
            total = sum(int(v) * int(c) for v, c in zip(values, counts, strict=True))  # exact, whatever the size
            out[flag] = Distribution(n, *map(float, qs), mean=total / n, max=float(values[-1]), binned=False)
        return out


def _index(f: np.ndarray, won: np.ndarray) -> np.ndarray:
    """Where each (non-NaN) float64 of a group counts: ``(bin_keys + _HALF) * 2 + won``, flags interleaved."""
    bits = f.view(np.int64)
    if bits.size and bits.min() < 0:  # a sign bit set somewhere: the general key
        key = bin_keys(f)
    else:
        key = bits >> _SHIFT
    return (key + _HALF) * 2 + won


class _BinCounter:
    """One column's bin counts per won flag (first pass), then the exact rows of the bins the percentiles
    fall in and the extremes of each flag's top bin (second pass, :func:`_refine`).

    Bins and flags share one flat count array, index ``(bin + _HALF) * 2 + won``, so a batch is one
    ``bincount`` with no masking; sums per flag are a dot product (integers, exact) or a weighted
    ``bincount`` (floats)."""

    def __init__(self, integer: bool):
        self.integer = integer
        self.counts = np.zeros(4 * _HALF, dtype=np.int64)
        # integers: counts of each value in [0, EXACT_LOW), flags interleaved, and the largest value outside it
        self.exact = np.zeros(2 * EXACT_LOW, dtype=np.int64) if integer else None
        self.outside_max = [-math.inf, -math.inf]
        self.pending: list[np.ndarray] = []  # exact-count indices not yet counted: one bincount per ~10^6 rows
        self.pending_rows = 0
        self.n = [0, 0]
        self.nans = [0, 0]
        self.total: list = [0, 0] if integer else [0.0, 0.0]
        self.need: dict[int, list[int]] = {}  # won flag -> sorted bins some percentile falls in, and the top bin
        self.top: dict[int, int] = {}  # won flag -> its highest bin (holds the maximum)
        self.keep: dict[tuple[int, int], bool] = {}  # (flag, bin) -> its rows are kept whole
        self.lo: dict[tuple[int, int], float] = {}
        self.hi: dict[tuple[int, int], float] = {}
        self.rows: dict[tuple[int, int], np.ndarray] = {}

    @staticmethod
    def rows_of(won: np.ndarray, values: np.ndarray, valid: np.ndarray | None, integer: bool):
        """(won as int64 0/1, values as float64 without NaN, a NaN count per flag or None) of a batch's rows
        with a won flag and a value."""
        if valid is not None or (won.size and won.min() < 0):  # rare: missing flags or values
            keep = won >= 0 if valid is None else (won >= 0) & valid
            won, values = won[keep], values[keep]
        w = won.astype(np.int64)
        f = values.astype(np.float64, copy=not integer)
        nans = None
        if not integer:
            nan = np.isnan(f)
            if nan.any():
                nans = np.bincount(w[nan], minlength=2)
                w, f = w[~nan], f[~nan]
        return w, f, nans

    def add(self, won: np.ndarray, values: np.ndarray, valid: np.ndarray | None) -> None:
        if valid is not None or (won.size and won.min() < 0):
            keep = won >= 0 if valid is None else (won >= 0) & valid
            won, values = won[keep], values[keep]
        if values.size == 0:
            return
        w = won.astype(np.int64)
        wins = int(w.sum())
        self.n[1] += wins
        self.n[0] += values.size - wins
        if self.integer:
            x = values.astype(np.int64, copy=False)
            won_total, total = int(np.dot(x, w)), int(x.sum())
            self.total[1] += won_total
            self.total[0] += total - won_total
            if x.min() >= 0:  # the usual case: values at or above EXACT_LOW count in one extra, dropped, slot
                self.pending.append(np.minimum(x, EXACT_LOW) * 2 + w)
                self.pending_rows += x.size
                if self.pending_rows >= 1 << 20:
                    self.flush()
                far = np.nonzero(x >= EXACT_LOW)[0]
                if far.size == 0:
                    return
                x, w = x[far], w[far]
            else:
                small = (x >= 0) & (x < EXACT_LOW)
                self._count_exact(x[small], w[small])
                x, w = x[~small], w[~small]
            for flag in (0, 1):
                mine = x[w == flag]
                if mine.size:
                    self.outside_max[flag] = max(self.outside_max[flag], float(mine.max()))
            f = x.astype(np.float64)
        else:
            f = values.astype(np.float64, copy=False)
            sums = np.bincount(w, weights=f, minlength=2)
            self.total[0] += float(sums[0])
            self.total[1] += float(sums[1])
            nan = np.isnan(f)
            if nan.any():
                counted = np.bincount(w[nan], minlength=2)
                self.nans[0] += int(counted[0])
                self.nans[1] += int(counted[1])
                w, f = w[~nan], f[~nan]
                if f.size == 0:
                    return
        idx = _index(f, w)
        first = int(idx.min())
        counted = np.bincount(idx - first)
        self.counts[first : first + counted.size] += counted

    def flush(self) -> None:
        if self.pending:
            counted = np.bincount(np.concatenate(self.pending), minlength=2 * EXACT_LOW + 2)
            self.exact += counted[: 2 * EXACT_LOW]
            self.pending, self.pending_rows = [], 0

    def _count_exact(self, x: np.ndarray, w: np.ndarray) -> None:
        if x.size:
            idx = x * 2 + w
            first = int(idx.min())
            counted = np.bincount(idx - first)
            self.exact[first : first + counted.size] += counted

    def of(self, flag: int) -> np.ndarray:
        return self.counts[flag::2]

    def ordered(self, flag: int) -> np.ndarray:
        """The flag's counts in value order: bins of negative values, then (integers) each value in
        [0, EXACT_LOW), then the other bins.  Integers in [0, EXACT_LOW) are never binned, so their bins,
        between the two, are empty: the exact counts are simply put at the first non-negative bin."""
        if self.exact is None:
            return self.of(flag)
        self.flush()
        bins = self.of(flag)
        return np.concatenate([bins[:_HALF], self.exact[flag::2], bins[_HALF:]])

    def locate(self, position: int) -> tuple[int | None, int | None]:
        """A place in :meth:`ordered`: (bin, None), or (None, the exact value)."""
        if self.exact is None or position < _HALF:
            return position, None
        if position < _HALF + EXACT_LOW:
            return None, position - _HALF
        return position - EXACT_LOW, None

    def plan(self) -> bool:
        """Which bins the second pass looks at (percentiles' and the top bin); True if any."""
        for flag in (0, 1):
            n = self.n[flag]
            if n == 0 or self.nans[flag]:
                continue
            counts = self.ordered(flag)
            cum = np.cumsum(counts)
            ranks = np.floor((n - 1) * np.asarray(QUANTILES))
            ranks = np.minimum(np.concatenate([ranks, ranks + 1]), n - 1).astype(np.int64)
            places = np.searchsorted(cum, ranks, side="right").tolist()
            need = {b for b, _ in map(self.locate, places) if b is not None}  # exact counts need no second look
            if not self.integer:  # a float's maximum: its top bin's largest value (integers keep theirs)
                self.top[flag] = self.locate(int(np.nonzero(counts)[0][-1]))[0]
                need.add(self.top[flag])
            if need:
                self.need[flag] = sorted(need)
        return bool(self.need)

    def finish(self) -> dict[bool, Distribution]:
        out = {}
        for flag in (0, 1):
            if self.n[flag] == 0:
                continue
            if self.nans[flag]:  # numpy: any NaN makes every figure NaN
                nan = math.nan
                out[bool(flag)] = Distribution(self.n[flag], nan, nan, nan, nan, nan, nan, nan, binned=True)
                continue
            out[bool(flag)] = self._finish(flag)
        return out

    def _finish(self, flag: int) -> Distribution:
        n = self.n[flag]
        counts = self.ordered(flag)
        cum = np.cumsum(counts)
        errs: dict[int, float] = {}
        exact: set[int] = set()
        if self.integer:
            self.flush()
            present = np.nonzero(self.exact[flag::2])[0]
            top = max(self.outside_max[flag], float(present[-1]) if present.size else -math.inf)
        elif (flag, self.top[flag]) in self.hi:
            top = self.hi[(flag, self.top[flag])]
        else:
            raise RuntimeError("the run's files changed while the report read them; run the report again")

        def value(rank: int) -> tuple[float, float]:
            place = int(np.searchsorted(cum, rank, side="right"))
            off = rank - int(cum[place] - counts[place])
            b, known = self.locate(place)
            if b is None:  # an integer counted value by value
                return float(known), 0.0
            key = (flag, b)
            rows = self.rows.get(key)
            if rows is not None:
                exact.add(rank)
                return float(rows[off]), 0.0
            if key not in self.lo:
                raise RuntimeError("the run's files changed while the report read them; run the report again")
            lo, hi = self.lo[key], self.hi[key]
            if off == 0 or lo == hi:
                return lo, 0.0
            if off == counts[place] - 1:
                return hi, 0.0
            return (lo + hi) / 2, (hi - lo) / 2

        def at(ranks: np.ndarray) -> np.ndarray:
            vals = []
            for r in ranks.tolist():
                v, e = value(int(r))
                errs[int(r)] = e
                vals.append(v)
            return np.asarray(vals, dtype=np.float64)

        qs, t = lerp_quantiles(n, at)
        q = np.asarray(QUANTILES, dtype=np.float64)
        prev = np.minimum(np.floor((n - 1) * q), n - 1).astype(int)
        nxt = np.minimum(prev + 1, n - 1)
        bound = np.array([(1 - ti) * errs[int(p)] + ti * errs[int(x)] for p, x, ti in zip(prev, nxt, t, strict=True)])
        rel = max((e / abs(v) for e, v in zip(bound, qs, strict=True) if e > 0 and v != 0), default=0.0)
        return Distribution(
            n,
            *map(float, qs),
            mean=self.total[flag] / n,
            max=top,
            max_error=float(bound.max()),
            max_relative_error=float(rel),
            reread=len(exact),
            binned=True,
        )


def _refine(part: pl.LazyFrame, counters: dict[str, _BinCounter]) -> None:
    """Second pass: the rows of the bins some percentile falls in, kept whole while they fit in
    ``REFINE_ROWS`` (smallest bins first), else their smallest and largest value only."""
    budget = REFINE_ROWS
    sizes = sorted(
        (int(k.of(flag)[b]), c, flag, b) for c, k in counters.items() for flag, bins in k.need.items() for b in bins
    )
    for size, c, flag, b in sizes:
        counters[c].keep[(flag, b)] = size <= budget
        budget -= size if size <= budget else 0
    # per column: a slot per needed (flag, bin), found from the flat index by one table look-up
    tables = {}
    for c, k in counters.items():
        wanted = sorted(b * 2 + flag for flag, bins in k.need.items() for b in bins)  # b: a bin's place in of()
        slot_of = np.full(wanted[-1] - wanted[0] + 1, -1, dtype=np.int64)
        slot_of[np.asarray(wanted) - wanted[0]] = np.arange(len(wanted))
        keys = [(i // 2, i % 2) for i in wanted]  # (bin, flag) of each slot
        kept = np.array([k.keep[(flag, b)] for b, flag in keys])
        tables[c] = (
            wanted[0],
            slot_of,
            keys,
            kept,
            np.full(len(wanted), math.inf),
            np.full(len(wanted), -math.inf),
            [],
            [],
        )
    for won, batch in _batches(part.select("won", *counters), list(counters)):
        for c, k in counters.items():
            first, slot_of, keys, kept, lo, hi, slots, vals = tables[c]
            w, f, _ = _BinCounter.rows_of(won, *batch[c], k.integer)
            if f.size == 0:
                continue
            idx = _index(f, w) - first
            inside = np.nonzero((idx >= 0) & (idx < slot_of.size))[0]
            slot = slot_of[idx[inside]]
            mine = slot >= 0
            slot, x = slot[mine], f[inside[mine]]
            if slot.size == 0:
                continue
            np.minimum.at(lo, slot, x)
            np.maximum.at(hi, slot, x)
            keep = kept[slot]
            slots.append(slot[keep])
            vals.append(x[keep])
    for c, k in counters.items():
        first, slot_of, keys, kept, lo, hi, slots, vals = tables[c]
        for s, (b, flag) in enumerate(keys):
            if lo[s] <= hi[s]:
                k.lo[(flag, b)], k.hi[(flag, b)] = float(lo[s]), float(hi[s])
        if not slots:
            continue
        slot, x = np.concatenate(slots), np.concatenate(vals)
        order = np.lexsort((x, slot))
        slot, x = slot[order], x[order]
        bounds = np.searchsorted(slot, np.arange(len(keys) + 1))
        for s, (b, flag) in enumerate(keys):
            rows = x[bounds[s] : bounds[s + 1]]
            if kept[s] and rows.size == k.of(flag)[b]:  # exactly the bin's rows (else the files changed): exact
                k.rows[(flag, b)] = rows


def _groups(hist: pl.DataFrame, variants: list[str]):
    wanted = set(variants)
    if "variant" not in hist.columns or hist.is_empty():
        return
    for (v, won), g in hist.partition_by("variant", "won", as_dict=True).items():
        if v in wanted and won is not None:
            yield (v, bool(won)), g


def _from_values(hist: pl.DataFrame, column: str, variants: list[str]) -> dict[tuple[str, bool], Distribution]:
    out = {}
    for key, g in _groups(hist.select("variant", "won", column, "n"), variants):
        g = g.group_by(column).agg(pl.col("n").sum()).sort(column)
        values = g[column].cast(pl.Int64).to_numpy()
        counts = g["n"].to_numpy()
        n = int(counts.sum())
        if n == 0:
            continue
        cum = np.cumsum(counts)
        as_float = values.astype(np.float64)
        qs, _ = lerp_quantiles(n, lambda r, v=as_float, c=cum: v[np.searchsorted(c, r, side="right")])
        total = sum(int(v) * int(c) for v, c in zip(values, counts, strict=True))  # exact, whatever the size
        out[key] = Distribution(n, *map(float, qs), mean=total / n, max=float(values[-1]), binned=False)
    return out


def accuracy_note(column: str, dists: dict[tuple[str, bool], Distribution]) -> str:
    """One sentence on how exact the figures of ``column`` are."""
    worst = max((d.max_relative_error for d in dists.values()), default=0.0)
    if worst > 0:
        return (
            f"{column}: percentiles from a streamed histogram ({BINS_PER_DOUBLING} bins per doubling); "
            f"some are approximate, each within {100 * worst:.3g}% of the exact value "
            "(bins too full to re-read exactly); maximum exact, mean exact up to float rounding"
        )
    how = (
        "a streamed histogram, re-reading only the rows of the bins they fall in"
        if any(d.binned for d in dists.values())
        else "a streamed count of every value"
    )
    return f"{column}: every percentile exact (from {how}), the same numbers numpy.quantile gives on all rows"
