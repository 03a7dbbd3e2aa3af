"""Helpers shared by the pipeline tests (not a test module)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


def cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """Run `patience ARGV` in-process; return (exit code, stdout, stderr)."""
    from pipeline.cli import main

    capsys.readouterr()
    try:
        main([str(a) for a in argv])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def write_study(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def rows(run_dir: Path) -> pl.DataFrame:
    """Every per-deal row of a run, in a canonical order."""
    from pipeline.report import scan_deals

    return scan_deals(run_dir).collect().sort("variant", "deal")


def cli_subprocess(argv: list[str], env: dict | None = None, fake: bool = False, **kw) -> subprocess.Popen:
    """Start `patience ARGV` in a child process (optionally with the fake game registered)."""
    boot = "import sys; from pipeline.cli import main; "
    if fake:
        boot = (
            f"import sys; sys.path.insert(0, {str(TESTS)!r}); import fake_game; fake_game.register(); "
            "from pipeline.cli import main; "
        )
    full_env = {**os.environ, **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-c", boot + "main(sys.argv[1:])", *map(str, argv)],
        cwd=ROOT,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative path -> sha256): what "nothing written, nothing lost" compares."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


def one_line(err: str, *needles: str) -> str:
    """The single stderr line of a refusal, checked to hold every needle and no traceback."""
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("patience: error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


@contextlib.contextmanager
def small_tmpfs(folder: Path, size: str = "8m") -> Iterator[Path]:
    """``folder`` (created) with a tmpfs of ``size`` mounted on it for the block, then unmounted: root only, the
    test skipped with the reason otherwise (a full or read-only file system made for real)."""
    import pytest

    folder.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a small tmpfs")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", folder], capture_output=True).returncode:
        pytest.skip("mount -t tmpfs is not allowed here")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", folder], capture_output=True)
