"""How many deals a study needs (``patience plan``) and how many more would halve an interval.

* One win rate: the 95% half-width of the normal interval is ``z sqrt(p(1-p)/n)``;
  the Wilson interval (what the report prints) is a little narrower near 0
  and 1 and is solved for exactly by search.
* A paired difference (two variants on the same deals): only discordant deals
  carry information, so with a discordance rate ``D`` (share of deals won by
  exactly one of the two) and an expected difference ``delta`` the variance of
  the difference is ``(D - delta^2) / n``.  Two *independent* samples need
  ``2 p (1-p)`` in its place; the ratio is what pairing saves.
* Halving an interval needs about four times the deals; :func:`halving_advice`
  works it out for the widest Wilson interval of a run.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.errors import BadInput
from pipeline.intervals import Z95


def normal_halfwidth(p: float, n: int, z: float = Z95) -> float:
    return z * math.sqrt(p * (1 - p) / n)


def wilson_halfwidth(p: float, n: int, z: float = Z95) -> float:
    """Half the width of the (unclipped) Wilson score interval at an observed rate ``p`` over ``n`` deals."""
    return z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)


def deals_normal(p: float, halfwidth: float, z: float = Z95) -> int:
    """Deals for a normal-approximation 95% half-width (at least 1)."""
    return max(1, math.ceil(z * z * p * (1 - p) / (halfwidth * halfwidth)))


def deals_wilson(p: float, halfwidth: float, z: float = Z95) -> int:
    """Smallest n whose Wilson interval at rate ``p`` has at most this half-width (exact search)."""
    hi = max(1, deals_normal(p, halfwidth, z))
    while wilson_halfwidth(p, hi, z) > halfwidth:  # p near 0 or 1: Wilson can need more than normal
        hi *= 2
    lo = 0  # invariant: wilson_halfwidth(lo) > halfwidth (or lo == 0), wilson_halfwidth(hi) <= halfwidth
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if wilson_halfwidth(p, mid, z) <= halfwidth:
            hi = mid
        else:
            lo = mid
    return hi


def deals_paired(discordance: float, halfwidth: float, difference: float = 0.0, z: float = Z95) -> int:
    """Deals (each played by both variants) for a 95% half-width of a paired difference in win rate."""
    var = max(discordance - difference * difference, 0.0)
    return max(1, math.ceil(z * z * var / (halfwidth * halfwidth)))


def deals_independent(p: float, halfwidth: float, z: float = Z95) -> int:
    """Deals *per variant* if the two variants played different deals (for comparison with pairing)."""
    return max(1, math.ceil(z * z * 2 * p * (1 - p) / (halfwidth * halfwidth)))


# Smaller half-widths soon need more deals than 2^53 (9.6 x 10^15 at p = 0.5 and 10^-8), past which a float no
# longer holds every count, and h^2 underflows: 1e-200 squared is 0 and the count infinite (OverflowError).
HALFWIDTH_MIN = 1e-7


def check_plan_inputs(p: float, halfwidth: float, discordance: float | None) -> None:
    """BadInput (one line) for values outside their ranges."""
    if not 0 <= p <= 1:
        raise BadInput(f"option --p: value {p} is out of range; allowed: a win rate in 0..1")
    if not HALFWIDTH_MIN <= halfwidth < 1:
        raise BadInput(
            f"option --halfwidth: value {halfwidth} is out of range; allowed: a number in [{HALFWIDTH_MIN:g}, 1), "
            "e.g. 0.001 for +/- 0.1 points"
        )
    if discordance is not None and not 0 < discordance <= 1:
        raise BadInput(
            f"option --discordance: value {discordance} is out of range; allowed: a share of deals in (0, 1]"
        )


def plan_text(p: float, halfwidth: float, discordance: float | None = None) -> str:
    """What ``patience plan`` prints."""
    check_plan_inputs(p, halfwidth, discordance)
    pts = 100 * halfwidth
    lines = [
        f"one win rate near {100 * p:g}%, 95% interval +/- {pts:g} points:",
        f"  {deals_wilson(p, halfwidth):,} deals (Wilson score interval, as the report prints)",
        f"  {deals_normal(p, halfwidth):,} deals (normal approximation z^2 p(1-p)/h^2)",
        f"difference between two variants, 95% interval +/- {pts:g} points:",
    ]
    shown = [discordance] if discordance is not None else [0.01, 0.05, 0.10, 0.20]
    for d in shown:
        lines.append(
            f"  {deals_paired(d, halfwidth):,} deals played by both variants, "
            f"if {100 * d:g}% of deals are won by exactly one of them (paired, z^2 D/h^2)"
        )
    lines.append(
        f"  {deals_independent(p, halfwidth):,} deals per variant if they played different deals "
        "(independent samples, z^2 2p(1-p)/h^2)"
    )
    if discordance is None:
        lines.append(
            "  (give --discordance D, the expected share of deals won by exactly one variant; "
            "`patience compare` shows it for a pilot run as (only baseline + only variant) / deals)"
        )
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class HalvingAdvice:
    variant: str
    deals: int
    rate: float
    halfwidth: float  # of the widest Wilson interval now
    more_deals: int  # per variant, to halve it
    variants: int

    def line(self) -> str:
        total = f" ({self.more_deals * self.variants:,} in all)" if self.variants > 1 else ""
        return (
            f"widest 95% interval: {self.variant}, {100 * self.rate:.2f}% +/- {100 * self.halfwidth:.2f} points "
            f"over {self.deals:,} deals; about {self.more_deals:,} more deals per variant{total} "
            "would halve it"
        )


def halving_advice(rows: Iterable[tuple[str, int, int]]) -> HalvingAdvice | None:
    """From (variant, wins, deals) rows: the widest Wilson interval and the extra deals that halve it."""
    rows = [(v, w, n) for v, w, n in rows if n and n > 0]
    if not rows:
        return None
    widest = max(rows, key=lambda r: wilson_halfwidth(r[1] / r[2], r[2]))
    name, wins, n = widest
    rate = wins / n
    half = wilson_halfwidth(rate, n)
    needed = deals_wilson(rate, half / 2)
    return HalvingAdvice(name, n, rate, half, max(0, needed - n), len(rows))


def halving_line(report) -> str:
    """The run summary's line, from a :class:`pipeline.report.Report` (empty when it has no deals)."""
    advice = halving_advice(report.rows.select("variant", "wins", "deals").iter_rows())
    return advice.line() if advice else ""


def parse_rate_option(option: str, text: str | None) -> float | None:
    """A number option of ``patience plan`` (one clear line when it is not a number)."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        raise BadInput(f"option {option}: value {text!r} is not a number; allowed: a number such as 0.55") from None
    if math.isnan(value):
        raise BadInput(f"option {option}: value {text!r} is not a number; allowed: a number such as 0.55")
    return value
