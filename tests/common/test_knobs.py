"""Settings fields that describe their own widget and command-line option
(scar_viz/common/knobs.py)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from scar_viz.common.knobs import (
    CliOption,
    cli,
    cli_fields,
    field_type,
    knob,
    knob_fields,
    knob_values,
    option,
    option_dest,
)


@dataclass(frozen=True)
class _Settings:
    size: int = knob(3, "Size", "sz", (1, 9, None), **cli("--size", "window", "size"))
    cap: float | None = option(None, "--cap", "rse", "cap", name="limit")
    hidden: bool = knob(False, "Hidden", "hd", widget="toggle")
    plain: str = "x"


def test_a_field_is_a_widget_an_option_or_both():
    assert [f.name for f, _ in knob_fields(_Settings)] == ["size", "hidden"]
    options = cli_fields(_Settings)
    assert [f.name for f, _ in options] == ["size", "cap"]
    assert options[0][1] == CliOption("--size", "window", "size")
    assert [option_dest(f) for f, _ in options] == ["size", "limit"]
    assert knob_values(_Settings(size=5)) == {"size": 5, "hidden": False}
    by_policy = cli_fields(_Settings, ("rse", "window"))
    assert [f.name for f, _ in by_policy] == ["cap", "size"]
    assert cli_fields(_Settings, ("parent",)) == []


def test_an_optional_field_has_its_inner_type():
    types = {f.name: field_type(f) for f in fields(_Settings)}
    assert types == {"size": int, "cap": float, "hidden": bool, "plain": str}
