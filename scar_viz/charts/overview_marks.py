"""The overview's marks: a row per kind above the similarity row, and the rank labels.

Each kind has its own row (retrieved ▼ nearest the labels, then admitted ▲, then rejected ✕),
so no mark hides under another. Within a row, chunks closer than a marker's width at the
plot's width share one mark (:func:`scar_viz.charts.marks.group_marks`), which shows their
count ("×3") and names them all on hover; in a short document the markers shrink a little
first, so neighbouring chunks keep a mark each. Rank labels sit in two rows above, best rank
first (:func:`scar_viz.charts.marks.place_labels`); a label with no free room is left out.
The marks area's y axis is in pixels, so a figure whose plot area is exactly that tall
(:func:`scar_viz.charts.overview.split_overview`) draws the rows as placed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scar_viz.charts._style import ADMITTED, REJECTED, RETRIEVED
from scar_viz.charts.marks import (
    Label,
    Mark,
    count_tail,
    count_text,
    group_marks,
    place_labels,
)
from scar_viz.views.focus import STATUS_ADMITTED, STATUS_REJECTED, STATUS_RETRIEVED, Overview

MIN_WIDTH = 720
"""Plot width (px) the marks are placed for: the Explorer's overview at a 1280 px window with
the sidebar open; wider plots only spread them further."""
LABEL_ROWS = 2
"""Rows of rank labels above the retrieved marks."""
TRIANGLE_WIDTH = 2 / math.sqrt(3)
"""Width of plotly's triangle markers as a multiple of their size (a cross is as wide as its
size)."""
SHRINK = 0.75
"""Smallest marker size, as a share of the default, used to keep neighbours' marks apart in
short documents (where a chunk is a little narrower than a marker)."""
TEXT_HEIGHT = 1.7
"""Height a line of text needs, as a multiple of the font size (its box reaches about 0.82
font sizes above the point it is drawn at)."""


@dataclass(frozen=True)
class _Kind:
    label: str
    status: int
    colour: str
    symbol: str
    size: int  # marker size (plotly's, px)
    width: float  # drawn width as a multiple of size
    line: int


def _kinds(font_size: int) -> tuple[_Kind, ...]:
    """Bottom row first: rejected, admitted, retrieved (the labels go above retrieved)."""
    return (
        _Kind("rejected", STATUS_REJECTED, REJECTED, "x-thin-open", font_size - 3, 1.0, 2),
        _Kind(
            "admitted", STATUS_ADMITTED, ADMITTED, "triangle-up", font_size - 1, TRIANGLE_WIDTH, 1
        ),
        _Kind(
            "retrieved",
            STATUS_RETRIEVED,
            RETRIEVED,
            "triangle-down",
            font_size + 1,
            TRIANGLE_WIDTH,
            1,
        ),
    )


def _rows(kinds: tuple[_Kind, ...], font_size: int) -> tuple[list[float], list[float], int]:
    """Centres (px from the bottom of the marks area) of the mark rows and the label rows, and
    the area's height: every row tall enough for its marker and a line of text."""
    text = math.ceil(TEXT_HEIGHT * font_size)
    y, marks, labels = 0.0, [], []
    for kind in kinds:
        h = max(kind.size + 2 * kind.line, text) + 2
        marks.append(y + h / 2)
        y += h
    for _ in range(LABEL_ROWS):
        labels.append(y + text / 2)
        y += text
    return marks, labels, math.ceil(y)


def _fitted_size(kind: _Kind, pitch: float) -> float:
    """The kind's marker size, made smaller (down to ``SHRINK`` of it) when that is enough for
    marks of neighbouring chunks to fit side by side, a chunk being ``pitch`` px wide; the
    default size otherwise (long documents: close marks are grouped instead)."""
    fits = (pitch - kind.line - 1.05) / kind.width  # a hair under the pitch: no rounding tie
    return fits if SHRINK * kind.size <= fits < kind.size else kind.size


def _rank_text(ranks: list[int]) -> str:
    """A label for a mark with these ranks (ascending): "7", "2,9", or "1,12,…"."""
    joined = ",".join(map(str, ranks))
    return joined if len(joined) <= 5 else f"{ranks[0]},{ranks[1]},…"


def _hover(mark: Mark, kind: str, overview: Overview, lines: int = 20, first: int = 0) -> str:
    """The chunks a mark stands for: index (+ ``first``), rank and cos(q, c); every retrieved
    one, the first ``lines`` of an admitted or rejected mark."""
    members = list(mark.members)
    if kind == "retrieved":
        members.sort(key=lambda c: overview.rank[c])
        lines = len(members)
    rows = [
        f"chunk {c + first}"
        + (f" · rank {overview.rank[c]}" if kind == "retrieved" else "")
        + f" · cos(q,c) {overview.sims[c]:.3f}"
        for c in members[:lines]
    ]
    if len(members) > lines:
        rows.append(f"… {len(members) - lines} more")
    head = kind if mark.count == 1 else f"{mark.count} chunks {kind}"
    return "<br>".join([head, *rows])


def mark_traces(
    overview: Overview, font_size: int, min_width: float, first: int = 0
) -> tuple[list[dict], int]:
    """The marks' traces (one a kind, then the rank labels) and the marks area's height.

    ``first`` is added to the chunk numbers a mark carries (``customdata``) and names on hover,
    not to its x: a file of a corpus drawn on its own axis still names its chunks' corpus
    indices."""
    n = overview.n
    kinds = _kinds(font_size)
    rows, label_rows, height = _rows(kinds, font_size)
    traces: list[dict] = []
    retrieved: list[Mark] = []
    for kind, y in zip(kinds, rows, strict=True):
        members = overview.members(kind.status)
        size = _fitted_size(kind, min_width / max(n, 1))
        tail = count_tail(font_size, size / 1.6 + 1)
        marks = group_marks(members, n, min_width, size * kind.width + kind.line + 1, tail)
        if kind.label == "retrieved":
            retrieved = marks
            picks = [min(m.members, key=lambda c: overview.rank[c]) for m in marks]
        else:
            picks = [m.x for m in marks]
        traces.append(
            {
                "type": "scatter",
                "name": kind.label,
                "x": [m.x for m in marks],
                "y": [y] * len(marks),
                "customdata": [[int(c) + first] for c in picks],
                "hovertext": [_hover(m, kind.label, overview, first=first) for m in marks],
                "hovertemplate": "%{hovertext}<extra></extra>",
                "mode": "markers+text",
                "text": [count_text(m.count) for m in marks],
                "textposition": "middle right",
                "textfont": {"size": font_size, "color": kind.colour},
                "cliponaxis": False,
                "marker": {
                    "color": kind.colour,
                    "symbol": kind.symbol,
                    "size": size,
                    "line": {"width": kind.line, "color": kind.colour},
                },
                "xaxis": "x",
                "yaxis": "y2",
            }
        )
    labels = rank_labels(overview, retrieved, font_size, min_width)
    traces.append(
        {
            "type": "scatter",
            "name": "ranks",
            "x": [lab.x for lab in labels],
            "y": [label_rows[lab.row] for lab in labels],
            "text": [lab.text for lab in labels],
            "mode": "text",
            "textposition": "middle center",
            "textfont": {"size": font_size, "color": RETRIEVED},
            "cliponaxis": False,
            "hoverinfo": "skip",
            "showlegend": False,
            "xaxis": "x",
            "yaxis": "y2",
        }
    )
    return traces, height


def rank_labels(
    overview: Overview, marks: list[Mark], font_size: int, min_width: float
) -> list[Label]:
    """The rank labels over the retrieved ``marks`` that fit, best rank first."""
    ranks = [sorted(int(overview.rank[c]) for c in m.members) for m in marks]
    order = sorted(range(len(marks)), key=lambda i: ranks[i][0])
    texts = [_rank_text(r) for r in ranks]
    return place_labels(marks, texts, order, overview.n, min_width, font_size, rows=LABEL_ROWS)
