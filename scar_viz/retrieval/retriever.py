"""The retriever setting and the score vector every policy ranks by (docs/method.md §8).

``rank_scores`` gives, for one query, a score per chunk whose order is the retriever's ranking:
dense → cos(q, c) (the very ``sims`` given, so nothing changes), bm25 → the BM25 score, hybrid →
the RRF score over the dense and BM25 rankings. Policies take their top-k by this vector
(ties to the lower index) while the gate keeps using cos(q, c).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.common.errors import SettingsError
from scar_viz.retrieval.bm25 import Bm25Index
from scar_viz.retrieval.hybrid import DEFAULT_K_RRF, rrf

RETRIEVERS: tuple[str, ...] = ("dense", "bm25", "hybrid")
DEFAULT_RETRIEVER = "dense"
RETRIEVER_MEANING: dict[str, str] = {
    "dense": "dense: rank chunks by cos(q, c)",
    "bm25": "BM25: rank chunks by their words (bm25s, English stop words removed)",
    "hybrid": "hybrid: reciprocal rank fusion of the dense and BM25 rankings",
}


def check_retriever(name: str) -> str:
    """``name`` if it is a retriever.

    Raises:
        SettingsError: for an unknown name.
    """
    if name not in RETRIEVERS:
        raise SettingsError(f"Unknown retriever '{name}'; use one of {', '.join(RETRIEVERS)}.")
    return name


@dataclass(frozen=True)
class Retriever:
    """A retriever setting: ``name`` in :data:`RETRIEVERS` and RRF's constant ``k_rrf``."""

    name: str = DEFAULT_RETRIEVER
    k_rrf: float = DEFAULT_K_RRF

    def __post_init__(self) -> None:
        check_retriever(self.name)
        if not float(self.k_rrf) >= 0:
            raise SettingsError(f"The RRF constant must be 0 or more; got {self.k_rrf}.")

    @property
    def dense(self) -> bool:
        return self.name == "dense"

    @property
    def label(self) -> str:
        """``dense``, ``bm25`` or ``hybrid (k_rrf = 60)``."""
        if self.name != "hybrid":
            return self.name
        return f"hybrid (k_rrf = {float(self.k_rrf):g})"

    def as_json(self) -> dict[str, object]:
        """``{"name"}``, with ``"k_rrf"`` for hybrid."""
        out: dict[str, object] = {"name": self.name}
        return {**out, "k_rrf": float(self.k_rrf)} if self.name == "hybrid" else out


DENSE = Retriever()


def rank_scores(
    retriever: str,
    sims: np.ndarray,
    bm25_index: Bm25Index | None,
    query: str,
    k_rrf: float = DEFAULT_K_RRF,
) -> np.ndarray:
    """(N,) the score each chunk is ranked by for ``query``.

    Args:
        retriever: one of :data:`RETRIEVERS`.
        sims: (N,) cos(q, c_i); returned as is for ``dense``.
        bm25_index: the index over the same N chunks (unused for ``dense``).
        query: the question's text.
        k_rrf: RRF's constant (``hybrid`` only).

    Raises:
        SettingsError: for an unknown retriever, a missing index or one over other chunks.
    """
    check_retriever(retriever)
    if retriever == "dense":
        return sims
    if bm25_index is None:
        raise SettingsError(f"The {retriever} retriever needs a BM25 index of the chunks.")
    sims = np.asarray(sims, dtype=np.float64)
    if bm25_index.n != len(sims):
        raise SettingsError(
            f"The BM25 index covers {bm25_index.n} chunks but there are {len(sims)} similarities."
        )
    lexical = bm25_index.scores(query)
    if retriever == "bm25":
        return lexical
    return rrf([sims, lexical], k_rrf)


def rank_matrix(
    retriever: str,
    sims: np.ndarray,
    bm25_index: Bm25Index | None,
    queries: Sequence[str],
    k_rrf: float = DEFAULT_K_RRF,
) -> np.ndarray:
    """(Q, N) :func:`rank_scores` of each query; ``sims`` (Q, N) itself for ``dense``."""
    check_retriever(retriever)
    if retriever == "dense":
        return sims
    sims = np.atleast_2d(np.asarray(sims, dtype=np.float64))
    if len(queries) != sims.shape[0]:
        raise SettingsError(f"{sims.shape[0]} rows of similarities but {len(queries)} queries.")
    rows = [rank_scores(retriever, sims[i], bm25_index, q, k_rrf) for i, q in enumerate(queries)]
    return np.array(rows, dtype=np.float64).reshape(sims.shape)
