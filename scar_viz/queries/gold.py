"""Gold chunks and query types: where a labelled query's evidence lies under one chunking
(docs/method.md §4).

Gold chunks and the query type (:func:`query_type`: fragmented, atomic or scattered) are a
property of the chunking, so they are computed for the current chunks rather than taken from
the query file (:mod:`scar_viz.queries.reading`). A query's evidence spans each map to the
minimal run of consecutive chunks that covers them (:func:`covering_run`); in a corpus they are
computed inside the evidence's file, and gold chunks in two files make a query scattered.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.common.edges import doc_of_starts
from scar_viz.common.errors import SettingsError
from scar_viz.documents.reading import Document
from scar_viz.queries.reading import QUERY_TYPES, LabelledQuery, QuerySet


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


def query_type(gold: Iterable[int], doc_of: np.ndarray) -> str:
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
    if len({int(doc_of[i]) for i in g}) > 1:
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
    document: Document,
    chunks: Sequence[Chunk] | Sequence[tuple[int, int]],
) -> tuple[GoldQuery, ...]:
    """Gold chunks and the type (:func:`query_type`) of each query under ``chunks`` of
    ``document`` (a document of one file or many); in a corpus each gold chunk is also
    named by its file and its index there (``GoldQuery.gold_refs``).

    Raises:
        SettingsError: when a span cannot be covered by the chunks (see :func:`covering_run`).
    """
    queries = query_set.queries if isinstance(query_set, QuerySet) else tuple(query_set)
    text = document.text
    doc_of = _chunk_files(document, chunks)
    out = []
    for q in queries:
        runs = tuple(covering_run(text, chunks, ev.start, ev.end) for ev in q.evidence)
        gold = sorted({i for a, b in runs for i in range(a, b + 1)})
        refs = _refs(document, doc_of, gold)
        out.append(GoldQuery(q, tuple(gold), runs, query_type(gold, doc_of), refs))
    return tuple(out)


def _chunk_files(
    document: Document, chunks: Sequence[Chunk] | Sequence[tuple[int, int]]
) -> np.ndarray:
    """(N,) each chunk's file (part)."""
    bounds = document.part_bounds
    starts = [c.start if isinstance(c, Chunk) else c[0] for c in chunks]
    part_starts = np.array([s for s, _ in bounds], dtype=np.int64)
    return doc_of_starts(part_starts, np.array(starts, dtype=np.int64))


def _refs(
    document: Document, doc_of: np.ndarray, gold: Sequence[int]
) -> tuple[tuple[str, int], ...]:
    """(file path, index in that file) of each gold chunk where file paths are shown
    (:meth:`~scar_viz.documents.reading.Document.shown_path`); none for a document of one
    file."""
    paths = document.shown_paths
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
