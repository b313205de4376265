"""Parent (section) retrieval: the section holding each retrieved chunk, never over a cap
(docs/method.md §7).

A section is sent whole when it has at most ``huge_chars`` characters (default
:data:`MAX_PARENT_CHARS`). A longer one is cut: to its largest sub-section holding the chunk
that fits (when a parent level above the section was asked for, the sub-headings below it),
else to a window of whole chunks around the retrieved chunk(s) inside the section. The result's
``notes`` say what was cut and how; ``detail`` lists one :class:`ParentPart` per section sent.

The same code serves one file and many: section paths are the headings inside their file, so
``level`` counts from the first heading of the file (1 is a top heading), an ancestor never
runs past its file, and every span sent is clipped to the retrieved chunk's file (a file's last
section holds the blank line that joins it to the next): no parent reaches into the next file.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from scar_viz.chunking.base import Chunk
from scar_viz.common.errors import SettingsError
from scar_viz.common.spans import Span, merge_spans
from scar_viz.documents.reading import Document
from scar_viz.policies.base import (
    PolicyResult,
    QueryInputs,
    policy_entry,
    span_result,
)

MAX_PARENT_CHARS = 4000
"""The cap on one parent section, in characters: about 1,000 tokens, or six to seven chunks of
the default 600 characters. A section is the unit a reader asks about ("what does Article 6
say?"), and most articles, clauses and RFC subsections are shorter; with k = 5 the context stays
under ~5,000 tokens, whereas an uncut section can be a whole preamble (GDPR's 173 recitals are
one section of over 20,000 tokens, which drowns the chunk that was found)."""

HUGE_SECTION_CHARS = MAX_PARENT_CHARS
"""The default of the ``huge_chars`` knob (``--huge-chars``, the Compare page): the cap."""

SECTION, SUB_HEADING, WINDOW = "section", "sub-heading", "window"


@dataclass(frozen=True)
class ParentPart:
    """One section's part of the context: ``how`` is ``section`` (whole), ``sub-heading``
    (cut to a sub-section) or ``window`` (cut to chunks around the retrieved ones)."""

    section: int
    start: int
    end: int
    how: str


def section_span(document: Document, index: int, level: int = 0) -> tuple[int, int]:
    """Character span of section ``index``, or of its ancestor at depth ``level`` (1 = top).

    ``level`` = 0, or a level at or below the section's own, gives the section itself; an
    ancestor's span runs over every consecutive section of the same file whose path starts
    with its path.
    """
    sections = document.sections
    sec = sections[index]
    if level <= 0 or len(sec.path) <= level:
        return sec.start, sec.end
    prefix = sec.path[:level]
    part = document.part_index_at(sec.start)

    def kin(i: int) -> bool:
        near = sections[i]
        return near.path[:level] == prefix and document.part_index_at(near.start) == part

    lo = hi = index
    while lo > 0 and kin(lo - 1):
        lo -= 1
    while hi < len(sections) - 1 and kin(hi + 1):
        hi += 1
    return sections[lo].start, sections[hi].end


def _clip(span: Span, bounds: Span) -> Span:
    return max(span[0], bounds[0]), min(span[1], bounds[1])


def _width(span: Span) -> int:
    return span[1] - span[0]


def _sub_heading_span(document: Document, index: int, level: int, cap: int) -> Span | None:
    """The largest heading group between depth ``level`` and section ``index`` itself that
    holds it and fits ``cap``; None when even the section itself is over the cap."""
    sec = document.sections[index]
    for d in range(level + 1, len(sec.path) + 1):
        span = _clip(section_span(document, index, d), document.part_range(sec.start))
        if _width(span) <= cap:
            return span
    return None


def _covered(windows: Sequence[Span]) -> int:
    return sum(_width(s) for s in merge_spans(list(windows)))


def _windows(chunks: Sequence[Chunk], seeds: Sequence[int], bounds: Span, cap: int) -> list[Span]:
    """Windows of whole chunks around each seed chunk, grown one chunk at a time on either
    side, inside ``bounds``, while together they cover at most ``cap`` characters (the seeds
    themselves are always kept)."""
    lo_b, hi_b = bounds
    wins = [[c, c] for c in sorted(set(seeds))]

    def spans(ws: list[list[int]]) -> list[Span]:
        return [(chunks[a].start, chunks[b].end) for a, b in ws]

    grew = True
    while grew:
        grew = False
        for n, w in enumerate(wins):
            for side in (0, 1):
                nxt = w[0] - 1 if side == 0 else w[1] + 1
                if not 0 <= nxt < len(chunks):
                    continue
                if chunks[nxt].start < lo_b or chunks[nxt].end > hi_b:
                    continue
                trial = [list(x) for x in wins]
                trial[n][side] = nxt
                if _covered(spans(trial)) <= cap:
                    w[side] = nxt
                    grew = True
    return spans(wins)


def _no_heading_notes(doc: Document, seeds: Sequence[int]) -> list[str]:
    """The note for each file of a seed section that has no headings, whose parent is then
    the whole file (the whole document, for a file shown by no path of its own)."""
    notes = []
    for f in sorted({doc.part_index_at(doc.sections[i].start) for i in seeds}):
        part, shown = doc.parts[f], doc.shown_path(f)
        first = doc.sections[doc.section_index_at(part.start)]
        if first.path or first.end < part.end:
            continue
        size = f"{part.end - part.start:,} characters"
        notes.append(
            f"No headings were detected in {shown}: the parent of its chunks is the whole file "
            f"({size})."
            if shown
            else f"No headings were detected: the parent of every chunk is the whole document "
            f"({size})."
        )
    return notes


def parent_policy(
    inputs: QueryInputs, level: int = 0, huge_chars: int = HUGE_SECTION_CHARS
) -> PolicyResult:
    """The section of every top-k chunk, in document order, each cut to ``huge_chars`` and
    kept inside the chunk's file; ``level`` (1 = a top heading) widens it to that ancestor.

    A chunk that crosses a heading brings both sections, so the context always covers the
    top-k chunks. ``chunk_ids`` are the chunks lying inside the returned spans.

    Raises:
        SettingsError: for a negative ``level`` or ``huge_chars``.
    """
    t0 = time.perf_counter()
    if level < 0 or huge_chars < 0:
        raise SettingsError("The parent level and the section cap must be 0 or more.")
    doc, chunks, cap = inputs.document, inputs.chunks, huge_chars
    retrieved = inputs.top(inputs.params.k)
    seeds: dict[int, list[int]] = {}
    for c in retrieved:
        first = doc.section_index_at(chunks[c].start)
        last = doc.section_index_at(max(chunks[c].start, chunks[c].end - 1))
        for i in range(first, last + 1):
            seeds.setdefault(i, []).append(int(c))
    notes = _no_heading_notes(doc, sorted(seeds))
    parts: list[ParentPart] = []
    for i in sorted(seeds):
        file = doc.part_range(doc.sections[i].start)
        span = _clip(section_span(doc, i, level), file)
        if _width(span) <= cap:
            parts.append(ParentPart(i, *span, SECTION))
            continue
        label = doc.shown_sections[i].label
        over = f"Section '{label}' is {_width(span):,} characters, over the {cap:,}-character cap"
        sub = _sub_heading_span(doc, i, level, cap)
        if sub is not None:
            parts.append(ParentPart(i, *sub, SUB_HEADING))
            sub_label = doc.shown_sections[doc.section_index_at(sub[0])].label
            notes.append(f"{over}: sent its sub-section '{sub_label}' ({_width(sub):,}).")
            continue
        own = _clip((doc.sections[i].start, doc.sections[i].end), file)
        wins = _windows(chunks, seeds[i], own, cap)
        parts.extend(ParentPart(i, s, e, WINDOW) for s, e in wins)
        sent = _covered(wins)
        extra = " (the retrieved chunks alone are over the cap)" if sent > cap else ""
        notes.append(
            f"{over} and no sub-heading fits: sent a window of chunks around the retrieved "
            f"one(s), {sent:,} characters{extra}."
        )
    spans = merge_spans([(p.start, p.end) for p in parts])
    inside = _chunks_inside(chunks, spans)
    return span_result(
        "parent",
        inputs,
        spans,
        t0,
        chunk_ids=sorted(set(inside) | set(retrieved)),
        notes=notes,
        detail=tuple(parts),
    )


def _chunks_inside(chunks: Sequence[Chunk], spans: Sequence[Span]) -> list[int]:
    """Indices of the chunks lying wholly inside one of ``spans`` (sorted, disjoint, as
    :func:`~scar_viz.common.spans.merge_spans` gives them): the one span that can hold a chunk is
    the last that starts at or before it."""
    starts = [s for s, _ in spans]
    out = []
    for c in chunks:
        i = bisect_right(starts, c.start) - 1
        if i >= 0 and c.end <= spans[i][1]:
            out.append(c.index)
    return out


POLICY = policy_entry("parent", parent_policy)
