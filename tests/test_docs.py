"""The README and the manual hold only commands that work, and the site builds.

- The README's quickstart is run as written, line by line, in a folder that holds only ``configs/`` and
  ``.venv/`` (links to the project's), as a new user would run it from a fresh clone.
- Every other ``patience`` command in a shell block of the README or of ``docs/`` is run too where it can run
  here (a study is validated instead of run, except the quickstart's); one that names things that exist only
  elsewhere (a cluster's address, a bucket, a run the reader made) is parsed by the command line itself, so an
  option or a command that is renamed fails here.  The ``patience`` commands quoted in prose name commands and
  options that exist.  ``make`` targets exist, and the Python examples of the querying page run.
- ``mkdocs build --strict`` builds the site (a broken link, a page missing from the nav, a generated page whose
  source changed shape, all fail it), and the README's headline figures are the ones the results page shows.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import yaml

from pipeline.cli import app

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "game_notes").glob("*.md"))]
VENV_BIN = Path(sys.executable).parent
# Things a reader supplies that a test machine does not have: a command naming one is parsed, not run.
ELSEWHERE = re.compile(r"HEAD_IP|my-bucket|/shared/|\.\.\.|pm_old|pm_new|RUN_DIR|STUDY\.yaml")

GROUP = typer.main.get_command(app)


def shell_blocks(text: str) -> list[str]:
    """The bodies of the ``sh`` code blocks of a Markdown text."""
    return re.findall(r"^```(?:sh|bash|shell)\n(.*?)^```", text, re.S | re.M)


def commands(block: str) -> list[list[str]]:
    """The commands of a shell block: continuation lines joined, comments dropped, each split as the shell would."""
    text = block.replace("\\\n", " ")
    return [argv for line in text.splitlines() if (argv := shlex.split(line, comments=True))]


def section(path: Path, heading: str) -> str:
    text = path.read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def patience_argv(argv: list[str]) -> list[str] | None:
    """The arguments after ``patience`` (or ``.venv/bin/patience``), or None for another program."""
    if argv and argv[0] in ("patience", ".venv/bin/patience"):
        return argv[1:]
    return None


def parse(args: list[str]) -> None:
    """Parse ``patience ARGS`` as the command line would, running nothing (bad names or values raise)."""
    cmd = GROUP.commands.get(args[0])
    if cmd is None:
        raise ValueError(f"no command {args[0]!r}")
    cmd.make_context(args[0], list(args[1:]))


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory) -> Path:
    """A folder laid out as a fresh clone is for a user: the studies and the built environment, nothing else."""
    home = tmp_path_factory.mktemp("newcomer")
    (home / "configs").symlink_to(ROOT / "configs")
    (home / ".venv").symlink_to(VENV_BIN.parent)
    return home


def run_as_written(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{shlex.join(argv)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def quickstart(newcomer) -> dict[str, str]:
    """The README's quickstart, every command as written, in order; what each printed."""
    out = {}
    for block in shell_blocks(section(README, "Quickstart")):
        for argv in commands(block):
            out[shlex.join(argv)] = run_as_written(argv, newcomer).stdout
    return out


def test_readme_is_a_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; the front door holds at most 250"
    for heading in ("## Two commands", "## Quickstart", "## Headline results", "## The manual"):
        assert heading in lines


def test_quickstart_runs_as_written(quickstart, newcomer):
    steps = list(quickstart)
    assert [s.split()[1] for s in steps] == ["run", "compare", "query", "report"], steps
    assert "clarke" in quickstart[steps[0]] and "masten" in quickstart[steps[0]]
    assert "paired" in quickstart[steps[1]] and "McNemar" in quickstart[steps[1]]
    assert "pysolfc" in quickstart[steps[2]]
    html = (newcomer / "report.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html


def test_quickstart_own_study_validates(newcomer):
    """The study the README shows as "your own" is one the validator accepts."""
    text = re.findall(r"^```yaml\n(.*?)^```", section(README, "Quickstart"), re.S | re.M)[0]
    (newcomer / "my-study.yaml").write_text(text, encoding="utf-8")
    done = run_as_written([".venv/bin/patience", "validate", "my-study.yaml"], newcomer)
    assert "no_cascade" in done.stdout


def every_shell_command() -> list[tuple[str, list[str]]]:
    return [
        (path.relative_to(ROOT).as_posix(), argv)
        for path in PAGES
        for block in shell_blocks(path.read_text(encoding="utf-8"))
        for argv in commands(block)
    ]


def test_every_shell_command_in_the_docs_works(quickstart, newcomer):
    """Each command of a shell block: run (validated, for another study than the quickstart), or parsed."""
    seen = {"run": 0, "validated": 0, "parsed": 0, "make": 0}
    for page, argv in every_shell_command():
        text = shlex.join(argv)
        if argv[0] == "make":
            target = next((a for a in argv[1:] if "=" not in a), "")
            for a in argv[1:]:
                if a.startswith("STUDY="):
                    assert (ROOT / a.split("=", 1)[1]).exists(), f"{page}: {text}: no such study"
            done = subprocess.run(["make", "-n", "-C", str(ROOT), target], capture_output=True, text=True)
            assert done.returncode == 0, f"{page}: {text}: {done.stderr}"
            seen["make"] += 1
            continue
        args = patience_argv(argv)
        if args is None:  # ray start, ray job submit, export: not ours to run
            assert argv[0] in ("ray", "export"), f"{page}: a command of an unknown program: {text}"
            continue
        parse(args)
        if ELSEWHERE.search(text):
            seen["parsed"] += 1
        elif text in quickstart:
            seen["run"] += 1
        elif args[0] == "run" and args[1] != "configs/quickstart.yaml":
            options = [a for a in args[2:] if a not in ("--backend", "serial", "ray", "--fresh")]
            run_as_written([".venv/bin/patience", "validate", args[1], *options], newcomer)
            seen["validated"] += 1
        else:
            run_as_written([".venv/bin/patience", *args], newcomer)
            seen["run"] += 1
    assert seen["run"] >= 10 and seen["parsed"] >= 5 and seen["make"] >= 4, seen


def test_commands_quoted_in_prose_exist():
    """``patience CMD --option`` in running text: the command and each option it names exist."""
    found = 0
    for path in PAGES:
        for span in re.findall(r"`(?:\.venv/bin/)?patience ([^`]+)`", path.read_text(encoding="utf-8")):
            words = span.split()
            if words[0].isupper():  # `patience COMMAND --help`
                continue
            cmd = GROUP.commands.get(words[0])
            assert cmd is not None, f"{path.name}: `patience {span}`: no command {words[0]!r}"
            known = {opt for p in cmd.params for opt in (*p.opts, *p.secondary_opts)} | {"--help"}
            for word in words[1:]:
                option = word.strip("[]").split("=", 1)[0]
                if option.startswith("--"):
                    assert option in known, f"{path.name}: `patience {span}`: {words[0]} has no option {option}"
            for study in re.findall(r"configs/[\w.-]+\.yaml", span):
                assert (ROOT / study).exists(), f"{path.name}: `patience {span}`: no study {study}"
            found += 1
    assert found >= 20


def test_querying_examples_run(quickstart, newcomer):
    """The polars, DuckDB and pyarrow examples of docs/querying.md, on the quickstart's run."""
    blocks = re.findall(
        r"^```python\n(.*?)^```", (ROOT / "docs" / "querying.md").read_text(encoding="utf-8"), re.S | re.M
    )
    assert len(blocks) >= 3
    for block in blocks:
        done = subprocess.run([sys.executable, "-c", block], cwd=newcomer, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"docs/querying.md example failed:\n{block}\n{done.stderr}"
        assert done.stdout.strip()


def test_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs_gen_files")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [str(VENV_BIN / "mkdocs"), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    games = {p.name for p in (tmp_path / "site" / "games").iterdir() if p.is_dir()}
    from engine.registry import game_names

    assert games == set(game_names())
    studies = (tmp_path / "site" / "studies" / "index.html").read_text(encoding="utf-8")
    from pipeline.config import TOP_LEVEL_KEYS

    for key in TOP_LEVEL_KEYS:
        assert f"<code>{key}</code>" in studies, key


def test_readme_headline_figures_are_the_results_pages():
    """Each row of the README's headline table quotes a figure of docs/results.yaml (the Results page)."""
    rows = yaml.safe_load((ROOT / "docs" / "results.yaml").read_text(encoding="utf-8"))
    table = [line for line in section(README, "Headline results").splitlines() if line.startswith("| ")][2:]
    assert len(table) >= 6
    for line in table:
        cells = [c.strip() for c in line.strip("|").split("|")]
        deals, ours = cells[1], cells[2]
        assert any(ours in str(r["ours"]) for r in rows), f"README: {ours!r} is not a figure of docs/results.yaml"
        count = int(deals.split()[0].replace(",", "")) if deals[0].isdigit() else None
        if count is not None:
            assert any(ours in str(r["ours"]) and int(r["deals"]) == count for r in rows), line


REPRODUCED = re.compile(r"^(all four )?consistent\b|reproduces it|^agrees")  # a verdict that says it reproduces
SAYS_NOT = ("no published figure", "no source")  # a preset's doc that says it reproduces none


def test_every_preset_reproduces_its_source_or_says_it_does_not():
    """Each preset named for a source reproduces that source's figure: the row of docs/results.yaml that measures
    it (its ``preset`` key) has a verdict of consistent.  A preset that reproduces no figure says so in its doc,
    and its row, if any, makes no such claim."""
    from engine.registry import game_names, get_game

    rows = yaml.safe_load((ROOT / "docs" / "results.yaml").read_text(encoding="utf-8"))
    for name in game_names():
        g = get_game(name)
        for preset in g.presets:
            doc = g.preset_sources.get(preset, "")
            row = next((r for r in rows if r["game"] == name and r.get("preset") == preset), None)
            reproduced = row is not None and bool(REPRODUCED.search(str(row.get("verdict", ""))))
            says_not = any(words in doc for words in SAYS_NOT)
            assert reproduced != says_not, (name, preset, doc, row and row.get("verdict"))


def test_shell_commands_are_split_as_the_shell_splits_them():
    """The extraction itself: continuation lines, comments and quotes."""
    block = '.venv/bin/patience query results/x \\\n  "SELECT 1 # not a comment" --format csv  # a comment\nmake test\n'
    assert commands(block) == [
        [".venv/bin/patience", "query", "results/x", "SELECT 1 # not a comment", "--format", "csv"],
        ["make", "test"],
    ]
    with pytest.raises(Exception, match="No such option"):
        parse(["run", "configs/quickstart.yaml", "--no-such-option"])
    with pytest.raises(ValueError, match="no command"):
        parse(["runn", "configs/quickstart.yaml"])
