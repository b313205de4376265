"""Parent (section) retrieval: the whole section holding each retrieved chunk
(docs/method.md §1)."""

from __future__ import annotations

import time

from scar_viz.documents.reading import Document
from scar_viz.errors import SettingsError
from scar_viz.policies.base import (
    PolicyResult,
    QueryInputs,
    policy_entry,
    span_result,
)
from scar_viz.scoring.scar import top_k
from scar_viz.spans import merge_spans

HUGE_SECTION_CHARS = 8000
"""A section longer than this is flagged in the notes (it is still returned whole)."""


def section_span(document: Document, index: int, level: int = 0) -> tuple[int, int]:
    """Character span of section ``index``, or of its ancestor at depth ``level`` (1 = top).

    ``level`` = 0, or a level at or below the section's own, gives the section itself; an
    ancestor's span runs over every consecutive section whose path starts with its path.
    """
    sections = document.sections
    sec = sections[index]
    if level <= 0 or len(sec.path) <= level:
        return sec.start, sec.end
    prefix = sec.path[:level]
    lo = hi = index
    while lo > 0 and sections[lo - 1].path[:level] == prefix:
        lo -= 1
    while hi < len(sections) - 1 and sections[hi + 1].path[:level] == prefix:
        hi += 1
    return sections[lo].start, sections[hi].end


def parent_policy(
    inputs: QueryInputs, level: int = 0, huge_chars: int = HUGE_SECTION_CHARS
) -> PolicyResult:
    """Every section overlapping a top-k chunk, whole, in document order.

    A chunk that crosses a heading brings both sections, so the context always covers the
    top-k chunks. ``chunk_ids`` are the chunks lying inside the returned spans.

    Raises:
        ValueError: for a negative ``level`` or ``huge_chars``.
    """
    t0 = time.perf_counter()
    if level < 0 or huge_chars < 0:
        raise SettingsError("The parent level and the huge-section size must be 0 or more.")
    doc, chunks = inputs.document, inputs.chunks
    retrieved = top_k(inputs.sims, inputs.params.k)
    indices: set[int] = set()
    for c in retrieved:
        first = doc.section_index_at(chunks[c].start)
        last = doc.section_index_at(max(chunks[c].start, chunks[c].end - 1))
        indices.update(range(first, last + 1))
    spans = merge_spans([section_span(doc, i, level) for i in sorted(indices)])
    notes: list[str] = []
    if len(doc.sections) == 1 and not doc.sections[0].path:
        notes.append(
            f"No headings were detected: the parent of every chunk is the whole "
            f"document ({len(doc.text):,} characters)."
        )
    for s, e in spans:
        if e - s > huge_chars:
            label = doc.section_at(s).label
            notes.append(f"Huge section '{label}': {e - s:,} characters, returned whole, not cut.")
    inside = [c.index for c in chunks if any(s <= c.start and c.end <= e for s, e in spans)]
    return span_result(
        "parent",
        inputs,
        spans,
        t0,
        chunk_ids=sorted(set(inside) | set(retrieved)),
        notes=notes,
        detail=tuple(sorted(indices)),
    )


POLICY = policy_entry("parent", parent_policy)
