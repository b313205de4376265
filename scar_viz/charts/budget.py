"""The equal-budget chart: Recall@K against mean context tokens, one line per policy over
k = 1 … 10, the Pareto front over every (policy, k) marked."""

from __future__ import annotations

import html

import plotly.graph_objects as go
from plotly.colors import qualitative

from scar_viz.charts._style import ADMITTED
from scar_viz.chunking.tokens import TOKENIZER_NAME
from scar_viz.evaluation.budget import BudgetResult

_PALETTE = qualitative.Safe + qualitative.Vivid


def budget_chart(
    result: BudgetResult, height: int = 540, font_size: int = 12, log_x: bool = False
) -> go.Figure:
    """One trace per policy (points by k, hover gives k), then the Pareto front as a step
    line with ringed markers. ``customdata`` of every point is [policy, k]."""
    fig = go.Figure()
    for n, name in enumerate(result.policies):
        pts = result.of(name)
        label = html.escape(name)
        fig.add_trace(
            go.Scatter(
                x=[p.mean_tokens for p in pts],
                y=[p.recall for p in pts],
                mode="lines+markers",
                name=label,
                line={"color": _PALETTE[n % len(_PALETTE)], "width": 1.5},
                marker={"size": 6},
                customdata=[[label, p.k] for p in pts],
                hovertemplate="%{customdata[0]}, k = %{customdata[1]}<br>"
                "tokens %{x:.0f}, recall %{y:.3f}<extra></extra>",
            )
        )
    front = result.on_front()
    fig.add_trace(
        go.Scatter(
            x=[p.mean_tokens for p in front],
            y=[p.recall for p in front],
            mode="lines+markers",
            name=f"Pareto front ({len(front)} points)",
            line={"color": ADMITTED, "width": 2, "shape": "hv", "dash": "dot"},
            marker={
                "symbol": "circle-open",
                "size": 14,
                "color": ADMITTED,
                "line": {"width": 2, "color": ADMITTED},
            },
            customdata=[[html.escape(p.policy), p.k] for p in front],
            hovertemplate="front: %{customdata[0]}, k = %{customdata[1]}<br>"
            "tokens %{x:.0f}, recall %{y:.3f}<extra></extra>",
        )
    )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 20, "b": 40},
        font={"size": font_size},
        xaxis={
            "title": {"text": f"mean context tokens per query ({TOKENIZER_NAME})"},
            "type": "log" if log_x else "linear",
        },
        yaxis={"title": {"text": f"Recall@K ({result.subset} queries)"}, "range": [0, 1.02]},
        legend={"orientation": "h", "y": -0.16, "yanchor": "top", "x": 0},
        plot_bgcolor="white",
        hovermode="closest",
    )
    fig.update_xaxes(showgrid=True, gridcolor="#eee")
    fig.update_yaxes(showgrid=True, gridcolor="#eee")
    return fig
