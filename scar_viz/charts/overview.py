"""The document overview: every chunk's cos(q, c) in one row, the gate's marks above it.

Built for any document size: the similarity row is one heatmap (drawn as an image, so
10,000 chunks cost one trace), the marks are three small scatter traces and one of rank
labels, and the clickable layer has at most ``max_points`` markers (one per bin of chunks,
at the bin's most relevant chunk). No per-chunk text is sent.

Marks never overlap (:mod:`scar_viz.charts.overview_marks`): each kind has its own row, so
no mark hides under another; within a row, chunks closer than a marker's width at the plot's
width share one mark, which shows their count ("×3") and names them all on hover; rank labels
sit in two rows above, best rank first, and a label with no free room is left out (hover and
the page's hits list keep every rank). The placement is made for a plot ``min_width`` px
wide and holds at any larger width, in the figures :func:`split_overview` returns (whose
marks row has exactly the height the placement needs).

A labelled question's gold chunks get a gold band along the bottom of their cells.

Click to focus: every clickable point carries its chunk index as ``customdata[0]`` (a mark
standing for several chunks carries its best-ranked one). A page mounts the figure with
``st.plotly_chart(fig, on_select="rerun", selection_mode="points", key=...)`` and passes the
returned ``event.selection`` to :func:`clicked_chunk`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from scar_viz.charts._style import SIM_SCALE, FigureSpec, as_figure, figure_builder, figure_spec
from scar_viz.charts.overview_marks import MIN_WIDTH, mark_traces
from scar_viz.views.focus import Overview

MAX_POINTS = 2000
"""Most clickable markers drawn; larger documents get one per bin of chunks."""
GOLD_COLOUR = "#e6a800"
"""A labelled question's gold evidence: a band under its chunks (★ in the hits and context)."""
GOLD_BAND = 0.22
"""The gold band's share of the similarity row's height, from its bottom."""


def _click_layer(sims: np.ndarray, max_points: int) -> np.ndarray:
    """Chunk indices of the clickable markers: all, or each bin's most relevant chunk."""
    n = len(sims)
    if n <= max_points:
        return np.arange(n)
    edges = np.linspace(0, n, max_points + 1).astype(int)
    return np.array(
        [a + int(np.argmax(sims[a:b])) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    )


def overview_spec(
    overview: Overview,
    focus: int | None = None,
    height: int = 190,
    font_size: int = 12,
    max_points: int = MAX_POINTS,
    min_width: float = MIN_WIDTH,
    first: int = 0,
    file: str | None = None,
    gold: Sequence[int] = (),
) -> FigureSpec:
    """The whole document: cos(q, c) per chunk, retrieved ▼ (with rank), admitted ▲, rejected ✕.

    Args:
        overview: :func:`scar_viz.views.focus.overview_data` for this query and gate setting.
        focus: a chunk to outline in the similarity row (the one the focus rows show), or None.
        height: the similarity row's share; the marks' rows add what they need.
        max_points: the most clickable markers to draw (see the module docstring).
        min_width: the plot width (px) the marks are placed for (see the module docstring).
        first, file: one file of a corpus: ``overview`` holds its chunks, whose corpus
            indices start at ``first``; the x axis and every click use corpus indices and
            the axis title names ``file`` (escaped: a path is untrusted text).
        gold: chunks (corpus indices) holding a labelled question's evidence: each gets a
            gold band along the bottom of its cell (:data:`GOLD_COLOUR`).

    Every marker's ``customdata[0]`` is its chunk index (read it with :func:`clicked_chunk`).
    """
    n = overview.n
    sims = np.asarray(overview.sims, dtype=float)
    idx = np.arange(n) + first
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
            "x": click + first,
            "y": np.zeros(len(click)),
            "customdata": click[:, None] + first,
            "mode": "markers",
            # nearly invisible but hit-testable: clicking a cell selects its marker
            "marker": {"size": 10, "symbol": "square", "color": "rgba(0,0,0,0.01)"},
            "hovertemplate": "chunk %{x}: click to focus<extra></extra>",
            "showlegend": False,
            "xaxis": "x",
            "yaxis": "y",
        }
    )
    marks, marks_height = mark_traces(overview, font_size, min_width, first)
    for trace in marks:
        trace["x"] = [x + first for x in trace["x"]]
    traces.extend(marks)
    shapes = []
    if focus is not None and first <= focus < first + n:
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
    shapes.extend(_gold_band(c) for c in gold if first <= c < first + n)
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
            "range": [first - 0.5, first + n - 0.5],
            "showgrid": False,
            "zeroline": False,
            "title": {"text": _axis_title(n, first, file)},
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
    return figure_spec(traces, layout)


overview_chart = figure_builder(overview_spec)


def _gold_band(chunk: int) -> dict:
    """A gold band along the bottom fifth of ``chunk``'s cell in the similarity row."""
    return {
        "type": "rect",
        "xref": "x",
        "yref": "y domain",
        "x0": chunk - 0.5,
        "x1": chunk + 0.5,
        "y0": 0,
        "y1": GOLD_BAND,
        "line": {"width": 0},
        "fillcolor": GOLD_COLOUR,
        "name": "gold",
    }


def _axis_title(n: int, first: int, file: str | None) -> str:
    if file is None:
        return f"chunk index (document order, {n:,} chunks)"
    last = first + max(n, 1) - 1
    return f"chunk index in the corpus: {html.escape(file)}, chunks {first:,}–{last:,} ({n:,})"


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
    """:func:`split_spec` of :func:`overview_chart`'s figure, as plotly figures."""
    spec = figure_spec(
        [trace.to_plotly_json() for trace in whole.data], whole.layout.to_plotly_json()
    )
    marks, base = split_spec(spec)
    return as_figure(marks), as_figure(base)


def split_spec(whole: FigureSpec) -> tuple[FigureSpec, FigureSpec]:
    """:func:`overview_spec`'s figure as two aligned figures: (marks, base).

    ``marks`` holds the retrieved, admitted and rejected marks and the rank labels (four small
    traces: all that changes when λ or τ move; its plot area is exactly as tall as the marks'
    rows); ``base`` the similarity row and the clickable layer, which
    depend on the query and the focus only. A page draws marks above base; a rerun after a
    release then re-sends identical ``base`` data (Streamlit's message cache skips it and
    the browser does not redraw it) and a tiny ``marks`` figure.
    """
    layout = whole["layout"]
    font_size, meta = layout["font"]["size"], layout["meta"]
    shared = {k: layout[k] for k in ("font", "hovermode", "clickmode", "dragmode", "plot_bgcolor")}
    x_axis = {k: layout["xaxis"][k] for k in ("range", "showgrid", "zeroline")}
    right = max(SPLIT_MARGIN["r"], 6 * font_size)  # the colour bar's ticks and title
    margin = {**SPLIT_MARGIN, "r": right, "t": 0, "b": 0, "autoexpand": False}

    def own_axis(name: str) -> dict:
        return {k: v for k, v in layout[name].items() if k != "domain"}

    mark_traces = [{**trace, "yaxis": "y"} for trace in whole["data"][2:]]
    marks = figure_spec(
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
    base_traces = [dict(trace) for trace in whole["data"][:2]]
    base_traces[1]["marker"] = {**base_traces[1]["marker"], "color": "rgba(0,0,0,0)"}
    colour_bar = {"x": 1.01, "xanchor": "left", "len": 1.0, "y": 0.5}
    base_traces[0]["colorbar"] = {**base_traces[0]["colorbar"], **colour_bar}
    base = figure_spec(
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
