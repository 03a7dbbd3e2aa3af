"""The compact array engine: cards, seeded deals, and one module per game.

numpy + numba only; nothing here knows about Ray, Parquet, YAML or the CLI.
Importing the package points numba's on-disk cache at a per-user folder (unless
NUMBA_CACHE_DIR is already set) so a second process reuses compiled kernels
instead of compiling them again.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENGINE_VERSION = "0.1.0"


def _default_numba_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "patience" / "numba")


os.environ.setdefault("NUMBA_CACHE_DIR", _default_numba_cache_dir())
if "numba" in sys.modules:  # numba read its config before us: point it at the same folder
    sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
