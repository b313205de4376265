"""Policy strips: one row per policy over the same document character positions, and the
escaped text view of the characters one policy keeps and another leaves out."""

from __future__ import annotations

import html
from bisect import bisect_right
from collections.abc import Sequence

import plotly.graph_objects as go

from scar_viz.charts._style import ADMITTED, REJECTED, RETRIEVED, WINDOW, hover_snippet
from scar_viz.common.spans import Span
from scar_viz.documents.sections import Section

POLICY_COLOURS = {
    "topk": RETRIEVED,
    "window": WINDOW,
    "parent": "#8c6d31",
    "rerank": "#7b3294",
    "scar": ADMITTED,
    "qasc-hybrid": "#fdb863",  # before "qasc": labels are matched by prefix, in this order
    "qasc": "#e08214",
    "rse": "#4393c3",
    "automerge": "#b35806",
    "sentence-window": "#bf812d",
    "learned": "#542788",
}
_SECTION_SHADES = ("#d9d9d9", "#f0f0f0")
SECTIONS_ROW = "sections"


def _colour(label: str) -> str:
    for key, colour in POLICY_COLOURS.items():
        if label.lower().startswith(key):
            return colour
    return "#4d4d4d"


def policy_strips(
    text: str,
    rows: Sequence[tuple[str, Sequence[Span] | None]],
    sections: Sequence[Section] = (),
    view: Span | None = None,
    height: int | None = None,
    font_size: int = 12,
) -> go.Figure:
    """Build the stacked strips: row i draws the spans of policy i over ``[0, len(text))``.

    Args:
        text: the document (hover labels show an escaped snippet of each span).
        rows: (label, spans) from top to bottom; spans None marks a policy that failed
            (its row stays, with a note), so every row keeps its place.
        sections: drawn as an extra top row of alternating shades (the headings detected).
        view: the (start, end) character range shown; every span is still sent.
    """
    n = len(text)
    lo, hi = (0, n) if view is None else (max(0, view[0]), min(n, view[1]))
    labels = [label for label, _ in rows]
    order = ([SECTIONS_ROW] if sections else []) + labels
    fig = go.Figure()
    if sections:
        fig.add_trace(
            go.Bar(
                y=[SECTIONS_ROW] * len(sections),
                x=[s.end - s.start for s in sections],
                base=[s.start for s in sections],
                orientation="h",
                marker={"color": [_SECTION_SHADES[i % 2] for i in range(len(sections))]},
                hovertext=[
                    f"§ {hover_snippet(s.label, 14)}<br>chars {s.start:,}–{s.end:,}"
                    for s in sections
                ],
                hoverinfo="text",
                name="sections",
                showlegend=False,
            )
        )
    for label, spans in rows:
        if spans is None:
            fig.add_annotation(
                x=(lo + hi) / 2,
                y=label,
                text="not available (see the message above)",
                showarrow=False,
                font={"color": REJECTED, "size": font_size},
            )
            fig.add_trace(
                go.Bar(
                    y=[label], x=[0], base=[lo], orientation="h", showlegend=False, hoverinfo="skip"
                )
            )
            continue
        colour = _colour(label)
        fig.add_trace(
            go.Bar(
                y=[label] * len(spans),
                x=[e - s for s, e in spans],
                base=[s for s, _ in spans],
                orientation="h",
                marker={"color": colour, "line": {"color": colour, "width": 1}},
                hovertext=[
                    f"<b>{html.escape(label)}</b> · chars {s:,}–{e:,} ({e - s:,})<br>"
                    f"<i>{hover_snippet(text[s:e])}</i>"
                    for s, e in spans
                ],
                hoverinfo="text",
                name=label,
                showlegend=False,
            )
        )
    fig.update_layout(
        barmode="overlay",
        bargap=0.35,
        height=height or 70 + 42 * len(order),
        margin={"l": 10, "r": 10, "t": 10, "b": 40},
        font={"size": font_size},
        plot_bgcolor="white",
        hovermode="closest",
    )
    fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(order)), showgrid=False)
    fig.update_xaxes(
        range=[lo, hi],
        title_text="character position in the document",
        showgrid=True,
        gridcolor="#eeeeee",
        zeroline=False,
    )
    return fig


_BLOCK = (
    "border-left:5px solid {c};background:{bg};margin:0 0 4px 0;padding:5px 9px;"
    "white-space:pre-wrap;overflow-wrap:anywhere;"
    "font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px;line-height:1.4"
)
_HEAD = "font-family:system-ui,sans-serif;font-size:0.8em;color:#444;margin-bottom:2px"


def span_text_html(
    text: str,
    spans: Sequence[Span],
    sections: Sequence[Section] = (),
    colour: str = ADMITTED,
    background: str = "#eef8f1",
    max_pieces: int = 40,
    max_chars: int = 20_000,
) -> str:
    """HTML of the text of ``spans``: one escaped block per span with its character range.

    Pieces that are only whitespace (the blank line between two paragraphs) are skipped and
    counted. At most ``max_pieces`` blocks and ``max_chars`` characters are shown; what is left
    out is said in a last line, never cut silently.
    """
    blank = sum(1 for s, e in spans if not text[s:e].strip())
    spans = [(s, e) for s, e in spans if text[s:e].strip()]
    starts = [s.start for s in sections]
    block = _BLOCK.format(c=html.escape(colour), bg=html.escape(background))
    parts = ["<div>"]
    shown = 0
    for i, (s, e) in enumerate(spans):
        if i >= max_pieces or shown >= max_chars:
            rest = sum(b - a for a, b in spans[i:])
            parts.append(
                f'<div style="{_HEAD}">… {len(spans) - i} more piece(s), {rest:,} characters, '
                "not shown here.</div>"
            )
            break
        body = text[s : min(e, s + max_chars - shown)]
        shown += len(body)
        where = ""
        if sections:
            idx = max(0, bisect_right(starts, s) - 1)
            where = f" · § {html.escape(sections[idx].label)}"
        cut = f" (first {len(body):,} shown)" if len(body) < e - s else ""
        parts.append(
            f'<div style="{block}"><div style="{_HEAD}">chars {s:,}–{e:,} · '
            f"{e - s:,} characters{cut}{where}</div>{html.escape(body)}</div>"
        )
    if blank:
        parts.append(f'<div style="{_HEAD}">({blank} whitespace-only piece(s) not shown)</div>')
    if not spans:
        parts.append(f'<div style="{_HEAD}">(no visible text)</div>')
    parts.append("</div>")
    return "".join(parts)


def file_strips(
    text: str,
    rows: Sequence[tuple[str, Sequence[Span] | None]],
    files: Sequence[tuple[str, int, int]],
    sections: Sequence[Section] = (),
    font_size: int = 12,
) -> go.Figure:
    """The strips of a corpus, one panel per file of ``files`` ((path, start, end) in
    ``text``), each on its own axis from 0 to the file's length (as the corpus view's small
    multiples), so a policy's spans fill the width they have in their file, not a sliver of
    the whole corpus. Each panel is :func:`policy_strips` of that file: the spans and sections
    inside it, in its own character positions."""
    from plotly.subplots import make_subplots

    n_rows = len(rows) + (1 if sections else 0)
    panel_px, gap_px = 30 + 34 * n_rows, 70  # each panel, and the room for the next title
    height = len(files) * panel_px + (len(files) - 1) * gap_px + 70
    fig = make_subplots(
        rows=len(files),
        cols=1,
        subplot_titles=[html.escape(path) for path, _, _ in files],
        vertical_spacing=gap_px / height if len(files) > 1 else 0.0,
    )
    for i, (_, start, end) in enumerate(files, start=1):
        local_rows = [
            (label, None if spans is None else _inside(spans, start, end)) for label, spans in rows
        ]
        local_sections = [
            Section(max(s.start, start) - start, min(s.end, end) - start, s.path, s.level)
            for s in sections
            if s.start < end and s.end > start
        ]
        panel = policy_strips(text[start:end], local_rows, local_sections, font_size=font_size)
        for trace in panel.data:
            fig.add_trace(trace, row=i, col=1)
        for note in panel.layout.annotations:
            fig.add_annotation(note, row=i, col=1)
        fig.update_yaxes(panel.layout.yaxis, row=i, col=1)
        fig.update_yaxes(range=[-0.5, n_rows - 0.5], row=i, col=1)  # every row, even empty
        fig.update_xaxes(range=[0, end - start], row=i, col=1, showgrid=True, gridcolor="#eeeeee")
    fig.update_xaxes(title_text="character position in the file", row=len(files), col=1)
    fig.update_layout(
        barmode="overlay",
        bargap=0.35,
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        font={"size": font_size},
        plot_bgcolor="white",
        hovermode="closest",
        showlegend=False,
    )
    return fig


def _inside(spans: Sequence[Span], start: int, end: int) -> list[Span]:
    """The parts of ``spans`` inside [start, end), in that range's own positions."""
    return [(max(s, start) - start, min(e, end) - start) for s, e in spans if s < end and e > start]
