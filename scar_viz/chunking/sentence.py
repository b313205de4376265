"""The ``sentence`` chunker: greedy sentence packing over
:func:`scar_viz.documents.sentences.sentence_spans` (pysbd), and the packing the ``semantic``
chunker shares (docs/method.md §6).

Own code, because langchain's NLTK and spaCy splitters need model downloads and drop offsets.
"""

from __future__ import annotations

from scar_viz.chunking.base import Chunker, shift
from scar_viz.chunking.recursive import split_recursive
from scar_viz.common.spans import Span


def sentence_units(text: str) -> list[Span]:
    """The sentences of ``text`` (pysbd), as spans in order."""
    from scar_viz.documents.sentences import sentence_spans

    return list(sentence_spans(text))


def pack(
    text: str,
    units: list[Span],
    breaks: set[int],
    size: int,
    overlap: int,
    headed: dict[int, int] | None = None,
) -> list[Span]:
    """Greedy packing of consecutive ``units`` into chunks of at most ``size`` characters.

    A unit longer than ``size`` is split recursively; when the unit starts with heading lines
    (``headed``: unit index -> where its body starts), the pieces that hold only the heading
    are joined to the next piece, so a heading is never a chunk of its own (that chunk may
    exceed ``size`` by the heading's length). A new chunk always starts at a unit whose index
    is in ``breaks`` (no overlap across it). Elsewhere, when the next unit does not fit, the
    next chunk repeats the trailing whole units of the previous one that fit in ``overlap``
    characters (and leave room for the next unit).
    """
    headed = headed or {}
    pieces: list[Span] = []
    hard: list[bool] = []
    for i, (s, e) in enumerate(units):
        parts = shift(split_recursive(text[s:e], size, overlap), s) if e - s > size else [(s, e)]
        while i in headed and len(parts) > 1 and parts[0][1] <= headed[i]:
            parts = [(parts[0][0], parts[1][1]), *parts[2:]]
        for j, part in enumerate(parts):
            pieces.append(part)
            hard.append(i in breaks and j == 0)
    spans: list[Span] = []
    first, i = 0, 0
    while i < len(pieces):
        if i > first and (hard[i] or pieces[i][1] - pieces[first][0] > size):
            spans.append((pieces[first][0], pieces[i - 1][1]))
            nxt = i
            while (
                not hard[i]
                and nxt - 1 > first
                and pieces[i - 1][1] - pieces[nxt - 1][0] <= overlap
                and pieces[i][1] - pieces[nxt - 1][0] <= size
            ):
                nxt -= 1
            first = nxt
        i += 1
    if pieces:
        spans.append((pieces[first][0], pieces[-1][1]))
    return spans


def split_sentences(text: str, size: int, overlap: int) -> list[Span]:
    """Sentences (pysbd) packed greedily into chunks of at most ``size`` characters."""
    return pack(text, sentence_units(text), set(), size, overlap)


CHUNKER = Chunker(
    "sentence", split_sentences, name="Sentence packing", label="Sentence packing (pysbd)"
)
