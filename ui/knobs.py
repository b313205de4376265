"""Widgets generated from a settings dataclass's knob fields (see :mod:`scar_viz.common.knobs`)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from scar_viz.common.knobs import Knob, field_default, field_type, from_values, knob_fields
from ui.state import URL


def _numbers(*xs: float | None) -> list[float | int | None]:
    """All whole numbers as ints, so a widget of whole numbers stays an int widget; else floats."""
    whole = all(x is None or float(x).is_integer() for x in xs)
    cast = int if whole else float
    return [None if x is None else cast(x) for x in xs]


def _widget(where, k: Knob, label: str, default: Any, disabled: bool) -> Any:
    if k.widget == "toggle":
        return where.toggle(label, bool(default), key=k.key, bind=URL)
    if k.widget == "text":
        return where.text_input(label, default, key=k.key, bind=URL, disabled=disabled)
    if k.widget == "select":
        options = list(k.options)
        return where.selectbox(
            label, options, options.index(default), key=k.key, bind=URL, disabled=disabled
        )
    lo, hi, value, step = _numbers(k.lo, k.hi, default, k.step)
    if k.widget == "slider":
        return where.slider(label, lo, hi, value, step, key=k.key, bind=URL, disabled=disabled)
    return where.number_input(
        label, lo, hi, value, step=step, key=k.key, bind=URL, disabled=disabled
    )


def knob_controls(settings: type, prefix: str = "", per_row: int = 5) -> Any:
    """One widget per knob field of ``settings``, ``per_row`` to a row, each label after
    ``prefix``; the settings chosen (fields without a knob keep their defaults).

    A field whose knob names an ``active`` bool field (``adaptive``, or ``!adaptive``) is
    disabled while that field's value says it does not apply.
    """
    values: dict[str, Any] = {}
    items = knob_fields(settings)
    cols = []
    for i, (f, k) in enumerate(items):
        if i % per_row == 0:
            cols = st.columns(per_row)
        flag = k.active.lstrip("!")
        disabled = bool(flag) and bool(values.get(flag)) == k.active.startswith("!")
        values[f.name] = _widget(
            cols[i % per_row],
            k,
            f"{prefix}: {k.label}" if prefix else k.label,
            field_default(f),
            disabled,
        )
        if values[f.name] is None:
            values[f.name] = field_default(f)
        values[f.name] = field_type(f)(values[f.name])
    return from_values(settings, values)
