"""Similarity scales per embedding model, and how a relative and an absolute bar transfer."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

MODEL_COLOURS = ("#1f3b73", "#d95f02", "#1a9850", "#7570b3")


def similarity_histograms(
    models: Mapping[str, Mapping[str, np.ndarray]],
    height: int = 330,
    font_size: int = 12,
) -> go.Figure:
    """One panel per kind of similarity (e.g. cos(q,c) over all chunks, cos(q,c) of the
    retrieved chunks, cos(c, c+1)), one overlaid histogram per model (probability density).

    Args:
        models: model label → {kind → values}; every model should have the same kinds.
    """
    kinds = list(dict.fromkeys(k for values in models.values() for k in values))
    fig = make_subplots(
        rows=1, cols=max(1, len(kinds)), subplot_titles=kinds, horizontal_spacing=0.06
    )
    for m, (label, values) in enumerate(models.items()):
        colour = MODEL_COLOURS[m % len(MODEL_COLOURS)]
        for c, kind in enumerate(kinds, start=1):
            data = np.asarray(values.get(kind, ()), dtype=float)
            fig.add_trace(
                go.Histogram(
                    x=data,
                    name=label,
                    legendgroup=label,
                    showlegend=c == 1,
                    histnorm="probability density",
                    nbinsx=40,
                    opacity=0.55,
                    marker={"color": colour},
                    hovertemplate=f"{label}<br>%{{x}}: density %{{y:.2f}}<extra>{kind}</extra>",
                ),
                row=1,
                col=c,
            )
            if len(data):
                fig.add_vline(
                    x=float(np.median(data)), line={"color": colour, "dash": "dot"}, row=1, col=c
                )
    fig.update_layout(
        barmode="overlay",
        height=height,
        margin={"l": 10, "r": 10, "t": 80, "b": 40},
        font={"size": font_size},
        # above the panel titles: below the plots it ran into the axis titles
        legend={"orientation": "h", "y": 1.12, "yanchor": "bottom", "x": 0},
        plot_bgcolor="white",
    )
    fig.update_annotations(font_size=font_size)
    fig.update_xaxes(title_text="cosine", showgrid=True, gridcolor="#eee")
    return fig


def bar_transfer_chart(
    thetas: np.ndarray,
    curves: Mapping[str, np.ndarray],
    theta: float,
    relative_chunks: Mapping[str, float],
    height: int = 330,
    font_size: int = 12,
) -> go.Figure:
    """Mean chunks against the absolute bar θ, one line per model; the θ tuned on the first
    model as a vertical line, and each model's chunk count under SCAR's relative bar as a
    dashed horizontal line in the model's colour."""
    fig = go.Figure()
    for m, (label, chunks) in enumerate(curves.items()):
        colour = MODEL_COLOURS[m % len(MODEL_COLOURS)]
        fig.add_trace(
            go.Scatter(
                x=np.asarray(thetas, float),
                y=np.asarray(chunks, float),
                mode="lines",
                name=f"{label}: absolute bar θ",
                line={"color": colour, "width": 2},
                hovertemplate=f"{label}<br>θ = %{{x:.3f}}: %{{y:.2f}} chunks<extra></extra>",
            )
        )
        if label in relative_chunks:
            fig.add_hline(
                y=float(relative_chunks[label]),
                line={"color": colour, "dash": "dash"},
                annotation_text=f"{label}: relative bar",
                annotation_position="top left",
            )
    fig.add_vline(
        x=theta,
        line={"color": "black", "width": 1},
        annotation_text=f"θ tuned on model 1 = {theta:.3f}",
        annotation_position="top right",
    )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        font={"size": font_size},
        xaxis={"title": {"text": "absolute bar θ in cos(q,n) − λ·b(c,n) > θ"}},
        yaxis={"title": {"text": "mean unique chunks per query"}},
        legend={"orientation": "h", "y": -0.25, "x": 0},
        plot_bgcolor="white",
    )
    return fig
