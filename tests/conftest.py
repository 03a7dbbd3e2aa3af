"""The order in which test files reach pytest-xdist's workers (``make test``: ``-n auto --dist loadfile
--no-loadscope-reorder``).

Each worker runs whole files and takes the next one when it runs dry, in collection order.  On a fresh clone
most of a file's time can be numba compiling its kernels (about 120 s for the open-solitaire searches, 60 s for
Amazons' solver, 35 s for Perpetual Motion's), so the files that take longest come first, the longest tasks
first, and no worker is left with a long one while the other idles.  The first file compiles the
open-solitaire kernels; the other files that use them come after the next two (other kernels, on the other
worker), by which time the compiled kernels are in the cache and are loaded, not compiled twice.  Measured on
this project's 2-core VM, fresh numba cache, with the disk-sweep tests' smaller Penguin deal: 544 s, against 628 s
before both (when xdist ordered the files by how many tests they hold).
"""

from __future__ import annotations

import pytest

FIRST = (  # the files that take longest on a fresh clone, longest first (their other files keep pytest's order)
    "test_open_solitaire.py",
    "test_amazons_solver.py",
    "test_perpetual_motion_solver.py",
    "test_klondike.py",  # compiles Klondike's solver before test_game_api.py needs it
    "test_disk_sweep.py",
    "test_cluster.py",
    "test_faults.py",
    "test_perpetual_motion.py",
    "test_docs.py",
    "test_open_solitaire_search.py",
    "test_object_storage.py",
    "test_open_solitaire_memory.py",
    "test_aces_up.py",
    "test_pipeline_ray.py",
    "test_auld_lang_syne.py",
)
RANK = {name: i for i, name in enumerate(FIRST)}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: RANK.get(item.path.name, len(FIRST)))  # stable: a file's tests keep their order
