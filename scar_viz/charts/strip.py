"""The chunk strip: the document as a row of cells coloured by cos(q, c), boundaries by b."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from scar_viz.charts._style import (
    ADMITTED,
    PENALTY_SCALE,
    REJECTED,
    RETRIEVED,
    SIM_SCALE,
    hover_snippet,
)
from scar_viz.chunking import Chunk


def chunk_strip(
    chunks: Sequence[Chunk],
    sims: np.ndarray,
    penalties: np.ndarray,
    retrieved: Sequence[int] = (),
    admitted: Sequence[int] = (),
    rejected: Sequence[int] = (),
    view: tuple[int, int] | None = None,
    height: int = 300,
    font_size: int = 12,
) -> go.Figure:
    """Build the strip figure.

    Row 1 marks retrieved (▼ with its rank), admitted (▲) and rejected (✕) chunks; row 2 is
    cos(q, c_i) per chunk; row 3 is b(c_i, c_{i+1}) drawn between chunks i and i+1.

    Args:
        view: the (first, last) chunk index to draw; only that region's cells are sent to
            the browser, so a 10,000-chunk document stays light.
    """
    n = len(chunks)
    lo, hi = (0, n - 1) if view is None else (max(0, view[0]), min(n - 1, view[1]))
    idx = np.arange(lo, hi + 1)
    sims = np.asarray(sims, dtype=float)
    penalties = np.asarray(penalties, dtype=float)
    rank = {c: r + 1 for r, c in enumerate(retrieved)}
    status = {c: "retrieved" for c in retrieved}
    status.update({c: "admitted" for c in admitted})
    status.update({c: "rejected" for c in rejected if c not in status})

    def cell_hover(i: int) -> str:
        lines = [
            f"<b>chunk {i}</b> · {status.get(i, 'not selected')}"
            + (f" (rank {rank[i]})" if i in rank else ""),
            f"cos(q,c) = {sims[i]:.3f}",
        ]
        if i > 0:
            lines.append(f"b to left = {penalties[i - 1]:.3f}")
        if i < n - 1:
            lines.append(f"b to right = {penalties[i]:.3f}")
        lines.append(f"§ {hover_snippet(chunks[i].section_label, 8)}")
        lines.append(f"<i>{hover_snippet(chunks[i].text)}</i>")
        return "<br>".join(lines)

    hover = [cell_hover(int(i)) for i in idx]
    fig = make_subplots(
        rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.04, row_heights=[0.3, 0.4, 0.3]
    )
    fig.add_trace(
        go.Heatmap(
            z=[sims[lo : hi + 1]],
            x=idx,
            y=["cos(q,c)"],
            colorscale=SIM_SCALE,
            zmin=float(min(0.0, sims.min())) if n else 0,
            zmax=float(sims.max()) if n else 1,
            text=[hover],
            hoverinfo="text",
            hovertemplate="%{text}<extra></extra>",
            xgap=1,
            colorbar={
                "title": {"text": "cos(q,c)"},
                "len": 0.45,
                "y": 0.55,
                "x": 1.0,
                "thickness": 12,
            },
            name="cos(q,c)",
        ),
        row=2,
        col=1,
    )
    bx = np.arange(lo, min(hi, n - 1)) + 0.5
    if len(bx):
        bz = penalties[lo : min(hi, n - 1)]
        fig.add_trace(
            go.Heatmap(
                z=[bz],
                x=bx,
                y=["b(c,c+1)"],
                colorscale=PENALTY_SCALE,
                zmin=0,
                zmax=float(max(penalties.max(), 1e-9)),
                customdata=[np.stack([bx - 0.5, bx + 0.5], axis=1)],
                hovertemplate="boundary %{customdata[0]:.0f} | %{customdata[1]:.0f}<br>"
                "b = %{z:.3f}<extra></extra>",
                xgap=1,
                colorbar={"title": {"text": "b"}, "len": 0.28, "y": 0.14, "x": 1.0, "thickness": 12},
                name="b(c,c+1)",
            ),
            row=3,
            col=1,
        )
    for label, colour, symbol, members in (
        ("retrieved", RETRIEVED, "triangle-down", list(retrieved)),
        ("admitted", ADMITTED, "triangle-up", list(admitted)),
        ("rejected", REJECTED, "x", [c for c in rejected if status.get(c) == "rejected"]),
    ):
        xs = [c for c in members if lo <= c <= hi]
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=[label] * len(xs),
                mode="markers+text" if label == "retrieved" else "markers",
                name=label,
                text=[str(rank.get(c, "")) for c in xs],
                textposition="top center",
                marker={
                    "color": colour,
                    "symbol": symbol,
                    "size": 12,
                    "line": {"width": 1, "color": "white"},
                },
                hovertemplate=f"chunk %{{x}} · {label}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    fig.update_yaxes(
        categoryorder="array", categoryarray=["rejected", "admitted", "retrieved"], row=1, col=1
    )
    fig.update_xaxes(range=[lo - 0.5, hi + 0.5], showgrid=False, zeroline=False)
    fig.update_xaxes(title_text="chunk index (document order)", row=3, col=1)
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 10, "b": 40},
        font={"size": font_size},
        legend={"orientation": "h", "y": 1.12, "x": 0},
        hovermode="closest",
        plot_bgcolor="white",
    )
    return fig
