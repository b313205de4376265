"""The ``recursive`` chunker (the default): langchain-text-splitters'
``RecursiveCharacterTextSplitter``, used as is so boundaries match the published 600/60
setting exactly (docs/method.md §1, §6)."""

from __future__ import annotations

from scar_viz.chunking.base import Chunker, locate
from scar_viz.spans import Span


def split_recursive(text: str, size: int, overlap: int) -> list[Span]:
    """Spans of langchain's ``RecursiveCharacterTextSplitter(size, overlap)`` over ``text``."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap)
    return locate(text, splitter.split_text(text), overlap)


CHUNKER = Chunker(
    "recursive",
    split_recursive,
    name="Recursive (langchain)",
    label="Recursive characters (langchain; the reference)",
)
