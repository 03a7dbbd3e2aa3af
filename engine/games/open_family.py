"""The game surface shared by the open solitaires: play_batch, play_one and check_solution, once.

A game module declares what is its own (its rules record, presets, layout and reference) and a
:class:`OpenGame` turns it into a GameSpec: every deal solved by engine/search/solver.py, every win located
in the reference's layout, written as fc-solve's notation and replayed by the reference before it is
reported.  The switches every open game shares (max_seconds, disk_positions) have their docs here.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from engine.cards import DECK_52
from engine.deals import batch_of_deals, read_only_uint8
from engine.outcomes import OUTCOMES, UNKNOWN, UNSOLVABLE, WON, SolverError
from engine.reference import open_solitaire as ref
from engine.registry import Column, GameSpec, PlayResult, new_columns
from engine.rules import switch
from engine.search.positions import EMPTY_ANY, EMPTY_NONE, EMPTY_TOP_RANK, TO_CELL, TO_EMPTY, TO_FOUNDATION
from engine.search.schedule import (
    DEFAULT_SCHEDULE_TEXT,
    SCHEDULE_DOC,
    SEARCHES,
    Step,
    canonical_schedule,
    describe_schedule,
    parse_schedule,
)
from engine.search.solver import Solution, SolverRules, deal_position, solve_state
from engine.search.sweep import SWEEP_LIVE
from engine.search.workspace import Workspace


def max_nodes_doc(line_room: float, line_memory: str) -> str:
    """The max_nodes switch's help where the default is 10^7 (Baker's Game, FreeCell, King Albert): what it
    costs, with the game's room for the line search (its schedule's ``line`` step) and what that takes."""
    return (
        "positions the solver may store before it answers unknown (about 60 to 90 bytes each, taken only as "
        "used: about 1 GB at the default, 2.4 GB at 30000000; a deal the first searches leave unknown goes "
        f"on to the line search, which stores up to {line_room:g} x as many{line_memory}, then to the guide "
        f"again with {SEARCHES['long_guide'].room:g} x as many, and last to the sweep, "
        f"which holds up to {SWEEP_LIVE} x as many: about 3.1 GiB at the default, and writes each position's "
        "link, 8 bytes, to a temporary file)"
    )


# The games' max_seconds switch (its one-line doc, what `patience games GAME` prints, and its bound)
MAX_SECONDS_DOC = (
    "CPU seconds the solver may spend on one deal before it answers unknown (0: no limit); NOT "
    "reproducible: a deal near the limit may get another verdict on another machine or load"
)
MAX_SECONDS_HI = 86_400

# The games' disk_positions switch: the sweep with its levels on disk (engine/disk_sweep.py), off by default
DISK_POSITIONS_DOC = (
    "positions the sweep with its levels on disk may store, last, for a deal every other search "
    "leaves unknown (0: not run): an exhaustive search whose memory stays near 2 GiB however "
    "many (2.4 GiB at most on the deals measured), but which takes 2.5 to 7 CPU-microseconds a "
    "position and temporary files in TMPDIR (tens of GB while the largest layers last: 27 GB on "
    "FreeCell with 6 columns deal 2478, unsolvable in 1.8x10^9 positions and 128 CPU-minutes): "
    "10^9 is over an hour a deal"
)
DISK_POSITIONS_HI = 10_000_000_000

# Baker's Game's and FreeCell's max_nodes help (King Albert sets its own)
MAX_NODES_DOC = max_nodes_doc(SEARCHES["line"].room, ", about 3.3 GB at the default")


def schedule_switch(default: str = DEFAULT_SCHEDULE_TEXT) -> Any:
    """The open games' ``schedule`` switch (engine/search/schedule.py): the searches a deal gets, in turn."""
    return switch(
        default,
        SCHEDULE_DOC,
        check=canonical_schedule,
        explain=describe_schedule,
        allowed="comma-separated searches (" + ", ".join(SEARCHES) + "), each with optional "
        "(room=R, single_cards=B, eager=B, suits=B)",
    )


def solver_schedule(text: str) -> tuple[Step, ...] | None:
    """The schedule switch's value for :class:`SolverRules`: None for the default schedule (the solver's
    DEFAULT_SCHEDULE), else its steps."""
    canonical = canonical_schedule(text)
    return None if canonical == DEFAULT_SCHEDULE_TEXT else parse_schedule(canonical)


EMPTY_CODES = {"any": EMPTY_ANY, "kings": EMPTY_TOP_RANK, "none": EMPTY_NONE}  # empty_column switch -> kernel code

SOLVER_COLUMNS = (
    Column(
        "nodes",
        "int64",
        "positions the solver expanded, every search it made of the deal together (the guide, "
        "its probes, the streamlined search, the sweep)",
    ),
    Column("seconds", "float64", "time the solver took for this deal (not reproducible: depends on the machine)"),
    Column(
        "solution",
        "string",
        "the winning line in fc-solve's standard notation (columns 1-9 and 0 for a tenth, "
        "cells a-g and k, foundation h; e.g. '3h 1a a5 54v3'), safe foundation moves included; empty when not won",
    ),
)


def reference_moves(deal_or_layout, ref_rules, codes: np.ndarray, reference: ModuleType = ref) -> list:
    """Turn the solver's card codes into moves by locating cards in a plain layout of ``reference`` (a reference
    module: ``engine/reference/open_solitaire.py`` unless a game has its own).

    Locating is all this does; legality is judged afterwards by the reference checker.
    """
    if isinstance(deal_or_layout, reference.Layout):
        layout = deal_or_layout.copy()
    else:
        layout = reference.deal_layout(deal_or_layout, ref_rules)
    names = {TO_EMPTY: "empty", TO_CELL: "cell", TO_FOUNDATION: "foundation"}
    moves = []
    for code in codes:
        head, target = int(code) // 64, int(code) % 64
        move = reference.card_move(layout, head, names.get(target, target))
        if reference.illegal_reason(layout, move, ref_rules) is not None:
            moves.append(move)  # the checker will name the problem
            break
        reference.apply_move(layout, move)
        moves.append(move)
    return moves


def row_of(sol: Solution, text: str) -> dict:
    won = sol.outcome == WON
    return {
        "outcome": OUTCOMES[sol.outcome],
        "won": won,
        "rounds": 0,
        "moves": len(text.split()) if won else 0,
        "cards_left": 0 if won else 52 - sol.best_foundation,
        "nodes": sol.nodes,
        "seconds": sol.seconds,
        "solution": text,
    }


class OpenGame:
    """The functions a :class:`GameSpec` needs (``play_batch``, ``play_one``, ``check_solution``) for an open
    solitaire, from the game's two readings of its rules record.

    A game module keeps what is its own (rules record, presets, layout, the docstring with its rule readings),
    writes ``solver_rules(rules) -> SolverRules`` for this solver and ``reference_rules(rules)`` for its judge,
    and binds the methods of one instance as its module-level ``play_batch``, ``play_one`` and
    ``check_solution`` (a bound method pickles as this class and the instance's two rules functions, each
    found by name, so Ray can ship it).  Every win is replayed by the reference before it is reported.

    A game whose judge is not ``engine/reference/open_solitaire.py`` (King Albert) subclasses this and sets
    ``reference`` (the module: ``Layout``, ``deal_layout``, ``card_move``, ``illegal_reason``, ``apply_move``,
    ``format_solution``, ``check_solution_text``, ``parse_move``, ``describe``, ``layout_lines``) and
    ``columns``, and overrides ``position`` or ``parse_move`` where its layout or notation differ.
    """

    reference: ModuleType = ref  # the judge: lays out a deal, writes and replays the solution text
    columns: tuple[Column, ...] = SOLVER_COLUMNS  # extra_columns of the GameSpec

    def __init__(self, solver_rules: Callable[[Any], SolverRules], reference_rules: Callable[[Any], Any]):
        self.solver_rules = solver_rules
        self.reference_rules = reference_rules

    # --- the GameSpec functions, on the game's rules record ---

    def play_batch(self, decks: np.ndarray, rules: Any) -> dict[str, np.ndarray]:
        """Solve every deal of ``decks`` (uint8[n, 52]); one array per output column."""
        return self.play_batch_with(decks, self.solver_rules(rules), self.reference_rules(rules))

    def play_one(self, deal: np.ndarray, rules: Any, trace: bool = False) -> PlayResult:
        """Solve one deal; with ``trace`` the layout and the checked solution move by move."""
        return self.play_one_with(deal, self.solver_rules(rules), self.reference_rules(rules), trace)

    def check_solution(self, deal: np.ndarray, rules: Any, text: str) -> str | None:
        """Replay solution text from the deal with the reference: None if it wins, else why not."""
        return self.check_solution_with(self.reference_rules(rules), deal, text)

    def game_spec(self, **fields: Any) -> GameSpec:
        """The game's GameSpec: ``fields`` are what is its own (name, title, doc, rules_type, presets, and
        deal_sources where it differs); the deck, the columns, the functions and the outcomes are the open games'."""
        return GameSpec(
            deck=DECK_52,
            extra_columns=self.columns,
            play_batch=self.play_batch,
            play_one=self.play_one,
            check_solution=self.check_solution,
            outcomes=tuple(OUTCOMES[c] for c in (WON, UNSOLVABLE, UNKNOWN)),
            **fields,
        )

    # --- the same on the solver's and the reference's rules ---

    @classmethod
    def position(cls, deal: np.ndarray, rules: SolverRules, ref_rules: Any) -> tuple[np.ndarray, np.ndarray]:
        """The kernel's opening position and relative ranks for a deal (here the kernel's own layout)."""
        return deal_position(deal, rules)

    @classmethod
    def parse_move(cls, token: str, layout: Any, ref_rules: Any) -> Any:
        return cls.reference.parse_move(token, layout, ref_rules)

    @classmethod
    def solve_one(
        cls, deal: np.ndarray, rules: SolverRules, ref_rules: Any, ws: Workspace | None = None
    ) -> tuple[Solution, str]:
        """Solve one deal; for a win, its solution text, which the checker has parsed and replayed to the end."""
        st, rel = cls.position(deal, rules, ref_rules)
        sol = solve_state(st, rel, rules, ws)
        text = ""
        if sol.outcome == WON:
            layout, text = cls.line_text(deal, ref_rules, sol.codes)
            why = cls.reference.check_solution_text(layout, ref_rules, text)
            if why is not None:
                raise SolverError(f"solver's solution rejected by the checker: {why}")
        return sol, text

    @classmethod
    def line_text(cls, deal: np.ndarray, ref_rules: Any, codes: np.ndarray) -> tuple[Any, str]:
        """The judge's opening layout of ``deal`` and a line of card codes written as solution text (located in
        the layout, not yet checked)."""
        judge = cls.reference
        try:
            layout = judge.deal_layout([int(c) for c in deal], ref_rules)
            return layout, judge.format_solution(layout, ref_rules, reference_moves(layout, ref_rules, codes, judge))
        except Exception as exc:  # noqa: BLE001 - a card the layout does not hold: a solver bug
            raise SolverError(f"solver's solution cannot be located in the layout: {exc}") from None

    @classmethod
    def play_batch_with(cls, decks: np.ndarray, rules: SolverRules, ref_rules: Any) -> dict[str, np.ndarray]:
        """Solve every deal of ``decks`` (uint8[n, 52]); every win is replayed by the checker."""
        decks = batch_of_deals(decks, 52)
        out = new_columns(decks.shape[0], cls.columns)  # rounds stay 0: no stock passes
        ws = Workspace()
        for g in range(decks.shape[0]):
            sol, text = cls.solve_one(decks[g], rules, ref_rules, ws)
            row = row_of(sol, text)
            out["outcome"][g] = sol.outcome
            for k in ("moves", "cards_left", "nodes", "seconds", "solution"):
                out[k][g] = row[k]
        return out

    @classmethod
    def play_one_with(cls, deal: np.ndarray, rules: SolverRules, ref_rules: Any, trace: bool) -> PlayResult:
        """One deal: the solver's verdict, and with ``trace`` the layout and the checked solution in words."""
        deal = read_only_uint8(np.asarray(deal))
        sol, text = cls.solve_one(deal, rules, ref_rules)
        row = row_of(sol, text)
        lines: list[str] = []
        if trace:
            judge = cls.reference
            layout = judge.deal_layout([int(c) for c in deal], ref_rules)
            lines += judge.layout_lines(layout)
            for k, token in enumerate(text.split(), start=1):
                move = cls.parse_move(token, layout, ref_rules)  # the text was checked: every token is a legal move
                lines.append(f"{k:4d}. {token:<5} {judge.describe(layout, move)}")
                judge.apply_move(layout, move)
            verdict = {
                WON: "won",
                UNSOLVABLE: "unsolvable (exhaustive search)",
                UNKNOWN: "unknown (max_nodes or max_seconds reached)",
            }
            lines.append(
                f"{verdict[sol.outcome]}: {row['moves']} moves, {sol.nodes} positions expanded, {sol.seconds:.3f} s"
            )
        return PlayResult(row=row, trace=lines)

    @classmethod
    def check_solution_with(cls, ref_rules: Any, deal: np.ndarray, text: str) -> str | None:
        """``GameSpec.check_solution`` on the reference's rules: the reference parses and replays ``text``."""
        try:
            cards = [int(c) for c in np.asarray(deal).reshape(-1)]
        except (TypeError, ValueError) as exc:
            return f"the deal cannot be read ({exc})"
        if sorted(cards) != list(range(52)):
            return "the deal is not the 52 cards of the deck"
        return cls.reference.check_solution_text(cards, ref_rules, text)


solve_one = OpenGame.solve_one  # for the games judged by engine/reference/open_solitaire.py
