"""The Pareto chart: recall against mean chunks for every grid point, the frontier, and
labelled reference points (presets, baselines, the sliders)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from scar_viz.charts._style import ADMITTED, RETRIEVED, WINDOW, point_trace

_TEXT_POSITIONS = ("top right", "bottom right", "top left", "bottom left")


def pareto_chart(
    chunks: np.ndarray,
    recall: np.ndarray,
    lams: np.ndarray,
    taus: np.ndarray,
    frontier: Sequence[int],
    labelled: Sequence[tuple[str, float, float]] = (),
    current: tuple[float, float] | None = None,
    height: int = 440,
    font_size: int = 12,
) -> go.Figure:
    """Build the chart.

    Args:
        chunks, recall: (L, T) grid values at (lams[i], taus[j]).
        frontier: flat indices of the non-dominated grid points, by chunks.
        labelled: (label, mean chunks, recall) of presets and baselines.
        current: (mean chunks, recall) at the sliders.

    Frontier points carry ``customdata`` [λ, τ, flat index] so a selection can set sliders.
    """
    chunks, recall = np.asarray(chunks, float), np.asarray(recall, float)
    lam_grid, tau_grid = np.meshgrid(
        np.asarray(lams, float), np.asarray(taus, float), indexing="ij"
    )
    flat = np.column_stack([lam_grid.ravel(), tau_grid.ravel()])
    fig = go.Figure()
    fig.add_trace(
        go.Scattergl(
            x=chunks.ravel(),
            y=recall.ravel(),
            mode="markers",
            name=f"grid ({chunks.size} points)",
            marker={"color": WINDOW, "size": 5, "opacity": 0.45},
            customdata=flat,
            hovertemplate="λ = %{customdata[0]:.2f}, τ = %{customdata[1]:.2f}<br>"
            "chunks %{x:.2f}, recall %{y:.3f}<extra>grid</extra>",
        )
    )
    idx = np.asarray(frontier, dtype=int)
    fig.add_trace(
        go.Scatter(
            x=chunks.ravel()[idx],
            y=recall.ravel()[idx],
            mode="lines+markers",
            name="Pareto frontier",
            line={"color": ADMITTED, "width": 2, "shape": "hv"},
            marker={"color": ADMITTED, "size": 8},
            customdata=np.column_stack([flat[idx], idx]) if len(idx) else None,
            hovertemplate="frontier: λ = %{customdata[0]:.2f}, τ = %{customdata[1]:.2f}<br>"
            "chunks %{x:.2f}, recall %{y:.3f}<extra></extra>",
        )
    )
    for n, (label, x, y) in enumerate(labelled):
        fig.add_trace(
            go.Scatter(
                x=[x],
                y=[y],
                mode="markers+text",
                text=[label],
                textposition=_TEXT_POSITIONS[n % len(_TEXT_POSITIONS)],
                textfont={"size": font_size},
                marker={
                    "symbol": "diamond",
                    "size": 11,
                    "color": RETRIEVED,
                    "line": {"width": 1, "color": "white"},
                },
                name=label,
                showlegend=False,
                hovertemplate=f"{label}<br>chunks %{{x:.2f}}, recall %{{y:.3f}}<extra></extra>",
            )
        )
    if current is not None:
        fig.add_trace(
            point_trace(
                current[0],
                current[1],
                "star",
                16,
                "gold",
                (1.5, "black"),
                name="sliders",
                hovertemplate="sliders<br>chunks %{x:.2f}, recall %{y:.3f}<extra></extra>",
            )
        )
    xs = np.concatenate([chunks.ravel(), [x for _, x, _ in labelled]])
    pad = 0.08 * max(float(xs.max() - xs.min()), 1.0) if len(xs) else 1.0
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        font={"size": font_size},
        xaxis={
            "title": {"text": "mean unique chunks per query (cost)"},
            "range": [float(xs.min()) - pad, float(xs.max()) + pad] if len(xs) else None,
        },
        yaxis={"title": {"text": "Recall@K"}},
        legend={"orientation": "h", "y": 1.08, "x": 0},
        plot_bgcolor="white",
        hovermode="closest",
    )
    fig.update_xaxes(showgrid=True, gridcolor="#eee")
    fig.update_yaxes(showgrid=True, gridcolor="#eee")
    return fig
