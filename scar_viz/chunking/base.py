"""What every chunker shares: the :class:`Chunk` it produces, the :class:`Chunker` entry each
chunker module declares, the default sizes, and the helpers that turn a splitter's pieces back
into character offsets.

A chunker is a function ``split(text, size, overlap, **options)`` returning sorted (start, end)
spans of ``text``. Chunks are stripped of whitespace at their edges (as langchain's splitters
do), so whitespace between chunks may belong to no chunk; whitespace-only chunks are dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from scar_viz.common.spans import Span
from scar_viz.documents.sections import FRONT_MATTER

DEFAULT_CHUNK_SIZE = 600
DEFAULT_OVERLAP = 60
DEFAULT_PERCENTILE = 10.0
"""Semantic chunker: cut where consecutive-sentence similarity is below this percentile."""

Embed = Callable[[list[str]], np.ndarray]
"""Embeds texts with the model in use: list of n texts -> (n, d) array."""

Splitter = Callable[..., list[Span]]
"""``split(text, size, overlap, **options)`` -> sorted (start, end) spans of ``text``."""


@dataclass(frozen=True)
class Chunk:
    """``document.text[start:end] == text``; ``section`` is the path of the section at ``start``."""

    index: int
    start: int
    end: int
    text: str
    section: tuple[str, ...] = ()

    @property
    def section_label(self) -> str:
        return " > ".join(self.section) if self.section else FRONT_MATTER


@dataclass(frozen=True)
class Chunker:
    """One chunker as the registry lists it: its id, its splitter, and what the UI and the CLI
    say about it.

    Attributes:
        key: the id a configuration, a URL and the CLI use (``recursive``).
        split: the splitter.
        name: the short human name a select shows.
        label: the long description.
        unit: what ``size`` and ``overlap`` count (``characters`` or ``tokens``).
        needs_embed: the splitter takes ``embed`` and ``percentile`` (the embedding model).
        needs_sections: the splitter takes the document's ``sections``.
    """

    key: str
    split: Splitter = field(repr=False)
    name: str
    label: str
    unit: str = "characters"
    needs_embed: bool = False
    needs_sections: bool = False


def locate(text: str, pieces: list[str], overlap: int) -> list[Span]:
    """Offsets of consecutive ``pieces`` in ``text``, searched forward like langchain does."""
    spans: list[Span] = []
    index, previous = 0, 0
    for piece in pieces:
        offset = max(0, index + previous - overlap)
        found = text.find(piece, offset)
        if found < 0:  # the forward guess overshot (repeated text): search from the last start
            found = text.find(piece, spans[-1][0] if spans else 0)
        if found < 0:
            raise RuntimeError("A chunk is not a substring of the document.")  # splitter bug
        index, previous = found, len(piece)
        spans.append((found, found + len(piece)))
    return spans


def shift(spans: list[Span], offset: int) -> list[Span]:
    """``spans`` moved ``offset`` characters right (a sub-text's spans in the whole text)."""
    return [(s + offset, e + offset) for s, e in spans]
