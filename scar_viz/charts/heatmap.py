"""Sweep heatmaps: a metric over the λ×τ grid, the current slider point marked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

SCALES = {"recall": "Viridis", "mean chunks": "Cividis", "efficiency": "Magma", "gap": "RdBu"}


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
) -> go.Figure:
    """Heatmap of ``z[i, j]`` at (λ = lams[i], τ = taus[j]); τ across, λ up.

    Args:
        point: the current (λ, τ), drawn as a white star.
        marks: other labelled (λ, τ) points, e.g. the best grid point or presets.
        zmid: centre of a diverging colour scale (for gaps).
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
    for label, (lam, tau) in (marks or {}).items():
        fig.add_trace(
            go.Scatter(
                x=[tau],
                y=[lam],
                mode="markers+text",
                text=[label],
                textposition="top right",
                textfont={"color": "white", "size": max(9, font_size - 1)},
                marker={
                    "symbol": "circle-open",
                    "size": 11,
                    "color": "white",
                    "line": {"width": 2},
                },
                hovertemplate=f"{label}: λ = {lam:.2f}, τ = {tau:.2f}<extra></extra>",
                showlegend=False,
            )
        )
    if point is not None:
        fig.add_trace(
            go.Scatter(
                x=[point[1]],
                y=[point[0]],
                mode="markers",
                marker={
                    "symbol": "star",
                    "size": 16,
                    "color": "white",
                    "line": {"width": 1.5, "color": "black"},
                },
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
