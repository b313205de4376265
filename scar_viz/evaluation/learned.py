"""The learned gate on labelled queries over a prepared document: its candidate table, fitting
it, and its recall-vs-chunks curve as p varies (what the CLI, the pages and the benchmarks call).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scar_viz.evaluation.queries import GoldQuery
from scar_viz.pipeline import PreparedDoc
from scar_viz.retrieval import DENSE, Retriever
from scar_viz.scoring.learned.features import (
    FEATURES,
    CandidateTable,
    build_table,
    candidate_features,
)
from scar_viz.scoring.learned.fit import DEFAULT_L2, fit_gate
from scar_viz.scoring.learned.model import LearnedGate
from scar_viz.scoring.learned.p_curve import DEFAULT_PS, PCurve, p_curve
from scar_viz.scoring.params import DEFAULT_RADIUS
from scar_viz.scoring.scar import normalize
from scar_viz.scoring.sweep import walk_candidates


def query_table(
    prep: PreparedDoc,
    queries: Sequence[GoldQuery],
    query_vecs: np.ndarray,
    k: int,
    radius: int = DEFAULT_RADIUS,
    retriever: Retriever = DENSE,
) -> CandidateTable:
    """:func:`~scar_viz.scoring.learned.features.build_table` for labelled queries on a prepared
    document, each query's top-k ranked by ``retriever`` (the features keep using cosines)."""
    vecs = normalize(np.atleast_2d(np.asarray(query_vecs, dtype=np.float64)))
    sims = vecs @ prep.unit.T
    golds = [q.gold for q in queries]
    if retriever.dense:
        return build_table(sims, prep.unit, golds, k, max(1, radius), prep.doc_of)
    rank = prep.ranking(retriever, sims, [q.query.query for q in queries])
    return _ranked_table(sims, rank, prep.unit, golds, k, max(1, radius), prep.doc_of)


def _ranked_table(
    sims: np.ndarray,
    rank: np.ndarray,
    unit: np.ndarray,
    golds: Sequence[Sequence[int]],
    k: int,
    radius: int,
    doc_of: np.ndarray | None,
) -> CandidateTable:
    """``build_table`` with each query's top-k taken by ``rank`` (Q, N) instead of ``sims``."""
    golds = [tuple(g) for g in golds]
    walk = walk_candidates(
        sims, unit, golds, k, radius, "The candidates need k ≥ 1 and r ≥ 1.", doc_of, rank
    )
    cols = (walk.query, walk.chunk, walk.rank, walk.neighbour, walk.distance)
    rows = [
        candidate_features(sims[q], unit, c, r, j, d)
        for q, c, r, j, d in zip(*(col.tolist() for col in cols), strict=True)
    ]
    return CandidateTable(
        **walk.slots,
        n_gold=np.array([max(1, len(set(g))) for g in golds], dtype=np.float64),
        features=np.array(rows, dtype=np.float64).reshape(-1, len(FEATURES)),
        query=walk.query,
        chunk=walk.chunk,
        neighbour=walk.neighbour,
        gold=walk.gold,
    )


def fit_gate_on(
    prep: PreparedDoc,
    queries: Sequence[GoldQuery],
    query_vecs: np.ndarray,
    k: int,
    *,
    radius: int = DEFAULT_RADIUS,
    l2: float = DEFAULT_L2,
    source: str | None = None,
    retriever: Retriever = DENSE,
) -> LearnedGate:
    """Fit a gate on labelled queries over a prepared document.

    ``fitted_on`` records the document, model, chunking, prepending, k, r and the counts.
    """
    table = query_table(prep, queries, query_vecs, k, radius, retriever)
    meta = {
        "document": source or prep.document.name,
        "model": prep.embedder_id,
        "chunking": prep.config.label,
        "prepend": bool(prep.prepend),
    }
    return fit_gate(table, l2=l2, radius=radius, fitted_on=meta)


def p_curve_on(
    prep: PreparedDoc,
    queries: Sequence[GoldQuery],
    query_vecs: np.ndarray,
    gate: LearnedGate,
    k: int,
    radius: int = DEFAULT_RADIUS,
    ps: Sequence[float] | np.ndarray = DEFAULT_PS,
    retriever: Retriever = DENSE,
) -> PCurve:
    """:func:`~scar_viz.scoring.learned.p_curve.p_curve` for labelled queries on a prepared
    document."""
    table = query_table(prep, queries, query_vecs, k, radius, retriever)
    return p_curve(table, gate, ps, [q.fragmented for q in queries])
