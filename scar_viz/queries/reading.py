"""Reading a labelled query set: JSON Lines parsed and validated against a document
(docs/method.md §4).

One query a line (the format of docs/cli.md, "Query files")::

    {"id": "q-01", "query": "…?", "type": "fragmented",
     "evidence": [{"text": "<exact substring of the document>", "start": 16902, "end": 17469}],
     "answer": "an optional reference answer"}

Every line is checked against the document: ``doc[start:end] == text``. When the offsets are
missing or stale but the text occurs exactly once in the document, the span is relocated and
the relocation is reported; anything else is a per-line error and the line is skipped. In a
corpus an evidence item (or its query) names its file with ``"doc"``, and the same check runs
inside that file (:mod:`scar_viz.queries.evidence`). Reference answers are read in the same
pass (:mod:`scar_viz.queries.references`); gold chunks and query types, which depend on the
chunking, are :mod:`scar_viz.queries.gold`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from scar_viz.common.bounded_json import JsonInputError, read_json
from scar_viz.common.errors import SettingsError
from scar_viz.documents.reading import Document
from scar_viz.queries.evidence import Evidence, EvidenceError, doc_field, locate_evidence
from scar_viz.queries.references import reference_of
from scar_viz.runtime.cancel import ShouldStop, check

QUERY_TYPES = ("fragmented", "atomic", "scattered")
"""The query types a line may declare (and :func:`~scar_viz.queries.gold.query_type` gives)."""
MAX_QUERY_BYTES = 20 * 1024 * 1024
MAX_QUERIES = 5_000
"""Queries read from one file unless the caller says otherwise (the app's limit; the command
line passes its own, ``--max-queries``): each query costs its policies' work on every run."""
MAX_SPANS = 20_000
"""Evidence spans of one file, wherever queries are limited: a span without offsets is
searched for in the whole document (5,000 queries of 135 spans each were about two hours)."""
MAX_SPAN_CHARS = 4_000_000
"""Characters of evidence text of one file in all, wherever queries are limited."""


class QueryLimitError(SettingsError):
    """A query file with more queries than the reader was allowed to take."""


@dataclass(frozen=True)
class LabelledQuery:
    """A validated query; ``declared_type`` is the file's ``type`` (None when absent)."""

    id: str
    query: str
    evidence: tuple[Evidence, ...]
    declared_type: str | None
    line: int

    def as_row(self, kind: str | None = None) -> dict[str, object]:
        """The query as one line of the corpus format; ``type`` is ``kind`` (e.g. the type
        under the current chunking), else the declared type, and absent when neither is set."""
        row: dict[str, object] = {"id": self.id, "query": self.query}
        if kind or self.declared_type:
            row["type"] = kind or self.declared_type
        row["evidence"] = [e.as_row() for e in self.evidence]
        return row


@dataclass(frozen=True)
class QueryIssue:
    """A message about one line: ``level`` is ``error`` (line skipped) or ``note``."""

    line: int
    query_id: str
    level: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" + (f" ({self.query_id})" if self.query_id else "")
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class QuerySet:
    """The valid queries of a file, every issue found while reading it, and the reference
    answers of the valid queries by id (only those that give one, see
    :data:`~scar_viz.queries.references.REFERENCE_KEYS`)."""

    name: str
    queries: tuple[LabelledQuery, ...]
    issues: tuple[QueryIssue, ...]
    references: dict[str, str] = field(default_factory=dict)

    @property
    def errors(self) -> tuple[QueryIssue, ...]:
        return tuple(i for i in self.issues if i.level == "error")

    @property
    def notes(self) -> tuple[QueryIssue, ...]:
        return tuple(i for i in self.issues if i.level == "note")


class _LineError(EvidenceError):
    pass


def _query(
    obj: object, document: Document
) -> tuple[str, str, tuple[Evidence, ...], str | None, list]:
    if not isinstance(obj, dict):
        raise _LineError("each line must be a JSON object.")
    qid = obj.get("id")
    if not isinstance(qid, str | int) or isinstance(qid, bool) or not str(qid).strip():
        raise _LineError("missing 'id' (a string).")
    qid = str(qid)
    query = obj.get("query")
    if not isinstance(query, str) or not query.strip():
        raise _LineError("missing 'query' (a non-blank string).")
    items = obj.get("evidence")
    if not isinstance(items, list) or not items:
        raise _LineError("'evidence' must be a non-empty list of spans.")
    query_doc = doc_field(obj, "the query's")
    declared = obj.get("type")
    notes = []
    if declared is not None and declared not in QUERY_TYPES:
        notes.append(f"'type' {declared!r} is not one of {', '.join(QUERY_TYPES)}; ignored.")
        declared = None
    evidence = []
    for j, item in enumerate(items):
        ev, found = locate_evidence(item, j, document, query_doc)
        evidence.append(ev)
        notes.extend(found)
    return qid, query.strip(), tuple(evidence), declared, notes


def _check_count(lines: list[str], name: str, max_queries: int | None, hint: str) -> None:
    """Refuse a file of more than ``max_queries`` non-blank lines, before any is parsed."""
    if not max_queries:
        return
    count = sum(1 for line in lines if line.strip())
    if count > max_queries:
        raise QueryLimitError(
            f"'{name}' holds {count:,} queries; at most {max_queries:,} are read from one "
            f"file{hint}. Split it, or keep a sample of it."
        )


def _check_spans(objs: list[object], name: str, hint: str) -> None:
    """Refuse a file whose queries hold more than :data:`MAX_SPANS` evidence spans or
    :data:`MAX_SPAN_CHARS` characters of evidence text, before any span is looked for."""
    spans = chars = 0
    for obj in objs:
        items = obj.get("evidence") if isinstance(obj, dict) else None
        if isinstance(items, list):
            spans += len(items)
            chars += sum(
                len(i["text"])
                for i in items
                if isinstance(i, dict) and isinstance(i.get("text"), str)
            )
    if spans > MAX_SPANS or chars > MAX_SPAN_CHARS:
        raise QueryLimitError(
            f"'{name}' holds {spans:,} evidence spans of {chars:,} characters; at most "
            f"{MAX_SPANS:,} spans of {MAX_SPAN_CHARS:,} characters are read from one "
            f"file{hint}. Split it, or keep a sample of it."
        )


def parse_queries(
    data: str,
    document: Document,
    name: str = "queries",
    *,
    max_queries: int | None = MAX_QUERIES,
    limit_hint: str = "",
    should_stop: ShouldStop | None = None,
) -> QuerySet:
    """Validate JSON Lines ``data`` against ``document`` (a document of one file or many;
    see :mod:`scar_viz.queries.evidence` for how evidence is located).

    Blank lines are skipped. Invalid lines become ``error`` issues (the line is left out);
    relocated spans and ignored fields become ``note`` issues. Line numbers start at 1.
    Reference answers of the valid lines are read in the same pass. Each line is read by
    :func:`~scar_viz.common.bounded_json.read_json` (a line nested too deep is an invalid line).

    Where queries are limited (``max_queries``), so are their evidence spans
    (:data:`MAX_SPANS`, :data:`MAX_SPAN_CHARS`), counted before any is looked for;
    ``should_stop`` is asked before each line's spans are (:mod:`scar_viz.runtime.cancel`).

    Raises:
        QueryLimitError: the file holds more than ``max_queries`` queries (None or 0: no
            limit), or more spans than that allows; ``limit_hint`` is added to the message
            (how to raise the limit).
        Cancelled: ``should_stop`` said stop.
    """
    lines = data.splitlines()
    _check_count(lines, name, max_queries, limit_hint)
    parsed: list[tuple[int, object]] = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                parsed.append((number, read_json(line, max_bytes=MAX_QUERY_BYTES)))
            except JsonInputError as exc:
                parsed.append((number, exc))
    if max_queries:
        _check_spans([obj for _, obj in parsed], name, limit_hint)
    queries: list[LabelledQuery] = []
    issues: list[QueryIssue] = []
    references: dict[str, str] = {}
    seen: dict[str, int] = {}
    for number, obj in parsed:
        check(should_stop)
        qid = ""
        try:
            if isinstance(obj, JsonInputError):
                raise _LineError(f"{obj.reason}.")
            if isinstance(obj, dict) and isinstance(obj.get("id"), str):
                qid = obj["id"]
            qid, query, evidence, declared, notes = _query(obj, document)
            if qid in seen:
                raise _LineError(f"duplicate id (first used on line {seen[qid]}).")
        except EvidenceError as exc:
            issues.append(QueryIssue(number, qid, "error", str(exc)))
            continue
        seen[qid] = number
        queries.append(LabelledQuery(qid, query, evidence, declared, number))
        issues.extend(QueryIssue(number, qid, "note", n) for n in notes)
        if isinstance(obj, dict) and (reference := reference_of(obj)):
            references[qid] = reference
    return QuerySet(name, tuple(queries), tuple(issues), references)


def decode_queries(
    data: bytes,
    document: Document,
    name: str = "queries",
    *,
    max_queries: int | None = MAX_QUERIES,
    limit_hint: str = "",
    should_stop: ShouldStop | None = None,
) -> QuerySet:
    """:func:`parse_queries` on uploaded bytes (UTF-8, optional byte-order mark).

    Raises:
        SettingsError: when the bytes are too large or not UTF-8, or hold too many queries.
    """
    if len(data) > MAX_QUERY_BYTES:
        raise SettingsError(
            f"'{name}' is over {MAX_QUERY_BYTES // 2**20} MiB; too large for a query set."
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"'{name}' is not UTF-8 text; save the JSON Lines as UTF-8.") from exc
    return parse_queries(
        text,
        document,
        name,
        max_queries=max_queries,
        limit_hint=limit_hint,
        should_stop=should_stop,
    )


def load_queries(
    path: str | Path,
    document: Document,
    *,
    max_queries: int | None = MAX_QUERIES,
    limit_hint: str = "",
) -> QuerySet:
    """Read and validate a query file from disk (the CLI's entry).

    Raises:
        SettingsError: when the file cannot be read or decoded, or holds too many queries.
    """
    p = Path(path)
    try:
        if p.stat().st_size > MAX_QUERY_BYTES:  # before reading it whole
            raise SettingsError(
                f"'{p.name}' is over {MAX_QUERY_BYTES // 2**20} MiB; too large for a query set."
            )
        data = p.read_bytes()
    except OSError as exc:
        raise SettingsError(f"Cannot read '{path}': {exc.strerror or exc}.") from exc
    return decode_queries(data, document, p.name, max_queries=max_queries, limit_hint=limit_hint)


def evidence_units(
    data: str,
    document: Document,
    limit_hint: str = "",
    should_stop: ShouldStop | None = None,
) -> tuple[list[tuple[int, int]], list[str]]:
    """The distinct evidence spans of JSON Lines query set ``data`` (validated against the
    document by :func:`parse_queries`), and its error messages.

    Raises:
        QueryLimitError: the set holds more than :data:`MAX_QUERIES` queries.
    """
    query_set = parse_queries(data, document, limit_hint=limit_hint, should_stop=should_stop)
    spans = sorted({(ev.start, ev.end) for q in query_set.queries for ev in q.evidence})
    return spans, [str(issue) for issue in query_set.errors]
