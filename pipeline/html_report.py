"""A self-contained HTML report of a run (``patience report RUN_DIR --format html``).

One file, readable offline: inline CSS, charts drawn by matplotlib as inline
SVG (text kept as SVG text with a generic sans-serif fallback, so no font is
fetched), no scripts, no links to anything outside the file.  Sections: the
study and its resolved rules (differences from the baseline highlighted), win
rates with 95% intervals beside the published figures, the outcome mix, the
distribution of ``rounds`` (or ``nodes``/``seconds`` for solver games), and the
paired comparison of ``patience compare``.

Every chart is computed from aggregates, never from all rows: percentiles
from streamed histograms (pipeline.distributions, exact for integer columns
and, but for bins too full to re-read, for floats; the caption says which),
the paired counts by a streaming join on ``deal`` (pipeline.parts), so memory
stays flat in the number of deals.
"""

from __future__ import annotations

import datetime as _dt
import html
import io
import math
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import polars as pl

from pipeline.distributions import Distribution, accuracy_note, column_distributions
from pipeline.distributions import distributions as streamed_distributions
from pipeline.paired import ComparisonSet, compare_run, comparison_decimals, display_rows, method_notes
from pipeline.parts import column_ranges, variant_folders
from pipeline.precision import pct, row_decimals
from pipeline.report import Report, scan_deals, shows_rounds, verdict_text
from pipeline.run_files import read_manifest
from pipeline.sample_sizes import halving_line

# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
OUTCOME_COLOURS = {
    "won": "#009E73",
    "cycle": "#E69F00",
    "blocked": "#D55E00",
    "capped": "#CC79A7",
    "unsolvable": "#56B4E9",
    "unknown": "#999999",
}
OURS, PUBLISHED, LOST_COLOUR = "#0072B2", "#D55E00", "#8C8C8C"
RC = {
    "svg.fonttype": "none",  # text stays text; the browser draws it with a local sans-serif font
    "font.family": "sans-serif",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "x",
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
}


# --- charts -------------------------------------------------------------------------------------


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _svg(fig, name: str) -> str:
    """The figure as an inline <svg>: no XML prolog, no metadata, scaled to the page width."""
    import matplotlib as mpl

    buf = io.StringIO()
    with mpl.rc_context({**RC, "svg.hashsalt": name}):  # a salt per chart keeps element ids unique in the page
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    match = re.match(r'<svg[^>]*?width="([\d.]+)pt" height="([\d.]+)pt"', text)
    width_px = float(match.group(1)) * 4 / 3 if match else 900
    text = re.sub(
        r'width="[\d.]+pt" height="[\d.]+pt"',
        f'width="100%" style="max-width:{width_px:.0f}px" role="img" aria-label="{html.escape(name)}"',
        text,
        count=1,
    )
    return text


LABEL_MAX = 28  # longer variant names (grids: "cascade=false,gather=...") are numbered in the charts


def chart_labels(names: list[str], numbers: dict[str, int] | None = None) -> list[str]:
    """Axis labels: the names, or "#k" numbers (listed in the rules table) when some name is too long."""
    if all(len(n) <= LABEL_MAX for n in names):
        return names
    numbers = numbers or {n: i + 1 for i, n in enumerate(names)}
    return [f"#{numbers[n]}" for n in names]


def _variant_height(n: int, per: float = 0.42, base: float = 1.3) -> float:
    return base + per * n


def chart_win_rates(report: Report, numbers: dict[str, int] | None = None) -> str:
    """Each variant's win rate with its Wilson 95% interval; published figures on the same axis."""
    import matplotlib as mpl

    rows = list(report.rows.iter_rows(named=True))
    with mpl.rc_context(RC):
        fig = _figure(9, _variant_height(len(rows)))
        ax = fig.add_subplot()
        ys = list(range(len(rows)))[::-1]
        nan = math.nan
        rate = [100 * r["win_rate"] if r["win_rate"] is not None else nan for r in rows]
        lo = [100 * r["ci95_low"] if r["ci95_low"] is not None else nan for r in rows]
        hi = [100 * r["ci95_high"] if r["ci95_high"] is not None else nan for r in rows]
        # one errorbar call per series: a 128-variant grid draws in a second, not ten
        ax.errorbar(
            rate,
            [y + 0.12 for y in ys],
            xerr=[[a - b for a, b in zip(rate, lo, strict=True)], [b - a for a, b in zip(rate, hi, strict=True)]],
            fmt="o",
            color=OURS,
            ms=6,
            capsize=4,
            lw=1.6,
            label="ours (95% Wilson interval)",
        )
        refs = [
            (y, 100 * r["ref_win_rate"], 100 * r["ref_ci95"] if r["ref_ci95"] is not None else 0.0)
            for y, r in zip(ys, rows, strict=True)
            if r["ref_win_rate"] is not None
        ]
        if refs:
            ax.errorbar(
                [r for _, r, _ in refs],
                [y - 0.18 for y, _, _ in refs],
                xerr=[[h for _, _, h in refs], [h for _, _, h in refs]],
                fmt="D",
                color=PUBLISHED,
                ms=5,
                capsize=4,
                lw=1.2,
                label="published (± its 95% half-width)",
            )
        decimals = {
            y: row_decimals(r) for y, r in zip(ys, rows, strict=True)
        }  # the table's digits (pipeline.precision)
        for y, a, b, c in zip(ys, rate, lo, hi, strict=True):
            d = decimals[y]
            ax.annotate(
                f"{a:.{d}f}%  [{b:.{d}f}, {c:.{d}f}]",
                (c, y + 0.12),
                xytext=(6, 0),
                textcoords="offset points",
                va="center",
                fontsize=8.5,
                color=OURS,
            )
        for y, ref, half in refs:
            d = decimals[y]
            ax.annotate(
                f"{ref:.{d}f}%" + (f" ± {half:.{d}f}" if half else "") + " published",
                (ref + half, y - 0.18),
                xytext=(6, 0),
                textcoords="offset points",
                va="center",
                fontsize=8.5,
                color=PUBLISHED,
            )
        ax.set_yticks(ys, chart_labels([r["variant"] for r in rows], numbers))
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_xlim(0, 100)
        ax.set_xlabel("win rate (% of deals)")
        ax.set_title("Win rate by variant, with 95% intervals", loc="left", fontsize=11)
        fig.legend(loc="outside lower center", ncol=2, fontsize=8.5, frameon=False)
        return _svg(fig, "chart-winrate")


def chart_outcomes(report: Report, numbers: dict[str, int] | None = None) -> str:
    """Share of each outcome per variant, as stacked horizontal bars."""
    import matplotlib as mpl

    rows = list(report.rows.iter_rows(named=True))
    with mpl.rc_context(RC):
        fig = _figure(9, _variant_height(len(rows), base=1.6))
        ax = fig.add_subplot()
        ys = list(range(len(rows)))[::-1]
        left = [0.0] * len(rows)
        for o in report.outcomes:
            shares = [100 * r[f"n_{o}"] / r["deals"] if r["deals"] else 0.0 for r in rows]
            ax.barh(
                ys,
                shares,
                left=left,
                color=OUTCOME_COLOURS.get(o, "#444444"),
                label=o,
                height=0.6,
                edgecolor="white",
                linewidth=0.5,
            )
            for y, s, l0 in zip(ys, shares, left, strict=True):
                if s >= 6:
                    ax.text(l0 + s / 2, y, f"{s:.1f}%", ha="center", va="center", fontsize=8.5, color="white")
            left = [a + b for a, b in zip(left, shares, strict=True)]
        ax.set_yticks(ys, chart_labels([r["variant"] for r in rows], numbers))
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of deals (%)")
        ax.set_title("How the deals ended", loc="left", fontsize=11)
        fig.legend(loc="outside lower center", ncol=len(report.outcomes), fontsize=8.5, frameon=False)
        return _svg(fig, "chart-outcomes")


def distribution_metrics(
    lf: pl.LazyFrame, ranges: dict[str, tuple[int, int]] | None = None
) -> list[tuple[str, str, bool]]:
    """(column, axis label with unit, log scale) to show: ``rounds`` where the game has stock passes, and a
    solver's ``nodes`` and ``seconds`` where a search ran (Amazons and Perpetual Motion have both under
    ``strategy: solver``; their fixed strategies leave the solver columns at zero).

    ``ranges``: column -> (smallest, largest) from the Parquet footers (pipeline.parts.column_ranges); a
    column it lacks costs a pass over the rows for its largest value."""
    cols = lf.collect_schema().names()
    wanted = [c for c in ("rounds", "nodes") if c in cols]
    ranges = ranges or {}
    unread = [c for c in wanted if c not in ranges]
    peaks = lf.select(pl.col(c).max() for c in unread).collect(engine="streaming").row(0) if unread else ()
    peak = {**{c: ranges[c][1] for c in wanted if c in ranges}, **dict(zip(unread, peaks, strict=True))}
    out = []
    if (peak.get("rounds") or 0) > 0:
        out.append(("rounds", "rounds (passes through the stock)", False))
    if (peak.get("nodes") or 0) > 0:
        out.append(("nodes", "positions the solver expanded (count, log scale)", True))
        if "seconds" in cols:
            out.append(("seconds", "solver time per deal (seconds, log scale)", True))
    return out or [("rounds", "rounds (passes through the stock)", False)]


def _box_stats(
    lf: pl.LazyFrame, column: str, variants: list[str], report: Report | None = None
) -> dict[tuple[str, bool], Distribution]:
    """(variant, won) -> n, 5/25/50/75/95th percentiles, mean and max of ``column``, from streamed histograms.

    Memory stays flat in the number of deals (pipeline.distributions); ``rounds`` reuses the report's own
    histogram, so it costs no pass over the rows.
    """
    by_value = None
    if column == "rounds" and report is not None and report.histogram is not None:
        by_value = report.histogram.group_by("variant", "won", "rounds").agg(pl.col("n").sum())
    return column_distributions(lf, column, variants, by_value=by_value)


def _all_box_stats(
    lf: pl.LazyFrame, columns: list[str], variants: list[str], report: Report, ranges: dict[str, tuple[int, int]]
) -> dict[str, dict[tuple[str, bool], Distribution]]:
    """:func:`_box_stats` of every column at once: ``rounds`` from the report's histogram, the others counted
    together in one streamed pass per variant (and one more for the rows of the bins percentiles fall in)."""
    out = {c: _box_stats(lf, c, variants, report) for c in columns if c == "rounds" and report.histogram is not None}
    rest = [c for c in columns if c not in out]
    if rest:
        out.update(streamed_distributions(lf, rest, variants, ranges))
    return out


def chart_distribution(
    report: Report,
    lf: pl.LazyFrame,
    column: str,
    label: str,
    log: bool,
    numbers: dict[str, int] | None = None,
    stats: dict[tuple[str, bool], Distribution] | None = None,
) -> str:
    """Box plots (quartiles, whiskers at the 5th and 95th percentiles, mean as a dot) per variant, won vs not."""
    import matplotlib as mpl
    from matplotlib.patches import Patch

    dists = stats if stats is not None else _box_stats(lf, column, list(report.rows["variant"]), report)
    by_key = {k: d.as_dict() for k, d in dists.items()}
    variants = list(report.rows["variant"])
    boxes, positions, colours = [], [], []
    for i, v in enumerate(variants):
        y = (len(variants) - 1 - i) * 1.0
        for won, dy, colour in ((True, 0.18, OUTCOME_COLOURS["won"]), (False, -0.18, LOST_COLOUR)):
            r = by_key.get((v, won))
            if r is None or r["n"] == 0:
                continue
            floor = 1e-6 if log else -math.inf  # a log axis cannot show 0
            boxes.append(
                {
                    "med": max(r["med"], floor),
                    "q1": max(r["q1"], floor),
                    "q3": max(r["q3"], floor),
                    "whislo": max(r["p05"], floor),
                    "whishi": max(r["p95"], floor),
                    "mean": max(r["mean"], floor),
                    "fliers": [],
                    "label": "",
                }
            )
            positions.append(y + dy)
            colours.append(colour)
    with mpl.rc_context(RC):
        fig = _figure(9, _variant_height(len(variants), per=0.55, base=1.6))
        ax = fig.add_subplot()
        if boxes:
            art = ax.bxp(
                boxes,
                positions=positions,
                orientation="horizontal",
                widths=0.3,
                showmeans=True,
                patch_artist=True,
                meanprops={"marker": "o", "markerfacecolor": "white", "markeredgecolor": "black", "markersize": 4},
                medianprops={"color": "black"},
            )
            for patch, colour in zip(art["boxes"], colours, strict=True):
                patch.set_facecolor(colour)
                patch.set_alpha(0.85)
        ax.set_yticks([(len(variants) - 1 - i) * 1.0 for i in range(len(variants))], chart_labels(variants, numbers))
        ax.set_ylim(-0.7, len(variants) - 0.3)
        if log:
            ax.set_xscale("log")
        else:
            ax.set_xlim(left=0)
        ax.set_xlabel(label)
        ax.set_title(
            f"Distribution of {column} per deal (box: quartiles; whiskers: 5th-95th percentile; dot: mean)",
            loc="left",
            fontsize=11,
        )
        fig.legend(
            handles=[
                Patch(color=OUTCOME_COLOURS["won"], label="won deals"),
                Patch(color=LOST_COLOUR, label="other deals"),
            ],
            loc="outside lower center",
            ncol=2,
            fontsize=8.5,
            frameon=False,
        )
        return _svg(fig, f"chart-{column}")


def chart_differences(cs: ComparisonSet, numbers: dict[str, int] | None = None) -> str:
    """Each variant's difference from the baseline with its paired 95% interval (forest plot)."""
    import matplotlib as mpl

    comps = cs.comparisons
    with mpl.rc_context(RC):
        fig = _figure(9, _variant_height(len(comps)))
        ax = fig.add_subplot()
        ys = list(range(len(comps)))[::-1]
        mids = [100 * (c.difference_low + c.difference_high) / 2 for c in comps]
        los = [100 * c.ci95_low for c in comps]
        his = [100 * c.ci95_high for c in comps]
        for y, c in zip(ys, comps, strict=True):
            if c.has_unknown:  # the range the unknowns allow, as a thick bar
                ax.plot([100 * c.difference_low, 100 * c.difference_high], [y, y], color=OURS, lw=6, alpha=0.35)
        ax.errorbar(
            mids,
            ys,
            xerr=[[m - lo for m, lo in zip(mids, los, strict=True)], [hi - m for m, hi in zip(mids, his, strict=True)]],
            fmt="o",
            color=OURS,
            capsize=4,
            ms=6,
            lw=1.6,
        )
        for y, c, mid, lo, hi in zip(ys, comps, mids, los, his, strict=True):
            d = comparison_decimals(c)  # the compare table's decimals (pipeline.precision's rule), not a fixed two
            ax.annotate(
                f"{mid:+.{d}f} [{lo:+.{d}f}, {hi:+.{d}f}]",
                (hi, y),
                xytext=(6, 0),
                textcoords="offset points",
                va="center",
                fontsize=8.5,
                color=OURS,
            )
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(ys, chart_labels([c.variant for c in comps], numbers))
        ax.set_ylim(-0.7, len(comps) - 0.3)
        span = max([abs(100 * x) for c in comps for x in (c.ci95_low, c.ci95_high) if math.isfinite(x)] + [1.0])
        ax.set_xlim(-span * 1.35, span * 1.35)
        ax.set_xlabel(f"difference in win rate vs {cs.baseline} (percentage points), paired 95% interval")
        ax.set_title(f"Paired difference from the baseline {cs.baseline}", loc="left", fontsize=11)
        return _svg(fig, "chart-differences")


# --- HTML ------------------------------------------------------------------------------------------

CSS = """
body { font-family: 'DejaVu Sans', 'Liberation Sans', Arial, Helvetica, sans-serif; margin: 24px auto;
       max-width: 1100px; color: #222; line-height: 1.4; padding: 0 16px; }
h1 { font-size: 1.6em; margin-bottom: 0.1em; } h2 { font-size: 1.25em; margin-top: 1.8em;
     border-bottom: 1px solid #ccc; padding-bottom: 3px; }
.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 0.9em; }
th, td { border: 1px solid #d0d0d0; padding: 3px 8px; text-align: right; vertical-align: top; }
th { background: #f3f3f3; } td.l, th.l { text-align: left; }
table.kv td:first-child { text-align: left; font-weight: bold; background: #fafafa; white-space: nowrap; }
table.kv td { text-align: left; }
td.diff { background: #ffe08a; font-weight: bold; }
tr.base td { background: #eef5fb; }
figure { margin: 10px 0 18px; } figcaption { color: #555; font-size: 0.85em; }
ul.verdicts li { margin: 3px 0; } .note { color: #555; font-size: 0.85em; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; background: #ffe08a; vertical-align: middle;
          border: 1px solid #c9a227; }
"""


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _table(header: list[str], rows: list[list[str]], left: int = 1, cls: str = "") -> str:
    head = "".join(f'<th class="l">{_e(h)}</th>' if i < left else f"<th>{_e(h)}</th>" for i, h in enumerate(header))
    body = "".join(
        "<tr>"
        + "".join(f'<td class="l">{_e(c)}</td>' if i < left else f"<td>{_e(c)}</td>" for i, c in enumerate(r))
        + "</tr>"
        for r in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _wall_time(manifest: dict[str, Any]) -> str:
    try:
        start = _dt.datetime.fromisoformat(manifest["started"])
        end = _dt.datetime.fromisoformat(manifest["finished"])
    except (KeyError, TypeError, ValueError):
        return "unknown (run not finished)"
    secs = (end - start).total_seconds()
    return f"{secs:,.0f} s" + (f" ({secs / 60:.1f} min)" if secs >= 120 else "") + " (the last invocation)"


def _source_text(src: dict[str, Any]) -> str:
    kind = src.get("kind")
    if kind == "seeded":
        return f"seeded: seed {src.get('seed')}, deal indices 0..{int(src.get('deals', 0)) - 1:,}"
    if kind == "file":
        return f"deals file {src.get('deals_file')} (sha256 {str(src.get('sha256'))[:16]}...)"
    if kind == "microsoft":
        return f"Microsoft deal numbers {src.get('microsoft_deals')}"
    return _e(src)


def _study_section(report: Report, manifest: dict[str, Any]) -> str:
    cfg = manifest.get("config", {})
    src = manifest.get("deal_source") or cfg.get("deal_source") or {}
    pk = manifest.get("packages", {})
    ex = manifest.get("executor", {})
    kv = [
        ("study", report.study),
        ("game", report.game),
        ("deals per variant", f"{int(src.get('deals', 0)):,}"),
        ("deal source", _source_text(src)),
        ("variants", f"{len(cfg.get('variants', {}))}"),
        ("batch size", f"{cfg.get('batch_size', '')}"),
        ("engine version", manifest.get("engine_version", "")),
        ("packages", ", ".join(f"{k} {v}" for k, v in pk.items())),
        (
            "run",
            f"status {report.status}; {report.units_done}/{report.units_total} work units; "
            f"backend {ex.get('backend', '?')}"
            + (f", {ex['cpus']} CPUs" if ex.get("cpus") else "")
            + f"; host {manifest.get('host', '?')}",
        ),
        ("started", manifest.get("started", "")),
        ("finished", manifest.get("finished") or "(not finished)"),
        ("wall time", _wall_time(manifest)),
        ("results folder", report.run_dir),
    ]
    rows = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in kv)
    return f'<h2>Study</h2><table class="kv"><tbody>{rows}</tbody></table>'


def _rules_section(manifest: dict[str, Any], baseline: str | None) -> str:
    variants = manifest.get("config", {}).get("variants", {})
    if not variants:
        return ""
    switches: list[str] = []
    for v in variants.values():
        switches += [k for k in v.get("rules", {}) if k not in switches]
    base_rules = variants.get(baseline, {}).get("rules", {}) if baseline else {}
    numbered = any(len(n) > LABEL_MAX for n in variants)
    head = (
        ('<th class="l">#</th>' if numbered else "")
        + '<th class="l">variant</th><th class="l">preset</th>'
        + "".join(f"<th>{_e(s)}</th>" for s in switches)
    )
    body = []
    for k, (name, v) in enumerate(variants.items(), start=1):
        rules = v.get("rules", {})
        cells = []
        for s in switches:
            val = rules.get(s)
            text = str(val).lower() if isinstance(val, bool) else str(val)
            differs = name != baseline and base_rules.get(s) != val
            cells.append(
                f'<td class="diff" title="{_e(baseline)}: {_e(base_rules.get(s))}">{_e(text)}</td>'
                if differs
                else f"<td>{_e(text)}</td>"
            )
        cls = ' class="base"' if name == baseline else ""
        label = name + (" (baseline)" if name == baseline else "")
        number = f'<td class="l">#{k}</td>' if numbered else ""
        body.append(
            f'<tr{cls}>{number}<td class="l">{_e(label)}</td><td class="l">{_e(v.get("preset") or "-")}</td>'
            + "".join(cells)
            + "</tr>"
        )
    return (
        "<h2>Variants and their resolved rules</h2>"
        f'<p class="note"><span class="swatch"></span> a rule that differs from the baseline '
        f"<b>{_e(baseline)}</b>.</p>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _pct(x: float | None, decimals: int = 2) -> str:
    return pct(x, decimals)


def _report_table(report: Report) -> str:
    rounds = shows_rounds(report)
    header = [
        "variant",
        "deals",
        "wins",
        "win rate",
        "95% CI (Wilson)",
        *report.outcomes,
        *(["rounds (won): mean", "median", "p90"] if rounds else []),
        "published",
        "verdict",
    ]
    rows = []
    for r in report.rows.iter_rows(named=True):
        d = row_decimals(r)  # as many decimals as the narrower of our interval and the published one needs
        pub = ""
        if r["ref_win_rate"] is not None:
            pub = _pct(r["ref_win_rate"], d) + (f" ± {_pct(r['ref_ci95'], d)}" if r["ref_ci95"] is not None else "")
            if r["ref_mean_rounds_won"] is not None:
                pub += f"; {r['ref_mean_rounds_won']:g} rounds (won)"
        num = lambda x: "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:,.1f}"  # noqa: E731
        rows.append(
            [
                r["variant"],
                f"{r['deals']:,}",
                f"{r['wins']:,}",
                _pct(r["win_rate"], d),
                f"{_pct(r['ci95_low'], d)} .. {_pct(r['ci95_high'], d)}",
                *[f"{r[f'n_{o}']:,}" for o in report.outcomes],
                *([num(r["rounds_won_mean"]), num(r["rounds_won_median"]), num(r["rounds_won_p90"])] if rounds else []),
                pub,
                verdict_text(r["verdict"], r["z"]),
            ]
        )
    notes = [f"{name}: published by {src}" for name, src in report.sources.items()]
    if report.sources:
        notes.append(
            "verdict: consistent when |ours - published| <= 1.96 x the combined standard error "
            "(ours taken at the published rate: the score test behind Wilson's interval); consistent as bounds "
            "when some share between every unknown lost and every unknown won is"
        )
    return _table(header, rows) + "".join(f'<p class="note">{_e(n)}</p>' for n in notes)


def _figure_html(chart_id: str, svg: str, caption: str) -> str:
    return f'<figure id="{chart_id}" class="chart">{svg}<figcaption>{_e(caption)}</figcaption></figure>'


def render_html(report: Report) -> str:
    """The whole report as one HTML document (a string)."""
    run_dir = report.run_dir  # a path or a storage URI (Path would fold s3:// into s3:/)
    manifest = read_manifest(run_dir)
    variants = list(report.rows["variant"])
    declared = list(manifest.get("config", {}).get("variants", {}))
    baseline = (declared or variants or [None])[0]
    numbers = {v: i + 1 for i, v in enumerate(declared + [v for v in variants if v not in declared])}
    others = [v for v in variants if v != baseline]  # only variants with results (a run may be part-way)
    lf = scan_deals(run_dir)
    # The paired counts (pyarrow and numpy, part by part) run on a second thread while polars builds the
    # distributions: both release the GIL, so on an idle 2-core machine the two passes overlap.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="patience-compare") as pool:
        pending = pool.submit(compare_run, run_dir, baseline, others) if others and baseline in variants else None
        distributions = []
        if report.rows.height:
            # the columns' ranges from the Parquet footers: which charts to draw, and how to count each column
            ranges = column_ranges(
                [f for files in variant_folders(run_dir).values() for f in files], ["rounds", "nodes"]
            )
            metrics = distribution_metrics(lf, ranges)
            stats = _all_box_stats(lf, [c for c, _, _ in metrics], variants, report, ranges)
            distributions = [(column, label, log, stats[column]) for column, label, log in metrics]
        cs = pending.result() if pending is not None else None
    title = f"{report.study}: {report.game}"

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{_e(report.study)}</h1>",
        f'<p class="sub">{_e(report.game)} &middot; {len(variants)} variant(s) &middot; '
        f"{int(report.rows['deals'].max() or 0) if report.rows.height else 0:,} deals per variant &middot; "
        f"engine {_e(manifest.get('engine_version', '?'))} &middot; {_e(manifest.get('finished') or 'running')}</p>",
    ]
    if cs is not None:
        parts.append('<ul class="verdicts">' + "".join(f"<li>{_e(c.verdict)}</li>" for c in cs.comparisons) + "</ul>")
    parts.append(_study_section(report, manifest))
    parts.append(_rules_section(manifest, baseline))
    if report.rows.height:
        parts += [
            "<h2>Win rates</h2>",
            _figure_html(
                "chart-winrate",
                chart_win_rates(report, numbers),
                "Points: our win rate; bars: its 95% Wilson score interval. Diamonds: the published figure "
                "and its 95% half-width where the source gives one.",
            ),
            _report_table(report),
            f'<p class="note">{_e(halving_line(report))}</p>',
            "<h2>Outcomes</h2>",
            _figure_html(
                "chart-outcomes", chart_outcomes(report, numbers), "Share of deals ending in each outcome, per variant."
            ),
            "<h2>Distribution per deal</h2>",
        ]
        for column, label, log, stats in distributions:
            parts.append(
                _figure_html(
                    f"chart-{column}",
                    chart_distribution(report, lf, column, label, log, numbers, stats),
                    f"{column} per deal, won deals and the others separately. {accuracy_note(column, stats)}.",
                )
            )
    else:
        parts.append("<p>No results yet.</p>")
    if cs is not None:
        header, rows = display_rows(cs)
        parts += [
            "<h2>Paired comparison on the same deals</h2>",
            _figure_html(
                "chart-differences",
                chart_differences(cs, numbers),
                f"Difference in win rate from {cs.baseline} over the deals both played; bars: "
                "Newcombe's paired 95% interval.",
            ),
            _table(header, rows, left=2),
            "".join(f'<p class="note">{_e(n)}</p>' for n in method_notes(cs)),
        ]
    generated = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    parts.append(f'<p class="note">Generated by patience on {generated} from {_e(report.run_dir)}.</p>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
