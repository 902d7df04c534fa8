"""Variant configuration: presets from ``fiverow/presets/*.toml`` plus keyword overrides.

A configuration is resolved once into a flat dict of parameter values and
validated by the C core's parameter table, so the names and allowed values
that Python accepts are exactly the ones C implements.
"""

from __future__ import annotations

import importlib.resources
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .. import _core

#: Parameters that only mean something on some geometries.
_APPLIES_TO_GEOMETRY: dict[str, tuple[str, ...]] = {
    "order": ("hex", "tess"),
    "edge": ("hex",),
    "size": ("plane", "strip", "torus"),
    "height": ("plane", "strip", "torus"),
    "width": ("plane", "strip", "torus"),
}

#: Parameters that only mean something under some protocols.
_APPLIES_TO_PROTOCOL: dict[str, tuple[str, ...]] = {
    "max_offers": ("soosorv",),
}


@dataclass(frozen=True)
class ParamSpec:
    """One variant parameter: its name, and either its choices or its range (a
    set parameter takes several integers of the range, ``"2,3"`` or ``[2, 3]``),
    and the rules it applies to (``None``: every rule)."""

    name: str
    choices: tuple[str, ...] | None
    lo: int
    hi: int
    is_set: bool = False
    rules: tuple[str, ...] | None = None

    def text(self, value: object) -> str:
        """The value as the engine reads it."""
        if self.is_set and isinstance(value, list | tuple):
            return ",".join(str(x) for x in value)
        return str(value)

    def check(self, value: object) -> None:
        if self.is_set:
            items: list[Any] = list(value) if isinstance(value, list | tuple) else [value]
            if isinstance(value, str):
                items = [x.strip() for x in value.split(",")]
            for item in items:
                try:
                    number = int(item) if not isinstance(item, bool | np.bool_) else None
                except (TypeError, ValueError):
                    number = None
                if number is None or not self.lo <= number <= self.hi:
                    raise ValueError(
                        f"parameter '{self.name}' takes integers in {self.lo}..{self.hi} "
                        f'("2,3" or [2, 3]), got {value!r}'
                    )
            return
        if self.choices is not None:
            if not isinstance(value, str) or value not in self.choices:
                raise ValueError(
                    f"parameter '{self.name}' has bad value {value!r}; "
                    f"allowed: {', '.join(self.choices)}"
                )
        else:
            # numpy integers are integers too; bools (numpy's included) are not
            if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
                raise ValueError(
                    f"parameter '{self.name}' must be an integer, got {type(value).__name__} "
                    f"{value!r}"
                )
            if not self.lo <= value <= self.hi:
                raise ValueError(
                    f"parameter '{self.name}' = {value} is out of range {self.lo}..{self.hi}"
                )


@cache
def param_specs() -> dict[str, ParamSpec]:
    """Every parameter the engine accepts ('size' sets height and width)."""
    specs = {
        name: ParamSpec(
            name,
            tuple(choices) if choices is not None else None,
            lo,
            hi,
            is_set,
            tuple(applies.split(",")) if applies else None,
        )
        for name, choices, lo, hi, is_set, applies in _core.param_table()
    }
    height = specs["height"]
    specs["size"] = ParamSpec("size", None, height.lo, height.hi)
    return specs


@dataclass(frozen=True)
class VariantConfig:
    """A resolved variant: a name and every parameter's value."""

    name: str
    params: dict[str, Any] = field(hash=False)
    description: str = ""

    def __getitem__(self, key: str) -> Any:
        return self.params[key]


def _preset_files() -> dict[str, Path]:
    root = importlib.resources.files("fiverow.presets")
    return {
        Path(str(entry)).stem: Path(str(entry))
        for entry in root.iterdir()
        if str(entry).endswith(".toml")
    }


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"preset file {path} is not valid TOML: {e}") from None


@cache
def _presets() -> dict[str, dict[str, Any]]:
    return {name: _read_toml(path) for name, path in sorted(_preset_files().items())}


def preset_names() -> list[str]:
    """Names of the presets shipped in ``fiverow/presets/``."""
    return list(_presets())


def variants() -> dict[str, str]:
    """Every preset with its one-line description."""
    return {name: data.get("description", "") for name, data in _presets().items()}


def _parse_resolved(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    specs = param_specs()
    for line in text.splitlines():
        key, _, value = line.partition("=")
        spec = specs[key]
        out[key] = value if spec.choices is not None or spec.is_set else int(value)
    return out


@cache
def rule_families() -> dict[str, tuple[str, frozenset[str]]]:
    """Every value of the ``rule`` parameter with its rule family (csrc/rules/)
    and the family's traits: ``"lines"`` (five in a row ends the game),
    ``"scoring"`` (points decide), ``"chance"`` (a dealt bag), ``"tiles"``
    (number tiles, not stones), ``"statuses"`` (stones with statuses),
    ``"captures"`` (stones leave the board), ``"fouls"`` (forbidden points),
    ``"multi_stone_turns"``, ... The Python layer asks these, never a rule's
    name."""
    return {
        rule: (family, frozenset(traits))
        for rule, (family, traits) in _core.rule_families().items()
    }


def traits_of(config: Mapping[str, Any] | VariantConfig) -> frozenset[str]:
    """The traits of a configuration's rule family (see :func:`rule_families`)."""
    return rule_families()[str(config["rule"])][1]


def cell_values(config: Mapping[str, Any] | VariantConfig) -> int:
    """Actions per cell: the tile values (MODLINSEQ), or 1 (a stone)."""
    return int(config["modulus"]) if "tiles" in traits_of(config) else 1


@cache
def _applies_to_rule() -> dict[str, tuple[str, ...]]:
    """Parameters that only mean something under some rules (the engine's
    parameter table says which). Overriding one where it has no effect is an
    error (a silent no-op would hide a mistake)."""
    return {name: spec.rules for name, spec in param_specs().items() if spec.rules is not None}


def _check_keys(params: Mapping[str, Any], where: str) -> None:
    specs = param_specs()
    for key, value in params.items():
        if key not in specs:
            raise ValueError(
                f"unknown parameter '{key}' in {where}; allowed: {', '.join(sorted(specs))}"
            )
        specs[key].check(value)


def _check_size(params: Mapping[str, Any], where: str) -> None:
    """``size`` sets both sides: with ``height`` or ``width`` beside it in the
    same place, which one wins would be a guess."""
    sides = [k for k in ("height", "width") if k in params]
    if "size" in params and sides:
        given = ", ".join(f"{k}={params[k]!r}" for k in ("size", *sides))
        raise ValueError(
            f"{given} conflict in {where}: size sets both height and width; "
            "give size alone, or height and width"
        )


def _layer(lower: Mapping[str, Any], upper: Mapping[str, Any]) -> dict[str, Any]:
    """``upper`` over ``lower``; a ``size`` in ``upper`` replaces ``lower``'s
    height and width, a ``height`` or ``width`` in ``upper`` changes one side of
    ``lower``'s size."""
    merged = dict(lower)
    if "size" in upper:
        merged.pop("height", None)
        merged.pop("width", None)
    elif "size" in merged and ("height" in upper or "width" in upper):
        side = merged.pop("size")
        merged.update(height=side, width=side)
    merged.update(upper)
    return merged


#: The board's shape on each geometry family. A preset's shape parameters of
#: another geometry are replaced, not lost, when the new geometry's shape is
#: given with it (``make_vec("modlinseq", geometry="plane", size=7)``), and a
#: tess board has its own edges (lines re-enter from the translated copy),
#: whatever edge the hex preset had.
_SHAPE = ("size", "height", "width", "order", "edge")


def _replaced(field_name: str, value: str, given: Mapping[str, Any]) -> tuple[str, ...]:
    """Preset parameters that the given value of ``field_name`` replaces by design."""
    if field_name != "geometry":
        return ()
    if value == "tess":
        return ("edge",)
    shape_given = any(
        k in given and value in _APPLIES_TO_GEOMETRY[k] for k in _SHAPE if k != "edge"
    )
    return _SHAPE if shape_given else ()


def _applies() -> tuple[tuple[str, Mapping[str, tuple[str, ...]]], ...]:
    """What decides whether a parameter applies, with the table that says where."""
    return (
        ("rule", _applies_to_rule()),
        ("protocol", _APPLIES_TO_PROTOCOL),
        ("geometry", _APPLIES_TO_GEOMETRY),
    )


def applicable_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of a resolved variant that apply to it: those its rule,
    protocol and geometry use (``caro_ends`` under caro only, ``order`` and
    ``edge`` on hex boards, ``height`` / ``width`` on square ones, ...), as
    the tables above say; the others keep their defaults and change nothing."""
    return {
        key: value
        for key, value in params.items()
        if all(params[f] in table[key] for f, table in _applies() if key in table)
    }


def _check_applies(
    resolved: Mapping[str, Any], given: Mapping[str, Any], inherited: Mapping[str, Any], name: str
) -> None:
    """A parameter given that has no effect is refused, and so is one that the
    given rule / protocol / geometry would silently drop from the preset."""
    for key in given:
        for field_name, table in _applies():
            allowed = table.get(key)
            if allowed is not None and resolved[field_name] not in allowed:
                raise ValueError(
                    f"parameter '{key}' has no effect with {field_name}='{resolved[field_name]}' "
                    f"(it applies to {field_name} {' / '.join(allowed)})"
                )
    for field_name, table in _applies():
        if field_name not in given:
            continue
        replaced = _replaced(field_name, resolved[field_name], given)
        dropped = [
            key
            for key in inherited
            if key not in given
            and key not in replaced
            and table.get(key) is not None
            and resolved[field_name] not in table[key]
        ]
        if dropped:
            raise ValueError(
                f"{field_name}={given[field_name]!r} conflicts with preset '{name}': its "
                f"{', '.join(f'{k}={inherited[k]!r}' for k in dropped)} would be dropped "
                f"(they apply to another {field_name}); "
                + (
                    "give the new board's size (size, or height and width; order) with it, "
                    if field_name == "geometry"
                    else ""
                )
                + f"start from a preset of that {field_name}, or from a dict of parameters"
            )


def resolve(name_or_config: str | Mapping[str, Any] | Path, **overrides: Any) -> VariantConfig:
    """Resolve a preset name, a TOML path or a dict of parameters, plus overrides.

    A dict may name a base preset under the key ``"preset"``. Raises
    ``ValueError`` naming the parameter and listing what is allowed.
    """
    description = ""
    inherited: dict[str, Any] = {}  # a preset's parameters, under what is given
    given: dict[str, Any] = dict(overrides)
    if isinstance(name_or_config, Path) or (
        isinstance(name_or_config, str) and name_or_config.endswith(".toml")
    ):
        path = Path(name_or_config)
        if not path.is_file():
            raise ValueError(f"config file {path} does not exist")
        base: dict[str, Any] = _read_toml(path)
        name = path.stem
    elif isinstance(name_or_config, str):
        presets = _presets()
        if name_or_config not in presets:
            raise ValueError(f"unknown variant '{name_or_config}'; presets: {', '.join(presets)}")
        base = dict(presets[name_or_config])
        name = name_or_config
        inherited = {k: v for k, v in base.items() if k != "description"}
    elif isinstance(name_or_config, Mapping):
        base = dict(name_or_config)
        name = str(base.pop("name", "custom"))
        preset = base.pop("preset", None)
        if preset is not None:
            _check_size(base, f"the parameters over preset '{preset}'")
            parent = resolve(str(preset))
            inherited = {k: v for k, v in _presets()[str(preset)].items() if k != "description"}
            given = {**{k: v for k, v in base.items() if k != "description"}, **overrides}
            base = _layer(parent.params, base)
            name = str(preset) if name == "custom" else name
            description = parent.description
    else:
        raise TypeError(
            "variant must be a preset name, a path to a .toml file or a dict of parameters, "
            f"got {type(name_or_config).__name__}"
        )
    description = str(base.pop("description", description))
    _check_keys(base, f"variant '{name}'")
    _check_keys(overrides, "the overrides")
    _check_size(base, f"variant '{name}'")
    _check_size(overrides, "the overrides")
    merged = _layer(base, overrides)
    specs = param_specs()
    resolved = _parse_resolved(_core.resolve({k: specs[k].text(v) for k, v in merged.items()}))
    _check_applies(resolved, given, inherited, name)
    return VariantConfig(name=name, params=resolved, description=description)
