"""Rule switches: each disputed rule of a game is a named, typed, documented switch.

A game's rules are a frozen dataclass whose fields are declared with
:func:`switch`; presets are flat overlays on the defaults (Solvitaire-style).
Values may arrive typed (from YAML) or as text (from ``--set key=value``), and
every bad value is refused with a :class:`RuleError` that names the switch, the
value and what is allowed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


class RuleError(ValueError):
    """An unknown switch, preset, or a value a switch does not allow."""


@dataclass(frozen=True)
class Switch:
    """What one switch accepts.

    ``choices`` for enumerations; ``lo``/``hi`` for integers, or ``choices`` for an integer switch that allows only
    a few values (Auld Lang Syne's 4 or 6 piles), so ``patience games`` prints exactly what is allowed.  A
    ``text`` switch (an open game's schedule) has a ``check`` that returns the value's canonical text or raises
    ValueError saying what is wrong, and ``allowed_text`` saying what is allowed.
    """

    name: str
    default: Any
    doc: str
    kind: str  # "choice", "bool", "int" or "text"
    choices: tuple[Any, ...] = ()
    lo: int | None = None
    hi: int | None = None
    check: Callable[[str], str] | None = None
    allowed_text: str = ""
    explain: Callable[[str], list[str]] | None = None  # a text switch's value in lines, for `patience games`

    def allowed(self) -> str:
        if self.kind == "bool":
            return "true, false"
        if self.kind == "choice":
            return ", ".join(self.choices)
        if self.kind == "text":
            return self.allowed_text
        if self.choices:
            return ", ".join(str(c) for c in self.choices)
        hi = "" if self.hi is None else str(self.hi)
        return f"an integer in {self.lo}..{hi}" if hi else f"an integer >= {self.lo}"

    def coerce(self, value: Any) -> Any:
        """The value as this switch's type, or RuleError naming switch, value and what is allowed."""
        bad = RuleError(f"switch {self.name!r}: value {_show(value)} is not allowed; allowed: {self.allowed()}")
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in ("true", "false"):
                return value.strip().lower() == "true"
            raise bad
        if self.kind == "int":
            if isinstance(value, bool):
                raise bad
            if isinstance(value, str):
                try:
                    value = int(value.strip())
                except ValueError:
                    raise bad from None
            if not isinstance(value, int):
                raise bad
            if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
                raise bad
            if self.choices and value not in self.choices:
                raise bad
            return value
        if self.kind == "text":
            if not isinstance(value, str) or self.check is None:
                raise bad
            try:
                return self.check(value)
            except ValueError as exc:
                raise RuleError(f"switch {self.name!r}: value {_show(value)} is not allowed: {exc}") from None
        text = value.strip() if isinstance(value, str) else value
        if text not in self.choices:
            raise bad
        return text


def _show(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)


def switch(
    default: Any,
    doc: str,
    *,
    choices: tuple[str, ...] = (),
    lo: int | None = None,
    hi: int | None = None,
    check: Callable[[str], str] | None = None,
    allowed: str = "",
    explain: Callable[[str], list[str]] | None = None,
):
    """Declare a dataclass field as a rule switch (kind inferred from the default and arguments; ``check`` makes
    a text switch, whose ``allowed`` says what it takes)."""
    if check is not None:
        kind = "text"
        if check(default) != default:
            raise ValueError(f"default {default!r} is not in its canonical form {check(default)!r}")
    elif isinstance(default, bool):
        kind = "bool"
    elif isinstance(default, int):
        kind = "int"
        if choices and default not in choices:
            raise ValueError(f"default {default!r} not among choices {choices}")
    else:
        kind = "choice"
        if default not in choices:
            raise ValueError(f"default {default!r} not among choices {choices}")
    meta = {
        "switch": dict(
            doc=doc, kind=kind, choices=tuple(choices), lo=lo, hi=hi, check=check, allowed_text=allowed, explain=explain
        )
    }
    return field(default=default, metadata=meta)


def switches(rules_type: type) -> dict[str, Switch]:
    """The switches of a rules dataclass, in declaration order."""
    out = {}
    for f in dataclasses.fields(rules_type):
        m = f.metadata["switch"]
        out[f.name] = Switch(name=f.name, default=f.default, **m)
    return out


def resolve_rules(
    rules_type: type,
    presets: Mapping[str, Mapping[str, Any]],
    preset: str | None = None,
    overrides: Mapping[str, Any] | None = None,
):
    """Defaults < preset < overrides, every value checked; returns a frozen rules record."""
    sw = switches(rules_type)
    values: dict[str, Any] = {}
    if preset is not None:
        if preset not in presets:
            raise RuleError(f"preset {preset!r} is not known; allowed: {', '.join(presets)}")
        values.update(presets[preset])
    for key, value in (overrides or {}).items():
        if key not in sw:
            raise RuleError(f"switch {key!r} is not known; allowed: {', '.join(sw)}")
        values[key] = value
    return rules_type(**{k: sw[k].coerce(v) for k, v in values.items()})


def rules_dict(rules: Any) -> dict[str, Any]:
    """A rules record as a plain dict (for manifests and metadata)."""
    return dataclasses.asdict(rules)


def parse_assignment(text: str) -> tuple[str, str]:
    """Split ``key=value`` (as given to ``--set``); RuleError if malformed."""
    if "=" not in text:
        raise RuleError(f"--set {text!r} is malformed; expected key=value, e.g. cascade=true")
    key, value = text.split("=", 1)
    key, value = key.strip(), value.strip()
    if not key or not value:
        raise RuleError(f"--set {text!r} is malformed; expected key=value, e.g. cascade=true")
    return key, value
