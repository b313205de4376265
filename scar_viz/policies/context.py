"""The context a language model receives: chunks in document order, its cost, an HTML view."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.tokens import count_tokens

SEPARATOR = "\n\n"


def context_text(chunks: Sequence[Chunk], ids: Sequence[int]) -> str:
    """The selected chunks' texts in document order, joined by a blank line."""
    return SEPARATOR.join(chunks[i].text for i in sorted(set(ids)))


@dataclass(frozen=True)
class ContextCost:
    chunks: int
    chars: int
    tokens: int


def context_cost(chunks: Sequence[Chunk], ids: Sequence[int]) -> ContextCost:
    text = context_text(chunks, ids)
    return ContextCost(len(set(ids)), len(text), count_tokens(text))


@dataclass(frozen=True)
class TokenCosts:
    """What each chunk adds to the tokens of a context, so that a selection's tokens are a sum.

    ``text[i]`` = tokens(c_i) and ``joint[i]`` = tokens(c_i + SEPARATOR) − tokens(c_i), the
    separator's tokens after c_i (0 or −1 when it merges with c_i's last characters, e.g.
    ".\\n\\n"). For a selection S with last (highest) chunk m:

        tokens(context_text(S)) = Σ_{i∈S} (text[i] + joint[i]) − joint[m]

    This is exact when each chunk of S after the first starts with neither whitespace nor "/"
    (o200k_base splits text into pieces before merging; a separator's piece then ends where the
    next chunk begins). Every built-in chunker strips whitespace at chunk edges; a chunk that
    starts with "/" may be off by one token. ``unsafe`` marks such chunks.
    """

    text: np.ndarray
    joint: np.ndarray
    unsafe: np.ndarray = field(repr=False)

    @property
    def added(self) -> np.ndarray:
        """(N,) text + joint: a chunk's tokens with the separator that follows it."""
        return self.text + self.joint

    def of(self, ids: Sequence[int]) -> int:
        """The tokens of the context of chunk ids ``ids`` (duplicates counted once)."""
        chosen = np.unique(np.asarray(list(ids), dtype=np.int64))
        if not len(chosen):
            return 0
        return int(self.added[chosen].sum() - self.joint[chosen[-1]])


def token_costs(chunks: Sequence[Chunk]) -> TokenCosts:
    """:class:`TokenCosts` of ``chunks`` (two counts a chunk)."""
    text = np.array([count_tokens(c.text) for c in chunks], dtype=np.int64)
    joint = np.array([count_tokens(c.text + SEPARATOR) for c in chunks], dtype=np.int64) - text
    unsafe = np.array([c.text[:1].isspace() or c.text[:1] == "/" for c in chunks], dtype=bool)
    return TokenCosts(text, joint, unsafe)


def saving(ours: float, theirs: float) -> float:
    """Relative saving of ``ours`` against ``theirs`` in percent (positive = fewer)."""
    return 0.0 if theirs == 0 else 100.0 * (theirs - ours) / theirs


_CSS = """
<style>
.sv-ctx{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:%(fs)spx;line-height:1.45}
.sv-chunk{border-left:5px solid #999;margin:0 0 2px 0;padding:6px 10px;white-space:pre-wrap;
 overflow-wrap:anywhere}
.sv-retrieved{border-color:#1f3b73;background:#eef2fa}
.sv-admitted{border-color:#1a9850;background:#eef8f1}
.sv-head{font-family:system-ui,sans-serif;font-size:0.8em;color:#444;margin-bottom:3px}
.sv-overlap{background:#ffe08a}
.sv-gap{font-family:system-ui,sans-serif;font-size:0.8em;color:#888;text-align:center;
 border-top:1px dashed #bbb;margin:6px 0;padding-top:2px}
</style>
"""


def context_html(
    chunks: Sequence[Chunk], retrieved: Sequence[int], admitted: Sequence[int], font_px: int = 14
) -> str:
    """HTML of the final context: one block per chunk in document order.

    Retrieved chunks are blue with their rank, admitted neighbours green; text shared with the
    previous chunk (the splitter's overlap) is highlighted; a dashed rule marks a gap where
    the document skips chunks. Every piece of document text is HTML-escaped.
    """
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
    parts.append("</div>")
    return "".join(parts)
