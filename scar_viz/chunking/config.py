"""How to chunk (:class:`ChunkingConfig`) and a document cut under it into chunks that keep
their character offsets: every chunk satisfies ``document.text[chunk.start:chunk.end] ==
chunk.text``.

``size`` and ``overlap`` count characters, except for the ``tokens`` chunker, which counts
tokens. The chunkers themselves are listed in :mod:`scar_viz.chunking.registry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.base import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_OVERLAP,
    DEFAULT_PERCENTILE,
    Chunk,
    Embed,
)
from scar_viz.chunking.registry import CHUNKERS
from scar_viz.common.edges import doc_of_starts
from scar_viz.common.errors import SettingsError
from scar_viz.common.fmt import join_words
from scar_viz.common.spans import Span
from scar_viz.documents.corpus import part_document
from scar_viz.documents.reading import Document


@dataclass(frozen=True)
class ChunkingConfig:
    """How to chunk: the chunker's id, its target size and overlap, and its knobs.

    ``size`` and ``overlap`` are characters (tokens for the ``tokens`` chunker);
    ``percentile`` is used by the ``semantic`` chunker only. ``stored`` names the tool whose
    index the chunks were read from, cut as that tool cut them (``LlamaIndex storage``): the
    other fields then say nothing about them, and the label says so.
    """

    chunker: str = "recursive"
    size: int = DEFAULT_CHUNK_SIZE
    overlap: int = DEFAULT_OVERLAP
    percentile: float = DEFAULT_PERCENTILE
    stored: str = ""

    def validate(self) -> None:
        if self.chunker not in CHUNKERS:
            raise SettingsError(
                f"Unknown chunker '{self.chunker}'; choose one of "
                f"{join_words(sorted(CHUNKERS), 'or')}."
            )
        if self.size < 1:
            raise SettingsError("Chunk size must be at least 1 character.")
        if self.overlap < 0:
            raise SettingsError("Overlap cannot be negative.")
        if self.overlap >= self.size:
            raise SettingsError(
                f"Overlap ({self.overlap}) must be smaller than chunk size ({self.size})."
            )
        if not 0.0 <= self.percentile <= 100.0:
            raise SettingsError(f"The percentile must be between 0 and 100, not {self.percentile}.")

    @property
    def needs_embed(self) -> bool:
        """True when chunking needs the embedding model (the semantic chunker)."""
        return CHUNKERS[self.chunker].needs_embed if self.chunker in CHUNKERS else False

    @property
    def label(self) -> str:
        if self.stored:
            return f"as stored ({self.stored})"
        unit = " tokens" if self.chunker == "tokens" else ""
        knob = f" p{self.percentile:g}" if self.chunker == "semantic" else ""
        return f"{self.chunker} {self.size}/{self.overlap}{unit}{knob}"


def chunk_spans(
    document: Document, config: ChunkingConfig | None = None, embed: Embed | None = None
) -> list[Span]:
    """The (start, end) spans ``config``'s chunker cuts ``document`` into, in order: each file
    (part) is cut on its own, so no span straddles two files."""
    config = config or ChunkingConfig()
    config.validate()
    spans: list[Span] = []
    for i, part in enumerate(document.parts):
        own = _file_spans(part_document(document, i), config, embed)
        spans.extend((s + part.start, e + part.start) for s, e in own)
    return spans


def _file_spans(document: Document, config: ChunkingConfig, embed: Embed | None) -> list[Span]:
    chunker = CHUNKERS[config.chunker]
    options: dict[str, object] = {}
    if chunker.needs_embed:
        options.update(embed=embed, percentile=config.percentile)
    if chunker.needs_sections:
        options["sections"] = document.sections
    return chunker.split(document.text, config.size, config.overlap, **options)


def chunk_document(
    document: Document, config: ChunkingConfig | None = None, embed: Embed | None = None
) -> list[Chunk]:
    """Chunk ``document`` under ``config`` (default: recursive 600/60); each chunk's
    ``section`` is the path of the section at its start as labels show it
    (:attr:`~scar_viz.documents.reading.Document.shown_sections`).

    Args:
        embed: the embedding model in use, for chunkers that need one (``semantic``).

    Raises:
        ValueError: for an invalid configuration (e.g. overlap >= size), or a chunker that
            needs ``embed`` without it.
    """
    text, shown = document.text, document.shown_sections
    return [
        Chunk(i, s, e, text[s:e], shown[document.section_index_at(s)].path)
        for i, (s, e) in enumerate(chunk_spans(document, config, embed))
    ]


def chunk_doc_of(document: Document, chunks: Sequence[Chunk]) -> np.ndarray:
    """(N,) the file (part) of each chunk (:mod:`scar_viz.common.edges`); all zeros for one file."""
    starts = np.array([p.start for p in document.parts], dtype=np.int64)
    return doc_of_starts(starts, np.array([c.start for c in chunks], dtype=np.int64))


def embedding_texts(chunks: list[Chunk], prepend_section: bool = False) -> list[str]:
    """The texts to embed: the chunk text, or with contextual prepending its section path first.

    The prefix changes only what is embedded, never what is shown or counted as context.
    """
    if not prepend_section:
        return [c.text for c in chunks]
    return [f"{c.section_label}\n\n{c.text}" if c.section else c.text for c in chunks]
