"""Labelled query sets: loading and validating JSON Lines, and gold chunks (docs/method.md §4).

One query a line (the format of docs/cli.md, "Query files")::

    {"id": "q-01", "query": "…?", "type": "fragmented",
     "evidence": [{"text": "<exact substring of the document>", "start": 16902, "end": 17469}],
     "answer": "an optional reference answer"}

Every line is checked against the document: ``doc[start:end] == text``. When the offsets are
missing or stale but the text occurs exactly once in the document, the span is relocated and
the relocation is reported; anything else is a per-line error and the line is skipped. In a
corpus an evidence item (or its query) names its file with ``"doc"``, and the same check runs
inside that file (:mod:`scar_viz.evaluation.evidence`).

Gold chunks and the query type (:func:`query_type`: fragmented, atomic or scattered) are a
property of the chunking, so they are recomputed for the current chunks rather than taken from
the file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scar_viz.bounded_json import JsonInputError, read_json
from scar_viz.chunking.base import Chunk
from scar_viz.documents.reading import Document
from scar_viz.edges import chunk_files, doc_of_starts
from scar_viz.errors import SettingsError
from scar_viz.evaluation.evidence import Evidence, EvidenceError, doc_field, locate_evidence
from scar_viz.evaluation.references import reference_of

QUERY_TYPES = ("fragmented", "atomic", "scattered")
TYPES = QUERY_TYPES
MAX_QUERY_BYTES = 20 * 1024 * 1024
MAX_QUERIES = 5_000
"""Queries read from one file unless the caller says otherwise (the app's limit; the command
line passes its own, ``--max-queries``): each query costs its policies' work on every run."""


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
    :data:`~scar_viz.evaluation.references.REFERENCE_KEYS`)."""

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


@dataclass(frozen=True)
class GoldQuery:
    """A query with its gold chunks under one chunking.

    ``runs`` holds, per evidence span, the (first, last) chunk index of its minimal covering
    run; ``gold`` is the sorted union of the runs; ``type`` is :func:`query_type` of ``gold``.
    In a corpus, ``gold_refs`` names each gold chunk as (file path, index in that file); it
    is empty for a single document.
    """

    query: LabelledQuery
    gold: tuple[int, ...]
    runs: tuple[tuple[int, int], ...]
    type: str
    gold_refs: tuple[tuple[str, int], ...] = ()

    @property
    def id(self) -> str:
        return self.query.id

    @property
    def fragmented(self) -> bool:
        """The evidence crosses a chunk boundary (two consecutive gold chunks)."""
        return self.type == "fragmented"

    @property
    def type_changed(self) -> bool:
        """The file declared a type and this chunking gives the other one."""
        return self.query.declared_type is not None and self.query.declared_type != self.type


# --- reading -------------------------------------------------------------------------------


class _LineError(EvidenceError):
    pass


def _query(
    obj: object, document: Document | str
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
    if declared is not None and declared not in TYPES:
        notes.append(f"'type' {declared!r} is not one of {', '.join(TYPES)}; ignored.")
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


def parse_queries(
    data: str,
    document: Document | str,
    name: str = "queries",
    *,
    max_queries: int | None = MAX_QUERIES,
    limit_hint: str = "",
) -> QuerySet:
    """Validate JSON Lines ``data`` against ``document`` (a document, a corpus or a bare
    text; see :mod:`scar_viz.evaluation.evidence` for how evidence is located).

    Blank lines are skipped. Invalid lines become ``error`` issues (the line is left out);
    relocated spans and ignored fields become ``note`` issues. Line numbers start at 1.
    Reference answers of the valid lines are read in the same pass. Each line is read by
    :func:`~scar_viz.bounded_json.read_json` (a line nested too deep is an invalid line).

    Raises:
        QueryLimitError: the file holds more than ``max_queries`` queries (None or 0: no
            limit); ``limit_hint`` is added to the message (how to raise the limit).
    """
    lines = data.splitlines()
    _check_count(lines, name, max_queries, limit_hint)
    queries: list[LabelledQuery] = []
    issues: list[QueryIssue] = []
    references: dict[str, str] = {}
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        qid = ""
        try:
            try:
                obj = read_json(line, max_bytes=MAX_QUERY_BYTES)
            except JsonInputError as exc:
                raise _LineError(f"{exc.reason}.") from None
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
        if reference := reference_of(obj):
            references[qid] = reference
    return QuerySet(name, tuple(queries), tuple(issues), references)


def decode_queries(
    data: bytes,
    document: Document | str,
    name: str = "queries",
    *,
    max_queries: int | None = MAX_QUERIES,
    limit_hint: str = "",
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
    return parse_queries(text, document, name, max_queries=max_queries, limit_hint=limit_hint)


def load_queries(
    path: str | Path,
    document: Document | str,
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


def query_set_key(queries: Iterable[LabelledQuery | GoldQuery]) -> str:
    """A digest of a query set's content: each query's id, text, evidence offsets and declared
    type, in order. Caches key on this (with the document digest), never on ids alone: two
    files with the same ids and different evidence get different keys.
    """
    h = hashlib.sha256()
    for q in queries:
        lq = q.query if isinstance(q, GoldQuery) else q
        row = [lq.id, lq.query, [[ev.start, ev.end, ev.text] for ev in lq.evidence]]
        h.update(json.dumps([*row, lq.declared_type], ensure_ascii=False).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


# --- gold chunks ---------------------------------------------------------------------------


def query_type(gold: Iterable[int], doc_of: np.ndarray | None = None) -> str:
    """The type of a query from its gold chunk indices (docs/method.md §4).

    ``fragmented`` when two gold chunks are consecutive (i and i+1: the evidence crosses a
    boundary, one span cut or two spans on either side of it); ``atomic`` when the gold set is
    one chunk; ``scattered`` when it holds two or more chunks and no two are consecutive
    (evidence in distant places, which no neighbour policy can join). In a corpus (``doc_of``,
    each chunk's file), gold chunks in two files are ``scattered``: no neighbour crosses a
    file's edge.

    Raises:
        SettingsError: when ``gold`` is empty.
    """
    g = sorted(set(gold))
    if not g:
        raise SettingsError("A query needs at least one gold chunk to have a type.")
    if len(g) == 1:
        return "atomic"
    of = chunk_files(doc_of, g[-1] + 1)
    if len({int(of[i]) for i in g}) > 1:
        return "scattered"
    if any(b - a == 1 for a, b in zip(g, g[1:], strict=False)):
        return "fragmented"
    return "scattered"


def covering_run(
    text: str, chunks: Sequence[Chunk] | Sequence[tuple[int, int]], start: int, end: int
) -> tuple[int, int]:
    """The minimal run of consecutive chunks covering every non-whitespace character of
    ``text[start:end]``, as (first, last) chunk indices.

    A run [a, b] covers the span iff every non-whitespace position p in it lies in some chunk
    c_a … c_b (start ≤ p < end). Runs are tried shortest first, then by lowest a, among the
    chunks that overlap the span, so with overlap a span inside two chunks gets the first.
    ``chunks`` are :class:`Chunk` objects or (start, end) spans.

    Raises:
        SettingsError: when the span has no non-whitespace character, or one that no chunk holds.
    """
    positions = np.array(
        [start + i for i, ch in enumerate(text[start:end]) if not ch.isspace()], dtype=np.int64
    )
    if not len(positions):
        raise SettingsError(f"The span {start}–{end} holds only whitespace.")
    bounds = [(c.start, c.end) if isinstance(c, Chunk) else c for c in chunks]
    starts = np.array([b[0] for b in bounds], dtype=np.int64)
    ends = np.array([b[1] for b in bounds], dtype=np.int64)
    near = np.flatnonzero((starts < end) & (ends > start))
    cover = (positions[:, None] >= starts[near][None, :]) & (
        positions[:, None] < ends[near][None, :]
    )
    held = cover.any(axis=1)
    if not held.all():
        p = int(positions[np.argmin(held)])
        raise SettingsError(f"Character {p} of the span {start}–{end} lies in no chunk.")
    lo, hi = int(near.min()), int(near.max())
    for length in range(1, hi - lo + 2):
        for a in range(lo, hi - length + 2):
            cols = (near >= a) & (near < a + length)
            if cover[:, cols].any(axis=1).all():
                return a, a + length - 1
    raise AssertionError("unreachable: the run of every overlapping chunk covers the span")


def label_queries(
    query_set: QuerySet | Sequence[LabelledQuery],
    document: Document | str,
    chunks: Sequence[Chunk] | Sequence[tuple[int, int]],
) -> tuple[GoldQuery, ...]:
    """Gold chunks and the type (:func:`query_type`) of each query under ``chunks`` of
    ``document`` (a document, a corpus, or a bare text); in a corpus each gold chunk is also
    named by its file and its index there (``GoldQuery.gold_refs``).

    Raises:
        SettingsError: when a span cannot be covered by the chunks (see :func:`covering_run`).
    """
    queries = query_set.queries if isinstance(query_set, QuerySet) else tuple(query_set)
    text = document if isinstance(document, str) else document.text
    doc_of = _chunk_files(document, chunks)
    out = []
    for q in queries:
        runs = tuple(covering_run(text, chunks, ev.start, ev.end) for ev in q.evidence)
        gold = sorted({i for a, b in runs for i in range(a, b + 1)})
        refs = _refs(document, doc_of, gold)
        out.append(GoldQuery(q, tuple(gold), runs, query_type(gold, doc_of), refs))
    return tuple(out)


def _chunk_files(
    document: Document | str, chunks: Sequence[Chunk] | Sequence[tuple[int, int]]
) -> np.ndarray:
    """(N,) each chunk's file (part); a bare text is one file."""
    bounds = ((0, len(document)),) if isinstance(document, str) else document.part_bounds
    starts = [c.start if isinstance(c, Chunk) else c[0] for c in chunks]
    part_starts = np.array([s for s, _ in bounds], dtype=np.int64)
    return doc_of_starts(part_starts, np.array(starts, dtype=np.int64))


def _refs(
    document: Document | str, doc_of: np.ndarray, gold: Sequence[int]
) -> tuple[tuple[str, int], ...]:
    """(file path, index in that file) of each gold chunk where file paths are shown
    (:meth:`~scar_viz.documents.reading.Document.shown_path`); none for a document of one
    file or a bare text."""
    paths = () if isinstance(document, str) else document.shown_paths
    if not paths:
        return ()
    first = np.searchsorted(doc_of, doc_of[list(gold)], side="left")
    return tuple((paths[int(doc_of[g])], int(g - f)) for g, f in zip(gold, first, strict=True))


def type_counts(queries: Iterable[GoldQuery]) -> dict[str, int]:
    """How many queries of each type, in :data:`QUERY_TYPES` order (zeros included)."""
    counts = dict.fromkeys(QUERY_TYPES, 0)
    for q in queries:
        counts[q.type] += 1
    return counts


def split_alternate(queries: Sequence[GoldQuery]) -> tuple[tuple[GoldQuery, ...], ...]:
    """Two halves of a labelled set, alternating within each type (a tune / check split)."""
    halves: tuple[list[GoldQuery], list[GoldQuery]] = ([], [])
    for kind in QUERY_TYPES:
        for i, q in enumerate(q for q in queries if q.type == kind):
            halves[i % 2].append(q)
    return tuple(halves[0]), tuple(halves[1])


def evidence_units(
    data: str, document: Document | str, limit_hint: str = ""
) -> tuple[list[tuple[int, int]], list[str]]:
    """The distinct evidence spans of JSON Lines query set ``data`` (validated against the
    document by :func:`parse_queries`), and its error messages.

    Raises:
        QueryLimitError: the set holds more than :data:`MAX_QUERIES` queries.
    """
    query_set = parse_queries(data, document, limit_hint=limit_hint)
    spans = sorted({(ev.start, ev.end) for q in query_set.queries for ev in q.evidence})
    return spans, [str(issue) for issue in query_set.errors]
