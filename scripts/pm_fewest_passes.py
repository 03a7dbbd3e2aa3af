"""The fewest passes of Perpetual Motion's won deals, from a finished run: found against proven (issue 52, item 2).

For every solver variant of the run: the passes of the lines found (their distribution, and their mean with a
95% interval, normal approximation: thousands of deals), the proven lower bound ``rounds_lower`` (distribution
and mean), and the share of won deals whose line is proven the shortest (``rounds_optimal``).  Printed as a
Markdown table, the one in docs/results.md ("Free play: can this deal be won?"):

    .venv/bin/patience run configs/free_play_perpetual_motion.yaml --deals 10000
    .venv/bin/python scripts/pm_fewest_passes.py results/free_play_perpetual_motion
"""

from __future__ import annotations

import argparse
import math

import polars as pl

from pipeline.report import scan_deals


def distribution(values: pl.Series) -> str:
    """ "k: count" pairs in order of k."""
    counts = values.value_counts().sort(values.name)
    return ", ".join(f"{k}: {n:,}" for k, n in counts.iter_rows())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="a results folder of a Perpetual Motion study with solver variants")
    args = ap.parse_args()
    df = scan_deals(args.run).collect()
    if "rounds_lower" not in df.columns:
        raise SystemExit(f"{args.run}: no rounds_lower column (a run from before the proven bound)")
    print("| variant | deals | won | passes found | mean [95%] | proven at least | mean | proven shortest |")
    print("| --- | ---: | ---: | --- | --- | --- | ---: | ---: |")
    for (variant,), rows in sorted(df.group_by("variant"), key=lambda g: g[0][0]):
        won = rows.filter(pl.col("won"))
        if won.is_empty() or int(won["rounds_lower"].max()) == 0:
            continue  # a forced variant: no bound
        n, r = won.height, won["rounds"].cast(pl.Float64)
        half = 1.959964 * float(r.std()) / math.sqrt(n)
        print(
            f"| {variant} | {rows.height:,} | {n:,} | {distribution(won['rounds'])} | {r.mean():.2f} "
            f"[{r.mean() - half:.2f}, {r.mean() + half:.2f}] | {distribution(won['rounds_lower'])} | "
            f"{won['rounds_lower'].mean():.2f} | {won['rounds_optimal'].mean():.2%} |"
        )


if __name__ == "__main__":
    main()
