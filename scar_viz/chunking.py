"""Cutting a document into chunks that keep their character offsets.

The reference setting is langchain-text-splitters' ``RecursiveCharacterTextSplitter`` at
600/60 (METHODS.md §1), used as is so chunk boundaries match the published setting exactly.
Every chunk satisfies ``document.text[chunk.start:chunk.end] == chunk.text``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scar_viz.documents import FRONT_MATTER, Document

DEFAULT_CHUNK_SIZE = 600
DEFAULT_OVERLAP = 60


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
class ChunkingConfig:
    """How to chunk: the chunker's name, its target size and overlap (characters)."""

    chunker: str = "recursive"
    size: int = DEFAULT_CHUNK_SIZE
    overlap: int = DEFAULT_OVERLAP

    def validate(self) -> None:
        if self.chunker not in CHUNKERS:
            raise ValueError(f"Unknown chunker '{self.chunker}'; choose one of {sorted(CHUNKERS)}.")
        if self.size < 1:
            raise ValueError("Chunk size must be at least 1 character.")
        if self.overlap < 0:
            raise ValueError("Overlap cannot be negative.")
        if self.overlap >= self.size:
            raise ValueError(
                f"Overlap ({self.overlap}) must be smaller than chunk size ({self.size})."
            )

    @property
    def label(self) -> str:
        return f"{self.chunker} {self.size}/{self.overlap}"


def _locate(text: str, pieces: list[str], overlap: int) -> list[tuple[int, int]]:
    """Offsets of consecutive ``pieces`` in ``text``, searched forward like langchain does."""
    spans: list[tuple[int, int]] = []
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


def split_recursive(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """Spans of langchain's ``RecursiveCharacterTextSplitter(size, overlap)`` over ``text``."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap)
    return _locate(text, splitter.split_text(text), overlap)


Splitter = Callable[[str, int, int], list[tuple[int, int]]]
CHUNKERS: dict[str, Splitter] = {"recursive": split_recursive}
"""Chunker name -> function (text, size, overlap) -> list of (start, end) spans in order."""


def chunk_document(document: Document, config: ChunkingConfig | None = None) -> list[Chunk]:
    """Chunk ``document`` under ``config`` (default: recursive 600/60).

    Raises:
        ValueError: for an invalid configuration (e.g. overlap >= size).
    """
    config = config or ChunkingConfig()
    config.validate()
    text = document.text
    spans = CHUNKERS[config.chunker](text, config.size, config.overlap)
    return [
        Chunk(i, s, e, text[s:e], document.section_at(s).path) for i, (s, e) in enumerate(spans)
    ]


def embedding_texts(chunks: list[Chunk], prepend_section: bool = False) -> list[str]:
    """The texts to embed: the chunk text, or with contextual prepending its section path first.

    The prefix changes only what is embedded, never what is shown or counted as context.
    """
    if not prepend_section:
        return [c.text for c in chunks]
    return [f"{c.section_label}\n\n{c.text}" if c.section else c.text for c in chunks]
