"""Evidence spans of a labelled query: where each one lies in a document (docs/method.md §4).

A document is one file or a corpus of several, each a part of it. An evidence item's ``doc``
(or its query's) names its file, by its path relative to the corpus root (a single file may
also be named by its own name, or by a path ending in it); its ``start``/``end`` must give its
``text`` in that file's own text. When they do not but the text occurs exactly once there,
the span is relocated (a note); otherwise the line is an error. An item without ``doc`` is
looked for in every file: found in one, it belongs to that file; found in several, the first
(the one whose offsets match, if any) is used and a note says so. Text held in memory is
read as a document of one file (:func:`scar_viz.documents.reading.document_from_text`).

:class:`Evidence` keeps offsets in the document's text (a corpus: the joined text), which is
what chunks use, and the file's start and shown path to write them back in the file's own
terms.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from scar_viz.documents.corpus import part_of_path
from scar_viz.documents.reading import Document


@dataclass(frozen=True)
class Evidence:
    """One evidence span: ``document.text[start:end] == text``. ``doc`` is its file's path as
    shown (empty for a document of one file, :meth:`~scar_viz.documents.reading.Document.
    shown_path`) and ``base`` where that file starts in the document's text."""

    text: str
    start: int
    end: int
    doc: str = ""
    base: int = 0

    def as_row(self) -> dict[str, object]:
        """The span as written in a query file: offsets in its own file, ``doc`` first when
        it names one."""
        row: dict[str, object] = {
            "text": self.text,
            "start": self.start - self.base,
            "end": self.end - self.base,
        }
        return {"doc": self.doc, **row} if self.doc else row


class EvidenceError(ValueError):
    """An evidence item that cannot be located; the message is meant for the user."""


def in_document(document: Document, ev: Evidence) -> Evidence:
    """``ev`` (offsets in the document's text) with its file's shown path and start filled
    in.

    Raises:
        EvidenceError: when the span crosses the edge between two files.
    """
    index = document.part_index_at(ev.start)
    part = document.parts[index]
    if ev.end > part.end:
        raise EvidenceError(f"the span {ev.start}–{ev.end} crosses the end of '{part.path}'.")
    return Evidence(ev.text, ev.start, ev.end, document.shown_path(index), part.start)


def doc_field(obj: dict, what: str) -> str | None:
    """The ``doc`` of a query line or an evidence item (None when absent).

    Raises:
        EvidenceError: when it is not a non-blank string.
    """
    value = obj.get("doc")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise EvidenceError(
            f"{what} 'doc' must be a file's path relative to the corpus root, not {value!r}."
        )
    return value.strip()


def locate_evidence(
    item: object, j: int, document: Document, query_doc: str | None = None
) -> tuple[Evidence, list[str]]:
    """Evidence item ``j`` (0-based) of a query line located in ``document``, and its notes.

    Args:
        document: the document (a file is a corpus of one).
        query_doc: the query's own ``doc``, for items that name none.

    Raises:
        EvidenceError: for a malformed item, an unknown ``doc``, or a text not found.
    """
    if not isinstance(item, dict):
        raise EvidenceError(f"evidence {j + 1} must be an object with 'text', 'start' and 'end'.")
    span_text = item.get("text")
    if not isinstance(span_text, str) or not span_text.strip():
        raise EvidenceError(f"evidence {j + 1} has no 'text' (it must be a non-blank string).")
    start, end = _offset(item.get("start"), "start"), _offset(item.get("end"), "end")
    doc = doc_field(item, f"evidence {j + 1}:") or query_doc
    if not document.several_files:  # one file: 'doc' names it or is refused; no search
        _check_single(document, doc, j)
        return _in_part(document, 0, span_text, start, end, j, [])
    if doc is None:
        return _search_parts(document, span_text, start, end, j)
    index = part_of_path(document, doc)
    if index is None:
        raise EvidenceError(f"evidence {j + 1}: the corpus holds no document '{doc}'.")
    return _in_part(document, index, span_text, start, end, j, [])


def _offset(value: object, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise EvidenceError(f"evidence '{name}' must be a whole number, not {value!r}.")
    return value


def _check_single(document: Document, doc: str | None, j: int) -> None:
    """A ``doc`` given for a document of one file must be its name (or end in its file name).

    Raises:
        EvidenceError: when it is neither.
    """
    if doc is None or doc == document.name:
        return
    if PurePosixPath(doc).name == PurePosixPath(document.name).name:
        return
    raise EvidenceError(
        f"evidence {j + 1}: 'doc' is '{doc}' but the document is '{document.name}'."
    )


def _in_part(
    document: Document,
    index: int,
    span_text: str,
    start: int | None,
    end: int | None,
    j: int,
    notes: list[str],
) -> tuple[Evidence, list[str]]:
    part, shown = document.parts[index], document.shown_path(index)
    where = f"'{shown}'" if shown else "the document"
    ev, note = _in_text(span_text, start, end, j, document.text, where, part.start, part.end)
    shifted = Evidence(ev.text, ev.start + part.start, ev.end + part.start, shown, part.start)
    return shifted, [*notes, note] if note else notes


def _search_parts(
    document: Document, span_text: str, start: int | None, end: int | None, j: int
) -> tuple[Evidence, list[str]]:
    """An item without ``doc`` in a corpus: the file holding its text (the first of several,
    with a note). Each file is searched in place, within its bounds: no file is copied."""
    text = document.text
    holding = [i for i, p in enumerate(document.parts) if text.find(span_text, p.start, p.end) >= 0]
    if not holding:
        raise EvidenceError(
            f"evidence {j + 1}: its text occurs in no document of the corpus "
            f"(first words: {' '.join(span_text.split()[:8])!r})."
        )
    if len(holding) == 1:
        return _in_part(document, holding[0], span_text, start, end, j, [])
    exact = [
        i
        for i in holding
        if _matches(text, span_text, start, end, document.parts[i].start, document.parts[i].end)
    ]
    chosen = exact[0] if exact else holding[0]
    names = ", ".join(f"'{document.parts[i].path}'" for i in holding[:4])
    more = ", …" if len(holding) > 4 else ""
    note = (
        f"evidence {j + 1} names no 'doc' and its text occurs in {len(holding)} documents "
        f"({names}{more}); '{document.parts[chosen].path}' is used; add \"doc\" to choose."
    )
    return _in_part(document, chosen, span_text, start, end, j, [note])


def _matches(
    text: str, span_text: str, start: int | None, end: int | None, lo: int, hi: int
) -> bool:
    """Whether ``start``/``end`` (relative to ``lo``) give ``span_text`` within
    ``text[lo:hi]`` (only the span itself is compared: nothing else is copied)."""
    return (
        start is not None
        and end is not None
        and 0 <= start <= end <= hi - lo
        and end - start == len(span_text)
        and text.startswith(span_text, lo + start)
    )


def _in_text(
    span_text: str,
    start: int | None,
    end: int | None,
    j: int,
    text: str,
    where: str,
    lo: int = 0,
    hi: int | None = None,
) -> tuple[Evidence, str]:
    """A checked span of ``text[lo:hi]`` (offsets relative to ``lo``) and a relocation note
    ("" when the offsets were right); searched in place, never copied."""
    hi = len(text) if hi is None else hi
    if _matches(text, span_text, start, end, lo, hi):
        assert start is not None and end is not None
        return Evidence(span_text, start, end), ""
    at = text.find(span_text, lo, hi)
    if at < 0:
        raise EvidenceError(
            f"evidence {j + 1}: its text does not occur in {where} "
            f"(first words: {' '.join(span_text.split()[:8])!r})."
        )
    if text.find(span_text, at + 1, hi) >= 0:
        count = text.count(span_text, lo, hi)
        what = "are missing" if start is None or end is None else f"({start}, {end}) are stale"
        raise EvidenceError(
            f"evidence {j + 1}: the offsets {what} and its text occurs {count} times in "
            f"{where}, so it cannot be located; give the correct start and end."
        )
    found = at - lo
    place = "in the document" if where == "the document" else f"in {where}"
    if start is None or end is None:
        note = f"evidence {j + 1} had no offsets; located at {found}–{found + len(span_text)}"
        note += "." if where == "the document" else f" {place}."
    else:
        note = (
            f"evidence {j + 1}: offsets {start}–{end} did not match its text; relocated to "
            f"{found}–{found + len(span_text)} (the text occurs once {place})."
        )
    return Evidence(span_text, found, found + len(span_text)), note
