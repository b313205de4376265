"""The decision plane: every candidate at (b(c,n), cos(q,n) − τ·cos(q,c)); gate y = λ·x.

Labels are placed in pixels for one width, and the figure is drawn at exactly that width: a
label's anchor moves with its point when a plot is stretched or squeezed, but its size and a
leader line's offset do not, so labels placed for one width touch at another (measured in
Chromium: 3 overlapping pairs of 485 labels drawn 1,400 px wide, 22 at 440 px, none at the
width they were placed for).
"""

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
"""The figure width (px) labels are placed for and the plane is drawn at, unless given."""
LABEL_GAP_PX = 3
"""Labels keep this far from one another and from markers: they never touch."""


def plane_margin(font_size: int) -> dict[str, int]:
    """Plot margins (px) for ``font_size``, fixed (no autoexpand) so label placement knows
    the frame: room for tick labels and axis titles, and for the legend above the frame."""
    return {"l": 30 + 3 * font_size, "r": 10, "t": 16 + 2 * font_size, "b": 20 + 3 * font_size}


@dataclass(frozen=True)
class LabelBox:
    """A label's box in pixels (origin top left of the figure) and its plotly anchor.

    ``arrow``: the box sits away from its point (no room beside it) and a thin leader line
    joins them; ``(ax, ay)`` is then the box's centre relative to the point, in pixels.
    """

    index: int
    x0: float
    x1: float
    y0: float
    y1: float
    xanchor: str
    yanchor: str
    arrow: bool = False
    ax: float = 0.0
    ay: float = 0.0

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2

    def overlaps(self, other: LabelBox, gap: float = 0.0) -> bool:
        """Whether the boxes overlap, or come closer than ``gap`` px."""
        return not (
            self.x1 + gap <= other.x0
            or self.x0 >= other.x1 + gap
            or self.y1 + gap <= other.y0
            or self.y0 >= other.y1 + gap
        )

    def crosses(self, segment: tuple[float, float, float, float]) -> bool:
        """Whether the segment (x0, y0, x1, y1) in pixels passes through this box."""
        ax, ay, bx, by = segment
        if ax > bx:
            ax, ay, bx, by = bx, by, ax, ay
        lo, hi = max(self.x0, ax), min(self.x1, bx)
        if lo > hi:
            return False
        if bx == ax:
            ys = (ay, by)
        else:
            slope = (by - ay) / (bx - ax)
            ys = (ay + slope * (lo - ax), ay + slope * (hi - ax))
        return min(ys) < self.y1 and max(ys) > self.y0


_RINGS = 6
"""How far out (in label heights) a label may go, with a leader line, when no place beside
its point is free: a label is left out only when even that fails."""


def place_labels(
    xs: Sequence[float] | np.ndarray,
    ys: Sequence[float] | np.ndarray,
    texts: Sequence[str],
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    height: int,
    font_size: int,
    marker_size: int,
    width: int = NOMINAL_WIDTH,
    margin: dict[str, int] | None = None,
    lam: float | None = None,
) -> list[LabelBox]:
    """Greedy label placement: above, below, right or left of each point, inside the plot
    frame and at least :data:`LABEL_GAP_PX` from any other label or marker, off the gate
    line y = ``lam``·x when
    given; failing that, farther out on rings around the point (with a leader line); a label
    that fits nowhere is left out (the point's hover still names it). Points are taken in the
    order given.
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

    line = (*px(0.0, 0.0), *px(xb, lam * xb)) if lam is not None else None
    rad = marker_size / 2 + 1
    points = [px(x, y) for x, y in zip(xs, ys, strict=True)]
    taken = [LabelBox(-1, x - rad, x + rad, y - rad, y + rad, "", "") for x, y in points]

    def free(box: LabelBox) -> bool:
        inside = box.x0 >= left and box.x1 <= right and box.y0 >= top and box.y1 <= bottom
        return (
            inside
            and (line is None or not box.crosses(line))
            and not any(box.overlaps(o, LABEL_GAP_PX) for o in taken)
        )

    out = []
    for i, ((x, y), text) in enumerate(zip(points, texts, strict=True)):
        w, h, g = 0.62 * font_size * len(text) + 4, 1.3 * font_size, rad + 2
        near = [
            LabelBox(i, x - w / 2, x + w / 2, y - g - h, y - g, "center", "bottom"),
            LabelBox(i, x - w / 2, x + w / 2, y + g, y + g + h, "center", "top"),
            LabelBox(i, x + g, x + g + w, y - h / 2, y + h / 2, "left", "middle"),
            LabelBox(i, x - g - w, x - g, y - h / 2, y + h / 2, "right", "middle"),
        ]
        far = [
            LabelBox(
                i, cx - w / 2, cx + w / 2, cy - h / 2, cy + h / 2, "", "", True, cx - x, cy - y
            )
            for ring in range(1, _RINGS + 1)
            for ux, uy in ((0, -1), (0, 1), (1, 0), (-1, 0), (1, -1), (-1, -1), (1, 1), (-1, 1))
            for cx, cy in [(x + ux * (g + w / 2 + ring * h), y + uy * (g + h / 2 + ring * h))]
        ]
        box = next((b for b in (*near, *far) if free(b)), None)
        if box is not None:
            taken.append(box)
            out.append(box)
    return out


def _annotations(
    xs: np.ndarray,
    ys: np.ndarray,
    texts: list[str],
    boxes: list[LabelBox],
    gap: float,
    size: int,
) -> list[dict]:
    """Plotly annotations for ``boxes``: anchored at the point, shifted by ``gap`` px, or
    (``arrow``) centred where the box is with a leader line to the point."""
    dx = {"left": gap, "right": -gap, "center": 0.0}
    dy = {"bottom": gap, "top": -gap, "middle": 0.0}
    out = []
    for box in boxes:
        note = {
            "x": float(xs[box.index]),
            "y": float(ys[box.index]),
            "text": texts[box.index],
            "font": {"size": size},
        }
        if box.arrow:
            note |= {
                "showarrow": True,
                "arrowhead": 0,
                "arrowwidth": 1,
                "arrowcolor": "#888",
                "ax": box.ax,
                "ay": box.ay,
            }
        else:
            note |= {
                "showarrow": False,
                "xanchor": box.xanchor,
                "yanchor": box.yanchor,
                "xshift": dx[box.xanchor],
                "yshift": dy[box.yanchor],
            }
        out.append(note)
    return out


def decision_plane(
    decisions: Sequence[Decision],
    lam: float,
    height: int = 380,
    font_size: int = 12,
    marker_size: int = 11,
    width: int | None = None,
) -> go.Figure:
    """Build the decision plane. A point lies above the line exactly when the gate admits it:
    cos(q,n) − τ·cos(q,c) > λ·b(c,n)  ⇔  S(c,n) > τ·cos(q,c). With μ > 0 (docs/method.md §8)
    the height is cos(q,n) + μ·lex(q,n) − τ·cos(q,c).

    The figure is ``width`` px wide (:data:`NOMINAL_WIDTH` when None), always fixed: its
    labels are placed for that width and keep off the gate line and one another there (a
    page draws it at its own width, ``st.plotly_chart(..., width="content")``)."""
    xs = np.array([d.penalty for d in decisions], dtype=float)
    ys = np.array([d.cos_qn + d.lexical_term - d.bar for d in decisions], dtype=float)
    words = any(d.mu for d in decisions)
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
        width=width or NOMINAL_WIDTH,
        margin=margin,
        lam=lam,
    )
    layout = {
        "width": width or NOMINAL_WIDTH,
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
            "title": {"text": f"cos(q,n){' + μ·lex(q,n)' if words else ''} − τ·cos(q,c)"},
            "range": [-y_abs, y_abs],
            "zeroline": True,
            "zerolinecolor": "#bbb",
        },
    }
    return fast_figure(traces, layout)
