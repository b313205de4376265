"""Small multiples of a corpus: one thin row per file, on one similarity scale.

Each row is a file's chunks in file order (x = the chunk's position within its file, one
chunk as wide in every row, so a row's length is its file's length) coloured by cos(q, c) on
the scale every row shares (:attr:`scar_viz.views.corpus.CorpusView.scale`). A file holding
hits gets the single-document overview's marks above its row (:mod:`scar_viz.charts.
overview_marks`: retrieved ▼ with rank, admitted ▲, rejected ✕, each kind in its own row, close
marks grouped), so no mark hides under another. Rows follow the table's order (files with
hits first) and at most ``max_rows`` are drawn; the figure's ``layout.meta["hidden"]`` says
how many are not.

Click to focus: every mark and every cell's (invisible) click marker carries its chunk's
corpus index as ``customdata[0]``, as the overview's do
(:func:`scar_viz.charts.overview.clicked_chunk` reads it). File paths are untrusted text:
every label and hover name is HTML-escaped.
"""

from __future__ import annotations

import html

import numpy as np

from scar_viz.charts._style import SIM_SCALE, FigureSpec, figure_builder, figure_spec
from scar_viz.charts.marks import text_width
from scar_viz.charts.overview_marks import MIN_WIDTH, mark_traces
from scar_viz.common.fmt import elide_middle
from scar_viz.views.corpus import CorpusView
from scar_viz.views.focus import Overview

MAX_ROWS = 30
"""Files drawn at most (the table lists them all)."""
LENGTH_SCALE = [[0.0, "#f2f2f2"], [1.0, "#5a6b7d"]]
"""Before a question: a chunk's length in characters, pale (short) to slate (long)."""
CLICK_POINTS = 400
"""Clickable markers per row at most; a longer file gets one per bin, at its best chunk."""
LABEL_CHARS = 34
"""Longest row label; a longer path is cut in the middle ("docs/…/api/limits.md"), the whole
path in the row's hover."""


def _nice_step(width: int, ticks: int = 8) -> int:
    """A whole tick step (1, 2, 5 × 10ⁿ) that puts about ``ticks`` ticks on ``width`` positions."""
    raw = max(width / ticks, 1.0)
    power = 10 ** int(np.floor(np.log10(raw)))
    return int(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


def row_label(path: str, chars: int = LABEL_CHARS) -> str:
    """``path`` cut in the middle to ``chars`` characters
    (:func:`scar_viz.common.fmt.elide_middle`), HTML-escaped."""
    return html.escape(elide_middle(path, chars), quote=True)


def drawn_files(view: CorpusView, max_rows: int, focus: int | None = None) -> list[int]:
    """The files drawn, top first: the table's first ``max_rows``, the focused chunk's file
    taking the last place when it is not among them."""
    rows = [int(d) for d in view.order[:max_rows]]
    if focus is not None and 0 <= focus < view.overview.n and rows:
        own = view.file_of(focus)
        if own not in rows:
            rows[-1] = own
    return rows


def _padded(part: Overview, width: int) -> Overview:
    """``part`` extended to ``width`` chunks with unmarked ones (marks placed on the shared
    axis)."""
    pad = width - part.n
    return Overview(
        np.concatenate((part.sims, np.zeros(pad))),
        np.concatenate((part.rank, np.zeros(pad, dtype=part.rank.dtype))),
        np.concatenate((part.status, np.zeros(pad, dtype=part.status.dtype))),
    )


def _clickable(sims: np.ndarray, cap: int) -> np.ndarray:
    """Local indices of a row's click markers: all, or each bin's most relevant chunk."""
    n = len(sims)
    if n <= cap:
        return np.arange(n)
    edges = np.linspace(0, n, cap + 1).astype(int)
    return edges[:-1] + np.array(
        [int(np.argmax(sims[a:b])) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    )


def corpus_spec(
    view: CorpusView,
    focus: int | None = None,
    max_rows: int = MAX_ROWS,
    font_size: int = 11,
    strip_px: int = 14,
    gap_px: int = 6,
    min_width: float = MIN_WIDTH,
) -> FigureSpec:
    """One row per file (see the module docstring), as the plain figure dict the Explorer
    redraws on every release (:func:`~scar_viz.charts._style.figure_spec`).

    Args:
        view: :func:`scar_viz.views.corpus.corpus_view` for this question and gate setting.
        focus: a chunk (corpus index) to outline, or None.
        max_rows: the most files drawn.
        font_size: text size; the marks' rows grow with it.
        strip_px, gap_px: a row's height and the space under it, in pixels.
        min_width: the plot width (px) the marks are placed for.
    """
    files = drawn_files(view, max_rows, focus)
    strip_px = max(strip_px, round(1.4 * font_size))  # a row as tall as its label
    measure = html.escape(view.measure)
    value_format = ".3f" if view.asked else ",.0f"
    width = max([int(view.counts[d]) for d in files] + [1])
    zmin, zmax = view.scale
    traces: list[dict] = []
    ticks: list[float] = []
    labels: list[str] = []
    clicks: list[dict] = []
    shapes: list[dict] = []
    legend = {"ranks"}  # kinds already in the legend (rank labels never are)
    y = 0.0
    for d in reversed(files):  # bottom row first: the y axis counts pixels upwards
        part = view.file_overview(d)
        first = int(view.first[d])
        name = html.escape(view.paths[d], quote=True)
        y += gap_px
        centre = y + strip_px / 2
        traces.append(
            {
                "type": "heatmap",
                "name": name,
                "x": np.arange(part.n),
                "y0": centre,
                "dy": strip_px,
                "z": [part.sims],
                "coloraxis": "coloraxis",
                "xgap": 1 if width <= 200 else 0,
                "hoverinfo": "skip",  # the click markers above name the chunk
            }
        )
        ticks.append(centre)
        labels.append(row_label(view.paths[d]))
        local = _clickable(part.sims, CLICK_POINTS)
        clicks.append(
            {
                "type": "scatter",
                "name": name,
                "x": local,
                "y": np.full(len(local), centre),
                "customdata": np.column_stack((local + first, part.sims[local])),
                "mode": "markers",
                # nearly invisible but hit-testable: clicking a cell selects its marker
                "marker": {"size": strip_px, "symbol": "square", "color": "rgba(0,0,0,0.01)"},
                "hovertemplate": "chunk %{customdata[0]} (#%{x} in the file)"
                f"<br>{measure} = %{{customdata[1]:{value_format}}}",
                "showlegend": False,
            }
        )
        if focus is not None and first <= focus < first + part.n:
            shapes.append(_outline(focus - first, y, y + strip_px))
        y += strip_px
        if view.retrieved[d]:
            marks, height = mark_traces(_padded(part, width), font_size, min_width, first)
            for trace in marks:
                trace.update(
                    yaxis="y",
                    y=[v + y for v in trace["y"]],
                    legendgroup=trace["name"],
                    showlegend=trace["name"] not in legend and bool(len(trace["x"])),
                )
                if len(trace["x"]):
                    legend.add(trace["name"])
                trace["hovertext"] = [f"{name}<br>{t}" for t in trace.get("hovertext", [])]
            traces.extend(marks)
            y += height
    traces[:0] = clicks  # under the marks: a click on a mark picks the mark
    hidden = view.n_files - len(files)
    top = 6 + 2 * font_size
    layout = {
        "height": int(y + top + 40 + 2 * font_size),
        "font": {"size": font_size},
        "hovermode": "closest",
        "hoverlabel": {"namelength": -1},
        "clickmode": "event+select",
        "dragmode": False,
        "margin": {"l": _label_px(labels, font_size), "r": 10, "t": top, "b": 30 + 2 * font_size},
        "plot_bgcolor": "white",
        "showlegend": True,
        "legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0},
        "meta": {"files": files, "hidden": hidden, "width": width},
        "coloraxis": {
            "colorscale": SIM_SCALE if view.asked else LENGTH_SCALE,
            "cmin": zmin,
            "cmax": zmax,
            "colorbar": {
                "thickness": 12,
                "len": min(1.0, 160 / max(y, 1.0)),
                "y": 1.0,
                "yanchor": "top",
                "nticks": 3,
                "title": {"text": measure, "side": "right"},
            },
        },
        "xaxis": {
            "range": [-0.5, width - 0.5],
            "tickformat": "d",  # chunk positions are whole numbers
            "tick0": 0,
            "dtick": max(1, _nice_step(width)),
            "showgrid": False,
            "zeroline": False,
            "title": {"text": "chunk position within its file"},
        },
        "yaxis": {
            "range": [0, y],
            "fixedrange": True,
            "showgrid": False,
            "zeroline": False,
            "tickvals": ticks,
            "ticktext": labels,
        },
        "shapes": shapes,
    }
    return figure_spec(traces, layout)


corpus_chart = figure_builder(corpus_spec)


def _label_px(labels: list[str], font_size: int) -> int:
    """The left margin that holds the longest row label (escaped text counts its entities as
    one character each)."""
    longest = max((len(html.unescape(lab)) for lab in labels), default=0)
    return int(text_width("m" * longest, font_size)) + 16


def _outline(x: int, y0: float, y1: float) -> dict:
    """A black frame around one cell of a row (the focused chunk)."""
    return {
        "type": "rect",
        "xref": "x",
        "yref": "y",
        "x0": x - 0.5,
        "x1": x + 0.5,
        "y0": y0,
        "y1": y1,
        "line": {"color": "#111", "width": 2},
        "fillcolor": "rgba(0,0,0,0)",
    }
