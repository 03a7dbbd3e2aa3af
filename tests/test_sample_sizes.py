"""Sample sizes (pipeline.sample_sizes, `patience plan`): deals for a 95% half-width, and deals to halve an interval."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pipeline_util import cli
from statsmodels.stats.proportion import proportion_confint

from pipeline.sample_sizes import (
    Z95,
    deals_independent,
    deals_normal,
    deals_paired,
    deals_wilson,
    halving_advice,
    wilson_halfwidth,
)


@pytest.mark.parametrize("p", [0.0, 0.01, 0.0867, 0.5, 0.5455, 0.99, 1.0])
@pytest.mark.parametrize("h", [0.02, 0.005, 0.001])
def test_wilson_deals_is_the_smallest_n_that_reaches_the_half_width(p, h):
    n = deals_wilson(p, h)
    assert wilson_halfwidth(p, n) <= h < wilson_halfwidth(p, n - 1) if n > 1 else wilson_halfwidth(p, n) <= h
    # the half-width formula is statsmodels' Wilson interval (unclipped) at a rate of exactly p
    if 0 < p < 1:
        k = 1000
        lo, hi = proportion_confint(round(p * k), k, alpha=0.05, method="wilson")
        assert (hi - lo) / 2 == pytest.approx(wilson_halfwidth(round(p * k) / k, k), rel=1e-9)


def test_normal_and_paired_formulas():
    assert deals_normal(0.55, 0.001) == math.ceil(Z95**2 * 0.55 * 0.45 / 1e-6)
    assert deals_paired(0.1, 0.001) == math.ceil(Z95**2 * 0.1 / 1e-6)
    assert deals_paired(0.1, 0.001, difference=0.1) == math.ceil(Z95**2 * (0.1 - 0.01) / 1e-6)
    assert deals_independent(0.55, 0.001) == math.ceil(Z95**2 * 2 * 0.55 * 0.45 / 1e-6)


def test_paired_formula_matches_a_simulation():
    """The half-width z sqrt(D/n) is the spread of the paired difference: simulate deals with discordance D."""
    rng = np.random.default_rng(1)
    d, h = 0.2, 0.02
    n = deals_paired(d, h)
    # per deal: baseline only (D/2), variant only (D/2), concordant (1-D); difference = (c - b) / n
    draws = rng.multinomial(n, [d / 2, d / 2, 1 - d], size=4000)
    diffs = (draws[:, 1] - draws[:, 0]) / n
    covered = np.mean(np.abs(diffs) <= h)
    # 4000 draws: the coverage estimate has a standard error of 0.0035; allow 4 of them around 95%
    assert abs(covered - 0.95) < 0.014, covered


def test_halving_advice_picks_the_widest_interval():
    adv = halving_advice([("clarke", 54694, 100000), ("masten", 8663, 100000), ("empty", 0, 0)])
    assert adv.variant == "clarke" and adv.variants == 2
    assert wilson_halfwidth(adv.rate, adv.deals + adv.more_deals) <= adv.halfwidth / 2
    assert wilson_halfwidth(adv.rate, adv.deals + adv.more_deals - 1) > adv.halfwidth / 2
    assert 2.9 * 100000 < adv.more_deals < 3.1 * 100000  # about three times as many again
    assert f"{adv.more_deals:,} more deals per variant ({2 * adv.more_deals:,} in all) would halve it" in adv.line()
    assert halving_advice([]) is None


def test_plan_cli(capsys):
    code, out, err = cli(["plan", "--p", "0.55", "--halfwidth", "0.001", "--discordance", "0.1"], capsys)
    assert code == 0, err
    assert f"{deals_wilson(0.55, 0.001):,} deals (Wilson" in out
    assert f"{deals_paired(0.1, 0.001):,} deals played by both variants" in out
    code, out, _ = cli(["plan", "--p", "0.55", "--halfwidth", "0.001"], capsys)
    assert code == 0 and "if 5% of deals" in out and "--discordance" in out
    for args, words in (
        (["--p", "1.5", "--halfwidth", "0.01"], "option --p: value 1.5 is out of range"),
        (["--p", "0.5", "--halfwidth", "0"], "option --halfwidth: value 0.0 is out of range"),
        (["--p", "0.5", "--halfwidth", "abc"], "option --halfwidth: value 'abc' is not a number"),
        (["--p", "0.5", "--halfwidth", "0.01", "--discordance", "2"], "option --discordance"),
        (["--halfwidth", "0.01"], "--p"),
    ):
        code, out, err = cli(["plan", *args], capsys)
        assert code == 2 and words in err and out == "", (args, err)
