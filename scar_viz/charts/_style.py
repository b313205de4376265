"""Colours and text helpers shared by the chart builders."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import ParamSpec

import plotly.graph_objects as go
from plotly.colors import sequential

RETRIEVED = "#1f3b73"
ADMITTED = "#1a9850"
REJECTED = "#d73027"
WINDOW = "#9e9e9e"


def _scale(colours: list[str]) -> list[list[object]]:
    """A named sequential scale as explicit stops (plotly.js does not know every name)."""
    return [[i / (len(colours) - 1), c] for i, c in enumerate(colours)]


SIM_SCALE = _scale(sequential.Blues)
PENALTY_SCALE = _scale(sequential.Oranges)


def hover_snippet(text: str, words: int = 12) -> str:
    """The first ``words`` words of ``text``, HTML-escaped for plotly's hover labels."""
    parts = text.split()
    snippet = " ".join(parts[:words]) + (" …" if len(parts) > words else "")
    return html.escape(snippet, quote=True)


def fast_figure(traces: list[dict], layout: dict) -> go.Figure:
    """A figure from plain dicts without plotly's per-property validation.

    Validation is most of the cost of building a figure (about 4× here), and the explorer builds
    two on every slider move; the builders' tests check the structure instead.
    """
    return go.Figure(data=traces, layout=layout, _validate=False)


P = ParamSpec("P")

FigureSpec = dict
"""A figure as the plain dict plotly.js draws (``{"data": [...], "layout": {...}}``)."""


def figure_spec(traces: list[dict], layout: dict) -> FigureSpec:
    """The plain figure dict of ``traces`` and ``layout``, for a page that redraws a chart on
    every slider release: Streamlit draws such a dict as it is. Measured on a 25-file corpus
    (837 chunks): building the small multiples as a ``go.Figure`` took 20 ms and Streamlit's
    ``to_dict`` of it (a deep copy, then every array to base64) another 25 ms; the dict costs
    1.5 ms and its JSON 0.5 ms. The ``*_chart`` builders return :func:`as_figure` of it."""
    return {"data": traces, "layout": layout}


def as_figure(spec: FigureSpec) -> go.Figure:
    """``spec`` as a plotly figure (built without validation, as :func:`fast_figure`)."""
    return fast_figure(spec["data"], spec["layout"])


def figure_builder(build_spec: Callable[P, FigureSpec]) -> Callable[P, go.Figure]:
    """The builder that returns ``build_spec``'s figure as a plotly figure, with the same
    arguments (``corpus_chart = figure_builder(corpus_spec)``)."""

    def build(*args: P.args, **kwargs: P.kwargs) -> go.Figure:
        return as_figure(build_spec(*args, **kwargs))

    build.__doc__ = f":func:`{build_spec.__name__}` as a plotly figure."
    build.__name__ = build_spec.__name__.replace("_spec", "_chart")
    return build


def point_trace(
    x: float, y: float, symbol: str, size: float, colour: str, edge: tuple[float, str], **kw
) -> go.Scatter:
    """One marked point (the sliders' star, a preset's dot): a one-point markers trace with an
    edge of ``edge`` = (width, colour); ``kw`` go to :class:`plotly.graph_objects.Scatter`."""
    marker = {"symbol": symbol, "size": size, "color": colour}
    marker["line"] = {"width": edge[0], "color": edge[1]}
    return go.Scatter(x=[x], y=[y], mode="markers", marker=marker, **kw)


def at_least(fig: go.Figure, px: int) -> go.Figure:
    """``fig`` with no text under ``px`` pixels (presenter mode): the base font, every axis's
    tick labels and title, the legend, the title and the annotations, set in the figure itself
    so plotly lays the margins out for them (a size raised after drawing would be clipped)."""
    layout = fig.layout
    base = max(layout.font.size or 12, px)
    layout.font.size = base
    axes = {k for k in layout.to_plotly_json() if k.startswith(("xaxis", "yaxis"))}
    for name in sorted(axes | {"xaxis", "yaxis"}):
        axis = layout[name]
        axis.tickfont.size = max(axis.tickfont.size or base, px)
        axis.title.font.size = max(axis.title.font.size or base, px)
    layout.legend.font.size = max(layout.legend.font.size or base, px)
    layout.title.font.size = max(layout.title.font.size or base, px)
    for note in layout.annotations:
        note.font.size = max(note.font.size or base, px)
    return fig
