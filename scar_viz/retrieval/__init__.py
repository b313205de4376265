"""Retrievers: which chunks a query retrieves, before any policy expands them (docs/method.md §8).

``dense`` ranks by cos(q, c) (the default), ``bm25`` by a BM25 score over the chunk texts,
``hybrid`` by reciprocal rank fusion of the two. A retriever only orders the chunks: the gate
keeps using cosines.
"""

from __future__ import annotations

from scar_viz.common.terms import tokenize
from scar_viz.retrieval.bm25 import K1, B, Bm25Index, bm25_index
from scar_viz.retrieval.hybrid import DEFAULT_K_RRF, ranks, rrf
from scar_viz.retrieval.retriever import (
    DEFAULT_RETRIEVER,
    DENSE,
    RETRIEVER_MEANING,
    RETRIEVERS,
    Retriever,
    check_retriever,
    rank_matrix,
    rank_scores,
)

__all__ = [
    "DENSE",
    "RETRIEVER_MEANING",
    "check_retriever",
    "B",
    "DEFAULT_K_RRF",
    "DEFAULT_RETRIEVER",
    "K1",
    "RETRIEVERS",
    "Bm25Index",
    "Retriever",
    "bm25_index",
    "rank_matrix",
    "rank_scores",
    "ranks",
    "rrf",
    "tokenize",
]
