"""A solver's schedule as data: the searches a deal gets, in turn, each with its room and its switches.

A schedule is a tuple of :class:`Step`.  The solver (engine/search/solver.py) runs its steps in order, each
only while the ones before left the deal unknown.  A step names a search of :data:`SEARCHES` and may set:

- ``room``: the positions it may store, in units of the game's ``max_nodes`` (the sweep: its live positions
  and its total scale with it too);
- ``single_cards``: search runs that stand for single-card moves as those moves (never where the rules'
  runs are unlimited: docs/solvers.md, "The retry moves single cards");
- ``eager`` and ``suits``: the depth-first kernel's two streamliners (docs/solvers.md, "The streamlined
  search"), not a sound pruning: a step with either on can win a deal, never prove it lost.

As text (the open games' ``schedule`` switch, what ``patience games GAME`` prints) a schedule is steps
separated by commas, each a search's name with optional ``(key=value, ...)``, for example
``guide, line(room=2), sweep(single_cards=false)``; what a step leaves out is its search's default.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np

from engine.search.control import (
    ORDER_DEPTH_FIRST,
    ORDER_GUIDE,
    ORDER_LINE,
    ORDER_LONG_GUIDE,
    ORDER_STREAMLINED,
    ORDER_SWEEP,
)


@dataclass(frozen=True)
class Found:
    """What a plug-in search (``Search.run``) answers: its outcome (engine/outcomes.py: WON, UNSOLVABLE or
    UNKNOWN), the positions it expanded, the most cards it had up, and for a win its moves from the start
    (card codes, ``head * 64 + target``, the safe moves left out: the solver puts them back in)."""

    outcome: int
    nodes: int
    best: int
    path: np.ndarray


@dataclass(frozen=True)
class Search:
    """A search the schedule may name: the kernel it runs and its step's defaults.

    A search of the solver's own kernels sets ``order``; a plug-in search sets ``run`` instead:
    ``run(start, rel, params, ws) -> Found``, called with the deal's position as dealt (to be closed under safe
    moves by the search, as every kernel does), its relative ranks, the kernel's parameters for this step
    (``params[P_MAXNODES]`` is its room) and the solver's Workspace.  Its UNSOLVABLE counts only if it is
    ``exhaustive``."""

    order: int  # the kernel's order (engine/search/control.py); -1 for a plug-in search
    doc: str
    room: float = 1.0
    single_cards: bool = False
    eager: bool = False
    suits: bool = False
    colours_only: bool = False  # run only where cards build in alternating colours (else it has nothing to use)
    run: Callable[..., Found] | None = None
    exhaustive: bool = False


SEARCHES: dict[str, Search] = {
    "guide": Search(
        ORDER_GUIDE,
        "best-first by the guide, then also by novelty (engine/search/best_first.py), "
        "probing the streamlined and depth-first searches early",
    ),
    "streamlined": Search(
        ORDER_STREAMLINED,
        "depth first with both streamliners: only its wins count (engine/search/depth_first.py)",
        room=0.5,
        single_cards=True,
        eager=True,
        suits=True,
    ),
    "colours": Search(
        ORDER_STREAMLINED,
        "depth first with the colour streamliner alone: only its wins count",
        room=0.5,
        single_cards=True,
        suits=True,
        colours_only=True,
    ),
    "line": Search(
        ORDER_LINE,
        "depth first in Solvitaire's order of moves, the line kept as records; exhaustive",
        room=5.0,
        single_cards=True,
    ),
    "long_guide": Search(ORDER_LONG_GUIDE, "the guide's search again from the start, in room of its own", room=3.0),
    "sweep": Search(
        ORDER_SWEEP,
        "exhaustive by layers no move goes back to, each forgotten once done (engine/search/sweep.py)",
        single_cards=True,
    ),
    "depth_first": Search(
        ORDER_DEPTH_FIRST,
        "the best-first kernel in depth-first order (the retry); exhaustive",
        room=0.5,
        single_cards=True,
    ),
}


@dataclass(frozen=True)
class Step:
    """One step of a schedule: a search of :data:`SEARCHES` and its settings (None: the search's default)."""

    search: str
    room: float | None = None
    single_cards: bool | None = None
    eager: bool | None = None
    suits: bool | None = None

    def __post_init__(self) -> None:
        if self.search not in SEARCHES:
            raise ValueError(f"search {self.search!r} is not known; allowed: {', '.join(SEARCHES)}")
        if (self.eager or self.suits) and SEARCHES[self.search].order != ORDER_STREAMLINED:
            raise ValueError(
                f"search {self.search!r}: eager and suits are the depth-first kernel's streamliners; "
                "allowed only on: " + ", ".join(n for n, s in SEARCHES.items() if s.order == ORDER_STREAMLINED)
            )
        if self.room is not None and not 0 < self.room <= 1000:
            raise ValueError(
                f"search {self.search!r}: room {self.room:g} is not allowed; allowed: above 0, "
                "at most 1000 (units of max_nodes)"
            )

    def resolved(self) -> Step:
        """The step with every setting given (the search's defaults filled in)."""
        s = SEARCHES[self.search]
        return Step(
            self.search,
            s.room if self.room is None else self.room,
            s.single_cards if self.single_cards is None else self.single_cards,
            s.eager if self.eager is None else self.eager,
            s.suits if self.suits is None else self.suits,
        )

    def positions(self, max_nodes: int) -> int:
        """The positions this step may store under a budget of ``max_nodes``."""
        return max(1, int(max_nodes * self.resolved().room))


DEFAULT_SCHEDULE: tuple[Step, ...] = tuple(
    Step(name) for name in ("guide", "streamlined", "colours", "line", "long_guide", "sweep")
)

_STEP = re.compile(r"^\s*([a-z_]+)\s*(?:\((.*)\))?\s*$")
_BOOLS = {"true": True, "false": False}


def parse_schedule(text: str) -> tuple[Step, ...]:
    """Steps from their text (the module docstring); ValueError naming the step and what is allowed."""
    if not text.strip():
        raise ValueError("the schedule names no search")
    steps = []
    for part in _split(text):
        m = _STEP.match(part)
        if not m:
            raise ValueError(
                f"step {part.strip()!r} is malformed; expected a search's name, optionally with (key=value, ...)"
            )
        name, args = m.group(1), m.group(2)
        if name not in SEARCHES:
            raise ValueError(f"search {name!r} is not known; allowed: {', '.join(SEARCHES)}")
        values: dict[str, object] = {}
        for item in filter(None, (a.strip() for a in (args or "").split(","))):
            key, _, value = (x.strip() for x in item.partition("="))
            if key == "room":
                try:
                    values[key] = float(value)
                except ValueError:
                    raise ValueError(f"search {name!r}: room {value!r} is not a number") from None
            elif key in ("single_cards", "eager", "suits"):
                if value.lower() not in _BOOLS:
                    raise ValueError(f"search {name!r}: {key} {value!r} is not allowed; allowed: true, false")
                values[key] = _BOOLS[value.lower()]
            else:
                raise ValueError(
                    f"search {name!r}: setting {key!r} is not known; allowed: room, single_cards, eager, suits"
                )
        steps.append(Step(name, **values))  # type: ignore[arg-type]
    return tuple(steps)


def _split(text: str) -> list[str]:
    """Split at the commas outside parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]


def format_schedule(steps: tuple[Step, ...], full: bool = False) -> str:
    """The steps as text; with ``full`` every setting written out, else only those that differ from the
    search's default."""
    out = []
    for step in steps:
        r, d = step.resolved(), Step(step.search).resolved()
        items = [
            f"{f.name}={_text(getattr(r, f.name))}"
            for f in fields(Step)[1:]
            if full or getattr(r, f.name) != getattr(d, f.name)
        ]
        out.append(step.search + (f"({', '.join(items)})" if items else ""))
    return ", ".join(out)


def _text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else f"{value:g}" if isinstance(value, float) else str(value)


def canonical_schedule(text: str) -> str:
    """The schedule switch's check: the text in its shortest form, or ValueError."""
    return format_schedule(parse_schedule(text))


DEFAULT_SCHEDULE_TEXT = format_schedule(DEFAULT_SCHEDULE)
SCHEDULE_DOC = (
    "the searches a deal gets, in turn, each only if those before left it unknown; room in units of "
    "max_nodes (docs/solvers.md, The schedule)"
)


def describe_schedule(text: str) -> list[str]:
    """One line per step: the search, every setting, and what the search does (for ``patience games``)."""
    lines = []
    for k, step in enumerate(parse_schedule(text), start=1):
        r = step.resolved()
        streamliners = [n for n in ("eager", "suits") if getattr(r, n)] or ["none"]
        lines.append(
            f"{k}. {step.search}: room {r.room:g} x max_nodes, single cards {_text(r.single_cards)}, "
            f"streamliners {'+'.join(streamliners)}; {SEARCHES[step.search].doc}"
        )
    return lines


def add_search(name: str, search: Search) -> None:
    """Make ``search`` one a schedule may name (docs/adding_a_search.md); ValueError if the name is taken or
    is not a plain lower-case word."""
    if not re.fullmatch(r"[a-z][a-z_]*", name):
        raise ValueError(f"search name {name!r}: allowed: lower-case letters and underscores")
    if name in SEARCHES:
        raise ValueError(f"search {name!r} exists already")
    if (search.run is None) == (search.order < 0):
        raise ValueError(f"search {name!r}: give either a kernel's order or run, not both or neither")
    SEARCHES[name] = search
