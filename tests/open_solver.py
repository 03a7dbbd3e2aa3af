"""The open solitaires' solver as one namespace for the tests: every public name of engine/search's modules and
of engine/games/open_family.py, and the modules themselves (``osol.solver``) for monkeypatching a module's own
global where that module reads it."""

from engine.games import open_family  # noqa: F401
from engine.games.open_family import *  # noqa: F403
from engine.search import (  # noqa: F401
    best_first,
    control,
    depth_first,
    encoding,
    expansion,
    guide,
    lines,
    moves,
    position_table,
    positions,
    safe_moves,
    schedule,
    solver,
    sweep,
    workspace,
)
from engine.search.best_first import *  # noqa: F403
from engine.search.control import *  # noqa: F403
from engine.search.depth_first import *  # noqa: F403
from engine.search.encoding import *  # noqa: F403
from engine.search.expansion import *  # noqa: F403
from engine.search.guide import *  # noqa: F403
from engine.search.lines import *  # noqa: F403
from engine.search.moves import *  # noqa: F403
from engine.search.position_table import *  # noqa: F403
from engine.search.positions import *  # noqa: F403
from engine.search.safe_moves import *  # noqa: F403
from engine.search.schedule import *  # noqa: F403
from engine.search.solver import *  # noqa: F403
from engine.search.sweep import *  # noqa: F403
from engine.search.workspace import *  # noqa: F403
