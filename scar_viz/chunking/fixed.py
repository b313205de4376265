"""The ``fixed`` chunker: fixed-size character windows, langchain's ``CharacterTextSplitter``
with an empty separator (docs/method.md §6)."""

from __future__ import annotations

from scar_viz.chunking.base import Chunker, locate
from scar_viz.common.spans import Span


def split_fixed(text: str, size: int, overlap: int) -> list[Span]:
    """Fixed character windows: [i·(size − overlap), i·(size − overlap) + size), edges stripped.

    langchain's ``CharacterTextSplitter(separator="")`` merges single characters into windows
    of ``size`` and carries the last ``overlap`` characters into the next window.
    """
    from langchain_text_splitters import CharacterTextSplitter

    splitter = CharacterTextSplitter(separator="", chunk_size=size, chunk_overlap=overlap)
    return locate(text, splitter.split_text(text), overlap)


CHUNKER = Chunker("fixed", split_fixed, name="Fixed characters", label="Fixed-size characters")
