"""The ``section`` chunker: never crosses a heading detected by
:mod:`scar_viz.documents.reading`; each section is split recursively (docs/method.md §6).

Own code composed of the recursive splitter, because langchain's header splitters know
markdown only and drop offsets.
"""

from __future__ import annotations

from scar_viz.chunking.base import Chunker, shift
from scar_viz.chunking.recursive import split_recursive
from scar_viz.common.spans import Span
from scar_viz.documents.sections import Section, detect_sections


def split_sections(
    text: str, size: int, overlap: int, *, sections: tuple[Section, ...] | None = None
) -> list[Span]:
    """Each detected section split on its own by the recursive splitter: no chunk crosses a
    heading. ``sections`` default to :func:`scar_viz.documents.sections.detect_sections` of
    ``text``."""
    spans: list[Span] = []
    for section in sections if sections is not None else detect_sections(text):
        sub = text[section.start : section.end]
        if sub.strip():
            spans.extend(shift(split_recursive(sub, size, overlap), section.start))
    return spans


CHUNKER = Chunker(
    "section",
    split_sections,
    name="Section-aware",
    label="Section-aware (never crosses a heading)",
    needs_sections=True,
)
