"""The document overview: every chunk's cos(q, c) in one row, every gate mark above it.

Built for any document size: the similarity row is one heatmap (drawn as an image, so
10,000 chunks cost one trace), the marks are three small scatter traces, and the clickable
layer has at most ``max_points`` markers (one per bin of chunks, at the bin's most relevant
chunk). No per-chunk text is sent; hover shows the index and the numbers.

Click to focus: every clickable point carries its chunk index as ``customdata[0]``. A page
mounts the figure with ``st.plotly_chart(fig, on_select="rerun", selection_mode="points",
key=...)`` and passes the returned ``event.selection`` to :func:`clicked_chunk`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from scar_viz.charts._style import ADMITTED, REJECTED, RETRIEVED, SIM_SCALE, fast_figure
from scar_viz.views.focus import STATUS_ADMITTED, STATUS_REJECTED, STATUS_RETRIEVED, Overview

MAX_POINTS = 2000
"""Most clickable markers drawn; larger documents get one per bin of chunks."""
RANK_LABELS = 30
"""Retrieved marks carry their rank as text up to this many retrieved chunks."""
MARK_ROW = "marks"


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
) -> go.Figure:
    """The whole document: cos(q, c) per chunk, retrieved ▼ (with rank), admitted ▲, rejected ✕.

    Args:
        overview: :func:`scar_viz.views.focus.overview_data` for this query and gate setting.
        focus: a chunk to outline (the one the focus rows show), or None.
        max_points: the most clickable markers to draw (see the module docstring).

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
    rank = overview.rank
    for label, colour, symbol, status, size in (
        ("rejected", REJECTED, "x-thin-open", STATUS_REJECTED, 9),
        ("admitted", ADMITTED, "triangle-up", STATUS_ADMITTED, 11),
        ("retrieved", RETRIEVED, "triangle-down", STATUS_RETRIEVED, 13),
    ):
        members = overview.members(status)
        if label == "retrieved":
            members = members[np.argsort(rank[members])]
        text = (
            [str(int(rank[c])) for c in members]
            if label == "retrieved" and len(members) <= RANK_LABELS
            else None
        )
        traces.append(
            {
                "type": "scatter",
                "name": label,
                "x": members,
                "y": [MARK_ROW] * len(members),
                "customdata": members[:, None],
                "mode": "markers+text" if text else "markers",
                "text": text,
                "textposition": "top center",
                "cliponaxis": False,
                "textfont": {"size": max(9, font_size - 2), "color": RETRIEVED},
                "marker": {
                    "color": colour,
                    "symbol": symbol,
                    "size": size,
                    "line": {"width": 2 if label == "rejected" else 1, "color": colour},
                },
                "hovertemplate": f"chunk %{{x}} · {label}<extra></extra>",
                "xaxis": "x",
                "yaxis": "y2",
            }
        )
    shapes = []
    if focus is not None and 0 <= focus < n:
        shapes.append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "paper",
                "x0": focus - 0.5,
                "x1": focus + 0.5,
                "y0": 0,
                "y1": 1,
                "line": {"color": "#111", "width": 2},
                "fillcolor": "rgba(0,0,0,0)",
            }
        )
    layout = {
        "height": height,
        "font": {"size": font_size},
        "hovermode": "closest",
        "clickmode": "event+select",
        "dragmode": False,
        "margin": {"l": 10, "r": 10, "t": 10, "b": 36},
        "plot_bgcolor": "white",
        "showlegend": True,
        "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        "xaxis": {
            "range": [-0.5, n - 0.5],
            "showgrid": False,
            "zeroline": False,
            "title": {"text": f"chunk index (document order, {n:,} chunks)"},
        },
        "yaxis": {"domain": [0.0, 0.5], "visible": False, "fixedrange": True},
        "yaxis2": {
            "domain": [0.56, 0.86],
            "visible": False,
            "fixedrange": True,
            "type": "category",
            "range": [-0.5, 1.2],
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
"""Left and right margins of both split figures, so their x axes line up (the colour bar sits
in the right margin)."""


def split_overview(whole: go.Figure) -> tuple[go.Figure, go.Figure]:
    """:func:`overview_chart`'s figure as two aligned figures: (marks, base).

    ``marks`` holds the retrieved, admitted and rejected marks (three small traces: all that
    changes when λ or τ move); ``base`` the similarity row and the clickable layer, which
    depend on the query and the focus only. A page draws marks above base; a rerun after a
    release then re-sends identical ``base`` data (Streamlit's message cache skips it and
    the browser does not redraw it) and a tiny ``marks`` figure.
    """
    layout = whole.layout.to_plotly_json()
    height, font_size = layout["height"], layout["font"]["size"]
    shared = {k: layout[k] for k in ("font", "hovermode", "clickmode", "dragmode", "plot_bgcolor")}
    x_axis = {k: layout["xaxis"][k] for k in ("range", "showgrid", "zeroline")}
    margin = {**SPLIT_MARGIN, "t": 0, "b": 0, "autoexpand": False}

    def own_axis(name: str) -> dict:
        return {k: v for k, v in layout[name].items() if k != "domain"}

    mark_traces = [trace.to_plotly_json() for trace in whole.data[2:]]
    for trace in mark_traces:
        trace["yaxis"] = "y"
    marks = fast_figure(
        mark_traces,
        {
            **shared,
            "height": max(60, int(height * 0.42)),
            "margin": {**margin, "t": 4 + 2 * font_size},
            "showlegend": True,
            "legend": {**layout["legend"], "y": 1.0},
            "xaxis": {**x_axis, "visible": False},
            "yaxis": own_axis("yaxis2"),
            "shapes": [{**s, "yref": "paper"} for s in layout.get("shapes", [])],
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
            "height": max(90, int(height * 0.6)),
            "margin": {**margin, "b": 28 + 3 * font_size},
            "showlegend": False,
            "xaxis": {**x_axis, "title": layout["xaxis"]["title"]},
            "yaxis": own_axis("yaxis"),
            "shapes": layout.get("shapes", []),
        },
    )
    return marks, base
