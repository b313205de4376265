"""Sweep heatmaps: a metric over the λ×τ grid, the current slider point marked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from scar_viz.charts._style import point_trace

SCALES = {"recall": "Viridis", "mean chunks": "Cividis", "efficiency": "Magma", "gap": "RdBu"}

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels, y up
_DIRECTIONS = ((1, 1), (-1, 1), (1, -1), (-1, -1), (0, 1), (0, -1), (1, 0), (-1, 0))
_DISTANCES = (16.0, 30.0, 46.0)
_MARKER_RADIUS = 6.0


def _label_box(x: float, y: float, label: str, font_size: int) -> Box:
    w, h = 0.62 * font_size * len(label) + 8, 1.3 * font_size + 6
    return (x - w / 2, y - h / 2, x + w / 2, y + h / 2)


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_labels(
    marks: Mapping[str, tuple[float, float]],
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    plot_px: tuple[float, float] = (300.0, 250.0),
    font_size: int = 12,
) -> dict[str, tuple[float, float]]:
    """Pixel offsets (dx, dy; dy up) of each mark's label from its point, so that no two
    labels overlap each other or any mark, even when marks coincide.

    ``marks`` maps label -> (x, y) in data units; ``plot_px`` is the plot area's (width,
    height) in pixels. Labels are placed in order, each at the first free offset of 8
    directions × 3 distances (the nearest, up-right, first); if none is free, the farthest
    up-right one.
    """
    (x0, x1), (y0, y1) = x_range, y_range
    sx = plot_px[0] / (x1 - x0) if x1 > x0 else 0.0
    sy = plot_px[1] / (y1 - y0) if y1 > y0 else 0.0
    pixels = {k: ((x - x0) * sx, (y - y0) * sy) for k, (x, y) in marks.items()}
    taken: list[Box] = [
        (px - _MARKER_RADIUS, py - _MARKER_RADIUS, px + _MARKER_RADIUS, py + _MARKER_RADIUS)
        for px, py in pixels.values()
    ]
    out: dict[str, tuple[float, float]] = {}
    for label, (px, py) in pixels.items():
        options = [(ux * d, uy * d) for d in _DISTANCES for ux, uy in _DIRECTIONS]
        pick = options[-8]  # the farthest up-right offset when everything is taken
        for dx, dy in options:
            box = _label_box(px + dx, py + dy, label, font_size)
            if not any(_overlaps(box, t) for t in taken):
                pick = (dx, dy)
                break
        out[label] = pick
        taken.append(_label_box(px + pick[0], py + pick[1], label, font_size))
    return out


def sweep_heatmap(
    lams: Sequence[float] | np.ndarray,
    taus: Sequence[float] | np.ndarray,
    z: np.ndarray,
    title: str,
    point: tuple[float, float] | None = None,
    marks: Mapping[str, tuple[float, float]] | None = None,
    colorscale: str | None = None,
    value_format: str = ".3f",
    zmid: float | None = None,
    bar_label: str = "τ (relative bar)",
    height: int = 330,
    font_size: int = 12,
    plot_width: float = 300.0,
) -> go.Figure:
    """Heatmap of ``z[i, j]`` at (λ = lams[i], τ = taus[j]); τ across, λ up.

    Args:
        point: the current (λ, τ), drawn as a white star.
        marks: other labelled (λ, τ) points, e.g. the best grid point or presets.
        zmid: centre of a diverging colour scale (for gaps).
        plot_width: the plot area's width in pixels where the figure is drawn (a third of a
            wide page is about 160), so the mark labels are placed apart on screen.
    """
    z = np.asarray(z, dtype=float)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=np.asarray(taus, dtype=float),
            y=np.asarray(lams, dtype=float),
            colorscale=colorscale or SCALES.get(title, "Viridis"),
            zmid=zmid,
            colorbar={"thickness": 12, "len": 0.9},
            hovertemplate=f"λ = %{{y:.2f}}<br>{bar_label.split()[0]} = %{{x:.3f}}<br>"
            f"{title} = %{{z:{value_format}}}<extra></extra>",
            name=title,
        )
    )
    marks = dict(marks or {})
    taus_f, lams_f = np.asarray(taus, dtype=float), np.asarray(lams, dtype=float)
    offsets = place_labels(
        {label: (tau, lam) for label, (lam, tau) in marks.items()},
        (float(taus_f.min()), float(taus_f.max())) if len(taus_f) else (0.0, 1.0),
        (float(lams_f.min()), float(lams_f.max())) if len(lams_f) else (0.0, 1.0),
        (float(plot_width), max(100.0, height - 90.0)),
        max(9, font_size - 1),
    )
    for label, (lam, tau) in marks.items():
        fig.add_trace(
            point_trace(
                tau,
                lam,
                "circle",
                9,
                "white",
                (2, "#111"),
                hovertemplate=f"{label}: λ = {lam:.2f}, τ = {tau:.2f}<extra></extra>",
                name=label,
                showlegend=False,
            )
        )
        dx, dy = offsets[label]
        fig.add_annotation(
            x=tau,
            y=lam,
            text=label,
            ax=dx,
            ay=-dy,  # plotly's ay points down
            showarrow=True,
            arrowhead=0,
            arrowwidth=1,
            arrowcolor="#111",
            font={"color": "#111", "size": max(9, font_size - 1)},
            bgcolor="rgba(255,255,255,0.88)",
            bordercolor="#111",
            borderwidth=1,
            borderpad=1,
        )
    if point is not None:
        fig.add_trace(
            point_trace(
                point[1],
                point[0],
                "star",
                16,
                "white",
                (1.5, "black"),
                hovertemplate=f"sliders: λ = {point[0]:.2f}, τ = {point[1]:.2f}<extra></extra>",
                name="sliders",
                showlegend=False,
            )
        )
    fig.update_layout(
        title={"text": title, "x": 0.02, "font": {"size": font_size + 2}},
        height=height,
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
        font={"size": font_size},
        xaxis={"title": {"text": bar_label}},
        yaxis={"title": {"text": "λ (penalty weight)"}},
    )
    return fig
