"""Settings dataclasses that describe their own controls: one field, one CLI option, one widget.

A field made with :func:`knob` carries its label, range and step in its metadata, and a field
given :func:`cli` metadata its command-line option (:class:`CliOption`); the CLI
(:mod:`scar_viz.cli.main`) and the pages (``ui/knobs.py``) generate their options and widgets from
the fields, so a setting is written once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any

_TYPES: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str}


@dataclass(frozen=True)
class Knob:
    """How a setting is shown: ``label``, range [``lo``, ``hi``] and ``step`` (numbers only),
    ``widget`` (``slider``, ``number``, ``toggle``, ``text`` or ``select`` among ``options``),
    ``key`` (the widget's key, also its URL parameter), ``active`` (the bool field that enables
    it: ``adaptive``, or ``!adaptive``)."""

    label: str
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    widget: str = "number"
    key: str = ""
    active: str = ""
    options: tuple[str, ...] = ()


@dataclass(frozen=True)
class CliOption:
    """A field's command-line option: ``flag``, the ``policy`` that takes it (its help reads
    ``policy: help``), ``name`` the policy's keyword and the option's ``dest`` when it is not
    the field's name, ``only`` the policies it reaches (given with another, it is ignored;
    empty: every policy, and one that does not take it says so)."""

    flag: str
    policy: str
    help: str
    name: str = ""
    only: tuple[str, ...] = ()


def cli(
    flag: str, policy: str, help: str, name: str = "", only: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Field metadata declaring a :class:`CliOption`: pass it to :func:`knob` as keywords
    (``**cli(...)``), or as a plain field's ``metadata``."""
    return {"cli": CliOption(flag, policy, help, name, tuple(only))}


def option(
    default: Any, flag: str, policy: str, help: str, name: str = "", only: tuple[str, ...] = ()
) -> Any:
    """A dataclass field with ``default`` and a command-line option but no widget."""
    return field(default=default, metadata=cli(flag, policy, help, name, only))


def knob(
    default: Any,
    label: str,
    key: str,
    span: tuple[float, float, float | None] | None = None,
    widget: str = "number",
    active: str = "",
    options: tuple[str, ...] = (),
    **metadata: Any,
) -> Any:
    """A dataclass field with ``default`` whose metadata is a :class:`Knob` (and ``metadata``'s
    other entries, e.g. a command-line option); ``span`` is (lo, hi, step) for a number (step
    None: the widget's own)."""
    lo, hi, step = span or (None, None, None)
    shown = Knob(label, lo, hi, step, widget, key, active, tuple(options))
    return field(default=default, metadata={"knob": shown, **metadata})


def knob_fields(cls: type) -> list[tuple[Field, Knob]]:
    """Every knob field of dataclass ``cls``, in declaration order."""
    return [(f, f.metadata["knob"]) for f in fields(cls) if "knob" in f.metadata]


def cli_fields(cls: type, policies: Sequence[str] | None = None) -> list[tuple[Field, CliOption]]:
    """Every field of dataclass ``cls`` that has a command-line option, in declaration order;
    with ``policies``, those of these policies, grouped by policy in that order."""
    items = [(f, f.metadata["cli"]) for f in fields(cls) if "cli" in f.metadata]
    if policies is None:
        return items
    return [(f, option) for policy in policies for f, option in items if option.policy == policy]


def option_dest(f: Field) -> str:
    """The keyword a field's command-line value is passed as: its option's ``name``, else the
    field's name."""
    return f.metadata["cli"].name or f.name


def field_type(f: Field) -> type:
    """``bool``, ``int``, ``float`` or ``str``: the field's annotated type (``int | None``:
    ``int``)."""
    name = f.type if isinstance(f.type, str) else f.type.__name__
    return _TYPES[name.removesuffix(" | None")]


def field_default(f: Field) -> Any:
    return None if f.default is MISSING else f.default


def from_values(cls: type, values: dict[str, Any]) -> Any:
    """``cls`` built from ``values`` (other keys ignored), each cast to its field's type."""
    return cls(
        **{f.name: field_type(f)(values[f.name]) for f, _ in knob_fields(cls) if f.name in values}
    )


def knob_values(settings: Any) -> dict[str, Any]:
    """The knob fields of a settings object as a dict (what a policy takes as keywords)."""
    return {f.name: getattr(settings, f.name) for f, _ in knob_fields(type(settings))}
