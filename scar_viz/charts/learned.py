"""Charts of the learned gate: its recall-vs-chunks curve as p varies (drawn onto the Pareto
chart), its weights, and one decision's feature contributions (the "why?" box)."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from scar_viz.charts._style import ADMITTED, REJECTED, RETRIEVED
from scar_viz.scoring.explain import learned_verdict
from scar_viz.scoring.learned import FEATURE_MEANING, LearnedDecision, LearnedGate, PCurve

LEARNED = "#7b3294"


def add_in_sample_curve(fig: go.Figure, curve: PCurve) -> go.Figure:
    """Add the learned gate's in-sample curve (read on the very queries it was fitted on) to
    ``fig``, faint and dashed, named so: beside a held-out curve it shows how much fitting on
    the queries flatters the gate. Not pickable and never hovered (``hoverinfo="skip"``): with
    hover on, a click on the cross-validated curve's point picked this curve's nearer point
    instead, and p did not move."""
    order = np.argsort(curve.mean_chunks, kind="stable")
    fig.add_trace(
        go.Scatter(
            x=curve.mean_chunks[order],
            y=curve.recall[order],
            mode="lines",
            name="learned gate, in sample (fitted on these queries)",
            line={"color": LEARNED, "width": 1.5, "dash": "dot"},
            opacity=0.55,
            hoverinfo="skip",
        )
    )
    return fig


def add_p_curve(
    fig: go.Figure,
    curve: PCurve,
    current_p: float | None = None,
    name: str = "learned gate (p varies)",
) -> go.Figure:
    """Add the learned gate's (mean chunks, recall) points, one per p, to ``fig`` (in place),
    as ``name``.

    Points carry ``customdata`` [p, index] so a selection on the chart can set p; the point
    nearest ``current_p`` is marked.
    """
    order = np.argsort(curve.mean_chunks, kind="stable")
    fig.add_trace(
        go.Scatter(
            x=curve.mean_chunks[order],
            y=curve.recall[order],
            mode="lines+markers",
            name=name,
            line={"color": LEARNED, "width": 2},
            marker={"color": LEARNED, "size": 6},
            customdata=np.column_stack([curve.ps[order], order]),
            hovertemplate="learned: p = %{customdata[0]:.3g}<br>"
            "chunks %{x:.2f}, recall %{y:.3f}<extra></extra>",
        )
    )
    if current_p is not None:
        i = curve.nearest(current_p)
        fig.add_trace(
            go.Scatter(
                x=[curve.mean_chunks[i]],
                y=[curve.recall[i]],
                mode="markers",
                name=f"learned, p = {curve.ps[i]:.3g}",
                marker={
                    "symbol": "star",
                    "size": 15,
                    "color": LEARNED,
                    "line": {"width": 1.5, "color": "black"},
                },
                hovertemplate=f"learned, p = {curve.ps[i]:.3g}<br>"
                "chunks %{x:.2f}, recall %{y:.3f}<extra></extra>",
            )
        )
    return fig


def gate_weights_chart(gate: LearnedGate, height: int = 260) -> go.Figure:
    """Horizontal bars: each feature's weight on its standardised value, meaning on hover."""
    names = list(gate.feature_names)
    weights = np.asarray(gate.weights, dtype=float)
    fig = go.Figure(
        go.Bar(
            x=weights,
            y=names,
            orientation="h",
            marker={"color": [ADMITTED if w > 0 else REJECTED for w in weights]},
            customdata=[html.escape(FEATURE_MEANING[n]) for n in names],
            hovertemplate="%{y}: w = %{x:+.3f}<br>%{customdata}<extra></extra>",
        )
    )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        xaxis={"title": {"text": "weight per standard deviation (+ admits, − rejects)"}},
        yaxis={"autorange": "reversed"},
        plot_bgcolor="white",
    )
    return fig


def contributions_chart(decision: LearnedDecision, height: int = 260) -> go.Figure:
    """The "why?" box: w_i·z_i per feature and the intercept, summing to the score, against
    the bar logit(p) (dashed); the title gives the probability against p."""
    rows = decision.why_rows()
    labels = [r["term"] for r in rows]
    values = [float(r["contribution"]) for r in rows]
    fig = go.Figure(
        go.Waterfall(
            x=[*labels, "score"],
            y=[*values, decision.score],
            measure=["relative"] * len(values) + ["total"],
            increasing={"marker": {"color": ADMITTED}},
            decreasing={"marker": {"color": REJECTED}},
            totals={"marker": {"color": RETRIEVED}},
            hovertemplate="%{x}: %{y:+.3f}<extra></extra>",
        )
    )
    fig.add_hline(
        y=decision.bar, line_dash="dash", annotation_text=f"bar logit(p = {decision.p:g})"
    )
    title = (
        f"chunk {decision.neighbour}: already retrieved (probability "
        f"{decision.probability:.3f} not used)"
        if decision.outcome == "retrieved"
        else f"chunk {decision.neighbour}: probability {decision.probability:.3f} "
        f"vs p = {decision.p:g} → {learned_verdict(decision)}"
    )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
        title={"text": title},
        yaxis={"title": {"text": "score (log-odds)"}},
        plot_bgcolor="white",
        showlegend=False,
    )
    return fig
