"""A corpus: many files as one :class:`~scar_viz.documents.reading.Document` with a part for
each, and the way back to each file.

The files' texts are joined in path order with a blank line (:data:`JOIN`) between them, so a
span of one file never touches a span of the next. Each file's sections are shifted into the
joined text as they are (their paths are the headings inside the file; the file is the part,
not a section level). A one-file corpus is that file's document itself (its own name and
note): a file is a corpus of one, and it reads the same whichever way it came.

Offsets users see (evidence, gold, spans in JSON) are in the file's own text:
:func:`local_span` and :func:`global_span` convert.
"""

from __future__ import annotations

from collections.abc import Sequence

from scar_viz.common.spans import Span
from scar_viz.documents.reading import Document, DocumentError, Part, whole
from scar_viz.documents.sections import Section

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
    if len(ordered) == 1:  # one file keeps its own name and note (what the user sees)
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
            sections.append(Section(sec.start + start, end, sec.path, sec.level))
        if gap:
            pieces.append(JOIN)
            offset += gap
    notes = [f"{d.name}: {d.note}" for d in ordered if d.note]
    text = "".join(pieces)
    return Document(name, text, tuple(sections), " ".join(notes), parts=tuple(parts))


def part_document(corpus: Document, index: int) -> Document:
    """File ``index`` of ``corpus`` as its own Document (its own offsets; the sections from
    the one holding its first character to the one holding its last, cut at its end)."""
    part = corpus.parts[index]
    first = corpus.section_index_at(part.start)
    last = corpus.section_index_at(max(part.start, part.end - 1))
    sections = tuple(
        Section(s.start - part.start, min(s.end, part.end) - part.start, s.path, s.level)
        for s in corpus.sections[first : last + 1]
    )
    text = corpus.text[part.start : part.end]
    return Document(part.path, text, sections, parts=whole(part.path, text))


def part_of_path(corpus: Document, path: str) -> int | None:
    """Index of the part whose path is ``path``; None when no part has it."""
    for i, part in enumerate(corpus.parts):
        if part.path == path:
            return i
    return None


def local_span(corpus: Document, span: Span) -> tuple[str, Span]:
    """(file path, span in that file's text) of a span of the document's text."""
    part = corpus.parts[corpus.part_index_at(span[0])]
    return part.path, (span[0] - part.start, span[1] - part.start)


def global_span(corpus: Document, index: int, span: Span) -> Span:
    """The span of the document's text for ``span`` of part ``index``'s own text."""
    start = corpus.parts[index].start
    return span[0] + start, span[1] + start
