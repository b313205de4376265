"""The corpus view: one row per file of a corpus for one question and one gate setting.

A corpus keeps every file's chunks in one sequence (:mod:`scar_viz.common.edges`); retrieval ranks
them all together. This view counts, per file, its chunks and characters, this question's
retrieved and admitted chunks, its best cos(q, c) (and which chunk holds it) and, when a query
set is loaded, the queries whose gold chunks lie in it and how many of those are fragmented.
Files holding hits come first, then by best cos(q, c).

For the small multiples, :meth:`CorpusView.file_overview` gives one file's chunks as an
:class:`~scar_viz.views.focus.Overview` (cos(q, c), retrieved rank, mark) and
:attr:`CorpusView.scale` the one similarity scale every row shares.

Before any question (:func:`loaded_view`) the same view says what was loaded: per file its
chunks and characters (and the query set's counts), files in corpus order, each chunk's value
its length in characters (``measure``), so the small multiples show where the files were cut.

Everything is vectorised over ``doc_of`` (``np.bincount``, ``np.maximum.reduceat``): a
1,000-file, 50,000-chunk corpus costs a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from scar_viz.common.edges import chunk_files
from scar_viz.documents.reading import Document
from scar_viz.queries.gold import GoldQuery
from scar_viz.scoring.params import DEFAULT_PARAMS
from scar_viz.scoring.scar import Selection
from scar_viz.views.focus import Overview, overview_data

QUESTION_MEASURE = "cos(q,c)"
LENGTH_MEASURE = "characters"


@dataclass(frozen=True)
class FileRow:
    """One file of the corpus table. ``best`` is the file's highest cos(q, c) (NaN for a file
    without chunks) and ``best_chunk`` the (global) chunk holding it (-1 when none);
    ``queries`` and ``fragmented`` are None when no query set is loaded."""

    index: int
    path: str
    chunks: int
    characters: int
    retrieved: int
    admitted: int
    best: float
    best_chunk: int
    queries: int | None = None
    fragmented: int | None = None

    def as_row(self) -> dict:
        """The table's columns (query counts only when a query set is loaded)."""
        row: dict = {
            "file": self.path,
            "chunks": self.chunks,
            "characters": self.characters,
            "retrieved": self.retrieved,
            "admitted": self.admitted,
        }
        if self.queries is not None:
            row["queries"] = self.queries
            row["fragmented queries"] = self.fragmented
        row["best cos(q,c)"] = self.best
        return row


@dataclass(frozen=True)
class CorpusView:
    """Per-file counts for one question and gate setting (arrays of length D, the number of
    files, in corpus order) and the whole corpus' :class:`Overview`.

    ``first[d]`` is file d's first chunk and ``counts[d]`` its number of chunks (its chunks
    are ``first[d] : first[d] + counts[d]``); ``order`` lists the files in the table's order:
    files with a retrieved chunk first, then by best cos(q, c) descending, then corpus order.
    """

    paths: tuple[str, ...]
    first: np.ndarray  # (D,) int64
    counts: np.ndarray  # (D,) int64
    characters: np.ndarray  # (D,) int64
    retrieved: np.ndarray  # (D,) int64
    admitted: np.ndarray  # (D,) int64
    best: np.ndarray  # (D,) float64, NaN for a file without chunks
    best_chunk: np.ndarray  # (D,) int64, -1 for a file without chunks
    queries: np.ndarray | None  # (D,) int64, or None without a query set
    fragmented: np.ndarray | None  # (D,) int64, or None without a query set
    order: np.ndarray  # (D,) int64
    overview: Overview
    measure: str = QUESTION_MEASURE
    """What each chunk's value in :attr:`overview` is: cos(q, c), or (no question yet) its
    length in characters."""

    @property
    def asked(self) -> bool:
        """Whether the view is of a question (else of what was loaded: :func:`loaded_view`)."""
        return self.measure == QUESTION_MEASURE

    @property
    def n_files(self) -> int:
        return len(self.paths)

    @property
    def with_hits(self) -> int:
        """How many files hold a retrieved chunk."""
        return int(np.count_nonzero(self.retrieved))

    @property
    def scale(self) -> tuple[float, float]:
        """(zmin, zmax): the one scale of every file's row (the overview's similarity scale;
        0 to the longest chunk before a question)."""
        sims = self.overview.sims
        if not len(sims):
            return 0.0, 1.0
        return float(min(0.0, sims.min())), float(max(sims.max(), 1e-9))

    def row(self, d: int) -> FileRow:
        """File ``d``'s :class:`FileRow`."""
        return FileRow(
            index=d,
            path=self.paths[d],
            chunks=int(self.counts[d]),
            characters=int(self.characters[d]),
            retrieved=int(self.retrieved[d]),
            admitted=int(self.admitted[d]),
            best=float(self.best[d]),
            best_chunk=int(self.best_chunk[d]),
            queries=None if self.queries is None else int(self.queries[d]),
            fragmented=None if self.fragmented is None else int(self.fragmented[d]),
        )

    def rows(self) -> list[FileRow]:
        """Every file's row in the table's order."""
        return [self.row(int(d)) for d in self.order]

    def columns(self) -> dict[str, np.ndarray]:
        """The table as columns (:meth:`FileRow.as_row`'s names), rows in :attr:`order`,
        without a Python object per file (a thousand-file corpus' table in well under 1 ms)."""
        o = self.order
        cols: dict[str, np.ndarray] = {
            "file": np.asarray(self.paths, dtype=object)[o],
            "chunks": self.counts[o],
            "characters": self.characters[o],
        }
        if self.asked:
            cols["retrieved"] = self.retrieved[o]
            cols["admitted"] = self.admitted[o]
        if self.queries is not None and self.fragmented is not None:
            cols["queries"] = self.queries[o]
            cols["fragmented queries"] = self.fragmented[o]
        if self.asked:
            cols["best cos(q,c)"] = self.best[o]
        return cols

    def file_overview(self, d: int) -> Overview:
        """File ``d``'s chunks (local index 0 … counts[d] − 1) as an Overview."""
        lo, hi = int(self.first[d]), int(self.first[d] + self.counts[d])
        o = self.overview
        return Overview(o.sims[lo:hi], o.rank[lo:hi], o.status[lo:hi])

    def file_of(self, chunk: int) -> int:
        """The file holding (global) ``chunk``."""
        return int(np.searchsorted(self.first + self.counts, chunk, side="right"))


def file_counts(doc_of: np.ndarray, n_chunks: int, n_files: int) -> np.ndarray:
    """(D,) chunks per file (``doc_of``, the file of each of ``n_chunks`` chunks)."""
    return np.bincount(chunk_files(doc_of, n_chunks), minlength=n_files).astype(np.int64)


def _per_file(doc_of: np.ndarray, ids: Sequence[int], n_files: int) -> np.ndarray:
    at = np.asarray(ids, dtype=np.int64)
    return np.bincount(doc_of[at], minlength=n_files).astype(np.int64)


def _best(
    sims: np.ndarray, doc_of: np.ndarray, first: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per file: the highest cos(q, c) and the first chunk holding it (NaN / -1 if empty)."""
    d = len(counts)
    best = np.full(d, np.nan)
    where = np.full(d, -1, dtype=np.int64)
    full = counts > 0
    if not full.any():
        return best, where
    best[full] = np.maximum.reduceat(sims, first[full])
    at_max = np.flatnonzero(sims == best[doc_of])
    files, first_hit = np.unique(doc_of[at_max], return_index=True)
    where[files] = at_max[first_hit]
    return best, where


def _query_counts(
    gold: Sequence[GoldQuery], doc_of: np.ndarray, n_files: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per file: queries with a gold chunk in it, and how many of those are fragmented."""
    queries = np.zeros(n_files, dtype=np.int64)
    fragmented = np.zeros(n_files, dtype=np.int64)
    for q in gold:
        if not q.gold:
            continue
        files = np.unique(doc_of[np.asarray(q.gold, dtype=np.int64)])
        queries[files] += 1
        if q.fragmented:
            fragmented[files] += 1
    return queries, fragmented


def corpus_view(
    document: Document,
    doc_of: np.ndarray,
    sims: np.ndarray,
    selection: Selection,
    gold: Sequence[GoldQuery] | None = None,
) -> CorpusView:
    """The :class:`CorpusView` of one question on a corpus (or on one file: one row).

    Args:
        document: the corpus (its ``parts`` name the files; a single file is one part).
        doc_of: (N,) file of each chunk (``PreparedDoc.doc_of``; all zeros for one file).
        sims: (N,) cos(q, c) of every chunk.
        selection: the gate's selection for this question (retrieved, admitted, rejected).
        gold: the loaded query set's labelled queries, or None.
    """
    sims = np.asarray(sims, dtype=np.float64)
    n = len(sims)
    paths = tuple(p.path for p in document.parts)
    characters = np.array([p.end - p.start for p in document.parts], dtype=np.int64)
    files = len(paths)
    of = chunk_files(doc_of, n)
    counts = file_counts(of, n, files)
    first = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    retrieved = _per_file(of, selection.retrieved, files)
    admitted = _per_file(of, selection.admitted, files)
    best, best_chunk = _best(sims, of, first, counts)
    queries = fragmented = None
    if gold is not None:
        queries, fragmented = _query_counts(gold, of, files)
    ranked = np.where(np.isnan(best), -np.inf, best)
    order = np.lexsort((np.arange(files), -ranked, retrieved == 0)).astype(np.int64)
    return CorpusView(
        paths,
        first,
        counts,
        characters,
        retrieved,
        admitted,
        best,
        best_chunk,
        queries,
        fragmented,
        order,
        overview_data(sims, selection),
    )


def loaded_view(
    document: Document,
    doc_of: np.ndarray,
    chunks: Sequence,
    gold: Sequence[GoldQuery] | None = None,
) -> CorpusView:
    """The :class:`CorpusView` of what was loaded, before any question: per file its chunks,
    characters (and ``gold``'s query counts), in corpus order; each chunk's value its length
    in characters (``measure`` :data:`LENGTH_MEASURE`), nothing retrieved.

    Args:
        document: the corpus; ``doc_of`` (N,) the file of each chunk; ``chunks`` its chunks
            (anything with ``start`` and ``end``).
    """
    lengths = np.array([c.end - c.start for c in chunks], dtype=np.float64)
    n = len(lengths)
    none: Selection = Selection([], [], [], (), lengths, DEFAULT_PARAMS)
    view = corpus_view(document, doc_of, lengths, none, gold)
    files = view.n_files
    return replace(
        view,
        best=np.full(files, np.nan),
        best_chunk=np.full(files, -1, dtype=np.int64),
        order=np.arange(files, dtype=np.int64),
        overview=Overview(lengths, np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int8)),
        measure=LENGTH_MEASURE,
    )


def document_size(document: Document, n_chunks: int, name: str | None = None) -> str:
    """The document's size: "name: C characters, T sections, S chunks", or for a corpus
    "corpus: N files, C characters, S chunks" (the files' characters, not the joins).

    ``name``: the name the user opened it under (a prepared document is shared by content, so
    its own name is that of whoever opened the same text first)."""
    if document.several_files:
        chars = sum(p.end - p.start for p in document.parts)
        return f"corpus: {len(document.parts)} files, {chars:,} characters, {n_chunks} chunks"
    return (
        f"{name or document.name}: {len(document.text):,} characters, "
        f"{len(document.sections)} sections, {n_chunks} chunks"
    )
