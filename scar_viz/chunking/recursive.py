"""The ``recursive`` chunker (the default): langchain-text-splitters'
``RecursiveCharacterTextSplitter``, used as is so boundaries match the published 600/60
setting exactly (docs/method.md §1, §6).

Its separators are langchain's defaults (paragraph, line, space, character) with one added
between line and space: the end of a sentence in Japanese or Chinese (。！？ and the
full-width and half-width forms ．｡), matched just after the mark, so a chunk of text written
without spaces ends at a sentence where it can and the mark stays on the sentence it ends. A
separator that does not occur in a text is skipped, so a text without these marks (English)
is split exactly as before.
"""

from __future__ import annotations

from scar_viz.chunking.base import Chunker, locate
from scar_viz.common.spans import Span

SEPARATORS = ["\n\n", "\n", "(?<=[。！？．｡])", " ", ""]
"""langchain's default separators, as regular expressions, with the CJK sentence end added."""


def split_recursive(text: str, size: int, overlap: int) -> list[Span]:
    """Spans of langchain's ``RecursiveCharacterTextSplitter(size, overlap)`` over ``text``,
    with :data:`SEPARATORS`."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=size, chunk_overlap=overlap, separators=SEPARATORS, is_separator_regex=True
    )
    return locate(text, splitter.split_text(text), overlap)


CHUNKER = Chunker(
    "recursive",
    split_recursive,
    name="Recursive (langchain)",
    label="Recursive characters (langchain; the reference)",
)
