"""The flow from a document to per-query inputs: chunk, embed (cached), score.

The pages and the CLI share these functions; everything here runs once per
(document, chunking, model, prepending), except :func:`query_inputs`, once per query.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from scar_viz.chunking.base import Chunk, Embed
from scar_viz.chunking.config import ChunkingConfig, chunk_doc_of, chunk_document, embedding_texts
from scar_viz.common.errors import SettingsError
from scar_viz.documents.reading import Document
from scar_viz.embeddings import Embedder, EmbeddingCache, Progress, embed_cached
from scar_viz.embeddings.prompts import query_side
from scar_viz.policies import QueryInputs
from scar_viz.retrieval import DENSE, Bm25Index, Retriever, bm25_index, rank_matrix, rank_scores
from scar_viz.runtime.cancel import ShouldStop
from scar_viz.scoring.params import DEFAULT_PARAMS, GateParams
from scar_viz.scoring.scar import boundary_penalties, normalize


@dataclass(frozen=True)
class PreparedDoc:
    """A chunked, embedded document (one file or many): unit-norm chunk vectors and adjacent
    penalties (a penalty between two files' chunks is computed but never used: no gate crosses
    a file edge)."""

    document: Document
    config: ChunkingConfig
    prepend: bool
    chunks: list[Chunk]
    unit: np.ndarray  # (N, d)
    penalties: np.ndarray  # (N-1,), b(c_i, c_{i+1})
    embedder_id: str
    embedder_label: str
    n_encoded: int
    seconds: float

    @cached_property
    def doc_of(self) -> np.ndarray:
        """(N,) the file (part) of each chunk: all zeros for one file
        (:mod:`scar_viz.common.edges`)."""
        return chunk_doc_of(self.document, self.chunks)

    @cached_property
    def bm25(self) -> Bm25Index:
        """The BM25 index over the texts the embedder sees (all files' chunks together in a
        corpus), built once per content (:func:`~scar_viz.retrieval.bm25_index`)."""
        return bm25_index(embedding_texts(self.chunks, self.prepend))

    def ranking(self, retriever: Retriever, sims: np.ndarray, queries: list[str]) -> np.ndarray:
        """(Q, N) the scores each query's top-k is taken by under ``retriever``, from ``sims``
        (Q, N) = cos(q, c); ``sims`` itself for the dense retriever."""
        if retriever.dense:
            return sims
        return rank_matrix(retriever.name, sims, self.bm25, queries, retriever.k_rrf)


_EMBED_MEMO = 4
"""Text lists an :func:`embed_function` keeps the vectors of (the document's sentences)."""


def embed_function(embedder: Embedder, cache: EmbeddingCache | None = None) -> Embed:
    """``embed(texts) -> (n, d)`` with ``embedder`` through ``cache`` (the semantic chunker's).

    The function remembers the vectors of the last few text lists it was given, so an
    evaluation whose policies embed the document's sentences for every query reads them from
    the cache once, not once per query and policy. The arrays it returns are read-only.
    """
    memo: dict[tuple[str, ...], np.ndarray] = {}

    def embed(texts: list[str]) -> np.ndarray:
        key = tuple(texts)
        hit = memo.get(key)
        if hit is not None:
            return hit
        vectors = embed_cached(embedder, texts, cache).vectors
        vectors.flags.writeable = False
        memo[key] = vectors
        while len(memo) > _EMBED_MEMO:
            memo.pop(next(iter(memo)))
        return vectors

    return embed


BYTES_A_DIMENSION = 12
"""What one dimension of one chunk holds while a document is prepared: its float32 vector and
its float64 unit row."""


def vector_bytes(n_chunks: int, embedder: Embedder) -> int | None:
    """What ``n_chunks`` vectors of ``embedder`` would hold while a document is prepared
    (× :data:`BYTES_A_DIMENSION`), where the embedder says its dimensions beforehand
    (``hash:DIM``); None where it does not."""
    dim = getattr(embedder, "dim", None)
    return n_chunks * dim * BYTES_A_DIMENSION if isinstance(dim, int) else None


def check_vector_budget(n_chunks: int, embedder: Embedder, max_bytes: int) -> None:
    """Refuse, before anything is embedded, vectors that would take more than ``max_bytes``
    (``n_chunks`` × the embedder's dimensions × :data:`BYTES_A_DIMENSION`), where the
    embedder says its dimensions beforehand (``hash:DIM``).

    Raises:
        SettingsError: one sentence naming the model, the chunks and the budget.
    """
    cost = vector_bytes(n_chunks, embedder)
    if cost is not None and cost > max_bytes:
        raise SettingsError(
            f"{embedder.model_id} on {n_chunks:,} chunks would hold {_size(cost)} of vectors; "
            f"this server allows {_size(max_bytes)} a document: choose fewer dimensions or "
            "larger chunks."
        )


def _size(n: int) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def prepare_document(
    document: Document,
    embedder: Embedder,
    config: ChunkingConfig | None = None,
    prepend: bool = False,
    cache: EmbeddingCache | None = None,
    progress: Progress | None = None,
    chunks: list[Chunk] | None = None,
    should_stop: ShouldStop | None = None,
    max_vector_bytes: int | None = None,
) -> PreparedDoc:
    """Chunk ``document`` (unless ``chunks`` are given) and embed the chunks through ``cache``,
    asking ``should_stop`` between batches; with ``max_vector_bytes``, the vectors' cost is
    checked first (:func:`check_vector_budget`).

    Raises:
        Cancelled: ``should_stop`` said so.
        SettingsError: the vectors would take more than ``max_vector_bytes``.
    """
    config = config or ChunkingConfig()
    if chunks is None:
        chunks = chunk_document(document, config, embed_function(embedder, cache))
    if max_vector_bytes is not None:
        check_vector_budget(len(chunks), embedder, max_vector_bytes)
    texts = embedding_texts(chunks, prepend)
    result = embed_cached(embedder, texts, cache, progress, should_stop)
    unit = normalize(result.vectors) if len(chunks) else np.zeros((0, 1))
    return PreparedDoc(
        document,
        config,
        prepend,
        chunks,
        unit,
        boundary_penalties(unit),
        embedder.model_id,
        embedder.label,
        result.n_encoded,
        result.seconds,
    )


def embed_query(embedder: Embedder, query: str, cache: EmbeddingCache | None = None) -> np.ndarray:
    """The question's unit vector, through the model's query side (its query prompt:
    :func:`scar_viz.embeddings.prompts.query_side`)."""
    return normalize(embed_cached(query_side(embedder), [query], cache).vectors[0])


def query_inputs(
    prep: PreparedDoc,
    query: str,
    query_vec: np.ndarray,
    params: GateParams = DEFAULT_PARAMS,
    *,
    embedder: Embedder | None = None,
    cache: EmbeddingCache | None = None,
    embed: Embed | None = None,
    retriever: Retriever = DENSE,
    sims: np.ndarray | None = None,
) -> QueryInputs:
    """The inputs every policy takes, for one query on ``prep``; their top-k follows
    ``retriever`` (:mod:`scar_viz.retrieval`).

    Extra texts (QASC's sentences) are embedded with ``embedder`` through ``cache``, or with
    ``embed`` when the caller already has such a function. ``sims`` = ``prep.unit @
    query_vec`` when the caller has computed it already (a batch of queries at once).
    """
    if query_vec.shape[0] != prep.unit.shape[1]:
        raise SettingsError(
            f"The query vector has {query_vec.shape[0]} dimensions but the chunks have "
            f"{prep.unit.shape[1]}; embed both with the same model."
        )
    if embedder is not None:
        embed = embed_function(embedder, cache)
    if sims is None:
        sims = prep.unit @ query_vec
    ranking = None
    if not retriever.dense:
        ranking = rank_scores(retriever.name, sims, prep.bm25, query, retriever.k_rrf)
    return QueryInputs(
        prep.document,
        prep.chunks,
        prep.unit,
        query,
        query_vec,
        sims,
        params,
        embed,
        ranking,
        retriever.label,
        doc_of=prep.doc_of,
    )
