"""The decision plane: every candidate at (b(c,n), cos(q,n) − τ·cos(q,c)); gate y = λ·x."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from scar_viz.charts._style import ADMITTED, REJECTED, RETRIEVED, fast_figure
from scar_viz.scoring.scar import Decision

_OUTCOME_STYLE = {
    "admitted": (ADMITTED, "circle"),
    "rejected": (REJECTED, "x"),
    "retrieved": (RETRIEVED, "diamond"),
}


NOMINAL_WIDTH = 520
"""The plot width (px) labels are placed for: the narrowest the Explorer draws the plane."""


def plane_margin(font_size: int) -> dict[str, int]:
    """Plot margins (px) for ``font_size``, fixed (no autoexpand) so label placement knows
    the frame: room for tick labels and axis titles, and for the legend above the frame."""
    return {"l": 30 + 3 * font_size, "r": 10, "t": 16 + 2 * font_size, "b": 20 + 3 * font_size}


@dataclass(frozen=True)
class LabelBox:
    """A label's box in pixels (origin top left of the figure) and its plotly anchor."""

    index: int
    x0: float
    x1: float
    y0: float
    y1: float
    xanchor: str
    yanchor: str

    def overlaps(self, other: LabelBox) -> bool:
        return not (
            self.x1 <= other.x0 or self.x0 >= other.x1 or self.y1 <= other.y0 or self.y0 >= other.y1
        )


def place_labels(
    xs: Sequence[float],
    ys: Sequence[float],
    texts: Sequence[str],
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    height: int,
    font_size: int,
    marker_size: int,
    width: int = NOMINAL_WIDTH,
    margin: dict[str, int] | None = None,
) -> list[LabelBox]:
    """Greedy label placement: above, below, right or left of each point, inside the plot
    frame and overlapping no other label or marker; a label that fits nowhere is left out
    (the point's hover still names it). Points are taken in the order given.
    """
    m = margin or plane_margin(font_size)
    top, left, right, bottom = m["t"], m["l"], width - m["r"], height - m["b"]
    plot_w, plot_h = right - left, bottom - top
    (xa, xb), (ya, yb) = x_range, y_range

    def px(x: float, y: float) -> tuple[float, float]:
        return (
            left + (x - xa) / (xb - xa) * plot_w,
            top + (yb - y) / (yb - ya) * plot_h,
        )

    rad = marker_size / 2 + 1
    points = [px(x, y) for x, y in zip(xs, ys, strict=True)]
    taken = [LabelBox(-1, x - rad, x + rad, y - rad, y + rad, "", "") for x, y in points]
    out = []
    for i, ((x, y), text) in enumerate(zip(points, texts, strict=True)):
        w, h, g = 0.62 * font_size * len(text) + 4, 1.3 * font_size, rad + 2
        for x0, y0, xanchor, yanchor in (
            (x - w / 2, y - g - h, "center", "bottom"),
            (x - w / 2, y + g, "center", "top"),
            (x + g, y - h / 2, "left", "middle"),
            (x - g - w, y - h / 2, "right", "middle"),
        ):
            box = LabelBox(i, x0, x0 + w, y0, y0 + h, xanchor, yanchor)
            inside = x0 >= left and x0 + w <= right and y0 >= top and y0 + h <= bottom
            if inside and not any(box.overlaps(o) for o in taken):
                taken.append(box)
                out.append(box)
                break
    return out


def _annotations(
    xs: np.ndarray, ys: np.ndarray, texts: list[str], boxes: list[LabelBox], gap: float, size: int
) -> list[dict]:
    """Plotly annotations for ``boxes``: anchored at the point, shifted by ``gap`` px."""
    dx = {"left": gap, "right": -gap, "center": 0.0}
    dy = {"bottom": gap, "top": -gap, "middle": 0.0}
    return [
        {
            "x": float(xs[box.index]),
            "y": float(ys[box.index]),
            "text": texts[box.index],
            "showarrow": False,
            "xanchor": box.xanchor,
            "yanchor": box.yanchor,
            "xshift": dx[box.xanchor],
            "yshift": dy[box.yanchor],
            "font": {"size": size},
        }
        for box in boxes
    ]


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
                "mode": "markers",
                "name": outcome,
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
    texts = [f"{d.chunk}→{d.neighbour}" for d in decisions]
    label_size = max(9, font_size - 2)
    margin = plane_margin(font_size)
    boxes = place_labels(
        xs,
        ys,
        texts,
        (0.0, x_max),
        (-y_abs, y_abs),
        height,
        label_size,
        marker_size,
        margin=margin,
    )
    layout = {
        "height": height,
        "margin": {**margin, "autoexpand": False},
        "font": {"size": font_size},
        "plot_bgcolor": "white",
        "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        "annotations": _annotations(xs, ys, texts, boxes, marker_size / 2 + 3, label_size),
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
