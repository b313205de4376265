"""Fragmentation statistics: cut rate against chunk size (curves) and size × overlap (heatmap)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from scar_viz.chunking.fragmentation import REFERENCE, UNIT_LABELS, FragmentationGrid
from scar_viz.chunking.registry import CHUNKERS, chunker_name

CHUNKER_COLOURS = {
    "recursive": "#1f3b73",
    "fixed": "#e08214",
    "tokens": "#8c510a",
    "sentence": "#1a9850",
    "semantic": "#762a83",
    "section": "#d73027",
}


def _nearest(values: np.ndarray, target: float) -> int:
    return int(np.argmin(np.abs(np.asarray(values, dtype=float) - target)))


def fragmentation_curves(
    grids: Sequence[FragmentationGrid],
    overlap_chars: float = REFERENCE[1],
    reference: tuple[int, int] = REFERENCE,
    height: int = 380,
    font_size: int = 12,
) -> go.Figure:
    """Cut rate (%) against chunk size (characters), one line per chunker.

    Each line uses the grid's overlap closest to ``overlap_chars``; token sizes are drawn at
    size × characters-per-token. A dotted line marks the reference size, a star each
    chunker's cut rate at the reference setting when the grid holds it.
    """
    fig = go.Figure()
    for grid in grids:
        j = _nearest(grid.overlap_chars, overlap_chars)
        colour = CHUNKER_COLOURS.get(grid.chunker, "#555")
        unit = CHUNKERS[grid.chunker].unit
        label = chunker_name(grid.chunker)
        name = label if unit == "characters" else f"{label} (≈{grid.scale:.1f} ch/tok)"
        custom = np.stack(
            [
                np.asarray(grid.sizes),
                np.full(len(grid.sizes), grid.overlaps[j]),
                grid.mean_chars[:, j],
                grid.n_chunks[:, j],
            ],
            axis=1,
        )
        fig.add_trace(
            go.Scatter(
                x=grid.size_chars,
                y=grid.rates[:, j] * 100,
                mode="lines+markers",
                name=name,
                line={"color": colour, "width": 2},
                customdata=custom,
                hovertemplate=f"<b>{label}</b> %{{customdata[0]:.0f}}/"
                f"%{{customdata[1]:.0f}} {unit}<br>cut: %{{y:.1f}}%<br>"
                "chunks: %{customdata[3]:.0f}, mean %{customdata[2]:.0f} chars<extra></extra>",
            )
        )
        i = _nearest(grid.size_chars, reference[0])
        jr = _nearest(grid.overlap_chars, reference[1])
        near = abs(grid.size_chars[i] - reference[0]) <= 0.05 * reference[0]
        if near and np.isfinite(grid.rates[i, jr]):
            fig.add_trace(
                go.Scatter(
                    x=[grid.size_chars[i]],
                    y=[grid.rates[i, jr] * 100],
                    mode="markers",
                    marker={
                        "symbol": "star",
                        "size": 15,
                        "color": colour,
                        "line": {"width": 1, "color": "black"},
                    },
                    name=f"{label} at {reference[0]}/{reference[1]}",
                    showlegend=False,
                    hovertemplate=f"<b>{label}</b> at the reference "
                    f"{reference[0]}/{reference[1]}: %{{y:.1f}}% cut<extra></extra>",
                )
            )
    fig.add_vline(
        x=reference[0],
        line_dash="dot",
        line_color="#444",
        annotation_text=f"reference {reference[0]}/{reference[1]}",
        annotation_position="top right",
    )
    kind = UNIT_LABELS.get(grids[0].unit_kind, grids[0].unit_kind) if grids else "units"
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
        font={"size": font_size},
        xaxis={"title": {"text": "chunk size (characters)"}, "showgrid": True, "gridcolor": "#eee"},
        yaxis={"title": {"text": f"% of {kind} cut"}, "rangemode": "tozero", "gridcolor": "#eee"},
        legend={"orientation": "h", "y": -0.22, "x": 0},
        plot_bgcolor="white",
    )
    return fig


def fragmentation_heatmap(
    grid: FragmentationGrid,
    reference: tuple[int, int] = REFERENCE,
    height: int = 380,
    font_size: int = 12,
) -> go.Figure:
    """Cut rate (%) over chunk size (rows) × overlap (columns) for one chunker; the cell
    nearest the reference setting is outlined. Blank cells: overlap ≥ size."""
    unit = CHUNKERS[grid.chunker].unit
    z = grid.rates * 100
    labels = [[("" if np.isnan(v) else f"{v:.0f}%") for v in row] for row in z]
    xs = [str(o) for o in grid.overlaps]
    ys = [str(s) for s in grid.sizes]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=xs,
            y=ys,
            text=labels,
            texttemplate="%{text}",
            colorscale="Reds",
            zmin=0,
            zmax=100,
            colorbar={"title": {"text": "% cut"}, "thickness": 12},
            hovertemplate=f"size %{{y}} / overlap %{{x}} {unit}<br>cut: %{{z:.1f}}%<extra></extra>",
        )
    )
    i = _nearest(grid.size_chars, reference[0])
    j = _nearest(grid.overlap_chars, reference[1])
    fig.add_shape(
        type="rect",
        x0=j - 0.5,
        x1=j + 0.5,
        y0=i - 0.5,
        y1=i + 0.5,
        line={"color": "black", "width": 3},
        xref="x",
        yref="y",
    )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        font={"size": font_size},
        xaxis={"title": {"text": f"overlap ({unit})"}, "type": "category"},
        yaxis={"title": {"text": f"chunk size ({unit})"}, "type": "category"},
    )
    return fig
