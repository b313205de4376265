"""The chunk strip: the document as a row of cells coloured by cos(q, c), boundaries by b."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from scar_viz.charts._style import (
    ADMITTED,
    PENALTY_SCALE,
    REJECTED,
    RETRIEVED,
    SIM_SCALE,
    fast_figure,
    hover_snippet,
)
from scar_viz.chunking.base import Chunk

# vertical bands of the three rows, in paper coordinates (top to bottom)
_MARKS, _SIMS, _BOUNDS = (0.72, 1.0), (0.34, 0.68), (0.0, 0.3)


def strip_hover(
    chunks: Sequence[Chunk],
    sims: np.ndarray,
    penalties: np.ndarray,
    view: tuple[int, int] | None = None,
) -> list[str]:
    """Hover text of each cell in ``view``: index, cos(q,c), b to each side, section, opening.

    Depends on the query but not on the gate, so a page can keep it across slider moves.
    """
    n = len(chunks)
    lo, hi = _bounds(n, view)
    out = []
    for i in range(lo, hi + 1):
        lines = [f"<b>chunk {i}</b>", f"cos(q,c) = {sims[i]:.3f}"]
        if i > 0:
            lines.append(f"b to left = {penalties[i - 1]:.3f}")
        if i < n - 1:
            lines.append(f"b to right = {penalties[i]:.3f}")
        lines.append(f"§ {hover_snippet(chunks[i].section_label, 8)}")
        lines.append(f"<i>{hover_snippet(chunks[i].text)}</i>")
        out.append("<br>".join(lines))
    return out


def _bounds(n: int, view: tuple[int, int] | None) -> tuple[int, int]:
    return (0, n - 1) if view is None else (max(0, view[0]), min(n - 1, view[1]))


def chunk_strip(
    chunks: Sequence[Chunk],
    sims: np.ndarray,
    penalties: np.ndarray,
    retrieved: Sequence[int] = (),
    admitted: Sequence[int] = (),
    rejected: Sequence[int] = (),
    view: tuple[int, int] | None = None,
    height: int = 300,
    font_size: int = 12,
    hover: Sequence[str] | None = None,
) -> go.Figure:
    """Build the strip figure.

    Row 1 marks retrieved (▼ with its rank), admitted (▲) and rejected (✕) chunks; row 2 is
    cos(q, c_i) per chunk; row 3 is b(c_i, c_{i+1}) drawn between chunks i and i+1.

    Args:
        view: the (first, last) chunk index to draw; only that region's cells are sent to
            the browser, so a 10,000-chunk document stays light.
        hover: :func:`strip_hover` for this view, if the caller kept it; else computed here.
    """
    n = len(chunks)
    lo, hi = _bounds(n, view)
    idx = np.arange(lo, hi + 1)
    sims = np.asarray(sims, dtype=float)
    penalties = np.asarray(penalties, dtype=float)
    rank = {c: r + 1 for r, c in enumerate(retrieved)}
    status = {c: "retrieved" for c in retrieved}
    status.update({c: "admitted" for c in admitted})
    status.update({c: "rejected" for c in rejected if c not in status})
    if hover is None:
        hover = strip_hover(chunks, sims, penalties, view)
    colorbar = {"x": 1.0, "thickness": 12, "nticks": 3}
    traces: list[dict] = [
        {
            "type": "heatmap",
            "name": "cos(q,c)",
            "x": idx,
            "y": ["cos(q,c)"],
            "z": [sims[lo : hi + 1]],
            "colorscale": SIM_SCALE,
            "xgap": 1,
            "zmin": float(min(0.0, sims.min())) if n else 0.0,
            "zmax": float(sims.max()) if n else 1.0,
            "text": [list(hover)],
            "hovertemplate": "%{text}<extra></extra>",
            "colorbar": {**colorbar, "title": {"text": "cos(q,c)"}, "len": 0.34, "y": 0.51},
            "xaxis": "x",
            "yaxis": "y2",
        }
    ]
    last = min(hi, n - 1)
    if last > lo:
        bx = np.arange(lo, last) + 0.5
        traces.append(
            {
                "type": "heatmap",
                "name": "b(c,c+1)",
                "x": bx,
                "y": ["b(c,c+1)"],
                "z": [penalties[lo:last]],
                "colorscale": PENALTY_SCALE,
                "xgap": 1,
                "zmin": 0.0,
                "zmax": float(max(penalties.max(), 1e-9)),
                "customdata": [np.stack([bx - 0.5, bx + 0.5], axis=1)],
                "hovertemplate": "boundary %{customdata[0]:.0f} | %{customdata[1]:.0f}<br>"
                "b = %{z:.3f}<extra></extra>",
                "colorbar": {**colorbar, "title": {"text": "b"}, "len": 0.3, "y": 0.15},
                "xaxis": "x",
                "yaxis": "y3",
            }
        )
    for label, colour, symbol, members in (
        ("retrieved", RETRIEVED, "triangle-down", list(retrieved)),
        ("admitted", ADMITTED, "triangle-up", list(admitted)),
        ("rejected", REJECTED, "x", [c for c in rejected if status.get(c) == "rejected"]),
    ):
        xs = [c for c in members if lo <= c <= hi]
        traces.append(
            {
                "type": "scatter",
                "name": label,
                "x": xs,
                "y": [label] * len(xs),
                "mode": "markers+text" if label == "retrieved" else "markers",
                "text": [str(rank.get(c, "")) for c in xs],
                "textposition": "top center",
                "marker": {
                    "color": colour,
                    "symbol": symbol,
                    "size": 12,
                    "line": {"width": 1, "color": "white"},
                },
                "hovertemplate": f"chunk %{{x}} · {label}<extra></extra>",
                "xaxis": "x",
                "yaxis": "y",
            }
        )
    axis_x = {"range": [lo - 0.5, hi + 0.5], "showgrid": False, "zeroline": False}
    layout = {
        "height": height,
        "font": {"size": font_size},
        "hovermode": "closest",
        "margin": {"l": 10, "r": 10, "t": 10, "b": 40},
        "plot_bgcolor": "white",
        "legend": {"orientation": "h", "y": 1.12, "x": 0},
        "xaxis": {**axis_x, "anchor": "y3", "title": {"text": "chunk index (document order)"}},
        "yaxis": {
            "domain": list(_MARKS),
            "categoryorder": "array",
            "categoryarray": ["rejected", "admitted", "retrieved"],
            "anchor": "x",
        },
        "yaxis2": {"domain": list(_SIMS), "anchor": "x"},
        "yaxis3": {"domain": list(_BOUNDS), "anchor": "x"},
    }
    return fast_figure(traces, layout)
