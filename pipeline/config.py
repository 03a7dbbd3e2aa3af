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
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import quote

import numpy as np
import yaml

from engine import ENGINE_VERSION
from engine.deals import U64_MAX, DealError, parse_deal, parse_number_ranges
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
DEAL_INDEX_MAX = (1 << 63) - 1  # the `deal` column is int64
MICROSOFT_MAX = (1 << 31) - 1
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


def _read_yaml(path: Path) -> tuple[dict[str, Any], str, ErrorLocation]:
    where = str(path)
    if not path.exists():
        raise BadInput(f"{where}: no such study file; allowed: a path to a YAML study (e.g. configs/quickstart.yaml)")
    if path.is_dir():
        raise BadInput(f"{where}: is a folder; allowed: a path to a YAML study file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{where}: cannot be read as UTF-8 text ({exc}); allowed: a YAML study file") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
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
    lines: dict[tuple, int] = {}
    _index_nodes(node, (), lines, where)
    return data, text, ErrorLocation(where, lines)


# --- value checks ---------------------------------------------------------------


def _int(w: ErrorLocation, fld: tuple, value: Any, lo: int, hi: int) -> int:
    allowed = f"an integer in {lo}..{hi}" if hi < U64_MAX else f"an integer in {lo}..2^64-1"
    if isinstance(value, bool) or not isinstance(value, int):
        w.fail(fld, f"value {_show(value)} is not an integer", allowed)
    if not lo <= value <= hi:
        w.fail(fld, f"value {value} is out of range", allowed)
    return value


def _number(w: ErrorLocation, fld: tuple, value: Any, lo: float, hi: float | None, allowed: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        w.fail(fld, f"value {_show(value)} is not a number", allowed)
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
        count = _int(w, ("deals",), data["deals"], 1, DEAL_INDEX_MAX)
        if deals is not None:
            count = _int(ErrorLocation("option --deals", {}), (), deals, 1, DEAL_INDEX_MAX)
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
    allowed_ms = f'numbers and ranges in 1..{MICROSOFT_MAX}, e.g. "1-1000,11982"'
    if ranges is None:
        w.fail(("microsoft_deals",), f"value {_show(value)} is not a list of deal numbers", allowed_ms)
    try:
        numbers = parse_number_ranges(ranges)
    except ValueError as exc:
        w.fail(("microsoft_deals",), f"value {ranges!r} is malformed ({exc})", allowed_ms)
    if not numbers or numbers[0] < 1 or numbers[-1] > MICROSOFT_MAX:
        w.fail(("microsoft_deals",), f"value {ranges!r} is out of range", allowed_ms)
    arr = np.asarray(numbers, dtype=np.int64)
    return DealSource(kind="microsoft", count=len(arr), ranges=ranges, numbers=arr)


def read_deals_lines(file: Path, game: GameSpec, w: ErrorLocation) -> list[str]:
    """The deal lines of a deals file, every one checked (errors name the file and the line)."""
    if not file.exists() or file.is_dir():
        w.fail(("deals_file",), f"{file}: no such deals file", "a path to a deals file, relative to the study")
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        w.fail(("deals_file",), f"{file}: cannot be read ({exc})", "a UTF-8 text file, one deal per line")
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
