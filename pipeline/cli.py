"""The ``patience`` command (DESIGN section 5): run, report, query, compare, plan, validate, verify, games, play.

Exit codes: 0 success, 1 a run that failed at work, 2 bad input.  Bad input
is reported as one line on stderr (``patience: error: ...``) naming the file
or option, the field, the value and what is allowed; nothing is written.
"""

from __future__ import annotations

import functools
import json
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from pipeline import faults
from pipeline.errors import BadInput, RunFailed

app = typer.Typer(
    name="patience",
    help="A laboratory for patience (solitaire) games: seeded deals, rule variants, Parquet results, honest statistics",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

REPORT_FORMATS = ("table", "markdown", "csv", "json", "html")
COMPARE_FORMATS = ("table", "markdown", "csv", "json")
QUERY_FORMATS = ("table", "csv", "json", "parquet")
BACKENDS = ("ray", "serial")
COMMON_COLUMN_DOCS = {
    "deal": ("int64", "deal index: position in the seeded stream, the deals file, or the Microsoft deal number"),
    "variant": ("string", "variant name (from the variant=... folder)"),
    "outcome": ("string", "won, cycle, blocked, capped, unsolvable or unknown"),
    "won": ("bool", "outcome == won"),
    "rounds": ("int32", "passes through the stock, the winning one included; 0 where the game has no stock passes"),
    "moves": ("int32", "moves made"),
    "cards_left": ("int16", "cards not yet played off when the game ended"),
}


def _err(message: str) -> None:
    typer.echo(f"patience: error: {message}", err=True)


def _handled(fn):
    """Map BadInput to exit 2 and RunFailed to exit 1, each as one line on stderr."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except BadInput as exc:
            _err(str(exc))
            raise typer.Exit(2) from None
        except RunFailed as exc:
            _err(str(exc))
            raise typer.Exit(1) from None

    return wrapper


class _reading:
    """Around a command that reads runs: a reader's failure (pyarrow, polars) on a damaged part becomes one
    line naming the part and the repair, exit 1 (pipeline.run_files.find_damaged); anything else passes."""

    def __init__(self, *run_dirs: str | None):
        self.run_dirs = [r for r in run_dirs if r is not None]

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, tb) -> bool:
        if exc is None or isinstance(exc, (BadInput, RunFailed)) or not isinstance(exc, Exception):
            return False
        from pipeline.run_files import find_damaged

        for run_dir in self.run_dirs:
            damaged = find_damaged(run_dir)
            if damaged is not None:
                raise damaged from None
        return False


def _int_opt(option: str, text: str | None, lo: int = 0, hi: int | None = None) -> int | None:
    """An integer option, parsed here so that a bad one is named with its value."""
    if text is None:
        return None
    allowed = f"an integer in {lo}..{hi}" if hi is not None else f"an integer >= {lo}"
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise BadInput(f"option {option}: value {text!r} is not an integer; allowed: {allowed}") from None
    if value < lo or (hi is not None and value > hi):
        raise BadInput(f"option {option}: value {value} is out of range; allowed: {allowed}")
    return value


def _choice(option: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise BadInput(f"option {option}: value {value!r} is not allowed; allowed: {', '.join(allowed)}")
    return value


def _output_target(output: Path | None, *run_dirs: str | None) -> None:
    from pipeline.integrity import refuse_output_inside

    refuse_output_inside(output, run_dirs)  # nothing but `patience run` writes inside a run folder
    if output is not None and output.is_dir():
        raise BadInput(f"option --output: {output} is a folder; allowed: a file path")
    if output is not None and not output.parent.exists():
        raise BadInput(f"option --output: folder {output.parent} does not exist; allowed: a file in an existing folder")


def _emit(text: str, output: Path | None) -> None:
    """Print ``text``, or write it to ``output`` (already checked by _output_target)."""
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")


SetOpt = Annotated[list[str] | None, typer.Option("--set", help="key=value applied to every variant (repeatable)")]


# --- run / validate ------------------------------------------------------------------------


@app.command()
@_handled
def run(
    study: Annotated[Path, typer.Argument(help="the study YAML")],
    out: Annotated[
        str | None,
        typer.Option(
            help="results folder (default results/<study>): a path (shared storage on a cluster) or s3://bucket/prefix"
        ),
    ] = None,
    deals: Annotated[str | None, typer.Option(metavar="INT", help="deals per variant (overrides the study)")] = None,
    seed: Annotated[str | None, typer.Option(metavar="INT", help="root seed (overrides the study)")] = None,
    backend: Annotated[str, typer.Option(help="ray or serial")] = "ray",
    address: Annotated[
        str | None, typer.Option(help="join this Ray cluster (default: RAY_ADDRESS, else a local instance)")
    ] = None,
    num_cpus: Annotated[str | None, typer.Option(metavar="INT", help="CPUs of the local Ray instance")] = None,
    batch_size: Annotated[str | None, typer.Option(metavar="INT", help="deals per work unit")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="clear a results folder made by a different config")] = False,
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="hash every finished part and rebuild run.json from the study, the unit log and the parts "
            "(a damaged run.json is rebuilt without it)",
        ),
    ] = False,
    set_: SetOpt = None,
) -> None:
    """Play every variant of a study on the same deals; write Parquet results and print the report."""
    from pipeline.config import load_study

    _choice("--backend", backend, BACKENDS)
    cpus = _int_opt("--num-cpus", num_cpus, 1)
    st = load_study(
        study,
        deals=_int_opt("--deals", deals, -(2**70)),
        seed=_int_opt("--seed", seed, -(2**70)),
        batch_size=_int_opt("--batch-size", batch_size, -(2**70)),
        sets=set_ or (),
    )
    out_dir = out if out is not None else Path("results") / st.name

    from pipeline.report import RENDERERS, build_report, report_from_totals
    from pipeline.runner import run_study

    outcome = run_study(st, out_dir, backend=backend, address=address, num_cpus=cpus, fresh=fresh, repair=repair)
    summary = None
    if outcome.units_run == 0 and outcome.units_skipped == outcome.units_total:
        typer.echo(f"nothing to do: all {outcome.units_total:,} units already done; results in {out_dir}", err=True)
        summary = report_from_totals(out_dir)  # run.json's exact totals: no part file read
        if summary is not None:
            typer.echo(
                f"totals from {out_dir}/run.json; the full report (rounds per deal): patience report {out_dir}",
                err=True,
            )
    else:
        typer.echo(
            f"{outcome.units_run} units run, {outcome.units_skipped} already done, in {outcome.seconds:.1f} s "
            f"(backend start-up {outcome.startup:.1f} s before that); results in {out_dir}",
            err=True,
        )
    if summary is None:
        summary = build_report(out_dir)
    from pipeline.sample_sizes import halving_line

    halve = halving_line(summary)  # planning help: how many more deals would halve the widest interval
    if halve:
        typer.echo(halve, err=True)
    typer.echo(RENDERERS["table"](summary), nl=False)


@app.command()
@_handled
def validate(
    study: Annotated[Path, typer.Argument(help="the study YAML")],
    deals: Annotated[str | None, typer.Option(metavar="INT", help="deals per variant (overrides the study)")] = None,
    seed: Annotated[str | None, typer.Option(metavar="INT", help="root seed (overrides the study)")] = None,
    batch_size: Annotated[str | None, typer.Option(metavar="INT", help="deals per work unit")] = None,
    set_: SetOpt = None,
) -> None:
    """Check a study, print its resolved variants and the number of work units; runs nothing."""
    from pipeline.config import load_study
    from pipeline.work_units import count_units

    st = load_study(
        study,
        deals=_int_opt("--deals", deals, -(2**70)),
        seed=_int_opt("--seed", seed, -(2**70)),
        batch_size=_int_opt("--batch-size", batch_size, -(2**70)),
        sets=set_ or (),
    )
    units = count_units(st)  # computed, not listed: instant at any scale
    src = st.source.describe()
    typer.echo(
        f"study {st.name}: game {st.game.name}, {st.source.count:,} deals per variant "
        f"({', '.join(f'{k} {v}' for k, v in src.items() if k not in ('kind', 'deals'))}; {src['kind']})"
    )
    typer.echo(
        f"{len(st.variants)} variants x {st.source.count:,} deals in batches of {st.batch_size:,} = "
        f"{units:,} work units"
    )
    defaults = {k: s.default for k, s in st.game.switches().items()}
    for v in st.variants.values():
        rules = v.rules_dict()
        changed = {k: val for k, val in rules.items() if defaults.get(k) != val}
        origin = f"preset {v.preset}" if v.preset else "defaults"
        typer.echo(f"  {v.name}: {origin}; " + json.dumps(rules))
        if changed:
            typer.echo(f"    differs from defaults: {', '.join(f'{k}={_text(val)}' for k, val in changed.items())}")
    for name, ref in st.reference.items():
        typer.echo(f"  reference {name}: {json.dumps(ref)}")


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


# --- report / query ----------------------------------------------------------------------------


@app.command()
@_handled
def report(
    run_dir: Annotated[
        str, typer.Argument(help="a results folder written by `patience run` (a path or s3://bucket/prefix)")
    ],
    format: Annotated[
        str, typer.Option("--format", help="table, markdown, csv, json or html (self-contained, with charts)")
    ] = "table",
    output: Annotated[Path | None, typer.Option(help="write to this file instead of stdout")] = None,
) -> None:
    """One row per variant: win rate with its Wilson 95% interval, outcomes, rounds of won deals, references."""
    from pipeline.report import RENDERERS, build_report

    _choice("--format", format, REPORT_FORMATS)
    _output_target(output, run_dir)
    with _reading(run_dir):
        if format == "html":
            from pipeline.html_report import render_html

            text = render_html(build_report(run_dir))
        else:
            text = RENDERERS[format](build_report(run_dir))
    _emit(text, output)


@app.command()
@_handled
def query(
    run_dir: Annotated[
        str, typer.Argument(help="a results folder written by `patience run` (a path or s3://bucket/prefix)")
    ],
    sql: Annotated[
        str,
        typer.Argument(
            help='polars SQL over the table `deals`, e.g. "SELECT variant, avg(rounds) FROM deals GROUP BY variant"'
        ),
    ],
    format: Annotated[str, typer.Option("--format", help="table, csv, json or parquet")] = "table",
    output: Annotated[
        Path | None, typer.Option(help="write to this file instead of stdout (required for parquet)")
    ] = None,
    limit: Annotated[int, typer.Option(help="rows shown by --format table")] = 50,
) -> None:
    """SQL over the per-deal results (table `deals`: deal, variant, outcome, won, rounds, moves, cards_left, ...)."""
    import polars as pl

    from pipeline.report import QUERY_MAX_ROWS, run_query, write_query_parquet

    _choice("--format", format, QUERY_FORMATS)
    if not 1 <= limit <= QUERY_MAX_ROWS:
        raise BadInput(f"option --limit: value {limit} is out of range; allowed: an integer in 1..{QUERY_MAX_ROWS:,}")
    _output_target(output, run_dir)
    if format == "parquet" and output is None:
        raise BadInput("option --format parquet: needs --output FILE; allowed: --output results.parquet")
    if format == "parquet":  # streamed to the file, never held whole
        with _reading(run_dir):
            write_query_parquet(run_dir, sql, output)
        return
    with _reading(run_dir):
        df = run_query(run_dir, sql)
    if format == "csv":
        text = df.write_csv()
    elif format == "json":
        text = df.write_json() + "\n"
    else:
        with pl.Config(tbl_rows=limit, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=80):
            text = str(df.head(limit)) + "\n"
        if df.height > limit:
            text += f"{df.height:,} rows; showing {limit} (use --limit, or --format csv for all)\n"
    _emit(text, output)


# --- compare / plan (paired statistics and planning: pipeline.paired, pipeline.sample_sizes) ----------------


@app.command()
@_handled
def compare(
    run_dir: Annotated[
        str, typer.Argument(help="a results folder written by `patience run` (a path or s3://bucket/prefix)")
    ],
    run_b: Annotated[
        str | None, typer.Argument(help="a second run of the same deals: its variants vs RUN_DIR's")
    ] = None,
    baseline: Annotated[
        str | None, typer.Option(help="the variant the others are compared with (default: the study's first)")
    ] = None,
    variant: Annotated[
        list[str] | None, typer.Option("--variant", help="compare only this variant (repeatable)")
    ] = None,
    format: Annotated[str, typer.Option("--format", help="table, markdown, csv or json")] = "table",
    output: Annotated[Path | None, typer.Option(help="write to this file instead of stdout")] = None,
) -> None:
    """Variants vs a baseline on the same deals: paired counts, Newcombe 95% interval, McNemar exact p, Holm."""
    from pipeline.paired import RENDERERS as COMPARE_RENDERERS
    from pipeline.paired import compare_command

    _choice("--format", format, COMPARE_FORMATS)
    _output_target(output, run_dir, run_b)
    with _reading(run_dir, run_b):
        text = COMPARE_RENDERERS[format](compare_command(run_dir, run_b, baseline, variant))
    _emit(text, output)


@app.command()
@_handled
def plan(
    p: Annotated[str, typer.Option("--p", metavar="RATE", help="expected win rate, 0..1")],
    halfwidth: Annotated[
        str, typer.Option("--halfwidth", metavar="H", help="wanted 95% half-width, e.g. 0.001 for +/- 0.1 points")
    ],
    discordance: Annotated[
        str | None,
        typer.Option("--discordance", metavar="D", help="expected share of deals won by exactly one of two variants"),
    ] = None,
) -> None:
    """How many deals give a 95% half-width: for one win rate, and for a paired difference of two variants."""
    from pipeline.sample_sizes import parse_rate_option, plan_text

    typer.echo(
        plan_text(
            parse_rate_option("--p", p),
            parse_rate_option("--halfwidth", halfwidth),
            parse_rate_option("--discordance", discordance),
        ),
        nl=False,
    )


# --- verify ---------------------------------------------------------------------------------------


@app.command()
@_handled
def verify(
    run_dir: Annotated[
        str, typer.Argument(help="a results folder written by `patience run` (a path or s3://bucket/prefix)")
    ],
    show: Annotated[
        str, typer.Option("--show", metavar="INT", help="refusals and part problems listed (the rest are counted)")
    ] = "20",
    full: Annotated[
        bool, typer.Option("--full", help="replay every fixed-strategy row by the kernel (else a sample of each part)")
    ] = False,
) -> None:
    """Check every part against the manifest and replay every stored solution by the reference; exit 1 on a failure."""
    from pipeline.verify import render, verify_run

    limit = _int_opt("--show", show, 0)
    bar = None
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        bar = Progress(
            TextColumn("verify"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} units"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
    if bar is None:
        result = verify_run(run_dir, show=limit, full=full)
    else:
        with bar:
            task = bar.add_task("verify", total=None)

            def step(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            result = verify_run(run_dir, show=limit, on_unit=step, full=full)
    typer.echo(render(result), nl=False)
    if not result.ok:
        raise typer.Exit(1)


# --- games / play --------------------------------------------------------------------------------


def _game(name: str):
    from engine.registry import game_names, get_game

    if name not in game_names():
        raise BadInput(f"argument GAME: unknown game {name!r}; allowed: {', '.join(game_names())}")
    return get_game(name)


@app.command()
@_handled
def games(game: Annotated[str | None, typer.Argument(help="show one game in detail")] = None) -> None:
    """List the games; with GAME, its presets, rule switches (defaults, allowed values, docs) and columns."""
    from engine.registry import game_names, get_game

    if game is None:
        for name in game_names():
            try:
                g = get_game(name)
            except Exception as exc:  # noqa: BLE001 - one broken module must not hide the others
                typer.echo(f"{name}: unavailable ({type(exc).__name__}: {exc})")
                continue
            typer.echo(
                f"{name}: {g.title}; {g.ncards} cards; presets: {', '.join(g.presets) or '-'}; "
                f"deals: {', '.join(sorted(g.deal_sources))}"
            )
        typer.echo("`patience games GAME` shows a game's rule switches and columns.")
        return
    g = _game(game)
    typer.echo(f"{g.name}: {g.title}")
    typer.echo(f"  {g.doc}")
    typer.echo(
        f"deck: {g.ncards} cards; deal sources: {', '.join(sorted(g.deal_sources))}; outcomes: {', '.join(g.outcomes)}"
    )
    typer.echo("rule switches (name = default; allowed; doc):")
    for s in g.switches().values():
        typer.echo(f"  {s.name} = {_text(s.default)}; allowed: {s.allowed()}; {s.doc}")
        for line in s.explain(s.default) if s.explain else ():
            typer.echo(f"    {line}")
    typer.echo("presets:")
    for name, values in g.presets.items():
        typer.echo(f"  {name}: " + (", ".join(f"{k}={_text(v)}" for k, v in values.items()) or "(the defaults)"))
        if name in g.preset_sources:
            typer.echo(f"    named for: {g.preset_sources[name]}")
    typer.echo("per-deal columns:")
    for name, (dtype, doc) in COMMON_COLUMN_DOCS.items():
        typer.echo(f"  {name} ({dtype}): {doc}")
    for c in g.extra_columns:
        typer.echo(f"  {c.name} ({c.dtype}): {c.doc}")


@app.command()
@_handled
def play(
    game: Annotated[str, typer.Argument(help="a registered game (see `patience games`)")],
    seed: Annotated[str | None, typer.Option(metavar="INT", help="seeded deal: the seed (with --index)")] = None,
    index: Annotated[str | None, typer.Option(metavar="INT", help="seeded deal: the index (with --seed)")] = None,
    deal: Annotated[str | None, typer.Option(help='the deal in card text, e.g. "AS 2H ..."')] = None,
    microsoft: Annotated[
        str | None, typer.Option(metavar="INT", help="Microsoft deal number (FreeCell family)")
    ] = None,
    preset: Annotated[str | None, typer.Option(help="a named preset of the game")] = None,
    set_: SetOpt = None,
    trace: Annotated[bool, typer.Option("--trace", help="print the reference's events, pass by pass")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the output row as JSON")] = False,
) -> None:
    """Play one deal with the readable reference and print the outcome (and its trace)."""
    import numpy as np

    from engine.cards import format_cards
    from engine.deals import U64_MAX, DealError, microsoft_deal, parse_deal, seeded_deal
    from engine.outcomes import OUTCOMES
    from engine.rules import RuleError
    from pipeline.config import MICROSOFT_MAX, parse_sets

    g = _game(game)
    seed, index = _int_opt("--seed", seed, -(2**70)), _int_opt("--index", index, -(2**70))
    microsoft = _int_opt("--microsoft", microsoft, -(2**70))
    chosen = [
        name
        for name, given in (
            ("--seed/--index", seed is not None or index is not None),
            ("--deal", deal is not None),
            ("--microsoft", microsoft is not None),
        )
        if given
    ]
    if len(chosen) != 1:
        problem = f"{' and '.join(chosen)} are both given" if chosen else "no deal is given"
        raise BadInput(f'options: {problem}; allowed: exactly one of --seed S --index I, --deal "...", --microsoft N')
    if chosen[0] == "--seed/--index":
        if seed is None or index is None:
            raise BadInput("options --seed/--index: a seeded deal needs both; allowed: --seed S --index I")
        for opt, v in (("--seed", seed), ("--index", index)):
            if not 0 <= v <= U64_MAX:
                raise BadInput(f"option {opt}: value {v} is out of range; allowed: an integer in 0..2^64-1")
        cards = seeded_deal(g.deck, seed, index)
        deal_index: int | None = index
        what = f"seed {seed} index {index}"
    elif deal is not None:
        try:
            cards = parse_deal(deal, g.deck, where="option --deal")
        except DealError as exc:
            raise BadInput(f'{exc}; allowed: the {g.ncards} cards of the deck, e.g. "AS 2H TD ..."') from None
        deal_index, what = None, "given deal"
    else:
        if "microsoft" not in g.deal_sources:
            raise BadInput(
                f"option --microsoft: game {g.name!r} has no Microsoft deal numbers; "
                f"allowed: its deal sources {', '.join(sorted(g.deal_sources))}"
            )
        if not 1 <= microsoft <= MICROSOFT_MAX:
            raise BadInput(f"option --microsoft: value {microsoft} is out of range; allowed: 1..{MICROSOFT_MAX}")
        cards = microsoft_deal(microsoft)
        deal_index, what = microsoft, f"Microsoft deal {microsoft}"
    if preset is not None and preset not in g.presets:
        raise BadInput(f"option --preset: unknown preset {preset!r}; allowed: {', '.join(g.presets)}")
    overrides = parse_sets(g, set_ or ())
    try:
        rules = g.rules(preset, overrides)
    except RuleError as exc:
        raise BadInput(str(exc)) from None

    result = g.play_one(np.asarray(cards, dtype=np.uint8), rules, trace)
    row = dict(result.row)
    if not isinstance(row.get("outcome"), str):
        row["outcome"] = OUTCOMES[int(row["outcome"])]
    row["won"] = row["outcome"] == "won"
    row = {"deal": deal_index, **{k: _plain(v) for k, v in row.items()}}
    from engine.rules import rules_dict

    if as_json:
        doc = {"game": g.name, "cards": format_cards(cards), "preset": preset, "rules": rules_dict(rules), **row}
        if trace:
            doc["trace"] = list(result.trace)
        typer.echo(json.dumps(doc))
        return
    if trace:
        for line in result.trace:
            typer.echo(line)
    label = preset or "defaults"
    if overrides:
        label += " + " + ", ".join(f"{k}={_text(v)}" for k, v in overrides.items())
    details = ", ".join(f"{k} {v}" for k, v in row.items() if k not in ("deal", "outcome", "won"))
    typer.echo(f"{g.name}, {what} ({label}): {row['outcome']}; {details}")


def _plain(value: Any) -> Any:
    """numpy scalars -> Python scalars (for JSON)."""
    return value.item() if hasattr(value, "item") else value


def argv_command(argv: list[str] | None) -> str:
    args = sys.argv[1:] if argv is None else argv
    word = next((a for a in args if not a.startswith("-")), "")
    known = {c.name or c.callback.__name__ for c in app.registered_commands}
    return f"{word} --help" if word in known else "--help"


def main(argv: list[str] | None = None) -> None:
    """Console entry point: usage errors become one line and exit code 2."""
    try:  # recent typer vendors click
        from typer._click.exceptions import ClickException
    except ImportError:  # pragma: no cover - older typer with click installed alongside
        from click.exceptions import ClickException

    with faults.signals_caught():  # SIGTERM and SIGHUP end a run as Ctrl-C does
        try:
            code = app(args=argv, prog_name="patience", standalone_mode=False)
        except ClickException as exc:
            hint = f" (see `patience {argv_command(argv)}`)"
            _err(exc.format_message().replace("\n", " ") + hint)
            sys.exit(exc.exit_code)
        except (typer.Abort, KeyboardInterrupt):
            code = 130
        signum = faults.first_signal()
    if signum is not None or code == 130:  # typer turns an interrupt into exit code 130, without a word
        _err("interrupted")
        sys.exit(128 + (signum or signal.SIGINT))
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
