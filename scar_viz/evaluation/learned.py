"""The learned gate on labelled queries over a prepared document: its candidate table, fitting
it, and its recall-vs-chunks curve as p varies (what the CLI, the pages and the benchmarks call).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scar_viz.pipeline import PreparedDoc
from scar_viz.queries.gold import GoldQuery
from scar_viz.retrieval import DENSE, Retriever
from scar_viz.scoring.learned.features import (
    CandidateTable,
    build_table,
)
from scar_viz.scoring.learned.fit import DEFAULT_L2, fit_gate
from scar_viz.scoring.learned.model import LearnedGate
from scar_viz.scoring.learned.p_curve import DEFAULT_PS, PCurve, p_curve
from scar_viz.scoring.lexical import QuestionLex, chunk_index
from scar_viz.scoring.params import DEFAULT_RADIUS
from scar_viz.scoring.scar import normalize


def query_table(
    prep: PreparedDoc,
    queries: Sequence[GoldQuery],
    query_vecs: np.ndarray,
    k: int,
    radius: int = DEFAULT_RADIUS,
    lexical: bool = False,
    retriever: Retriever = DENSE,
) -> CandidateTable:
    """:func:`~scar_viz.scoring.learned.features.build_table` for labelled queries on a prepared
    document; ``lexical`` adds the lexical features (over the chunks' texts); each query's
    top-k is ranked by ``retriever`` (the features keep using cosines)."""
    vecs = normalize(np.atleast_2d(np.asarray(query_vecs, dtype=np.float64)))
    sims = vecs @ prep.unit.T
    questions = [q.query.query for q in queries]
    lex = query_lex(prep, questions) if lexical else None
    rank = None if retriever.dense else prep.ranking(retriever, sims, questions)
    golds = [q.gold for q in queries]
    return build_table(sims, prep.unit, golds, k, max(1, radius), prep.doc_of, lex, rank)


def query_lex(prep: PreparedDoc, questions: Sequence[str]) -> list[QuestionLex]:
    """Each question's lexical evidence over the prepared document's chunk texts."""
    index = chunk_index([c.text for c in prep.chunks])
    return [index.question(q) for q in questions]


def fit_gate_on(
    prep: PreparedDoc,
    queries: Sequence[GoldQuery],
    query_vecs: np.ndarray,
    k: int,
    *,
    radius: int = DEFAULT_RADIUS,
    l2: float = DEFAULT_L2,
    source: str | None = None,
    features: str = "base",
    retriever: Retriever = DENSE,
) -> LearnedGate:
    """Fit a gate on labelled queries over a prepared document (``features`` base or lexical).

    ``fitted_on`` records the document, model, chunking, prepending, k, r and the counts.
    """
    table = query_table(prep, queries, query_vecs, k, radius, features == "lexical", retriever)
    meta = {
        "document": source or prep.document.name,
        "model": prep.embedder_id,
        "chunking": prep.config.label,
        "prepend": bool(prep.prepend),
    }
    return fit_gate(table, l2=l2, radius=radius, fitted_on=meta, features=features)


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
    table = query_table(prep, queries, query_vecs, k, radius, gate.uses_lexical, retriever)
    return p_curve(table, gate, ps, [q.fragmented for q in queries])
