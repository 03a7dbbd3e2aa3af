"""Paired comparison of variants on the same deals (``patience compare``).

Every variant of a study plays the same deals, so two variants can be compared
deal by deal.  For a variant against a baseline, over the deals both played::

                      variant won   variant lost
    baseline won          a (both)      b (only baseline)
    baseline lost         c (only var.) d (neither)

the difference in win rate is ``(c - b) / n``: only the *discordant* deals
(b and c) carry information, which is why a paired comparison needs far fewer
deals than two independent win rates.

* interval: Newcombe's hybrid score interval for a difference of paired
  proportions (Newcombe 1998, Stat Med 17:2635, method 10; the "square-and-add"
  of two Wilson intervals, with his corrected correlation estimate).  It stays
  inside [-1, 1] and behaves with zero or all discordant pairs, unlike Wald.
* test: McNemar's exact test, i.e. a two-sided binomial test of b against
  Bin(b + c, 1/2), computed in log space so that a p-value far below the
  smallest float (1e-308) is still reported honestly ("p < 1e-300").
* multiplicity: Holm's step-down adjustment across every comparison of the
  study (it controls the family-wise error rate without assumptions).
* ``unknown`` outcomes (a solver that ran out of budget) are neither won nor
  lost, so results become bounds: the lower end counts the variant's unknowns
  as lost and the baseline's as won, the upper end the reverse; the p-value
  shown is the largest over every way of resolving the unknowns.

Every statistic needs only the 3x3 counts of (baseline, variant) states over
the paired deals, and those are summed part by part by a streaming merge join
on ``deal`` (pipeline.parts): memory stays flat in the number of deals, for
the variants of one run and for two runs whose unit ranges differ alike.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.errors import BadInput
from pipeline.intervals import Z95, wilson
from pipeline.parts import LOST, UNKNOWN, WON, pair_counts  # noqa: F401 (pair_counts: part of this module's API)
from pipeline.precision import interval_decimals, pct, points
from pipeline.run_store import open_run

METHOD = "Newcombe hybrid score interval for paired proportions (Newcombe 1998, method 10)"
TEST = "McNemar exact test (two-sided binomial on the discordant deals)"
ADJUST = "Holm"
ALPHA = 0.05
P_FLOOR_LOG10 = -300.0  # below this a p-value is printed as "p < 1e-300"


# --- statistics on one paired 2x2 table --------------------------------------------------------


@dataclass(frozen=True)
class PairedTable:
    """Counts of a paired 2x2 table: baseline (rows) x variant (columns), won first."""

    both: int  # a: both won
    baseline_only: int  # b: only the baseline won
    variant_only: int  # c: only the variant won
    neither: int  # d: both lost

    @property
    def n(self) -> int:
        return self.both + self.baseline_only + self.variant_only + self.neither

    @property
    def baseline_rate(self) -> float:
        return (self.both + self.baseline_only) / self.n if self.n else math.nan

    @property
    def variant_rate(self) -> float:
        return (self.both + self.variant_only) / self.n if self.n else math.nan

    @property
    def difference(self) -> float:
        """Variant minus baseline win rate."""
        return (self.variant_only - self.baseline_only) / self.n if self.n else math.nan


def newcombe_paired_interval(t: PairedTable, z: float = Z95) -> tuple[float, float]:
    """95% interval of ``variant_rate - baseline_rate`` by Newcombe's method 10.

    Each rate gets its Wilson interval; the two half-widths are combined
    ("square and add") with the correlation between the rates, which is what
    makes it paired.  The correlation estimate is Newcombe's corrected phi:
    ``ad - bc`` is shrunk by ``n/2`` when positive and set to 0 when between 0
    and ``n/2``, and phi is 0 when a margin is empty.
    """
    n = t.n
    if n == 0:
        return (math.nan, math.nan)
    a, b, c, d = t.both, t.baseline_only, t.variant_only, t.neither
    pb, pv = (a + b) / n, (a + c) / n
    lb, ub = wilson(a + b, n, z)
    lv, uv = wilson(a + c, n, z)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if margins == 0:
        phi = 0.0
    else:
        cross = a * d - b * c
        root = math.sqrt(margins)
        phi = (cross - n / 2) / root if cross > n / 2 else (0.0 if cross >= 0 else cross / root)
    diff = pv - pb
    lower = diff - math.sqrt(max(0.0, (pv - lv) ** 2 + (ub - pb) ** 2 - 2 * phi * (pv - lv) * (ub - pb)))
    upper = diff + math.sqrt(max(0.0, (uv - pv) ** 2 + (pb - lb) ** 2 - 2 * phi * (uv - pv) * (pb - lb)))
    return (max(-1.0, lower), min(1.0, upper))


EXACT_TERMS = 1 << 22  # up to this k every term of the CDF is summed; above it, only those that count


def log_binom_cdf_half(k: int, m: int) -> float:
    """Natural log of P(X <= k) for X ~ Bin(m, 1/2), in log space (no underflow).

    Up to ``EXACT_TERMS`` every term is summed.  Above, the terms from k down: each is the one above times
    i / (m - i + 1) < 1, so once a term is e^-60 of the largest and the ratio r below it, everything left is
    under that term times r / (1 - r), which is checked to be negligible (else the window doubles), so a
    comparison of billions of paired deals sums some 10^6 terms, not 10^9; log C(m, k) then comes from lgamma,
    good to about 1e-15 of m log m (a p-value's relative error of 1e-5 at m = 10^9)."""
    if k < 0:
        return -math.inf
    if k >= m:
        return 0.0
    if k > EXACT_TERMS:
        return _log_binom_cdf_half_window(k, m)
    i = np.arange(1, k + 1, dtype=np.float64)
    # log C(m, i) built up term by term: C(m, i) = C(m, i-1) * (m - i + 1) / i
    log_choose = np.concatenate(([0.0], np.cumsum(np.log(m - i + 1) - np.log(i))))
    top = log_choose.max()
    return float(top + math.log(np.exp(log_choose - top).sum()) - m * math.log(2.0))


def _log_binom_cdf_half_window(k: int, m: int) -> float:
    """:func:`log_binom_cdf_half` for large k: the terms k, k-1, ... while they count (see there)."""
    top = math.lgamma(m + 1) - math.lgamma(k + 1) - math.lgamma(m - k + 1)  # log C(m, k)
    width = 64 * math.isqrt(m) + 64
    while True:
        lo = max(0, k - width)
        i = np.arange(k, lo, -1, dtype=np.float64)  # C(m, i - 1) = C(m, i) * i / (m - i + 1)
        rel = np.concatenate(([0.0], np.cumsum(np.log(i) - np.log(m - i + 1))))  # log C(m, j) - top, j = k..lo
        peak = rel.max()
        total = peak + math.log(np.exp(rel - peak).sum())
        r = lo / (m - lo + 1)
        if lo == 0 or (rel[-1] - total < -60 and rel[-1] + math.log(r / (1 - r)) - total < -60):
            return float(top + total - m * math.log(2.0))
        width *= 2


def mcnemar_exact_log10p(b: int, c: int) -> float:
    """log10 of McNemar's exact two-sided p-value: min(1, 2 P(X <= min(b, c))), X ~ Bin(b + c, 1/2)."""
    m = b + c
    if m == 0:
        return 0.0
    ln_p = math.log(2.0) + log_binom_cdf_half(min(b, c), m)
    return 0.0 if ln_p > -1e-12 else ln_p / math.log(10.0)  # p >= 1 (up to rounding) is p = 1


def holm_log10(log10_ps: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in log10 (so tiny p-values survive the multiplication)."""
    m = len(log10_ps)
    order = sorted(range(m), key=lambda i: log10_ps[i])
    out = [0.0] * m
    running = -math.inf
    for rank, i in enumerate(order):
        running = max(running, min(0.0, math.log10(m - rank) + log10_ps[i]))
        out[i] = running
    return out


def format_p(log10_p: float) -> str:
    """'p < 1e-300', 'p = 3.2e-12', 'p = 0.043' or 'p = 1'."""
    if log10_p < P_FLOOR_LOG10:
        return "p < 1e-300"
    if log10_p >= 0:
        return "p = 1"
    if log10_p < -3:
        exponent = math.floor(log10_p)
        mantissa = 10 ** (log10_p - exponent)
        if mantissa >= 9.95:
            mantissa, exponent = 1.0, exponent + 1
        return f"p = {mantissa:.1f}e{exponent:+03d}"
    return f"p = {10**log10_p:.2g}" if log10_p < -1 else f"p = {10**log10_p:.2f}"


# --- one comparison, with unknown outcomes as bounds ----------------------------------------------


def resolve(counts: np.ndarray, variant_unknown_won: bool) -> PairedTable:
    """The 2x2 table with unknowns resolved: variant's to won (baseline's to lost) or the reverse."""
    n = counts
    bu = LOST if variant_unknown_won else WON  # what the baseline's unknowns become
    vu = WON if variant_unknown_won else LOST

    def cell(bs: int, vs: int) -> int:
        total = 0
        for i in (LOST, WON, UNKNOWN):
            for j in (LOST, WON, UNKNOWN):
                if (bu if i == UNKNOWN else i) == bs and (vu if j == UNKNOWN else j) == vs:
                    total += int(n[i, j])
        return total

    return PairedTable(cell(WON, WON), cell(WON, LOST), cell(LOST, WON), cell(LOST, LOST))


@dataclass
class Comparison:
    """A variant against a baseline over the deals both played."""

    baseline: str
    variant: str
    deals: int
    both: int  # counts over deals decided (won or lost) in both
    baseline_only: int
    variant_only: int
    neither: int
    unknown_baseline: int  # deals whose baseline outcome is unknown
    unknown_variant: int
    baseline_rate_low: float
    baseline_rate_high: float
    variant_rate_low: float
    variant_rate_high: float
    difference_low: float  # variant - baseline; equal bounds when nothing is unknown
    difference_high: float
    ci95_low: float
    ci95_high: float
    log10_p: float  # McNemar exact, largest over the ways of resolving unknowns
    log10_p_holm: float = 0.0
    verdict: str = ""

    @property
    def p_value(self) -> float:
        return 10.0**self.log10_p

    @property
    def p_holm(self) -> float:
        return 10.0**self.log10_p_holm

    @property
    def has_unknown(self) -> bool:
        return self.unknown_baseline > 0 or self.unknown_variant > 0


def compare_counts(baseline: str, variant: str, counts: np.ndarray) -> Comparison:
    """Statistics of one comparison from its 3x3 state counts (see :func:`pair_counts`)."""
    counts = np.asarray(counts, dtype=np.int64).reshape(3, 3)
    low = resolve(counts, variant_unknown_won=False)  # worst case for the variant
    high = resolve(counts, variant_unknown_won=True)  # best case
    lo_ci, _ = newcombe_paired_interval(low)
    _, hi_ci = newcombe_paired_interval(high)
    # McNemar's p grows with the smaller discordant count and shrinks with the larger one, so
    # over all resolutions of the unknowns it is largest at an end, or 1 when the sign can flip.
    if (low.variant_only - low.baseline_only) <= 0 <= (high.variant_only - high.baseline_only):
        log10_p = 0.0  # some resolution has b == c (or b, c differ by one): p = 1
    else:
        log10_p = max(
            mcnemar_exact_log10p(low.baseline_only, low.variant_only),
            mcnemar_exact_log10p(high.baseline_only, high.variant_only),
        )
    return Comparison(
        baseline=baseline,
        variant=variant,
        deals=int(counts.sum()),
        both=int(counts[WON, WON]),
        baseline_only=int(counts[WON, LOST]),
        variant_only=int(counts[LOST, WON]),
        neither=int(counts[LOST, LOST]),
        unknown_baseline=int(counts[UNKNOWN, :].sum()),
        unknown_variant=int(counts[:, UNKNOWN].sum()),
        baseline_rate_low=high.baseline_rate,
        baseline_rate_high=low.baseline_rate,
        variant_rate_low=low.variant_rate,
        variant_rate_high=high.variant_rate,
        difference_low=low.difference,
        difference_high=high.difference,
        ci95_low=lo_ci,
        ci95_high=hi_ci,
        log10_p=log10_p,
    )


def comparison_decimals(c: Comparison) -> int:
    """Decimals of a comparison's rates, difference and interval: ``pipeline.precision``'s rule on the paired
    interval's half-width (the PDG's one or two significant digits, never fewer than two), as the report uses."""
    return interval_decimals((c.ci95_high - c.ci95_low) / 2)


def verdict(c: Comparison, adjusted: bool = True) -> str:
    """One plain sentence, e.g. 'masten wins 46.03 points less often than clarke, 95% CI ..., p < 1e-300'.

    Its figures have :func:`comparison_decimals`, like the table's.
    """
    if c.deals == 0:
        return f"{c.variant} and {c.baseline} share no deals: nothing to compare"
    digits = comparison_decimals(c)
    lp = c.log10_p_holm if adjusted else c.log10_p
    p_text = format_p(lp) + (" (Holm-adjusted)" if adjusted else "")
    if c.has_unknown:
        p_text = p_text.replace("p = ", "p <= ")
    ci = f"95% CI {points(c.ci95_low, digits, True)} to {points(c.ci95_high, digits, True)} points"
    unknown = ""
    if c.has_unknown:
        unknown = f" ({c.unknown_variant:,} unknown outcomes for {c.variant}, {c.unknown_baseline:,} for {c.baseline})"
    discordant = c.baseline_only + c.variant_only
    if not c.has_unknown and discordant == 0:
        return (
            f"{c.variant} and {c.baseline} won exactly the same {c.both:,} of {c.deals:,} deals "
            f"(no discordant deals), {ci}, {p_text}"
        )
    if c.has_unknown and c.difference_low < 0 < c.difference_high:
        return (
            f"{c.variant} wins between {points(-c.difference_low, digits)} points less and "
            f"{points(c.difference_high, digits)} points more often than {c.baseline}{unknown}, {ci}, {p_text}"
        )
    diff = c.difference_low if c.difference_low > 0 else c.difference_high if c.difference_high < 0 else 0.0
    if c.has_unknown:
        lo, hi = sorted((abs(c.difference_low), abs(c.difference_high)))
        size = f"between {points(lo, digits)} and {points(hi, digits)} points"
    else:
        size = f"{points(abs(diff), digits)} points"
    direction = "more" if diff > 0 or (diff == 0 and c.difference_high > 0) else "less"
    sentence = f"{c.variant} wins {size} {direction} often than {c.baseline}{unknown}, {ci}, {p_text}"
    if lp > math.log10(ALPHA):
        sentence = "no clear difference: " + sentence
    return sentence


# --- comparisons of a run, or of two runs ---------------------------------------------------------


@dataclass
class ComparisonSet:
    """Every comparison of one ``patience compare`` call, Holm-adjusted together."""

    title: str
    baseline: str
    comparisons: list[Comparison]
    method: str = METHOD
    test: str = TEST
    adjust: str = ADJUST
    notes: list[str] = field(default_factory=list)


def finish(title: str, baseline: str, comparisons: list[Comparison], notes: list[str] | None = None) -> ComparisonSet:
    """Holm-adjust across the comparisons and write their verdicts."""
    adjusted = holm_log10([c.log10_p for c in comparisons])
    for c, lp in zip(comparisons, adjusted, strict=True):
        c.log10_p_holm = lp
        c.verdict = verdict(c)
    return ComparisonSet(title=title, baseline=baseline, comparisons=comparisons, notes=list(notes or []))


def _sides(run_dir: Path) -> dict[str, Any]:
    """variant -> its part files as disjoint blocks in deal order (footers only: no rows are read here)."""
    from pipeline.parts import blocks_of, variant_folders

    return {name: blocks_of(folder) for name, folder in variant_folders(run_dir).items()}


def _counts(base: tuple[Path, str, Any], others: list[tuple[Path, str, Any]]) -> list[np.ndarray]:
    """3x3 state counts of one side against each of the others, by a streaming merge join on ``deal``.

    A side is (run folder, variant, its blocks or None when it has no results).
    """
    from pipeline.parts import paired_counts

    def side(run: Path, name: str, blocks: Any) -> tuple[list, str, str]:
        return (blocks or [], f"RUN_DIR {run}", name)

    return paired_counts(side(*base), [side(*o) for o in others])


def _check_run(run_dir, what: str) -> dict[str, Any]:
    from pipeline.run_files import read_manifest

    run_dir.check_exists(what)  # a RunStore (pipeline.run_store): a local folder or a storage prefix
    return read_manifest(run_dir)


def compare_run(
    run_dir: str | Path, baseline: str | None = None, variants: Sequence[str] | None = None
) -> ComparisonSet:
    """Each variant of a run against the baseline (default: the study's first variant)."""
    run_dir = open_run(run_dir)
    manifest = _check_run(run_dir, "RUN_DIR")
    declared = list(manifest.get("config", {}).get("variants", {}))
    states = _sides(run_dir)
    names = declared + [v for v in states if v not in declared]
    if not names:
        raise BadInput(f"RUN_DIR {run_dir}: the run has no variants; allowed: a folder written by `patience run`")
    if not any(states.values()):  # a run just started (or emptied): there is nothing to pair yet
        raise BadInput(
            f"RUN_DIR {run_dir}: the run has no finished parts yet; allowed: a run with results "
            "(`patience run` writes them unit by unit; compare once some are done)"
        )
    base = baseline if baseline is not None else names[0]
    if base not in names:
        raise BadInput(f"option --baseline: unknown variant {base!r}; allowed: {', '.join(names)}")
    if variants:
        for v in variants:
            if v not in names:
                raise BadInput(f"option --variant: unknown variant {v!r}; allowed: {', '.join(names)}")
            if v == base:
                raise BadInput(
                    f"option --variant: {v!r} is the baseline; allowed: another variant "
                    f"({', '.join(n for n in names if n != base)})"
                )
        others = list(dict.fromkeys(variants))
    else:
        others = [v for v in names if v != base]
        if not others:
            raise BadInput(
                f"RUN_DIR {run_dir}: the study has one variant ({base}), nothing to compare it with; "
                "allowed: a run with two or more variants, or a second run: compare RUN_DIR RUN_B"
            )
    counts = _counts((run_dir, base, states.get(base)), [(run_dir, v, states.get(v)) for v in others])
    comparisons = [compare_counts(base, v, n) for v, n in zip(others, counts, strict=True)]
    title = f"{manifest.get('study', run_dir.name)} ({manifest.get('game', '?')}): variants vs {base}, paired on deal"
    return finish(title, base, comparisons)


def same_deals_problem(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """Why two manifests did not play the same deals (None when they did, deal index for deal index)."""
    if a.get("game") != b.get("game"):
        return f"game {a.get('game')!r} vs {b.get('game')!r}"
    sa, sb = a.get("deal_source") or {}, b.get("deal_source") or {}
    if sa.get("kind") != sb.get("kind"):
        return f"deal source {sa.get('kind')!r} vs {sb.get('kind')!r}"
    kind = sa.get("kind")
    if kind == "seeded" and sa.get("seed") != sb.get("seed"):
        return f"seed {sa.get('seed')} vs {sb.get('seed')}"
    if kind == "file" and sa.get("sha256") != sb.get("sha256"):
        return (
            f"deals file {sa.get('deals_file')} (sha256 {str(sa.get('sha256'))[:12]}) vs "
            f"{sb.get('deals_file')} (sha256 {str(sb.get('sha256'))[:12]})"
        )
    if kind not in ("seeded", "file", "microsoft"):
        return f"unknown deal source {kind!r}"
    # microsoft: the deal index is the Microsoft number, the same deal in every run
    return None


def compare_runs(run_a: str | Path, run_b: str | Path, variants: Sequence[str] | None = None) -> ComparisonSet:
    """The same variant(s) in two runs, paired on deal index; refused unless both played the same deals."""
    run_a, run_b = open_run(run_a), open_run(run_b, "RUN_B")
    ma = _check_run(run_a, "RUN_DIR")
    mb = _check_run(run_b, "RUN_B")
    problem = same_deals_problem(ma, mb)
    if problem:
        raise BadInput(
            f"RUN_B {run_b}: did not play the same deals as {run_a} ({problem}); "
            "allowed: two runs of the same game with the same seed, deals file or Microsoft numbers"
        )
    sa, sb = _sides(run_a), _sides(run_b)
    common = [v for v in sa if v in sb]
    if variants:
        for v in variants:
            for run, st in ((run_a, sa), (run_b, sb)):
                if v not in st:
                    raise BadInput(
                        f"option --variant: {v!r} is not a variant of {run}; "
                        f"allowed: {', '.join(st) or '(none: the run has no results)'}"
                    )
        chosen = list(dict.fromkeys(variants))
    else:
        if not common:
            raise BadInput(
                f"RUN_B {run_b}: no variant name in common with {run_a}; "
                "allowed: --variant V naming a variant both runs have"
            )
        chosen = common
    la, lb = _run_labels(run_a, run_b, ma, mb)
    comparisons = []
    for v in chosen:
        (counts,) = _counts((run_a, v, sa[v]), [(run_b, v, sb[v])])
        if counts.sum() == 0:
            raise BadInput(
                f"RUN_B {run_b}: variant {v!r} shares no deal index with {run_a}; "
                "allowed: runs whose deal ranges overlap"
            )
        comparisons.append(compare_counts(f"{la}:{v}", f"{lb}:{v}", counts))
    title = f"{lb} vs {la} ({ma.get('game')}), paired on deal"
    return finish(title, la, comparisons)


def _run_labels(run_a: Path, run_b: Path, ma: dict, mb: dict) -> tuple[str, str]:
    la, lb = str(ma.get("study", run_a.name)), str(mb.get("study", run_b.name))
    if la == lb:
        la, lb = run_a.label(), run_b.label()
    if la == lb:
        la, lb = "A", "B"
    return la, lb


# --- renderers ------------------------------------------------------------------------------------


def _range(lo: float, hi: float, fmt: Callable[[float], str]) -> str:
    return fmt(lo) if lo == hi or (math.isnan(lo) and math.isnan(hi)) else f"{fmt(lo)}..{fmt(hi)}"


def display_rows(cs: ComparisonSet) -> tuple[list[str], list[list[str]]]:
    """Human columns shared by the table, markdown and HTML renderers."""
    unknown = any(c.has_unknown for c in cs.comparisons)
    header = ["variant", "baseline", "deals", "both won", "only baseline", "only variant", "neither"]
    if unknown:
        header += ["unknown (baseline/variant)"]
    header += [
        "baseline win rate",
        "variant win rate",
        "difference (points)",
        "95% CI (points)",
        "p (McNemar exact)",
        "p (Holm)",
    ]
    rows = []
    for c in cs.comparisons:
        # Rates, difference and interval all get the decimals the difference's interval needs (pipeline.precision's
        # rule, two at least): at 10^8 paired deals a difference of -0.009 points must not sit between two rates
        # that print alike, nor be printed with fewer decimals than the rates beside it.
        digits = comparison_decimals(c)
        pts = lambda x, d=digits: points(x, d, True)  # noqa: E731
        rate = lambda x, d=digits: pct(x, d)  # noqa: E731
        line = [
            c.variant,
            c.baseline,
            f"{c.deals:,}",
            f"{c.both:,}",
            f"{c.baseline_only:,}",
            f"{c.variant_only:,}",
            f"{c.neither:,}",
        ]
        if unknown:
            line.append(f"{c.unknown_baseline:,}/{c.unknown_variant:,}")
        line += [
            _range(c.baseline_rate_low, c.baseline_rate_high, rate),
            _range(c.variant_rate_low, c.variant_rate_high, rate),
            _range(c.difference_low, c.difference_high, pts),
            f"{pts(c.ci95_low)} to {pts(c.ci95_high)}",
            format_p(c.log10_p).removeprefix("p = ").removeprefix("p "),
            format_p(c.log10_p_holm).removeprefix("p = ").removeprefix("p "),
        ]
        rows.append(line)
    return header, rows


def method_notes(cs: ComparisonSet) -> list[str]:
    notes = [
        f"interval: {cs.method}; test: {cs.test}; p-values adjusted across the {len(cs.comparisons)} "
        f"comparison(s) by {cs.adjust}'s method",
        "difference = variant win rate - baseline win rate, over the deals both played, in percentage points",
    ]
    if any(c.has_unknown for c in cs.comparisons):
        notes.append(
            "unknown outcomes give bounds: low end = variant's unknowns lost and baseline's won, "
            "high end = the reverse; p is the largest over every way to resolve them"
        )
    return notes + cs.notes


def render_table(cs: ComparisonSet) -> str:
    from rich.console import Console
    from rich.table import Table

    header, rows = display_rows(cs)
    table = Table(title=cs.title, title_justify="left")
    for i, h in enumerate(header):
        table.add_column(h, justify="left" if i < 2 else "right")
    for line in rows:
        table.add_row(*line)
    buf = io.StringIO()
    console = Console(file=buf, width=max(120, 13 * len(header) + 30), force_terminal=False, color_system=None)
    console.print(table)
    for c in cs.comparisons:
        console.print(c.verdict, soft_wrap=True)
    for note in method_notes(cs):
        console.print(note, soft_wrap=True)
    return buf.getvalue()


def render_markdown(cs: ComparisonSet) -> str:
    header, rows = display_rows(cs)
    lines = [
        f"### {cs.title}",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i < 2 else "---:" for i in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(x.replace("|", "\\|") for x in line) + " |" for line in rows]
    lines += [""] + [f"- {c.verdict}" for c in cs.comparisons] + [""] + [f"- {n}" for n in method_notes(cs)]
    return "\n".join(lines) + "\n"


def _record(c: Comparison) -> dict[str, Any]:
    d = asdict(c)
    d["p_value"] = c.p_value  # may underflow to 0.0: log10_p holds the honest value
    d["p_holm"] = c.p_holm
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in d.items()}


CSV_COLUMNS = (
    "baseline",
    "variant",
    "deals",
    "both",
    "baseline_only",
    "variant_only",
    "neither",
    "unknown_baseline",
    "unknown_variant",
    "baseline_rate_low",
    "baseline_rate_high",
    "variant_rate_low",
    "variant_rate_high",
    "difference_low",
    "difference_high",
    "ci95_low",
    "ci95_high",
    "p_value",
    "log10_p",
    "p_holm",
    "log10_p_holm",
    "verdict",
)


def render_csv(cs: ComparisonSet) -> str:
    import csv

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for c in cs.comparisons:
        r = _record(c)
        w.writerow(["" if r[k] is None else (repr(r[k]) if isinstance(r[k], float) else r[k]) for k in CSV_COLUMNS])
    return buf.getvalue()


def render_json(cs: ComparisonSet) -> str:
    doc = {
        "title": cs.title,
        "baseline": cs.baseline,
        "method": cs.method,
        "test": cs.test,
        "adjust": cs.adjust,
        "notes": method_notes(cs),
        "comparisons": [_record(c) for c in cs.comparisons],
    }
    return json.dumps(doc, indent=1) + "\n"


RENDERERS: dict[str, Callable[[ComparisonSet], str]] = {
    "table": render_table,
    "markdown": render_markdown,
    "csv": render_csv,
    "json": render_json,
}


def compare_command(
    run_dir: str | Path,
    run_b: str | Path | None = None,
    baseline: str | None = None,
    variants: Sequence[str] | None = None,
) -> ComparisonSet:
    """What ``patience compare RUN_DIR [RUN_B] [--baseline B] [--variant V ...]`` computes."""
    if run_b is None:
        return compare_run(run_dir, baseline, variants)
    if baseline is not None:
        raise BadInput(
            f"option --baseline: {baseline!r} cannot be used with two runs (RUN_DIR's variant is the "
            "baseline of RUN_B's); allowed: --variant V to pick the variant"
        )
    return compare_runs(run_dir, run_b, variants)
