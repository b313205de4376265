"""The decision plane: every candidate at (b(c,n), cos(q,n) − τ·cos(q,c)); gate y = λ·x."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from scar_viz.charts._style import ADMITTED, REJECTED, RETRIEVED, fast_figure
from scar_viz.scoring import Decision

_OUTCOME_STYLE = {
    "admitted": (ADMITTED, "circle"),
    "rejected": (REJECTED, "x"),
    "retrieved": (RETRIEVED, "diamond"),
}


def decision_plane(
    decisions: Sequence[Decision],
    lam: float,
    height: int = 380,
    font_size: int = 12,
    marker_size: int = 11,
) -> go.Figure:
    """Build the decision plane. A point lies above the line exactly when the gate admits it:
    cos(q,n) − τ·cos(q,c) > λ·b(c,n)  ⇔  S(c,n) > τ·cos(q,c)."""
    xs = np.array([d.penalty for d in decisions], dtype=float)
    ys = np.array([d.cos_qn - d.bar for d in decisions], dtype=float)
    x_max = float(max(0.6, xs.max() * 1.15 if len(xs) else 0.6))
    y_abs = float(max(0.3, np.abs(ys).max() * 1.15 if len(ys) else 0.3, lam * x_max * 1.05))
    traces: list[dict] = [
        {
            "type": "scatter",
            "x": [0.0, x_max],
            "y": [0.0, lam * x_max],
            "mode": "lines",
            "name": f"gate y = {lam:.2f}·x",
            "line": {"color": "black", "width": 2},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": [0, x_max, x_max, 0],
            "y": [0, lam * x_max, y_abs, y_abs],
            "fill": "toself",
            "fillcolor": "rgba(26,152,80,0.08)",
            "mode": "none",
            "name": "admit region",
            "hoverinfo": "skip",
            "showlegend": False,
        },
    ]
    for outcome, (colour, symbol) in _OUTCOME_STYLE.items():
        sel = [i for i, d in enumerate(decisions) if d.outcome == outcome]
        if not sel:
            continue
        ds = [decisions[i] for i in sel]
        traces.append(
            {
                "type": "scatter",
                "x": xs[sel],
                "y": ys[sel],
                "mode": "markers+text",
                "name": outcome,
                "text": [f"{d.chunk}→{d.neighbour}" for d in ds],
                "textposition": "top center",
                "textfont": {"size": max(9, font_size - 2)},
                "marker": {
                    "color": colour,
                    "symbol": symbol,
                    "size": marker_size,
                    "line": {"width": 1, "color": "white"},
                },
                "customdata": [
                    [
                        d.chunk,
                        d.neighbour,
                        d.side,
                        d.cos_qn,
                        d.bar,
                        d.score,
                        d.margin,
                        d.blocked_by or "—",
                    ]
                    for d in ds
                ],
                "hovertemplate": (
                    "c=%{customdata[0]} → n=%{customdata[1]} (%{customdata[2]})<br>"
                    "b(c,n) = %{x:.3f}<br>cos(q,n) = %{customdata[3]:.3f}<br>"
                    "bar τ·cos(q,c) = %{customdata[4]:.3f}<br>S = %{customdata[5]:.3f}<br>"
                    "margin = %{customdata[6]:+.3f}<br>blocked by: %{customdata[7]}"
                    "<extra>" + outcome + "</extra>"
                ),
            }
        )
    layout = {
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 40},
        "font": {"size": font_size},
        "plot_bgcolor": "white",
        "legend": {"orientation": "h", "y": 1.08, "x": 0},
        "xaxis": {
            "title": {"text": "boundary penalty b(c,n) = 1 − cos(c,n)"},
            "range": [0, x_max],
            "zeroline": True,
        },
        "yaxis": {
            "title": {"text": "cos(q,n) − τ·cos(q,c)"},
            "range": [-y_abs, y_abs],
            "zeroline": True,
            "zerolinecolor": "#bbb",
        },
    }
    return fast_figure(traces, layout)
