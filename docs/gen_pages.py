"""Generate the manual's reference pages from the code, at build time (mkdocs-gen-files runs this on `mkdocs build`).

Nothing here is pasted from the code: every switch, default, allowed value, preset, command, option and study key
is read from the modules that define them, so the pages cannot drift from the program.

- ``games/index.md`` and ``games/<game>.md``, one per game of ``engine/registry.py``: the game's doc, its rules in
  words (the module docstrings of ``engine/reference/`` and ``engine/games/``), every switch (default, allowed values,
  doc: ``engine.rules.switches``), the presets, the default solver schedule where there is a ``schedule`` switch,
  the studies of ``configs/`` that play it with their published figures, and our measured figures
  (``docs/results.yaml``) beside them; the games are added to the nav's "Games" section.
- ``studies.md``: the hand-written page with its ``<!-- gen:... -->`` markers filled from ``pipeline/config.py``:
  every key, its type, its default and what it allows, the last two asked of the validator itself.
- ``commands.md``: the same, from the Typer app of ``pipeline/cli.py`` (every command, argument and option).
- ``results.md``: the markers filled with the table of every figure in ``docs/results.yaml``.
"""

from __future__ import annotations

import ast
import math
import re
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import mkdocs_gen_files
import yaml

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
if str(ROOT) not in sys.path:  # the engine and pipeline packages, importable without an install
    sys.path.insert(0, str(ROOT))

from engine.registry import game_names, get_game  # noqa: E402
from engine.rules import Switch  # noqa: E402

# --- small helpers ----------------------------------------------------------------------------------------------


def cell(text: Any) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def code(value: Any) -> str:
    """A value as inline code (booleans as YAML writes them)."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return f"`{text}`" if text else "(empty)"


GENERATED: set[str] = set()  # pages this script wrote


def write(page: str, text: str, edit_path: str) -> None:
    with mkdocs_gen_files.open(page, "w") as f:
        f.write(text)
    mkdocs_gen_files.set_edit_path(page, edit_path)
    GENERATED.add(page)


def fill(page: str, parts: dict[str, str]) -> None:
    """Write docs/<page> with each ``<!-- gen:NAME -->`` marker replaced; a marker missing on either side fails."""
    text = (DOCS / page).read_text(encoding="utf-8")
    for name, body in parts.items():
        marker = f"<!-- gen:{name} -->"
        if marker not in text:
            raise SystemExit(f"docs/gen_pages.py: {page} has no marker {marker}")
        text = text.replace(marker, body.rstrip("\n"))
    left = re.findall(r"<!-- gen:([\w-]+) -->", text)
    if left:
        raise SystemExit(f"docs/gen_pages.py: {page} has markers nothing fills: {', '.join(left)}")
    write(page, text, page)


def docstring_markdown(doc: str) -> str:
    """A module docstring (reStructuredText-ish, wrapped at 80 columns) as Markdown.

    Paragraphs and list items are unwrapped into one line each, nested lists get the four spaces Python-Markdown
    wants, a list gets the blank line before it that Markdown needs, and ``code`` / :func:`name` become `code`.
    """
    doc = re.sub(r":\w+:`~?([^`]+)`", r"``\1``", doc)
    doc = re.sub(r"``([^`]+)``", r"`\1`", doc)
    item = re.compile(r"^(\s*)([*-]|\d+[a-z]?\.)\s+(.*)$")
    out: list[str] = []
    stack: list[int] = []  # indents of the open list items
    current: list[str] | None = None  # the block being unwrapped: [prefix, text]

    def flush() -> None:
        nonlocal current
        if current is not None:
            out.append(current[0] + current[1])
            current = None

    for raw in doc.splitlines():
        if not raw.strip():
            flush()
            out.append("")
            continue
        indent = len(raw) - len(raw.lstrip())
        m = item.match(raw)
        if m and not re.match(r"^\d+[a-z]\.", m.group(2)):
            flush()
            while stack and stack[-1] > indent:
                stack.pop()
            if stack and stack[-1] == indent:
                pass
            else:
                if not stack and out and out[-1] != "":
                    out.append("")  # Markdown starts a list only after a blank line
                stack.append(indent)
            marker = m.group(2) if m.group(2)[0].isdigit() else "*"
            current = ["    " * (len(stack) - 1) + marker + " ", m.group(3).strip()]
            continue
        if current is not None and (not stack or indent > stack[-1]):
            current[1] += " " + raw.strip()  # a continuation line: unwrap
            continue
        flush()  # a new paragraph; a line not indented past an item's marker closes that item
        in_list = bool(stack)
        while stack and indent <= stack[-1]:
            stack.pop()
        if in_list and not stack and out and out[-1] != "":
            out.append("")
        current = ["    " * len(stack), raw.strip()]
    flush()
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def module_doc(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def studies_of(game: str) -> list[tuple[str, dict]]:
    """The ready studies in configs/ that play ``game`` (file name, parsed YAML)."""
    out = []
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if data.get("game") == game:
            out.append((f"configs/{path.name}", data))
    return out


def results() -> list[dict[str, Any]]:
    rows = yaml.safe_load((DOCS / "results.yaml").read_text(encoding="utf-8"))
    names = set(game_names())
    for row in rows:
        for key in ("game", "figure", "study", "command", "deals", "ours", "published"):
            if key not in row:
                raise SystemExit(f"docs/results.yaml: a row of {row.get('game')!r} has no {key!r}")
        if row["game"] not in names:
            raise SystemExit(f"docs/results.yaml: unknown game {row['game']!r}")
        if not (ROOT / row["study"]).exists():
            raise SystemExit(f"docs/results.yaml: {row['study']} does not exist")
        if "preset" in row and row["preset"] not in get_game(row["game"]).presets:
            raise SystemExit(f"docs/results.yaml: {row['game']} has no preset {row['preset']!r}")
    return rows


def preset_rows(rows: list[dict[str, Any]], game: str) -> dict[str, dict[str, Any]]:
    """preset -> the first row of docs/results.yaml that measures it (its ``preset`` key)."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["game"] == game and "preset" in row:
            out.setdefault(row["preset"], row)
    return out


def ours_text(row: dict[str, Any]) -> str:
    """Our figure; where the row gives counts instead of an interval, the Wilson interval the report would print."""
    text = str(row["ours"])
    counts = row.get("counts")
    if counts:
        from pipeline.intervals import wilson
        from pipeline.precision import interval_decimals, pct

        n, won, unknown = int(row["deals"]), int(counts["won"]), int(counts.get("unknown", 0))
        lo, _ = wilson(won, n)
        _, hi = wilson(won + unknown, n)
        d = interval_decimals((hi - lo) / 2)
        text += f" [{pct(lo, d)[:-1]}, {pct(hi, d)[:-1]}]"
        text += f" ({won:,} won / {int(counts.get('unsolvable', 0)):,} unsolvable / {unknown:,} unknown)"
    return text


def figures_table(rows: list[dict[str, Any]]) -> str:
    """The figures, two tables: what was found (ours beside the published), then how to reproduce each and its cost."""
    found = ["| figure | deals | ours (Wilson 95%) | published | verdict |", "| --- | --- | --- | --- | --- |"]
    how = ["| figure | the command that reproduces it | cost (measured) |", "| --- | --- | --- |"]
    for r in rows:
        source = f"{r['published']} ({r['source']})" if r.get("source") else r["published"]
        seed = f", seed {r['seed']}" if r.get("seed") is not None else ""
        cols = [r["figure"], f"{int(r['deals']):,}{seed}", ours_text(r), source, r.get("verdict", "")]
        found.append("| " + " | ".join(cell(c) for c in cols) + " |")
        how.append(f"| {cell(r['figure'])} | `{cell(r['command'])}` | {cell(r.get('cost', 'not measured'))} |")
    return "\n".join(found) + "\n\n" + "\n".join(how) + "\n"


def results_by_game(rows: list[dict[str, Any]]) -> str:
    """Every figure, one section per game (in the registry's order), each linking to the game's page."""
    md = []
    for name in game_names():
        mine = [r for r in rows if r["game"] == name]
        if mine:
            md += [
                f"### {get_game(name).title}",
                "",
                f"The game's rules and switches: [its page](games/{name}.md).",
                "",
                figures_table(mine),
            ]
    return "\n".join(md)


# --- games ------------------------------------------------------------------------------------------------------

COMMON_COLUMNS: dict[str, tuple[str, str]] = {}
try:
    from pipeline.cli import COMMON_COLUMN_DOCS as COMMON_COLUMNS  # noqa: E402
except ImportError:  # the pipeline is not needed for the game pages
    pass


def switch_rows(switches: dict[str, Switch]) -> str:
    lines = ["| switch | default | allowed | what it does |", "| --- | --- | --- | --- |"]
    for s in switches.values():
        allowed = s.allowed()
        if s.kind in ("choice", "bool") or s.choices:
            allowed = ", ".join(code(c) for c in (s.choices or (True, False)))
        lines.append(f"| `{s.name}` | {cell(code(s.default))} | {cell(allowed)} | {cell(s.doc)} |")
    return "\n".join(lines) + "\n"


def rules_sources(name: str) -> list[tuple[str, str]]:
    """(path, docstring) of the modules that state the game's rules: its reference, then its engine module."""
    game_path = ROOT / "engine" / "games" / f"{name}.py"
    game_doc = module_doc(game_path) if game_path.exists() else ""
    refs = re.findall(r"engine/reference/(\w+)\.py", game_doc)
    ref_path = ROOT / "engine" / "reference" / f"{refs[0] if refs else name}.py"
    out = []
    if ref_path.exists():
        out.append((f"engine/reference/{ref_path.name}", module_doc(ref_path)))
    if game_doc:
        out.append((f"engine/games/{game_path.name}", game_doc))
    solver_path = ROOT / "engine" / "games" / f"{name}_solver.py"  # a game's free play kept in a module of its own
    if solver_path.exists():
        out.append((f"engine/games/{solver_path.name}", module_doc(solver_path)))
    return out


def game_page(name: str, rows: list[dict[str, Any]]) -> str:
    g = get_game(name)
    sw = g.switches()
    md = [
        f"# {g.title}",
        "",
        f"`{name}` · {g.ncards} cards · deals: {', '.join(sorted(g.deal_sources))} · outcomes: "
        + ", ".join(code(o) for o in g.outcomes),
        "",
        g.doc,
        "",
        f"`patience games {name}` prints the same switches and presets; "
        f"`patience play {name} --seed 1 --index 0 --trace` plays one deal move by move.",
        "",
    ]

    md += [
        "## Rule switches",
        "",
        "Set in a study's variant (`{" + next(iter(sw), "switch") + ": ...}`), in a `grid`, or for every variant "
        "with `--set key=value`. Precedence: the defaults below < the variant's `preset` < its overrides < `--set`.",
        "",
        switch_rows(sw),
    ]

    if "schedule" in sw:
        s = sw["schedule"]
        md += [
            "## Default solver schedule",
            "",
            "The searches a deal gets, in turn, each only if those before left it unknown "
            "([Solvers](../solvers.md#the-schedule)):",
            "",
            f"```text\n{s.default}\n```",
            "",
        ]
        steps = s.explain(s.default) if s.explain else []
        if steps:
            md += [
                line if re.match(r"^\d+\.", line.strip()) else f"* {line}" for line in (step.strip() for step in steps)
            ]
            md.append("")

    md += [
        "## Presets",
        "",
        "Each preset, the source it is named for, that source's figure and ours (the row of the Results page "
        "that measures it; a preset without one says so in its own words).",
        "",
        "| preset | named for | published | ours | switches it sets (the rest keep their defaults) |",
        "| --- | --- | --- | --- | --- |",
    ]
    measured = preset_rows(rows, name)
    for preset, values in g.presets.items():
        text = ", ".join(f"`{k}: {code(v)[1:-1]}`" for k, v in values.items()) or "(the defaults)"
        row = measured.get(preset)
        published, ours = (str(row["published"]), ours_text(row)) if row else ("-", "-")
        md.append(
            f"| `{preset}` | {cell(g.preset_sources.get(preset, ''))} | {cell(published)} | {cell(ours)} "
            f"| {cell(text)} |"
        )
    md.append("")

    md += ["## Published figures beside ours", ""]
    mine = [r for r in rows if r["game"] == name]
    if mine:
        md += [
            "Measured figures only; how each was measured is on the [Results](../results.md) page.",
            "",
            figures_table(mine),
        ]
    else:
        md += ["No figure of this game has been measured against a published one yet.", ""]
    refs = []
    for path, data in studies_of(name):
        for variant, ref in (data.get("reference") or {}).items():
            rate = ref.get("win_rate")
            ci = ref.get("ci95")
            figure = "" if rate is None else f"{100 * rate:.6g}%" + (f" ± {100 * ci:.2g}" if ci else "")
            refs.append(
                f"| `{path}` | `{variant}` | {cell(figure)} | {'context only' if ref.get('context') else 'verdict'} "
                f"| {cell(ref.get('source', ''))} |"
            )
    if refs:
        md += [
            "The published figures the studies set beside ours (their `reference:`; the report gives the verdict, "
            "or only shows a figure whose rules were never stated):",
            "",
            "| study | variant | published | shown as | source |",
            "| --- | --- | --- | --- | --- |",
            *refs,
            "",
        ]

    studies = studies_of(name)
    if studies:
        md += ["## Ready studies", "", "| study | deals | variants | run it |", "| --- | --- | --- | --- |"]
        for path, data in studies:
            count = len(data.get("variants") or {})
            grid = data.get("grid") or {}
            if grid:
                count += math.prod(len(v) for v in grid.values())
            deals = (
                f"{data['deals']:,} (seed {data.get('seed', 0)})"
                if "deals" in data
                else f"Microsoft {data['microsoft_deals']}"
                if "microsoft_deals" in data
                else "deals file"
            )
            md.append(f"| `{path}` | {deals} | {count} | `patience run {path}` |")
        md.append("")

    for path, doc in rules_sources(name):
        title = (
            "Rules in words"
            if path.startswith("engine/reference/")
            else "Free play, searched"
            if path.endswith("_solver.py")
            else "Readings and implementation"
        )
        md += [f"## {title}", "", f"From the docstring of `{path}`.", "", docstring_markdown(doc)]

    notes = DOCS / "game_notes" / f"{name}.md"
    if notes.exists():
        md += ["## Notes", "", notes.read_text(encoding="utf-8").strip(), ""]

    md += ["## Per-deal columns", "", "| column | type | meaning |", "| --- | --- | --- |"]
    for col, (dtype, doc) in COMMON_COLUMNS.items():
        md.append(f"| `{col}` | {dtype} | {cell(doc)} |")
    for c in g.extra_columns:
        md.append(f"| `{c.name}` | {c.dtype} | {cell(c.doc)} |")
    md.append("")
    return "\n".join(md)


def games_index() -> str:
    md = [
        "# Games",
        "",
        "One page per registered game (`engine/registry.py`), generated from the code when the site is built: "
        "the rules in words, every rule switch with its default, allowed values and doc, the presets, and the "
        "published figures beside ours.",
        "",
        "| game | name in a study | deck | presets | deals | outcomes |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name in game_names():
        g = get_game(name)
        md.append(
            f"| [{cell(g.title)}]({name}.md) | `{name}` | {g.ncards} | "
            f"{', '.join(code(p) for p in g.presets) or '-'} | {', '.join(sorted(g.deal_sources))} | "
            f"{', '.join(g.outcomes)} |"
        )
    md += ["", "Adding a game: [Contributing](../contributing.md#adding-a-game).", ""]
    return "\n".join(md)


def add_games_to_nav() -> None:
    """Each game's page under the nav's "Games" section (the nav in mkdocs.yml names only games/index.md)."""
    nav = mkdocs_gen_files.config["nav"]
    for entry in nav or ():
        if isinstance(entry, dict) and "Games" in entry:
            section = entry["Games"]
            present = {next(iter(e.values())) if isinstance(e, dict) else e for e in section}
            for name in game_names():
                if f"games/{name}.md" not in present:
                    section.append({get_game(name).title: f"games/{name}.md"})
            return
    raise SystemExit("docs/gen_pages.py: mkdocs.yml's nav has no 'Games' section")


# --- studies ----------------------------------------------------------------------------------------------------

# What each top-level key is, in words; everything else in the table is read from pipeline/config.py.
STUDY_KEYS: dict[str, tuple[str, str]] = {
    "study": ("text, required", "the study's name; results go to `results/<study>/` unless `--out`"),
    "game": ("text, required", "a registered game: see [Games](games/index.md)"),
    "deals": ("integer", "deals per variant, generated from `seed` (one deal source is required)"),
    "seed": ("integer", "the root seed of the seeded deals; only with `deals`"),
    "deals_file": (
        "text (a path)",
        "a file of deals in card text, one a line (`#` lines and blank lines skipped); relative to the study file",
    ),
    "microsoft_deals": (
        "text",
        "Microsoft deal numbers and ranges, for the games whose deal sources include `microsoft`",
    ),
    "batch_size": ("integer", "deals per work unit (one Parquet part)"),
    "variants": (
        "mapping",
        "variant name -> `{preset: NAME, switch: value, ...}`; `preset` picks a named preset "
        "first, then the switches override it",
    ),
    "grid": (
        "mapping of lists",
        "switch (or `preset`) -> list of values: every combination becomes one more "
        "variant, named like `cascade=false,gather=pile1_bottom_up`",
    ),
    "reference": ("mapping", "variant name -> the published figures the report sets beside ours (keys below)"),
}

MINIMAL = "study: probe\ngame: perpetual_motion\ndeals: 1\nvariants: {a: {}}\n"
# A bad value for each key, so that the validator says what it allows.
PROBES: dict[str, str] = {
    "study": "study: '../up'\ngame: perpetual_motion\ndeals: 1\nvariants: {a: {}}\n",
    "game": "study: probe\ngame: no_such_game\ndeals: 1\nvariants: {a: {}}\n",
    "deals": "study: probe\ngame: perpetual_motion\ndeals: 0\nvariants: {a: {}}\n",
    "seed": MINIMAL + "seed: -1\n",
    "deals_file": "study: probe\ngame: perpetual_motion\ndeals_file: ''\nvariants: {a: {}}\n",
    "microsoft_deals": "study: probe\ngame: freecell\nmicrosoft_deals: 'x'\nvariants: {a: {}}\n",
    "batch_size": MINIMAL + "batch_size: 0\n",
    "variants": "study: probe\ngame: perpetual_motion\ndeals: 1\nvariants: 3\n",
    "grid": MINIMAL + "grid: 3\n",
    "reference": MINIMAL + "reference: 3\n",
}


def _allowed_by_validator(text: str) -> str:
    """What the validator says is allowed when given this study (the text after 'allowed: ')."""
    from pipeline.config import load_study
    from pipeline.errors import BadInput

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "probe.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            load_study(path)
        except BadInput as exc:
            message = str(exc)
            return message.split("; allowed: ", 1)[1] if "; allowed: " in message else message
    raise SystemExit(f"docs/gen_pages.py: the validator accepted a probe that should fail:\n{text}")


def studies_parts() -> dict[str, str]:
    from pipeline import config

    keys = tuple(config.TOP_LEVEL_KEYS)
    missing = [k for k in keys if k not in STUDY_KEYS or k not in PROBES]
    if missing:
        raise SystemExit(
            f"docs/gen_pages.py: describe the new study key(s) {', '.join(missing)} in STUDY_KEYS and PROBES"
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "probe.yaml"
        path.write_text(MINIMAL, encoding="utf-8")
        minimal = config.load_study(path)
    defaults = {
        "seed": code(minimal.source.seed),
        "batch_size": code(minimal.batch_size),
        "grid": "none",
        "reference": "none",
    }
    one_source = _allowed_by_validator(MINIMAL.replace("deals: 1\n", ""))
    rows = ["| key | type | default | allowed | meaning |", "| --- | --- | --- | --- | --- |"]
    for key in keys:
        kind, meaning = STUDY_KEYS[key]
        default = defaults.get(key, "required" if "required" in kind else "-")
        if key in ("deals", "deals_file", "microsoft_deals"):
            default = f"one of these three: {one_source}"
        rows.append(f"| `{key}` | {kind} | {cell(default)} | {cell(_allowed_by_validator(PROBES[key]))} | {meaning} |")

    ref_rows = ["| key | allowed |", "| --- | --- |"]
    ref_rows += [f"| `{k}` | {cell(v)} |" for k, v in config.REFERENCE_KEYS.items()]

    games = ["| game | presets | switches (each links to its table) | deal sources |", "| --- | --- | --- | --- |"]
    for name in game_names():
        g = get_game(name)
        games.append(
            f"| [`{name}`](games/{name}.md) | {', '.join(code(p) for p in g.presets) or '-'} | "
            f"{', '.join(f'`{s}`' for s in g.switches())} | {', '.join(sorted(g.deal_sources))} |"
        )
    return {
        "study-keys": "\n".join(rows) + "\n",
        "reference-keys": "\n".join(ref_rows) + "\n",
        "variant-keys": "\n".join(games) + "\n",
        "batch-size-default": f"`{config.DEFAULT_BATCH_SIZE:,}`",
        "study-limits": study_limits(),
    }


def study_limits() -> str:
    """The bounds the validator puts on every study, one bullet each, from pipeline/config.py's constants."""
    from pipeline import config as c

    return "\n".join(
        [
            f"- The study file: a regular file of at most {c.MAX_STUDY_BYTES:,} bytes; YAML nested at most "
            f"{c.MAX_YAML_DEPTH} levels deep, with at most {c.MAX_YAML_ALIASES:,} aliases (`*name`) and at most "
            f'{c.MAX_YAML_NODES:,} nodes once they are expanded (a "billion laughs" file is refused at once).',
            f"- At most {c.MAX_VARIANTS:,} variants, `variants` and `grid` together: a grid's size is the product of "
            "its lists' lengths, checked before any variant is made, and the refusal names each axis.",
            f"- `deals`: at most {c.MAX_DEALS:,} per variant; and at most {c.MAX_UNITS:,} work units (variants x "
            "chunks of `batch_size`).",
            f"- `deals_file`: a regular file (not a FIFO or a device) of at most {c.MAX_DEALS_FILE_BYTES:,} bytes.",
            f"- `microsoft_deals`: at most {c.MAX_MICROSOFT_DEALS:,} deal numbers, counted from the ranges "
            "before any is listed.",
            "- `reference` figures: finite numbers (not `.nan` or `.inf`).",
        ]
    )


def command_limits() -> str:
    """The bounds of `patience query` and `patience plan`, from the constants the commands use."""
    from pipeline.report import QUERY_MAX_PARQUET_ROWS, QUERY_MAX_ROWS
    from pipeline.sample_sizes import HALFWIDTH_MIN

    return "\n".join(
        [
            f"- `patience query`: a result holds at most {QUERY_MAX_ROWS:,} rows (`--limit`, the rows the table "
            f"shows, is 1 to that), or {QUERY_MAX_PARQUET_ROWS:,} with `--format parquet --output FILE`, which "
            "polars streams to the file. A larger result (a join that multiplies rows) is refused with exit code "
            "2 within seconds, and no file is left: the limit is pushed into the query, so polars stops one row "
            "past it. The bound is on rows because polars has no memory limit a process can set and survive. For "
            "larger tables read the parts with polars or DuckDB ([Querying results](querying.md)).",
            f"- `patience plan --halfwidth`: at least {HALFWIDTH_MIN:g}. Smaller ones soon ask for more deals than "
            "2^53, the largest count a float holds exactly (10^-8 asks for 9.6 x 10^15 at p = 0.5), and 1e-200 "
            "squared is 0 in a float.",
            "- `run --out`: a path under a regular file, or on a read-only file system, is refused naming it, even "
            "for a finished run with nothing to do; so is a file named `_tmp` in it, while a `_tmp/` that a failed "
            "start left (nothing in it but temporary files) does not block the next run.",
            "- Study files: see [Studies, Limits](studies.md#limits).",
        ]
    )


# --- commands ---------------------------------------------------------------------------------------------------


def _type_name(param) -> str:
    if getattr(param, "is_flag", False):
        return "flag"
    if param.metavar:
        return param.metavar
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    text = getattr(annotation, "__name__", None) or str(annotation)
    text = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER", "Path": "PATH", "bool": "flag"}.get(text, text)
    return text if "list" not in str(annotation) else "TEXT"


def _commands():
    """(name, click command) of every command of the Typer app, in its order."""
    import typer

    from pipeline.cli import app

    group = typer.main.get_command(app)
    ctx = group.context_class(group, info_name="patience")
    return [(name, group.get_command(ctx, name)) for name in group.list_commands(ctx)]


def command_summary() -> str:
    """One row per command: its name, linked to its section below, and the first line of its help."""
    rows = ["| command | what it does |", "| --- | --- |"]
    for name, cmd in _commands():
        first = textwrap.dedent(cmd.help or "").strip().split("\n\n")[0].replace("\n", " ")
        rows.append(f"| [`patience {name}`](#patience-{name}) | {cell(first)} |")
    return "\n".join(rows) + "\n"


def commands_part() -> str:
    md = []
    for name, cmd in _commands():
        args = [p for p in cmd.params if not p.opts[0].startswith("-")]
        opts = [p for p in cmd.params if p.opts[0].startswith("-")]
        usage = " ".join(
            ["patience", name]
            + [p.name.upper() if p.required else f"[{p.name.upper()}]" for p in args]
            + (["[OPTIONS]"] if opts else [])
        )
        md += [f"### `patience {name}`", "", f"```text\n{usage}\n```", "", textwrap.dedent(cmd.help or "").strip(), ""]
        md += ["| argument or option | takes | default | what it does |", "| --- | --- | --- | --- |"]
        for p in args + opts:
            label = ", ".join(f"`{o}`" for o in p.opts + p.secondary_opts) if p in opts else f"`{p.name.upper()}`"
            default = "required" if p.required else "" if p.default in (None, False, [], ()) else code(p.default)
            takes = _type_name(p) + (" (repeatable)" if getattr(p, "multiple", False) else "")
            md.append(f"| {label} | {cell(takes)} | {cell(default)} | {cell(getattr(p, 'help', '') or '')} |")
        md.append("")
    return "\n".join(md)


# --- pages written by hand whose links were written for the repository's root -----------------------------------


def fix_root_links() -> None:
    """A link written to be read from the repository's root (``docs/x.md``) is given the path the site needs."""
    for path in sorted(DOCS.glob("*.md")):
        if path.name in GENERATED:
            continue
        text = path.read_text(encoding="utf-8")
        fixed = re.sub(r"\]\(docs/([\w./-]+\.md(?:#[\w-]*)?)\)", r"](\1)", text)
        if fixed != text:
            write(path.name, fixed, path.name)


# --- the build --------------------------------------------------------------------------------------------------

ROWS = results()
for game_name in game_names():
    write(f"games/{game_name}.md", game_page(game_name, ROWS), "gen_pages.py")
write("games/index.md", games_index(), "gen_pages.py")
add_games_to_nav()

fill("studies.md", studies_parts())
fill(
    "commands.md",
    {"command-summary": command_summary(), "commands": commands_part(), "command-limits": command_limits()},
)
fill("results.md", {"results-table": results_by_game(ROWS)})
fix_root_links()
