"""The verdict's chart: out-of-fold recall against mean context tokens for every candidate, one
front per retriever, the budget, the reference, the verdict and the runner-up; an undecided
verdict is drawn as a pair that cannot be told apart."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from scar_viz.charts._style import ADMITTED, RETRIEVED, point_trace
from scar_viz.chunking.tokens import TOKENIZER_NAME
from scar_viz.evaluation.crossval import Candidate
from scar_viz.evaluation.recommend import Verdict
from scar_viz.scoring.sweep import pareto_frontier
from scar_viz.views.verdict_words import candidate_name

RETRIEVER_COLOURS = {"dense": RETRIEVED, "bm25": "#d95f02", "hybrid": ADMITTED}
UNDECIDED = "#7570b3"


def _name(c: Candidate) -> str:
    return html.escape(candidate_name(c))


def _hover(v: Verdict, i: int) -> str:
    s = v.scored[i]
    c = s.candidate
    return (
        f"{_name(c)}<br>{c.retriever}, k = {c.k}<br>recall {c.mean_recall:.3f} "
        f"(vs reference {s.diff:+.3f}, 95 % CI {s.ci_low:+.3f} to {s.ci_high:+.3f})<br>"
        f"{c.mean_tokens:,.0f} tokens, {c.mean_chunks:.2f} chunks"
    )


def front_of(candidates: list[Candidate]) -> list[int]:
    """Indices (into ``candidates``) of the non-dominated ones, fewer tokens first."""
    if not candidates:
        return []
    recall = np.array([c.mean_recall for c in candidates])
    tokens = np.array([c.mean_tokens for c in candidates])
    return [int(i) for i in pareto_frontier(recall, tokens)]


def verdict_chart(v: Verdict, height: int = 560, font_size: int = 12) -> go.Figure:
    """Every candidate as a faint point coloured by retriever, each retriever's front as a step
    line, the budget as a dashed vertical line, the reference ringed, the verdict a star and
    the runner-up a diamond. Decided: a filled gold star. Undecided: both hollow in one colour,
    joined by a dashed line labelled "cannot tell apart". ``customdata`` of every candidate
    point is its index in ``v.candidates``."""
    fig = go.Figure()
    for name, colour in RETRIEVER_COLOURS.items():
        idx = [i for i, c in enumerate(v.candidates) if c.retriever == name]
        if not idx:
            continue
        cands = [v.candidates[i] for i in idx]
        fig.add_trace(
            go.Scatter(
                x=[c.mean_tokens for c in cands],
                y=[c.mean_recall for c in cands],
                mode="markers",
                name=f"{name}: every candidate",
                legendgroup=name,
                marker={"color": colour, "size": 6, "opacity": 0.3},
                customdata=idx,
                hovertext=[_hover(v, i) for i in idx],
                hovertemplate="%{hovertext}<extra></extra>",
            )
        )
        front = [idx[j] for j in front_of(cands)]
        fig.add_trace(
            go.Scatter(
                x=[v.candidates[i].mean_tokens for i in front],
                y=[v.candidates[i].mean_recall for i in front],
                mode="lines+markers",
                name=f"{name}: front",
                legendgroup=name,
                line={"color": colour, "width": 2, "shape": "hv"},
                marker={"color": colour, "size": 8},
                customdata=front,
                hovertext=[_hover(v, i) for i in front],
                hovertemplate="%{hovertext}<extra></extra>",
            )
        )
    fig.add_vline(
        x=v.budget_tokens,
        line={"dash": "dash", "color": "#555", "width": 1.5},
        annotation={
            "text": f"budget {v.budget_tokens:,.0f} tokens",
            "font": {"size": font_size},
            "yanchor": "bottom",
        },
        annotation_position="bottom right",
    )
    ref = v.reference
    fig.add_trace(
        point_trace(
            ref.mean_tokens,
            ref.mean_recall,
            "square-open",
            15,
            "#333",
            (2.5, "#333"),
            name=f"reference: window ±1, k = {ref.k}, {ref.retriever}",
            hovertext=[_hover(v, v.cv.reference)],
            hovertemplate="reference<br>%{hovertext}<extra></extra>",
        )
    )
    _mark_verdict(fig, v, font_size)
    recall = [c.mean_recall for c in v.candidates]
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 20, "b": 10},
        font={"size": font_size},
        xaxis={"title": {"text": f"mean context tokens per query ({TOKENIZER_NAME})"}},
        yaxis={
            "title": {"text": "recall, out of fold"},
            "range": [min(recall) - 0.03, max(recall) + 0.07],
        },
        legend={"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0},
        plot_bgcolor="white",
        hovermode="closest",
    )
    fig.update_xaxes(showgrid=True, gridcolor="#eee")
    fig.update_yaxes(showgrid=True, gridcolor="#eee")
    return fig


def _mark_verdict(fig: go.Figure, v: Verdict, font_size: int) -> None:
    best, rival = v.chosen, v.rival
    decided = v.decided
    star = "star" if decided else "star-open"
    fill = "gold" if decided else UNDECIDED
    word = "verdict" if decided else "verdict (undecided)"
    if rival is not None and not decided:
        fig.add_trace(
            go.Scatter(
                x=[best.mean_tokens, rival.mean_tokens],
                y=[best.mean_recall, rival.mean_recall],
                mode="lines",
                name="cannot tell apart",
                line={"color": UNDECIDED, "width": 2, "dash": "dash"},
                hoverinfo="skip",
            )
        )
        vs = v.versus
        assert vs is not None  # a runner-up comes with its comparison
        fig.add_annotation(
            x=(best.mean_tokens + rival.mean_tokens) / 2,
            y=(best.mean_recall + rival.mean_recall) / 2,
            text=(
                f"cannot tell apart: {100 * vs.mean_diff:+.1f} points "
                f"(95 % CI {100 * vs.ci_low:+.1f} to {100 * vs.ci_high:+.1f})"
            ),
            showarrow=False,
            yshift=16,
            font={"size": font_size, "color": UNDECIDED},
            bgcolor="rgba(255,255,255,0.85)",
        )
    if rival is not None:
        assert v.runner_up is not None  # the rival is the runner-up
        fig.add_trace(
            point_trace(
                rival.mean_tokens,
                rival.mean_recall,
                "diamond" if decided else "diamond-open",
                15,
                "#888" if decided else UNDECIDED,
                (2, "#333" if decided else UNDECIDED),
                name=f"runner-up: {_name(rival)}, {rival.retriever}, k = {rival.k}",
                hovertext=[_hover(v, v.runner_up)],
                hovertemplate="runner-up<br>%{hovertext}<extra></extra>",
            )
        )
    fig.add_trace(
        point_trace(
            best.mean_tokens,
            best.mean_recall,
            star,
            22,
            fill,
            (1.5 if decided else 2.5, "black" if decided else UNDECIDED),
            name=f"{word}: {_name(best)}, {best.retriever}, k = {best.k}",
            hovertext=[_hover(v, v.best)],
            hovertemplate=f"{word}<br>%{{hovertext}}<extra></extra>",
        )
    )
