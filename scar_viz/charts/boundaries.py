"""The document view of a chunking: the text with boundaries drawn, and a whole-document map.

:func:`passage_html` draws one passage as HTML (every piece of document text HTML-escaped);
:func:`boundary_map` draws where each chunking's chunks lie and which units they cut.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from scar_viz.charts._style import REJECTED, hover_snippet
from scar_viz.common.spans import Span

CHUNK_COLOURS = ("#dbe7f7", "#e3f3e0", "#f6e3f0")
"""Backgrounds that tell consecutive chunks apart (chunk i gets colour i mod 3)."""
OVERLAP_COLOUR = "#ffd866"
CUT_COLOUR = REJECTED

_CSS = """
<style>
.sv-pass{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:%(fs)spx;
 line-height:1.7;white-space:pre-wrap;overflow-wrap:anywhere;border:1px solid #ddd;
 padding:8px 10px;max-height:%(mh)spx;overflow-y:auto;background:#fff}
.sv-c0{background:%(c0)s}.sv-c1{background:%(c1)s}.sv-c2{background:%(c2)s}
.sv-ov{background:%(ov)s}
.sv-cut{text-decoration:underline wavy %(cut)s;text-decoration-thickness:1.5px;
 text-underline-offset:3px}
.sv-b{display:inline-block;border-left:2px solid #c0392b;margin:0 1px;padding:0 2px;
 font-family:system-ui,sans-serif;font-size:0.72em;color:#c0392b;line-height:1;
 vertical-align:super;font-weight:600}
.sv-e{display:inline-block;border-right:2px solid #7f8c8d;margin:0 1px;height:1em;
 vertical-align:middle}
.sv-more{font-family:system-ui,sans-serif;font-size:0.8em;color:#888}
</style>
"""


def coverage(spans: Sequence[Span], lo: int, hi: int) -> np.ndarray:
    """Number of chunks holding each character of [lo, hi): cov[p − lo] = |{i: s_i ≤ p < e_i}|."""
    diff = np.zeros(hi - lo + 1, dtype=np.int64)
    for s, e in spans:
        a, b = max(s, lo), min(e, hi)
        if a < b:
            diff[a - lo] += 1
            diff[b - lo] -= 1
    return np.cumsum(diff)[:-1]


def passage_html(
    text: str,
    spans: Sequence[Span],
    lo: int,
    hi: int,
    cut_units: Sequence[Span] = (),
    font_px: int = 13,
    max_height: int = 520,
) -> str:
    """HTML of ``text[lo:hi]`` under a chunking.

    Chunk i's text has background colour i mod 3; characters held by two or more chunks (the
    overlap) are yellow; a red bar with the chunk number marks each chunk start, a grey bar
    each chunk end; units in ``cut_units`` are underlined with a red wave. Document text is
    HTML-escaped.
    """
    lo, hi = max(0, lo), min(len(text), hi)
    cov = coverage(spans, lo, hi)
    owner = np.full(hi - lo, -1, dtype=np.int64)
    for i, (s, e) in enumerate(spans):
        a, b = max(s, lo), min(e, hi)
        if a < b:
            owner[a - lo : b - lo] = np.where(owner[a - lo : b - lo] < 0, i, owner[a - lo : b - lo])
    cut = np.zeros(hi - lo, dtype=bool)
    for s, e in cut_units:
        a, b = max(s, lo), min(e, hi)
        if a < b:
            cut[a - lo : b - lo] = True
    starts: dict[int, list[int]] = {}
    ends: dict[int, int] = {}
    for i, (s, e) in enumerate(spans):
        if lo <= s < hi:
            starts.setdefault(s, []).append(i)
        if lo < e <= hi:
            ends[e] = ends.get(e, 0) + 1
    marks = sorted({lo, hi, *starts, *ends})
    change = np.flatnonzero(
        (np.diff(cov) != 0) | (np.diff(owner) != 0) | (np.diff(cut.astype(np.int8)) != 0)
    )
    cuts = sorted(set(marks) | {int(c) + lo + 1 for c in change})
    out = [
        _CSS
        % {
            "fs": font_px,
            "mh": max_height,
            "c0": CHUNK_COLOURS[0],
            "c1": CHUNK_COLOURS[1],
            "c2": CHUNK_COLOURS[2],
            "ov": OVERLAP_COLOUR,
            "cut": CUT_COLOUR,
        },
        '<div class="sv-pass">',
    ]
    if lo > 0:
        out.append(f'<span class="sv-more">… {lo:,} characters before …</span>\n')
    for a, b in zip(cuts[:-1], cuts[1:], strict=False):
        out.extend('<span class="sv-e"></span>' for _ in range(ends.get(a, 0)))
        for i in starts.get(a, []):
            out.append(f'<span class="sv-b" title="chunk {i} starts at {a}">{i}</span>')
        if b <= a:
            continue
        k = a - lo
        classes = []
        if cov[k] >= 2:
            classes.append("sv-ov")
        elif owner[k] >= 0:
            classes.append(f"sv-c{owner[k] % 3}")
        if cut[k]:
            classes.append("sv-cut")
        piece = html.escape(text[a:b])
        out.append(f'<span class="{" ".join(classes)}">{piece}</span>' if classes else piece)
    out.extend('<span class="sv-e"></span>' for _ in range(ends.get(hi, 0)))
    if hi < len(text):
        out.append(f'\n<span class="sv-more">… {len(text) - hi:,} characters after …</span>')
    out.append("</div>")
    return "".join(out)


def boundary_map(
    text: str,
    chunkings: Mapping[str, Sequence[Span]],
    units: Sequence[Span] = (),
    cut: Mapping[str, np.ndarray] | None = None,
    window: Span | None = None,
    height: int | None = None,
    font_size: int = 12,
    where: str = "document",
) -> go.Figure:
    """Where each chunking's chunks lie along the document (x = character offset; ``where``
    names what the axis runs over in its title: "file" for one file of a corpus).

    One row per chunking: its chunks as bars in alternating colours (overlaps show as darker
    stacking), and the units it cuts (``cut[name]``, a boolean mask over ``units``) as red
    ticks under the row. ``window`` shades the passage shown beside the map.
    """
    fig = go.Figure()
    names = list(chunkings)
    for row, name in enumerate(names):
        spans = list(chunkings[name])
        for parity in (0, 1):
            sel = [i for i in range(len(spans)) if i % 2 == parity]
            fig.add_trace(
                go.Bar(
                    y=[name] * len(sel),
                    x=[spans[i][1] - spans[i][0] for i in sel],
                    base=[spans[i][0] for i in sel],
                    orientation="h",
                    width=0.5,
                    marker={"color": "#4a78b5" if parity == 0 else "#9bbbe0", "line": {"width": 0}},
                    opacity=0.85,
                    customdata=[[i, spans[i][0], spans[i][1]] for i in sel],
                    hovertext=[hover_snippet(text[spans[i][0] : spans[i][1]]) for i in sel],
                    hovertemplate="<b>" + html.escape(name) + "</b> chunk %{customdata[0]}"
                    "<br>%{customdata[1]}–%{customdata[2]}<br><i>%{hovertext}</i><extra></extra>",
                    showlegend=False,
                )
            )
        mask = None if cut is None else cut.get(name)
        if mask is not None and len(units):
            hits = [units[int(i)] for i in np.flatnonzero(mask)]
            fig.add_trace(
                go.Scatter(
                    x=[(s + e) / 2 for s, e in hits],
                    y=[name] * len(hits),
                    mode="markers",
                    marker={"symbol": "triangle-up", "size": 9, "color": CUT_COLOUR},
                    customdata=[[s, e] for s, e in hits],
                    hovertext=[hover_snippet(text[s:e], 10) for s, e in hits],
                    hovertemplate="cut unit %{customdata[0]}–%{customdata[1]}"
                    "<br><i>%{hovertext}</i><extra></extra>",
                    name="unit cut by a boundary",
                    showlegend=row == 0,
                )
            )
    if window is not None:
        fig.add_vrect(
            x0=window[0],
            x1=window[1],
            fillcolor="#ffd866",
            opacity=0.35,
            line_width=0,
            layer="below",
        )
    fig.update_layout(
        barmode="overlay",
        height=height or 110 + 60 * len(names),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        font={"size": font_size},
        xaxis={
            "title": {"text": f"character offset in the {where}"},
            "range": [0, len(text)],
            "showgrid": False,
        },
        yaxis={"autorange": "reversed"},
        legend={"orientation": "h", "y": 1.15, "x": 0},
        plot_bgcolor="white",
    )
    return fig
