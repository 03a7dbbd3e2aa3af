"""Per-deal distributions (percentiles, box plots) from streamed histograms, in flat memory.

The HTML report draws, per variant and won/not won, the 5th/25th/50th/75th/95th
percentiles, the mean and the maximum of a column (``rounds``, ``nodes``,
``seconds``).  Sorting the column would cost memory in proportion to the deals;
instead one streaming pass counts the rows per *bin*, and the percentiles come
out of the counts:

* an integer column whose values span at most ``EXACT_SPAN`` (``rounds``, and
  ``nodes`` under most budgets) is binned by value: every figure is exact.
* any other column (floats such as ``seconds``, integers spread wider) is binned
  on a log scale, ``BINS_PER_DOUBLING`` bins per factor of two, each bin keeping
  its count, smallest and largest value.  A percentile's order statistics are
  found by rank; one that is a bin's first or last row, or sits in a bin of one
  value, is exact at once.  The others are read back exactly by a second pass
  that keeps only the rows of those few bins (at most ``REFINE_ROWS`` rows in
  all); a bin too full for that stays approximate: the middle of its range, off
  by at most half its width (under 0.28% of the value), and the report says so
  with the largest such error.

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
# Log bins: relative width 2**(1/128) - 1 = 0.54%.  Fewer, wider bins make the streamed group-by cheaper
# (its cost grows with the number of groups) and the second pass keeps more rows; 128 balances the two.
BINS_PER_DOUBLING = 128
REFINE_ROWS = 4_000_000  # rows the second pass may keep in memory (about 70 MB), per variant
_OFFSET = 1 << 21  # keeps positive log keys above 0 (log2 of a float64 is within +-1075)
_NAN_KEY = 1 << 23


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


def _log_key(column: str) -> pl.Expr:
    """A bin number that grows with the value: 0 for zero, +-(offset + floor(log2|x| * bins)) otherwise."""
    x = pl.col(column).cast(pl.Float64)
    mag = ((x.abs().log(2) * BINS_PER_DOUBLING).floor() + _OFFSET).cast(pl.Int64, strict=False)
    return (pl.when(x > 0).then(mag).when(x < 0).then(-mag).when(x == 0).then(pl.lit(0, pl.Int64))
            .otherwise(pl.lit(_NAN_KEY, pl.Int64)).fill_null(_NAN_KEY).alias("_key"))


def column_distributions(lf: pl.LazyFrame, column: str, variants: list[str],
                         by_value: pl.DataFrame | None = None) -> dict[tuple[str, bool], Distribution]:
    """(variant, won) -> :class:`Distribution` of ``column``, by streamed histograms.

    ``by_value``, when given, is a ready histogram with columns variant, won, ``column``, n (the report's
    own rounds histogram), which saves a pass.
    """
    dtype = lf.collect_schema()[column]
    integer = dtype.is_integer() or dtype == pl.Boolean
    if by_value is None and integer:
        lo, hi = lf.select(pl.col(column).min().alias("lo"), pl.col(column).max().alias("hi")) \
            .collect(engine="streaming").row(0)
        if lo is None or int(hi) - int(lo) <= EXACT_SPAN:
            by_value = _per_variant(lf, variants, lambda part: part.filter(pl.col(column).is_not_null())
                                    .group_by("won", column).agg(pl.len().cast(pl.Int64).alias("n")))
    if by_value is not None:
        return _from_values(by_value, column, variants)
    return _from_log_bins(lf, column, variants, integer)


def _per_variant(lf: pl.LazyFrame, variants: list[str], query) -> pl.DataFrame:
    """``query`` run on each variant's rows alone, results stacked with a ``variant`` column.

    One streaming scan per variant reads only that variant's files (hive pruning) and groups without the
    ``variant`` string in the key: several times faster than one group-by over every variant at once.
    """
    frames = [query(lf.filter(pl.col("variant") == v).drop("variant")).collect(engine="streaming")
              .with_columns(pl.lit(v, pl.String).alias("variant")) for v in variants]
    return pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame()


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
        qs, _ = lerp_quantiles(n, lambda r: as_float[np.searchsorted(cum, r, side="right")])
        total = sum(int(v) * int(c) for v, c in zip(values, counts))  # exact, whatever the size
        out[key] = Distribution(n, *map(float, qs), mean=total / n, max=float(values[-1]), binned=False)
    return out


def _from_log_bins(lf: pl.LazyFrame, column: str, variants: list[str],
                   integer: bool) -> dict[tuple[str, bool], Distribution]:
    x = pl.col(column)
    hist = _per_variant(lf, variants, lambda part: (
        part.filter(x.is_not_null()).select("won", column, _log_key(column))
        .group_by("won", "_key")
        .agg(pl.len().cast(pl.Int64).alias("n"), x.cast(pl.Float64).min().alias("lo"),
             x.cast(pl.Float64).max().alias("hi"),
             (x.cast(pl.Int64) if integer else x.cast(pl.Float64)).sum().alias("total"))))
    plans = {}
    for key, g in _groups(hist, variants):
        g = g.sort("_key")
        plans[key] = _Plan(g)
    # second pass: the exact values of the bins some percentile falls inside, variant by variant
    for v in variants:
        need = {(won, k): plans[(v, won)].bin_rows[k] for won in (True, False) if (v, won) in plans
                for k in plans[(v, won)].inside}
        if not need:
            continue
        # rows the filter keeps: every row of those bins, whichever the won flag
        keys = sorted({k for _, k in need})
        rows = sum(p.bin_rows.get(k, 0) for won in (True, False) if (p := plans.get((v, won))) for k in keys)
        if rows > REFINE_ROWS:
            continue  # too many to hold: those percentiles stay approximate, and say so
        # A bin is the value range [its smallest, its largest] (bins are disjoint when ordered), and a range
        # test is cheaper than a logarithm per row.
        ranges = [plans[(v, won)].range_of(k) for won, k in need]
        inside = pl.lit(False)
        for lo, hi in ranges:
            inside = inside | pl.col("_x").is_between(lo, hi)
        kept = lf.filter(pl.col("variant") == v).select("won", x.cast(pl.Float64).alias("_x")).filter(inside) \
            .collect(engine="streaming")
        flags = kept["won"].to_numpy()
        vals = kept["_x"].to_numpy()
        for (won, k), (lo, hi) in zip(need, ranges):
            mine = vals[(flags == won) & (vals >= lo) & (vals <= hi)]
            if mine.size == plans[(v, won)].bin_rows[k]:  # exactly the bin's rows, else leave it approximate
                plans[(v, won)].exact[k] = np.sort(mine)
    return {key: p.finish() for key, p in plans.items()}


class _Plan:
    """One group's log-binned histogram and, per percentile, which bin holds its order statistics."""

    def __init__(self, g: pl.DataFrame):
        self.keys = g["_key"].to_numpy()
        self.counts = g["n"].to_numpy()
        self.lo = g["lo"].to_numpy()
        self.hi = g["hi"].to_numpy()
        self.total = g["total"].sum()
        self.nans = bool(np.isnan(self.lo).any() or np.isnan(self.hi).any())
        self.n = int(self.counts.sum())
        self.cum = np.cumsum(self.counts)
        self.bin_rows = dict(zip(self.keys.tolist(), self.counts.tolist()))
        # A log2 that is off by an ulp could put a value one bin off; then the bins' ranges overlap.
        self.ordered = bool((self.hi[:-1] <= self.lo[1:]).all())
        self.exact: dict[int, np.ndarray] = {}
        self.inside: set[int] = set()
        self.reread: set[int] = set()
        q = np.asarray(QUANTILES, dtype=np.float64)
        for r in np.unique(np.concatenate([np.floor((self.n - 1) * q), np.floor((self.n - 1) * q) + 1])):
            r = int(min(r, self.n - 1))
            b, off = self._where(r)
            if not self._known(b, off):
                self.inside.add(int(self.keys[b]))

    def range_of(self, key: int) -> tuple[float, float]:
        b = int(np.searchsorted(self.keys, key))
        return float(self.lo[b]), float(self.hi[b])

    def _where(self, rank: int) -> tuple[int, int]:
        b = int(np.searchsorted(self.cum, rank, side="right"))
        return b, rank - int(self.cum[b] - self.counts[b])

    def _known(self, b: int, off: int) -> bool:
        return self.ordered and (self.lo[b] == self.hi[b] or off == 0 or off == self.counts[b] - 1)

    def value(self, rank: int) -> tuple[float, float]:
        """(value, error bound) of the order statistic at ``rank``."""
        b, off = self._where(rank)
        if self._known(b, off):
            return (float(self.lo[b] if off == 0 or self.lo[b] == self.hi[b] else self.hi[b]), 0.0)
        got = self.exact.get(int(self.keys[b]))
        if got is not None and self.ordered:
            self.reread.add(rank)
            return (float(got[off]), 0.0)
        if self.ordered:
            return ((self.lo[b] + self.hi[b]) / 2, (self.hi[b] - self.lo[b]) / 2)
        # out of order by one bin at most: the neighbours' ranges bound the value
        lo, hi = self.lo[max(b - 1, 0)], self.hi[min(b + 1, len(self.hi) - 1)]
        return ((lo + hi) / 2, (hi - lo) / 2)

    def finish(self) -> Distribution:
        if self.nans:  # numpy: any NaN makes every figure NaN
            nan = math.nan
            return Distribution(self.n, nan, nan, nan, nan, nan, nan, nan, binned=True)
        errs: dict[int, float] = {}

        def at(ranks: np.ndarray) -> np.ndarray:
            vals = []
            for r in ranks.tolist():
                v, e = self.value(int(r))
                errs[int(r)] = e
                vals.append(v)
            return np.asarray(vals, dtype=np.float64)

        qs, t = lerp_quantiles(self.n, at)
        q = np.asarray(QUANTILES, dtype=np.float64)
        prev = np.minimum(np.floor((self.n - 1) * q), self.n - 1).astype(int)
        nxt = np.minimum(prev + 1, self.n - 1)
        bound = np.array([(1 - ti) * errs[int(p)] + ti * errs[int(x)] for p, x, ti in zip(prev, nxt, t)])
        rel = max((e / abs(v) for e, v in zip(bound, qs) if e > 0 and v != 0), default=0.0)
        total = self.total
        mean = (int(total) / self.n) if isinstance(total, (int, np.integer)) else float(total) / self.n
        return Distribution(self.n, *map(float, qs), mean=mean, max=float(self.hi.max()),
                            max_error=float(bound.max()), max_relative_error=float(rel), reread=len(self.reread),
                            binned=True)


def accuracy_note(column: str, dists: dict[tuple[str, bool], Distribution]) -> str:
    """One sentence on how exact the figures of ``column`` are."""
    worst = max((d.max_relative_error for d in dists.values()), default=0.0)
    if worst > 0:
        return (f"{column}: percentiles from a streamed histogram ({BINS_PER_DOUBLING} log-spaced bins per "
                f"doubling); some are approximate, each within {100 * worst:.3g}% of the exact value "
                "(bins too full to re-read exactly); maximum exact, mean exact up to float rounding")
    how = ("a streamed histogram, re-reading only the rows of the bins they fall in"
           if any(d.binned for d in dists.values()) else "a streamed count of every value")
    return f"{column}: every percentile exact (from {how}), the same numbers numpy.quantile gives on all rows"
