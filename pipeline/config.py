"""Study config: YAML (DESIGN section 4) -> a validated, fully resolved :class:`Study`.

Everything a run needs is checked here, before anything is written: every
variant is resolved to its full rule set (game defaults < preset < variant
overrides < ``--set``), the deal source is read and checked, and every problem
becomes one :class:`BadInput` line naming the file, the line, the field, the
bad value and what is allowed.  The pipeline stays game-agnostic: it only asks
``engine.registry`` about the game.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import quote

import numpy as np
import yaml

from engine import ENGINE_VERSION
from engine.deals import MAX_LISTED_NUMBERS, U64_MAX, DealError, count_numbers, number_ranges, parse_deal
from engine.registry import GameSpec, game_names, get_game
from engine.rules import RuleError, parse_assignment, rules_dict
from pipeline.errors import BadInput

TOP_LEVEL_KEYS = (
    "study",
    "game",
    "deals",
    "seed",
    "deals_file",
    "microsoft_deals",
    "batch_size",
    "variants",
    "grid",
    "reference",
)
REFERENCE_KEYS = {
    "win_rate": "published win rate, a number in 0..1",
    "ci95": "half-width of its 95% interval, a number in 0..1",
    "mean_rounds_won": "mean rounds (passes) of won deals, a number >= 0",
    "mean_rounds": "mean rounds over all deals, a number >= 0",
    "source": "where the figure was published, text",
    "context": "true when the figure's rules were never stated: shown beside ours as context, with no verdict",
}
DEFAULT_BATCH_SIZE = 10_000
MICROSOFT_MAX = (1 << 31) - 1

# Every input is bounded, so that no study can crash or hang `validate` or `run` (issue 54): each cap is
# far above what a real study uses and far below what would exhaust a laptop.
MAX_STUDY_BYTES = 1 << 20  # a study is a page of YAML (the largest in configs/ is under 3 KB)
MAX_YAML_DEPTH = 32  # a study nests 4 levels (variants > name > switch > value); Python recursion is safe to 32
MAX_YAML_ALIASES = 1_000  # anchors reuse a block a few times; thousands of aliases are an attack, not a study
MAX_YAML_NODES = 1_000_000  # nodes once aliases are expanded: a billion-laughs file would expand to 10^9
MAX_VARIANTS = 10_000  # each variant is a folder of parts and a row of every report; validate checks each
MAX_DEALS = 10**12  # per variant: over 100 core-days of the fastest game (10^5 deals/s), counts exact in int64
MAX_UNITS = 10**8  # the driver keeps one byte per unit, and resume lists one part file per unit
MAX_DEALS_FILE_BYTES = 16 << 20  # about 100,000 deals of 52 cards, every line checked in Python (about 5 s)
MAX_MICROSOFT_DEALS = MAX_LISTED_NUMBERS  # held in memory, and every reader of the run lists them again
STUDY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
STUDY_NAME_ALLOWED = "letters, digits, '.', '_' and '-', starting with a letter or digit (it names a folder)"


# --- the resolved study --------------------------------------------------------


@dataclass(frozen=True)
class DealSource:
    """Where the deals come from.  ``deal_index(p)`` is the index of the p-th deal in source order."""

    kind: str  # "seeded", "file" or "microsoft"
    count: int
    seed: int | None = None
    path: str | None = None  # deals file, absolute
    sha256: str | None = None  # of the deals file, so a changed file is a changed config
    lines: tuple[str, ...] = ()  # deals file: the deal lines, already checked
    ranges: str | None = None  # microsoft_deals as written
    numbers: np.ndarray | None = field(default=None, compare=False)  # microsoft deal numbers, sorted

    def deal_index(self, position: int) -> int:
        return int(self.numbers[position]) if self.kind == "microsoft" else position

    def describe(self) -> dict[str, Any]:
        """The source as recorded in the manifest (and fingerprinted)."""
        if self.kind == "seeded":
            return {"kind": "seeded", "seed": self.seed, "deals": self.count}
        if self.kind == "file":
            return {"kind": "file", "deals_file": self.path, "sha256": self.sha256, "deals": self.count}
        return {"kind": "microsoft", "microsoft_deals": self.ranges, "deals": self.count}


@dataclass(frozen=True)
class Variant:
    name: str
    preset: str | None
    overrides: Mapping[str, Any]
    rules: Any  # the game's frozen rules record

    def rules_dict(self) -> dict[str, Any]:
        return rules_dict(self.rules)


@dataclass(frozen=True)
class Study:
    name: str
    game: GameSpec
    source: DealSource
    batch_size: int
    variants: dict[str, Variant]
    reference: dict[str, dict[str, Any]]
    config_path: str
    config_text: str

    def fingerprint_fields(self) -> dict[str, Any]:
        """What makes two runs interchangeable: a results folder is reused only when these are equal."""
        return {
            "game": self.game.name,
            "deal_source": self.source.describe(),
            "batch_size": self.batch_size,
            "variants": {v.name: v.rules_dict() for v in self.variants.values()},
            "engine_version": ENGINE_VERSION,
        }

    def fingerprint(self) -> str:
        blob = json.dumps(self.fingerprint_fields(), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()

    def resolved(self) -> dict[str, Any]:
        """The resolved config as the manifest records it."""
        return {
            "study": self.name,
            "game": self.game.name,
            "deal_source": self.source.describe(),
            "batch_size": self.batch_size,
            "variants": {
                v.name: {"preset": v.preset, "overrides": dict(v.overrides), "rules": v.rules_dict()}
                for v in self.variants.values()
            },
            "reference": self.reference,
        }


# --- YAML with line numbers -----------------------------------------------------


class ErrorLocation:
    """Formats one-line errors: file, line (when known), field, problem, allowed."""

    def __init__(self, path: str, lines: dict[tuple, int]):
        self.path = path
        self.lines = lines

    def line(self, fld: tuple) -> int | None:
        while fld:
            if fld in self.lines:
                return self.lines[fld]
            fld = fld[:-1]
        return None

    def fail(self, fld: tuple, problem: str, allowed: str | None = None) -> NoReturn:
        line = self.line(fld)
        loc = f"{self.path}, line {line}" if line else self.path
        name = ".".join(str(p) for p in fld)
        msg = f"{loc}: field '{name}': {problem}" if name else f"{loc}: {problem}"
        raise BadInput(msg + (f"; allowed: {allowed}" if allowed else ""))


def _index_nodes(node: yaml.Node, path: tuple, lines: dict[tuple, int], where: str) -> None:
    """Record the line of every mapping key and sequence item; refuse a key given twice."""
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node)
            line = key_node.start_mark.line + 1
            if key in seen:
                name = ".".join(str(p) for p in path + (key,))
                what = "variant" if path == ("variants",) else "key"
                raise BadInput(
                    f"{where}, line {line}: field '{name}': {what} {key!r} is given twice (lines {seen[key]} "
                    f"and {line}); allowed: each name once"
                )
            seen[key] = line
            lines[path + (key,)] = line
            _index_nodes(value_node, path + (key,), lines, where)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[path + (i,)] = item.start_mark.line + 1
            _index_nodes(item, path + (i,), lines, where)


def read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, which must be a regular file of at most ``limit`` bytes (ValueError otherwise).

    Opened without blocking and checked before reading, so a FIFO with no writer cannot hang the command, and
    read no further than ``limit``, so ``/dev/zero`` or a huge file cannot exhaust memory.  OSError as ``open``.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ValueError(f"is {_file_kind(mode)}, not a regular file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise ValueError(f"is larger than {limit:,} bytes")
    return b"".join(chunks)


def _file_kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a file"


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses, while composing, nesting deeper than MAX_YAML_DEPTH (PyYAML's composer
    recurses, so deep nesting would end in RecursionError) and more than MAX_YAML_ALIASES aliases."""

    def __init__(self, stream: str, where: str):
        super().__init__(stream)
        self.where, self.depth, self.aliases, self.field = where, 0, 0, ""

    def compose_node(self, parent, index):
        line = self.peek_event().start_mark.line + 1
        if self.depth == 1 and isinstance(index, yaml.ScalarNode):  # a top-level key's value: name it in errors
            self.field = f"field '{index.value}': "
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_YAML_ALIASES:
                raise BadInput(
                    f"{self.where}, line {line}: {self.field}more than {MAX_YAML_ALIASES:,} YAML aliases (*name); "
                    f"allowed: at most {MAX_YAML_ALIASES:,}"
                )
            return super().compose_node(parent, index)
        self.depth += 1
        if self.depth > MAX_YAML_DEPTH:
            raise BadInput(
                f"{self.where}, line {line}: {self.field}YAML nested more than {MAX_YAML_DEPTH} levels deep; "
                f"allowed: at most {MAX_YAML_DEPTH} levels (a study needs 4)"
            )
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _expanded_size(node: yaml.Node, memo: dict[int, tuple[int, int]], open_: set[int]) -> tuple[int, int]:
    """(nodes, levels) of ``node`` once its aliases are expanded, each shared node counted wherever it is used.

    Shared nodes are measured once (``memo``), so this costs the size of the file, not of the expansion.  An
    alias always names a node composed before it, so recursion follows the file's own nesting; an alias to
    a node that holds it (``open_``) would expand forever.
    """
    key = id(node)
    if key in memo:
        return memo[key]
    if key in open_:
        raise _Recursive(node)
    open_.add(key)
    if isinstance(node, yaml.MappingNode):
        children = [n for pair in node.value for n in pair]
    elif isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    else:
        children = []
    sizes = [_expanded_size(c, memo, open_) for c in children]
    open_.discard(key)
    memo[key] = (1 + sum(n for n, _ in sizes), 1 + max((d for _, d in sizes), default=0))
    return memo[key]


class _Recursive(Exception):
    """A YAML alias inside the node it names."""

    def __init__(self, node: yaml.Node):
        super().__init__()
        self.node = node


def _check_expansion(node: yaml.Node, where: str) -> None:
    """BadInput when the document, its aliases expanded, exceeds MAX_YAML_NODES nodes or MAX_YAML_DEPTH levels
    (named by its largest top-level key), or holds an alias to a node that contains it."""
    memo: dict[int, tuple[int, int]] = {}
    try:
        nodes, levels = _expanded_size(node, memo, set())
    except _Recursive as exc:
        raise BadInput(
            f"{where}, line {exc.node.start_mark.line + 1}: a YAML alias refers to the node that holds it; "
            "allowed: aliases to blocks defined before and outside them"
        ) from None
    if nodes <= MAX_YAML_NODES and levels <= MAX_YAML_DEPTH:
        return
    pairs = node.value if isinstance(node, yaml.MappingNode) else []
    worst = max(pairs, key=lambda kv: memo[id(kv[1])], default=None)
    loc, field_ = where, ""
    if worst is not None and isinstance(worst[0], yaml.ScalarNode):
        loc, field_ = f"{where}, line {worst[0].start_mark.line + 1}", f"field '{worst[0].value}': "
    if nodes > MAX_YAML_NODES:
        raise BadInput(
            f"{loc}: {field_}expands to {nodes:,} YAML nodes once its aliases (*name) are expanded; "
            f"allowed: at most {MAX_YAML_NODES:,}"
        )
    raise BadInput(
        f"{loc}: {field_}nests {levels} levels deep once its aliases (*name) are expanded; "
        f"allowed: at most {MAX_YAML_DEPTH} levels (a study needs 4)"
    )


def _parse_yaml(text: str, where: str) -> tuple[Any, dict[tuple, int]]:
    """The document and the line of every key, composed once, every bound checked before it is constructed.

    Lines are indexed before construction, which flattens merge keys (``<<: *base``) into the mapping.
    """
    loader = _BoundedLoader(text, where)
    try:
        node = loader.get_single_node()
        lines: dict[tuple, int] = {}
        if node is None:
            return None, lines
        _check_expansion(node, where)
        if isinstance(node, yaml.MappingNode):
            _index_nodes(node, (), lines, where)
        return loader.construct_document(node), lines
    finally:
        loader.dispose()


def _read_yaml(path: Path) -> tuple[dict[str, Any], str, ErrorLocation]:
    where = str(path)
    if not path.exists():
        raise BadInput(f"{where}: no such study file; allowed: a path to a YAML study (e.g. configs/quickstart.yaml)")
    if path.is_dir():
        raise BadInput(f"{where}: is a folder; allowed: a path to a YAML study file")
    allowed = f"a YAML study file of at most {MAX_STUDY_BYTES:,} bytes"
    try:
        text = read_regular_file(path, MAX_STUDY_BYTES).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{where}: cannot be read as UTF-8 text ({exc}); allowed: {allowed}") from None
    except ValueError as exc:
        raise BadInput(f"{where}: {exc}; allowed: {allowed}") from None
    except OSError as exc:
        raise BadInput(f"{where}: cannot be read ({exc.strerror or exc}); allowed: {allowed}") from None
    try:
        data, lines = _parse_yaml(text, where)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        loc = f"{where}, line {mark.line + 1}" if mark is not None else where
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise BadInput(f"{loc}: not valid YAML ({problem}); allowed: a YAML mapping of study keys") from None
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a YAML {type(data).__name__}"
        raise BadInput(
            f"{where}: the study is {kind}, not a mapping; allowed: a mapping of {', '.join(TOP_LEVEL_KEYS)}"
        )
    return data, text, ErrorLocation(where, lines)


# --- value checks ---------------------------------------------------------------


def _int(w: ErrorLocation, fld: tuple, value: Any, lo: int, hi: int) -> int:
    allowed = f"an integer in {lo}..{hi:,}" if hi < U64_MAX else f"an integer in {lo}..2^64-1"
    if isinstance(value, bool) or not isinstance(value, int):
        w.fail(fld, f"value {_show(value)} is not an integer", allowed)
    if not lo <= value <= hi:
        w.fail(fld, f"value {value} is out of range", allowed)
    return value


def _number(w: ErrorLocation, fld: tuple, value: Any, lo: float, hi: float | None, allowed: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        w.fail(fld, f"value {_show(value)} is not a number", allowed)
    if not math.isfinite(value):  # YAML's .nan and .inf would be written into run.json as NaN and Infinity
        w.fail(fld, f"value {_show(value)} is not a finite number", allowed)
    if value < lo or (hi is not None and value > hi):
        w.fail(fld, f"value {value} is out of range", allowed)
    return float(value)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (dict, list)):
        return f"{type(value).__name__} {json.dumps(value, default=str)[:60]}"
    return repr(value)


def _value_text(value: Any) -> str:
    """A switch value as it appears in a grid variant's name."""
    return str(value).lower() if isinstance(value, bool) else str(value)


# --- the loader -----------------------------------------------------------------


def load_study(
    path: str | Path,
    *,
    deals: int | None = None,
    seed: int | None = None,
    batch_size: int | None = None,
    sets: Sequence[str] = (),
) -> Study:
    """Read, check and resolve a study; command-line options override the file.  BadInput on any problem."""
    path = Path(path)
    data, text, w = _read_yaml(path)

    for key in data:
        if key not in TOP_LEVEL_KEYS:
            w.fail((key,), f"unknown key {_show(key)}", ", ".join(TOP_LEVEL_KEYS))

    # study name: it becomes a folder under results/, so it may not climb out of it.
    if "study" not in data:
        w.fail((), "field 'study' is missing", f"a name of {STUDY_NAME_ALLOWED}")
    name = data["study"]
    if not isinstance(name, str) or not STUDY_NAME.match(name) or name in (".", ".."):
        w.fail(("study",), f"value {_show(name)} is not a safe folder name", STUDY_NAME_ALLOWED)

    # game
    if "game" not in data:
        w.fail((), "field 'game' is missing", ", ".join(game_names()))
    game_name = data["game"]
    if not isinstance(game_name, str) or game_name not in game_names():
        w.fail(("game",), f"unknown game {_show(game_name)}", ", ".join(game_names()))
    game = get_game(game_name)

    source = _deal_source(data, w, path, game, deals, seed)

    bs = data.get("batch_size", DEFAULT_BATCH_SIZE)
    bs = _int(w, ("batch_size",), bs, 1, 10_000_000)
    if batch_size is not None:
        bs = _int(ErrorLocation("option --batch-size", {}), (), batch_size, 1, 10_000_000)

    overrides_cli = parse_sets(game, sets)
    variants = _variants(data, w, game, overrides_cli)
    _check_units(w, source, bs, len(variants))
    reference = _reference(data, w, variants)
    return Study(
        name=name,
        game=game,
        source=source,
        batch_size=bs,
        variants=variants,
        reference=reference,
        config_path=str(path),
        config_text=text,
    )


def _deal_source(
    data: dict, w: ErrorLocation, path: Path, game: GameSpec, deals: int | None, seed: int | None
) -> DealSource:
    given = [k for k in ("deals", "deals_file", "microsoft_deals") if k in data]
    allowed = "exactly one of deals (with seed), deals_file, microsoft_deals"
    if len(given) != 1:
        problem = f"both {given[0]!r} and {given[1]!r} are given" if len(given) > 1 else "no deal source is given"
        w.fail((given[1],) if len(given) > 1 else (), problem, allowed)
    kind = given[0]
    if kind != "deals":
        if "seed" in data:
            w.fail(("seed",), f"'seed' is used only with 'deals', not with {kind!r}", "remove seed, or use deals")
        if seed is not None:
            raise BadInput(f"option --seed: applies only to seeded studies, not to {kind!r}; allowed: no --seed")
        if deals is not None:
            raise BadInput(f"option --deals: applies only to seeded studies, not to {kind!r}; allowed: no --deals")

    if kind == "deals":
        count = _int(w, ("deals",), data["deals"], 1, MAX_DEALS)
        if deals is not None:
            count = _int(ErrorLocation("option --deals", {}), (), deals, 1, MAX_DEALS)
        s = _int(w, ("seed",), data.get("seed", 0), 0, U64_MAX)
        if seed is not None:
            s = _int(ErrorLocation("option --seed", {}), (), seed, 0, U64_MAX)
        return DealSource(kind="seeded", count=count, seed=s)

    if kind == "deals_file":
        if "file" not in game.deal_sources:
            w.fail(("deals_file",), f"game {game.name!r} cannot read deals files", ", ".join(game.deal_sources))
        value = data["deals_file"]
        if not isinstance(value, str) or not value.strip():
            w.fail(
                ("deals_file",), f"value {_show(value)} is not a path", "a path to a deals file, relative to the study"
            )
        file = Path(value)
        if not file.is_absolute():
            file = (path.parent / file).resolve()
        lines = read_deals_lines(file, game, w)
        digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
        return DealSource(kind="file", count=len(lines), path=str(file), sha256=digest, lines=tuple(lines))

    # microsoft_deals
    value = data["microsoft_deals"]
    if "microsoft" not in game.deal_sources:
        w.fail(
            ("microsoft_deals",),
            f"game {game.name!r} has no Microsoft deal numbers",
            f"the deal sources of {game.name}: {', '.join(sorted(game.deal_sources))}",
        )
    ranges = str(value).strip() if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    allowed_ms = f'numbers and ranges in 1..{MICROSOFT_MAX}, e.g. "1-1000,11982", at most {MAX_MICROSOFT_DEALS:,} deals'
    if ranges is None:
        w.fail(("microsoft_deals",), f"value {_show(value)} is not a list of deal numbers", allowed_ms)
    shown = ranges if len(ranges) <= 60 else ranges[:57] + "..."
    try:
        spans = number_ranges(ranges)  # checked before anything is expanded
    except ValueError as exc:
        w.fail(("microsoft_deals",), f"value {shown!r} is malformed ({exc})", allowed_ms)
    if spans[0][0] < 1 or spans[-1][1] > MICROSOFT_MAX:
        w.fail(("microsoft_deals",), f"value {shown!r} is out of range", allowed_ms)
    count = count_numbers(spans)
    if count > MAX_MICROSOFT_DEALS:
        w.fail(("microsoft_deals",), f"value {shown!r} names {count:,} deals, too many", allowed_ms)
    arr = np.concatenate([np.arange(lo, hi + 1, dtype=np.int64) for lo, hi in spans])
    return DealSource(kind="microsoft", count=len(arr), ranges=ranges, numbers=arr)


def read_deals_lines(file: Path, game: GameSpec, w: ErrorLocation) -> list[str]:
    """The deal lines of a deals file, every one checked (errors name the file and the line)."""
    if not file.exists() or file.is_dir():
        w.fail(("deals_file",), f"{file}: no such deals file", "a path to a deals file, relative to the study")
    allowed = f"a regular UTF-8 text file of at most {MAX_DEALS_FILE_BYTES:,} bytes, one deal per line"
    try:
        text = read_regular_file(file, MAX_DEALS_FILE_BYTES).decode("utf-8")
    except (OSError, ValueError) as exc:  # ValueError: not a regular file, too large, or not UTF-8
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        w.fail(("deals_file",), f"{file}: cannot be read ({why})", allowed)
    lines = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        try:
            parse_deal(s, game.deck, where=f"{file}, line {lineno}")
        except DealError as exc:
            w.fail(("deals_file",), str(exc), f"one deal of the {game.ncards}-card deck per line, cards like AS TD 7H")
        lines.append(" ".join(s.split()))
    if not lines:
        w.fail(("deals_file",), f"{file}: holds no deals", "one deal per line; blank and # lines are skipped")
    return lines


def parse_sets(game: GameSpec, sets: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    switches = game.switches()
    for text in sets:
        try:
            key, value = parse_assignment(text)
        except RuleError as exc:
            raise BadInput(f"option {exc}") from None
        if key not in switches:
            raise BadInput(f"option --set {text!r}: switch {key!r} is not known; allowed: {', '.join(switches)}")
        try:
            out[key] = switches[key].coerce(value)
        except RuleError as exc:
            raise BadInput(f"option --set {text!r}: {exc}") from None
    return out


def _variants(data: dict, w: ErrorLocation, game: GameSpec, cli: dict[str, Any]) -> dict[str, Variant]:
    switches = game.switches()
    specs: list[tuple[str, tuple, str | None, dict[str, Any]]] = []  # name, field, preset, overrides

    raw = data.get("variants")
    if raw is not None and not isinstance(raw, dict):
        w.fail(
            ("variants",),
            f"value {_show(raw)} is not a mapping",
            "a mapping: variant name -> {preset: ..., switch: value}",
        )
    if raw and len(raw) > MAX_VARIANTS:
        w.fail(("variants",), f"{len(raw):,} variants, too many", f"at most {MAX_VARIANTS:,} variants in a study")
    for vname, body in (raw or {}).items():
        fld = ("variants", vname)
        if not isinstance(vname, str) or not vname.strip() or len(vname) > 200 or any(ord(c) < 32 for c in vname):
            w.fail(fld, f"variant name {_show(vname)} is not a name", "non-empty text of at most 200 characters")
        body = {} if body is None else body
        if not isinstance(body, dict):
            w.fail(fld, f"value {_show(body)} is not a mapping", "{preset: NAME, switch: value, ...}")
        preset = body.get("preset")
        if preset is not None and (not isinstance(preset, str) or preset not in game.presets):
            w.fail(fld + ("preset",), f"unknown preset {_show(preset)}", ", ".join(game.presets))
        overrides = {k: v for k, v in body.items() if k != "preset"}
        for key, value in overrides.items():
            if key not in switches:
                w.fail(fld + (key,), f"unknown switch {_show(key)} of {game.name}", ", ".join(["preset", *switches]))
            try:
                switches[key].coerce(value)
            except RuleError as exc:
                w.fail(fld + (key,), str(exc))
        specs.append((vname, fld, preset, overrides))

    grid = data.get("grid")
    if grid is not None:
        if not isinstance(grid, dict) or not grid:
            w.fail(("grid",), f"value {_show(grid)} is not a mapping of lists", "a mapping: switch -> [values]")
        axes = []
        for key, values in grid.items():
            fld = ("grid", key)
            if key != "preset" and key not in switches:
                w.fail(fld, f"{_show(key)} is not a switch of {game.name}", ", ".join(["preset", *switches]))
            if not isinstance(values, list) or not values:
                w.fail(fld, f"value {_show(values)} is not a non-empty list", "a list of values, e.g. [false, true]")
            for i, value in enumerate(values):
                if key == "preset":
                    if not isinstance(value, str) or value not in game.presets:
                        w.fail(fld + (i,), f"unknown preset {_show(value)}", ", ".join(game.presets))
                else:
                    try:
                        switches[key].coerce(value)
                    except RuleError:
                        w.fail(
                            fld + (i,),
                            f"value {_show(value)} is not allowed for switch {key!r}",
                            switches[key].allowed(),
                        )
            axes.append([(key, v) for v in values])
        _check_grid_size(w, grid, len(specs))  # before a single combination is made
        for combo in itertools.product(*axes):
            vname = ",".join(f"{k}={_value_text(v)}" for k, v in combo)
            preset = next((v for k, v in combo if k == "preset"), None)
            specs.append((vname, ("grid",), preset, {k: v for k, v in combo if k != "preset"}))

    if not specs:
        w.fail(("variants",), "the study has no variants", "a 'variants' mapping and/or a 'grid' of switches")

    variants: dict[str, Variant] = {}
    for vname, fld, preset, overrides in specs:
        if (
            len(("variant=" + quote(vname, safe="")).encode()) > 255
        ):  # its folder name (pipeline.work_units.variant_dir)
            w.fail(
                fld,
                f"variant name {vname[:40]!r}... is too long for a folder name once percent-encoded",
                "a shorter name (at most 247 bytes encoded)",
            )
        if vname in variants:
            w.fail(
                fld,
                f"variant name {vname!r} is used twice (once by 'variants', once by 'grid')",
                "each variant name once",
            )
        merged = {**overrides, **cli}
        try:
            rules = game.rules(preset, merged)
        except RuleError as exc:  # values were checked one by one above; this is a preset the game got wrong
            w.fail(fld, str(exc))
        variants[vname] = Variant(name=vname, preset=preset, overrides=merged, rules=rules)
    return variants


def _check_grid_size(w: ErrorLocation, grid: dict[str, list], named: int) -> None:
    """BadInput naming the axes and their product when the grid (with ``named`` variants beside it) would make
    more than MAX_VARIANTS variants: checked from the lists' lengths, before any combination is made."""
    product = math.prod(len(values) for values in grid.values())
    if product + named <= MAX_VARIANTS:
        return
    axes = " x ".join(f"{key} ({len(values)})" for key, values in grid.items())
    besides = f" (and {named:,} in 'variants')" if named else ""
    w.fail(
        ("grid",),
        f"{axes} = {product:,} variants{besides}, too many",
        f"at most {MAX_VARIANTS:,} variants in a study: fewer values per switch, or several studies",
    )


def _check_units(w: ErrorLocation, source: DealSource, batch_size: int, variants: int) -> None:
    """BadInput when the study would make more than MAX_UNITS work units (variants x chunks of batch_size)."""
    chunks = -(-source.count // batch_size)
    if variants * chunks <= MAX_UNITS:
        return
    w.fail(
        ("batch_size",),
        f"{variants:,} variant{'s' * (variants != 1)} x {chunks:,} chunks of {batch_size:,} deals = "
        f"{variants * chunks:,} work units, too many",
        f"at most {MAX_UNITS:,} work units: a larger batch_size (up to 10,000,000), fewer deals or variants",
    )


def _reference(data: dict, w: ErrorLocation, variants: dict[str, Variant]) -> dict[str, dict[str, Any]]:
    raw = data.get("reference")
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        w.fail(("reference",), f"value {_show(raw)} is not a mapping", "a mapping: variant name -> published figures")
    out = {}
    for vname, body in raw.items():
        fld = ("reference", vname)
        if vname not in variants:
            w.fail(fld, f"names no variant: {_show(vname)}", ", ".join(variants))
        if not isinstance(body, dict):
            w.fail(fld, f"value {_show(body)} is not a mapping", "{" + ", ".join(REFERENCE_KEYS) + "}")
        ref: dict[str, Any] = {}
        for key, value in body.items():
            if key not in REFERENCE_KEYS:
                w.fail(fld + (key,), f"unknown key {_show(key)}", ", ".join(REFERENCE_KEYS))
            if key == "source":
                if not isinstance(value, str):
                    w.fail(fld + (key,), f"value {_show(value)} is not text", REFERENCE_KEYS[key])
                ref[key] = value
            elif key == "context":
                if not isinstance(value, bool):
                    w.fail(fld + (key,), f"value {_show(value)} is not true or false", REFERENCE_KEYS[key])
                ref[key] = value
            elif key in ("win_rate", "ci95"):
                ref[key] = _number(w, fld + (key,), value, 0.0, 1.0, REFERENCE_KEYS[key])
            else:
                ref[key] = _number(w, fld + (key,), value, 0.0, None, REFERENCE_KEYS[key])
        out[vname] = ref
    return out
