"""How many decimals a win rate is shown with: as many as its narrowest 95% interval needs.

A fixed two decimals served while runs had 10^4 to 10^6 deals and published
figures came as "54.55% +/- 0.89%".  It fails at the precision of Masten's
figures (10^9 deals): 54.8033% +/- 0.0031 printed as "54.80% ± 0.00%", and our
interval at 5x10^7 deals as "54.80%..54.83%", hiding the very digits a
verdict turns on.  The rule here lets the uncertainty decide, the way physicists
round a measurement (the Particle Data Group's rule, Review of Particle Physics,
introduction, "Rounding"): take the half-width h of the narrower interval in
percentage points, in the row's units; if its three leading digits are 100-354,
show h with two significant digits, if 355-949 with one, and if 950-999 it
rounds up to 1000 and gets two (so 0.0975 shows as 0.10).  The figure and every
bound in the row get the same number of decimals as h.  Two decimals stay the
floor (what every report showed before: ordinary runs read as they always did),
and ``MAX_DECIMALS`` the ceiling.

Examples (half-width in points -> decimals): 0.89 -> 2 (floor), 0.31 -> 2,
0.0975 -> 2, 0.064 -> 2, 0.031 -> 3, 0.0069 -> 3, 0.0031 -> 4, 0.0017 -> 4.

Both renderers (``pipeline.report``: table and markdown; ``pipeline.html_report``:
the table and the chart's annotations) call :func:`row_decimals`; CSV and JSON
carry the full floats and need no rule.  ``patience compare`` (table, markdown,
verdicts, and the HTML report's paired table and forest plot) applies the same
rule to the paired difference's interval (``pipeline.paired.comparison_decimals``)
and shows both win rates, the difference and the interval's bounds with those
decimals, so a difference never has fewer decimals than the rates beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

MIN_DECIMALS = 2
MAX_DECIMALS = 6


def _valid(h: float | None) -> bool:
    return h is not None and isinstance(h, (int, float)) and math.isfinite(h) and h > 0


def half_width_decimals(half_width_points: float) -> int:
    """Decimals that show a half-width (in percentage points) with the PDG's one or two significant digits."""
    exponent = math.floor(math.log10(half_width_points))
    lead = round(half_width_points / 10.0 ** (exponent - 2))  # the three leading digits, 100..1000
    if lead >= 1000:  # 0.09996 -> "1000": one decade up
        exponent, lead = exponent + 1, 100
    return -exponent + (1 if lead <= 354 else 0)


def interval_decimals(*half_widths: float | None, floor: int = MIN_DECIMALS, ceiling: int = MAX_DECIMALS) -> int:
    """Decimals of a percentage whose 95% intervals have these half-widths (fractions, e.g. 0.000031).

    The narrowest interval decides (a figure known to +/- 0.0031 points is worth four decimals even beside
    a wide interval of ours); missing, zero or non-finite half-widths are ignored; with none left, ``floor``.
    """
    valid = [100 * h for h in half_widths if _valid(h)]
    if not valid:
        return floor
    return max(floor, min(ceiling, half_width_decimals(min(valid))))


def row_decimals(row: Mapping[str, Any]) -> int:
    """Decimals for one report row: our Wilson interval (``ci95_low``..``ci95_high``) and the published ``ref_ci95``."""
    lo, hi = row.get("ci95_low"), row.get("ci95_high")
    ours = (hi - lo) / 2 if lo is not None and hi is not None else None  # NaN (no deals) is ignored below
    return interval_decimals(ours, row.get("ref_ci95"))


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def pct(x: float | None, decimals: int = MIN_DECIMALS) -> str:
    """A fraction as a percentage with this many decimals; empty for missing values."""
    return "" if _missing(x) else f"{100 * x:.{decimals}f}%"


def points(x: float | None, decimals: int = MIN_DECIMALS, sign: bool = False) -> str:
    """A difference of fractions in percentage points (no unit), signed when asked; empty for missing values."""
    return "" if _missing(x) else f"{100 * x:{'+' if sign else ''}.{decimals}f}"
