"""A corpus: many files as one :class:`~scar_viz.documents.reading.Document` whose ``parts``
name each file's range, and the way back to each file.

The files' texts are joined in path order with a blank line (:data:`JOIN`) between them, so a
span of one file never touches a span of the next. Each file's sections are shifted into the
joined text with the file's path as the first element of their path, so two files' sections
never merge and every chunk's label names its file. A one-file corpus is that file's document
itself: the one-document case stays exactly as it was.

Offsets users see (evidence, gold, spans in JSON) are in the file's own text:
:func:`local_span` and :func:`global_span` convert.
"""

from __future__ import annotations

from collections.abc import Sequence

from scar_viz.documents.reading import Document, DocumentError, Part
from scar_viz.documents.sections import Section
from scar_viz.spans import Span

JOIN = "\n\n"
"""Between two files in the joined text; it belongs to the earlier file's last section."""


def join_documents(documents: Sequence[Document], name: str = "corpus") -> Document:
    """The corpus of ``documents`` (ordered by their ``name``, the relative path) as one Document.

    Raises:
        DocumentError: for no documents or two with the same path.
    """
    if not documents:
        raise DocumentError("The corpus holds no document.")
    ordered = sorted(documents, key=lambda d: d.name)
    names = [d.name for d in ordered]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise DocumentError(f"Two files share the path {dupes[0]!r}; a path names one file.")
    if len(ordered) == 1:
        return ordered[0]
    pieces: list[str] = []
    sections: list[Section] = []
    parts: list[Part] = []
    offset = 0
    for i, doc in enumerate(ordered):
        start = offset
        pieces.append(doc.text)
        offset += len(doc.text)
        parts.append(Part(doc.name, start, offset))
        gap = len(JOIN) if i < len(ordered) - 1 else 0
        for j, sec in enumerate(doc.sections):
            end = sec.end + start + (gap if j == len(doc.sections) - 1 else 0)
            sections.append(Section(sec.start + start, end, (doc.name, *sec.path), sec.level))
        if gap:
            pieces.append(JOIN)
            offset += gap
    notes = [f"{d.name}: {d.note}" for d in ordered if d.note]
    return Document(name, "".join(pieces), tuple(sections), " ".join(notes), tuple(parts))


def part_document(corpus: Document, index: int) -> Document:
    """File ``index`` of ``corpus`` as its own Document (its own offsets and section paths)."""
    if not corpus.parts:
        return corpus
    part = corpus.parts[index]
    sections = tuple(
        Section(
            max(s.start, part.start) - part.start,
            min(s.end, part.end) - part.start,
            s.path[1:],
            s.level,
        )
        for s in corpus.sections
        if s.start < part.end and s.end > part.start
    )
    return Document(part.path, corpus.text[part.start : part.end], sections)


def part_of_path(corpus: Document, path: str) -> int | None:
    """Index of the part whose path is ``path``; for a single file, 0 when ``path`` is its name
    or empty; None when no part has it."""
    if not corpus.parts:
        return 0 if path in ("", corpus.name) else None
    for i, part in enumerate(corpus.parts):
        if part.path == path:
            return i
    return None


def local_span(corpus: Document, span: Span) -> tuple[str, Span]:
    """(file path, span in that file's text) of a span of the joined text; the path is empty
    for a single file."""
    if not corpus.parts:
        return "", span
    part = corpus.parts[corpus.part_index_at(span[0])]
    return part.path, (span[0] - part.start, span[1] - part.start)


def global_span(corpus: Document, index: int, span: Span) -> Span:
    """The span of the joined text for ``span`` of part ``index``'s own text."""
    if not corpus.parts:
        return span
    start = corpus.parts[index].start
    return span[0] + start, span[1] + start
