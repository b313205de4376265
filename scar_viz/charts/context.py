"""The context a language model receives, drawn as HTML: one block per chunk in document order.

:func:`context_html` marks retrieved chunks (with their rank) and admitted neighbours, the
overlap with the previous chunk and the gaps; every piece of document text is HTML-escaped.
The context's text and cost are :mod:`scar_viz.policies.context`'s.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from scar_viz.chunking.base import Chunk
from scar_viz.common.fmt import chunk_list
from scar_viz.teaching.lesson import FragmentPart

_CSS = """
<style>
.sv-ctx{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:%(fs)spx;line-height:1.45}
.sv-chunk{border-left:5px solid #999;margin:0 0 2px 0;padding:6px 10px;white-space:pre-wrap;
 overflow-wrap:anywhere}
.sv-retrieved{border-color:#1f3b73;background:#eef2fa}
.sv-admitted{border-color:#1a9850;background:#eef8f1}
.sv-gold{outline:3px solid #e6a800;outline-offset:-3px}
.sv-head{font-family:system-ui,sans-serif;font-size:0.8em;color:#444;margin-bottom:3px}
.sv-overlap{background:#ffe08a}
.sv-gap{font-family:system-ui,sans-serif;font-size:0.8em;color:#595959;text-align:center;
 border-top:1px dashed #bbb;margin:6px 0;padding-top:2px}
</style>
"""


def context_html(
    chunks: Sequence[Chunk],
    retrieved: Sequence[int],
    admitted: Sequence[int],
    font_px: int = 14,
    gold: Sequence[int] = (),
) -> str:
    """HTML of the final context: one block per chunk in document order.

    Retrieved chunks are blue with their rank, admitted neighbours green; text shared with the
    previous chunk (the splitter's overlap) is highlighted; a dashed rule marks a gap where
    the document skips chunks. A labelled question's ``gold`` chunks are outlined in gold
    with "★ gold evidence" in their heading, and a last line names those the context misses.
    Every piece of document text is HTML-escaped.
    """
    golden = set(gold)
    rank = {c: r + 1 for r, c in enumerate(retrieved)}
    ids = sorted(set(retrieved) | set(admitted))
    parts = [_CSS % {"fs": font_px}, '<div class="sv-ctx">']
    previous: Chunk | None = None
    for i in ids:
        chunk = chunks[i]
        if previous is not None and i != previous.index + 1:
            parts.append(
                f'<div class="sv-gap">… {i - previous.index - 1} chunk(s) not in the '
                "context …</div>"
            )
        overlap = 0
        if previous is not None and i == previous.index + 1 and previous.end > chunk.start:
            overlap = previous.end - chunk.start
        kind = "retrieved" if i in rank else "admitted"
        tag = f"retrieved · rank {rank[i]}" if i in rank else "admitted neighbour"
        if i in golden:
            kind += " sv-gold"
            tag += " · ★ gold evidence"
        head = (
            f"chunk {i} · {tag} · chars {chunk.start}–{chunk.end} · "
            f"{html.escape(chunk.section_label)}"
        )
        body = html.escape(chunk.text)
        if overlap:
            shared = html.escape(chunk.text[:overlap])
            body = (
                f'<span class="sv-overlap" title="overlap with chunk {i - 1}">{shared}</span>'
                + html.escape(chunk.text[overlap:])
            )
        parts.append(
            f'<div class="sv-chunk sv-{kind}"><div class="sv-head">{head}</div>{body}</div>'
        )
        previous = chunk
    missed = sorted(golden - set(ids))
    if missed:
        parts.append(
            f'<div class="sv-gap sv-missed">★ gold evidence not in this context: '
            f"{chunk_list(missed)}</div>"
        )
    parts.append("</div>")
    return "".join(parts)


def fragment_part_html(part: FragmentPart) -> str:
    """One half of the lesson's fragmented pair: the chunk's number, its cos(q,c) and its text
    with the evidence highlighted, every piece of it escaped."""
    return (
        "<div style='border:1px solid #bbb;border-radius:6px;padding:8px;"
        "white-space:pre-wrap;font-family:monospace;font-size:13px'>"
        f"<b>chunk {part.index}</b> · cos(q,c) = {part.cos:.3f}<br>"
        f"{html.escape(part.before)}<mark>{html.escape(part.marked)}</mark>"
        f"{html.escape(part.after)}</div>"
    )
