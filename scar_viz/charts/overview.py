"""The document overview: every chunk's cos(q, c) in one row, the gate's marks above it.

Built for any document size: the similarity row is one heatmap (drawn as an image, so
10,000 chunks cost one trace), the marks are three small scatter traces and one of rank
labels, and the clickable layer has at most ``max_points`` markers (one per bin of chunks,
at the bin's most relevant chunk). No per-chunk text is sent.

Marks never overlap (:mod:`scar_viz.charts.marks`): each kind has its own row (retrieved ▼
nearest the labels, then admitted ▲, then rejected ✕), so no mark hides under another; within
a row, chunks closer than a marker's width at the plot's width share one mark, which shows
their count ("×3") and names them all on hover; rank labels sit in two rows above, best rank
first, and a label with no free room is left out (hover and the page's hits list keep every
rank). The placement is made for a plot ``min_width`` px wide and holds at any larger width,
in the figures :func:`split_overview` returns (whose marks row has exactly the height the
placement needs).

Click to focus: every clickable point carries its chunk index as ``customdata[0]`` (a mark
standing for several chunks carries its best-ranked one). A page mounts the figure with
``st.plotly_chart(fig, on_select="rerun", selection_mode="points", key=...)`` and passes the
returned ``event.selection`` to :func:`clicked_chunk`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from scar_viz.charts._style import ADMITTED, REJECTED, RETRIEVED, SIM_SCALE, fast_figure
from scar_viz.charts.marks import (
    Label,
    Mark,
    count_tail,
    count_text,
    group_marks,
    place_labels,
)
from scar_viz.views.focus import STATUS_ADMITTED, STATUS_REJECTED, STATUS_RETRIEVED, Overview

MAX_POINTS = 2000
"""Most clickable markers drawn; larger documents get one per bin of chunks."""
MIN_WIDTH = 720
"""Plot width (px) the marks are placed for: the Explorer's overview at a 1280 px window with
the sidebar open; wider plots only spread them further."""
LABEL_ROWS = 2
"""Rows of rank labels above the retrieved marks."""
TRIANGLE_WIDTH = 2 / math.sqrt(3)
"""Width of plotly's triangle markers as a multiple of their size (a cross is as wide as its
size)."""
SHRINK = 0.75
"""Smallest marker size, as a share of the default, used to keep neighbours' marks apart in
short documents (where a chunk is a little narrower than a marker)."""
TEXT_HEIGHT = 1.7
"""Height a line of text needs, as a multiple of the font size (its box reaches about 0.82
font sizes above the point it is drawn at)."""


@dataclass(frozen=True)
class _Kind:
    label: str
    status: int
    colour: str
    symbol: str
    size: int  # marker size (plotly's, px)
    width: float  # drawn width as a multiple of size
    line: int


def _kinds(font_size: int) -> tuple[_Kind, ...]:
    """Bottom row first: rejected, admitted, retrieved (the labels go above retrieved)."""
    return (
        _Kind("rejected", STATUS_REJECTED, REJECTED, "x-thin-open", font_size - 3, 1.0, 2),
        _Kind(
            "admitted", STATUS_ADMITTED, ADMITTED, "triangle-up", font_size - 1, TRIANGLE_WIDTH, 1
        ),
        _Kind(
            "retrieved",
            STATUS_RETRIEVED,
            RETRIEVED,
            "triangle-down",
            font_size + 1,
            TRIANGLE_WIDTH,
            1,
        ),
    )


def _rows(kinds: tuple[_Kind, ...], font_size: int) -> tuple[list[float], list[float], int]:
    """Centres (px from the bottom of the marks area) of the mark rows and the label rows, and
    the area's height: every row tall enough for its marker and a line of text."""
    text = math.ceil(TEXT_HEIGHT * font_size)
    y, marks, labels = 0.0, [], []
    for kind in kinds:
        h = max(kind.size + 2 * kind.line, text) + 2
        marks.append(y + h / 2)
        y += h
    for _ in range(LABEL_ROWS):
        labels.append(y + text / 2)
        y += text
    return marks, labels, math.ceil(y)


def _fitted_size(kind: _Kind, pitch: float) -> float:
    """The kind's marker size, made smaller (down to ``SHRINK`` of it) so that marks of
    neighbouring chunks fit side by side when a chunk is ``pitch`` px wide."""
    fits = (pitch - kind.line - 1.05) / kind.width  # a hair under the pitch: no rounding tie
    return max(SHRINK * kind.size, min(kind.size, fits))


def _rank_text(ranks: list[int]) -> str:
    """A label for a mark with these ranks (ascending): "7", "2,9", or "1,12,…"."""
    joined = ",".join(map(str, ranks))
    return joined if len(joined) <= 5 else f"{ranks[0]},{ranks[1]},…"


def _hover(mark: Mark, kind: str, overview: Overview, lines: int = 20) -> str:
    """The chunks a mark stands for: index, rank and cos(q, c); every retrieved one, the first
    ``lines`` of an admitted or rejected mark."""
    members = list(mark.members)
    if kind == "retrieved":
        members.sort(key=lambda c: overview.rank[c])
        lines = len(members)
    rows = [
        f"chunk {c}"
        + (f" · rank {overview.rank[c]}" if kind == "retrieved" else "")
        + f" · cos(q,c) {overview.sims[c]:.3f}"
        for c in members[:lines]
    ]
    if len(members) > lines:
        rows.append(f"… {len(members) - lines} more")
    head = kind if mark.count == 1 else f"{mark.count} chunks {kind}"
    return "<br>".join([head, *rows])


def _mark_traces(overview: Overview, font_size: int, min_width: float) -> tuple[list[dict], int]:
    """The marks' traces (one a kind, then the rank labels) and the marks area's height."""
    n = overview.n
    kinds = _kinds(font_size)
    rows, label_rows, height = _rows(kinds, font_size)
    traces: list[dict] = []
    retrieved: list[Mark] = []
    for kind, y in zip(kinds, rows, strict=True):
        members = overview.members(kind.status)
        size = _fitted_size(kind, min_width / max(n, 1))
        tail = count_tail(font_size, size / 1.6 + 1)
        marks = group_marks(members, n, min_width, size * kind.width + kind.line + 1, tail)
        if kind.label == "retrieved":
            retrieved = marks
            picks = [min(m.members, key=lambda c: overview.rank[c]) for m in marks]
        else:
            picks = [m.x for m in marks]
        traces.append(
            {
                "type": "scatter",
                "name": kind.label,
                "x": [m.x for m in marks],
                "y": [y] * len(marks),
                "customdata": [[int(c)] for c in picks],
                "hovertext": [_hover(m, kind.label, overview) for m in marks],
                "hovertemplate": "%{hovertext}<extra></extra>",
                "mode": "markers+text",
                "text": [count_text(m.count) for m in marks],
                "textposition": "middle right",
                "textfont": {"size": font_size, "color": kind.colour},
                "cliponaxis": False,
                "marker": {
                    "color": kind.colour,
                    "symbol": kind.symbol,
                    "size": size,
                    "line": {"width": kind.line, "color": kind.colour},
                },
                "xaxis": "x",
                "yaxis": "y2",
            }
        )
    labels = rank_labels(overview, retrieved, font_size, min_width)
    traces.append(
        {
            "type": "scatter",
            "name": "ranks",
            "x": [lab.x for lab in labels],
            "y": [label_rows[lab.row] for lab in labels],
            "text": [lab.text for lab in labels],
            "mode": "text",
            "textposition": "middle center",
            "textfont": {"size": font_size, "color": RETRIEVED},
            "cliponaxis": False,
            "hoverinfo": "skip",
            "showlegend": False,
            "xaxis": "x",
            "yaxis": "y2",
        }
    )
    return traces, height


def rank_labels(
    overview: Overview, marks: list[Mark], font_size: int, min_width: float
) -> list[Label]:
    """The rank labels over the retrieved ``marks`` that fit, best rank first."""
    ranks = [sorted(int(overview.rank[c]) for c in m.members) for m in marks]
    order = sorted(range(len(marks)), key=lambda i: ranks[i][0])
    texts = [_rank_text(r) for r in ranks]
    return place_labels(marks, texts, order, overview.n, min_width, font_size, rows=LABEL_ROWS)


def _click_layer(sims: np.ndarray, max_points: int) -> np.ndarray:
    """Chunk indices of the clickable markers: all, or each bin's most relevant chunk."""
    n = len(sims)
    if n <= max_points:
        return np.arange(n)
    edges = np.linspace(0, n, max_points + 1).astype(int)
    return np.array(
        [a + int(np.argmax(sims[a:b])) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    )


def overview_chart(
    overview: Overview,
    focus: int | None = None,
    height: int = 190,
    font_size: int = 12,
    max_points: int = MAX_POINTS,
    min_width: float = MIN_WIDTH,
) -> go.Figure:
    """The whole document: cos(q, c) per chunk, retrieved ▼ (with rank), admitted ▲, rejected ✕.

    Args:
        overview: :func:`scar_viz.views.focus.overview_data` for this query and gate setting.
        focus: a chunk to outline in the similarity row (the one the focus rows show), or None.
        height: the similarity row's share; the marks' rows add what they need.
        max_points: the most clickable markers to draw (see the module docstring).
        min_width: the plot width (px) the marks are placed for (see the module docstring).

    Every marker's ``customdata[0]`` is its chunk index (read it with :func:`clicked_chunk`).
    """
    n = overview.n
    sims = np.asarray(overview.sims, dtype=float)
    idx = np.arange(n)
    traces: list[dict] = [
        {
            "type": "heatmap",
            "name": "cos(q,c)",
            "x": idx,
            "y": [0],
            "z": [sims],
            "colorscale": SIM_SCALE,
            "zmin": float(min(0.0, sims.min())) if n else 0.0,
            "zmax": float(sims.max()) if n else 1.0,
            "xgap": 1 if n <= 200 else 0,
            "hovertemplate": "chunk %{x}<br>cos(q,c) = %{z:.3f}<extra></extra>",
            "colorbar": {
                "thickness": 12,
                "len": 1.0,
                "y": 0.5,
                "yanchor": "middle",
                "nticks": 3,
                "tickfont": {"size": max(9, font_size - 2)},
                "title": {
                    "text": "cos(q,c)",
                    "side": "right",
                    "font": {"size": max(9, font_size - 2)},
                },
            },
            "xaxis": "x",
            "yaxis": "y",
        }
    ]
    click = _click_layer(sims, max_points)
    traces.append(
        {
            "type": "scatter",
            "name": "chunks",
            "x": click,
            "y": np.zeros(len(click)),
            "customdata": click[:, None],
            "mode": "markers",
            # nearly invisible but hit-testable: clicking a cell selects its marker
            "marker": {"size": 10, "symbol": "square", "color": "rgba(0,0,0,0.01)"},
            "hovertemplate": "chunk %{x}: click to focus<extra></extra>",
            "showlegend": False,
            "xaxis": "x",
            "yaxis": "y",
        }
    )
    mark_traces, marks_height = _mark_traces(overview, font_size, min_width)
    traces.extend(mark_traces)
    shapes = []
    if focus is not None and 0 <= focus < n:
        shapes.append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "y domain",  # the similarity row only: never across a mark's count
                "x0": focus - 0.5,
                "x1": focus + 0.5,
                "y0": 0,
                "y1": 1,
                "line": {"color": "#111", "width": 2},
                "fillcolor": "rgba(0,0,0,0)",
            }
        )
    top = 4 + 2 * font_size  # the legend
    total = height + marks_height
    split = (height - 36) / total  # the similarity row's share of the plot, above the x axis
    layout = {
        "height": total,
        "font": {"size": font_size},
        "hovermode": "closest",
        "clickmode": "event+select",
        "dragmode": False,
        "margin": {"l": 10, "r": 10, "t": top, "b": 36},
        "plot_bgcolor": "white",
        "showlegend": True,
        "legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0},
        "meta": {"marks_height": marks_height, "row_height": height, "min_width": min_width},
        "xaxis": {
            "range": [-0.5, n - 0.5],
            "showgrid": False,
            "zeroline": False,
            "title": {"text": f"chunk index (document order, {n:,} chunks)"},
        },
        "yaxis": {"domain": [0.0, max(0.2, split)], "visible": False, "fixedrange": True},
        "yaxis2": {
            "domain": [min(0.8, split + 0.04), 1.0],
            "visible": False,
            "fixedrange": True,
            "range": [0, marks_height],
        },
        "shapes": shapes,
    }
    return fast_figure(traces, layout)


def clicked_chunk(selection: Mapping | None) -> int | None:
    """The chunk a click on :func:`overview_chart` selected, from ``st.plotly_chart``'s
    ``event.selection`` (``{"points": [{"customdata": [i], "x": i, ...}], ...}``); None if
    nothing is selected."""
    if not selection:
        return None
    points = selection.get("points") or []
    for point in points:
        custom = point.get("customdata")
        if isinstance(custom, list | tuple) and custom:
            return int(custom[0])
        if isinstance(custom, int | float):
            return int(custom)
        if isinstance(point.get("x"), int | float):
            return int(point["x"])
    return None


SPLIT_MARGIN = {"l": 10, "r": 80}
"""Left and right margins of both split figures at the default font size, so their x axes line
up (the colour bar sits in the right margin, which grows with larger type)."""


def split_overview(whole: go.Figure) -> tuple[go.Figure, go.Figure]:
    """:func:`overview_chart`'s figure as two aligned figures: (marks, base).

    ``marks`` holds the retrieved, admitted and rejected marks and the rank labels (four small
    traces: all that changes when λ or τ move; its plot area is exactly as tall as the marks'
    rows); ``base`` the similarity row and the clickable layer, which
    depend on the query and the focus only. A page draws marks above base; a rerun after a
    release then re-sends identical ``base`` data (Streamlit's message cache skips it and
    the browser does not redraw it) and a tiny ``marks`` figure.
    """
    layout = whole.layout.to_plotly_json()
    font_size, meta = layout["font"]["size"], layout["meta"]
    shared = {k: layout[k] for k in ("font", "hovermode", "clickmode", "dragmode", "plot_bgcolor")}
    x_axis = {k: layout["xaxis"][k] for k in ("range", "showgrid", "zeroline")}
    right = max(SPLIT_MARGIN["r"], 6 * font_size)  # the colour bar's ticks and title
    margin = {**SPLIT_MARGIN, "r": right, "t": 0, "b": 0, "autoexpand": False}

    def own_axis(name: str) -> dict:
        return {k: v for k, v in layout[name].items() if k != "domain"}

    mark_traces = [trace.to_plotly_json() for trace in whole.data[2:]]
    for trace in mark_traces:
        trace["yaxis"] = "y"
    marks = fast_figure(
        mark_traces,
        {
            **shared,
            "height": meta["marks_height"] + 4 + 2 * font_size,
            "margin": {**margin, "t": 4 + 2 * font_size},
            "showlegend": True,
            "legend": {**layout["legend"], "y": 1.0},
            "xaxis": {**x_axis, "visible": False},
            "yaxis": own_axis("yaxis2"),
        },
    )
    base_traces = [trace.to_plotly_json() for trace in whole.data[:2]]
    base_traces[1]["marker"] = {**base_traces[1]["marker"], "color": "rgba(0,0,0,0)"}
    colour_bar = {"x": 1.01, "xanchor": "left", "len": 1.0, "y": 0.5}
    base_traces[0]["colorbar"] = {**base_traces[0]["colorbar"], **colour_bar}
    base = fast_figure(
        base_traces,
        {
            **shared,
            "height": max(90, int(meta["row_height"] * 0.6)),
            "margin": {**margin, "b": 28 + 3 * font_size},
            "showlegend": False,
            "xaxis": {**x_axis, "title": layout["xaxis"]["title"]},
            "yaxis": own_axis("yaxis"),
            "shapes": layout.get("shapes", []),
        },
    )
    return marks, base
