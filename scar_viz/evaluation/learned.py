"""The learned gate on labelled queries over a prepared document: its candidate table, fitting
it, and its recall-vs-chunks curve as p varies (what the CLI, the pages and the benchmarks call),
in sample or cross-validated.

The cross-validated curve (:func:`crossval_p_curve`) uses the verdict's folds
(:mod:`scar_viz.evaluation.folds`, docs/method.md §9): for each fold of each repeat a gate is
fitted on the other folds' queries (:func:`~scar_viz.scoring.learned.fit.fit_folds`, all at
once), and each query's recall and chunks at every p are read under the gate of the fold that
held it out, then averaged over the repeats. No query is read by a gate fitted on it, so the
curve is what the gate would do on new questions; the curve of a gate fitted on all the
queries and read on the same queries is in sample, and above it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scar_viz.evaluation.folds import DEFAULT_FOLDS, DEFAULT_REPEATS, assign_folds
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.pipeline import PreparedDoc
from scar_viz.scoring.learned.features import (
    ALL_FEATURES,
    CandidateTable,
    build_table,
    gate_features,
)
from scar_viz.scoring.learned.fit import DEFAULT_L2, FitError, fit_folds, fit_gate
from scar_viz.scoring.learned.model import LearnedGate, threshold_logit
from scar_viz.scoring.learned.p_curve import DEFAULT_PS, PCurve, admitted_matrix, p_curve
from scar_viz.scoring.lexical import QuestionLex, chunk_index
from scar_viz.scoring.params import DEFAULT_RADIUS
from scar_viz.scoring.scar import normalize
from scar_viz.scoring.sweep import per_query


def query_table(
    run: LabelledRun, k: int, radius: int = DEFAULT_RADIUS, lexical: bool = False
) -> CandidateTable:
    """:func:`~scar_viz.scoring.learned.features.build_table` for a labelled run; ``lexical``
    adds the lexical features (over the chunks' texts); each query's top-k is ranked by the
    run's retriever (the features keep using cosines)."""
    prep, questions = run.prep, run.questions
    sims = normalize(run.vecs) @ prep.unit.T
    lex = query_lex(prep, questions) if lexical else None
    rank = None if run.retriever.dense else prep.ranking(run.retriever, sims, questions)
    return build_table(
        sims, prep.unit, run.golds, k, max(1, radius), doc_of=prep.doc_of, lexical=lex, rank=rank
    )


def query_lex(prep: PreparedDoc, questions: Sequence[str]) -> list[QuestionLex]:
    """Each question's lexical evidence over the prepared document's chunk texts."""
    index = chunk_index([c.text for c in prep.chunks])
    return [index.question(q) for q in questions]


def fit_gate_on(
    run: LabelledRun,
    k: int,
    *,
    radius: int = DEFAULT_RADIUS,
    l2: float = DEFAULT_L2,
    source: str | None = None,
    features: str = "base",
) -> LearnedGate:
    """Fit a gate on a labelled run (``features`` base or lexical).

    ``fitted_on`` records the document, model, chunking, prepending, k, r and the counts.
    """
    table = query_table(run, k, radius, features == "lexical")
    meta = {**ran_on(run.prep), **({"document": source} if source else {})}
    return fit_gate(table, l2=l2, radius=radius, fitted_on=meta, features=features)


def ran_on(prep: PreparedDoc) -> dict[str, object]:
    """The document, model, chunking and prepending a prepared document was made with."""
    return {
        "document": prep.document.name,
        "model": prep.embedder_id,
        "chunking": prep.config.label,
        "prepend": bool(prep.prepend),
    }


def p_curve_on(
    run: LabelledRun,
    gate: LearnedGate,
    k: int,
    radius: int = DEFAULT_RADIUS,
    ps: Sequence[float] | np.ndarray = DEFAULT_PS,
) -> PCurve:
    """:func:`~scar_viz.scoring.learned.p_curve.p_curve` for a labelled run."""
    table = query_table(run, k, radius, gate.uses_lexical)
    return p_curve(table, gate, ps, [q.fragmented for q in run.queries])


def judged_features(
    run: LabelledRun, gate: LearnedGate, k: int, radius: int = DEFAULT_RADIUS
) -> np.ndarray:
    """(M, 9) features of every candidate ``gate`` judges on the run's queries at (k, r)
    (those not retrieved themselves): what :func:`~scar_viz.scoring.learned.rank_changes`
    reads for the note on a k the gate was not fitted at."""
    table = query_table(run, k, radius, gate.uses_lexical)
    return table.features[~table.is_retrieved]


def crossval_p_curve(
    run: LabelledRun,
    k: int,
    radius: int = DEFAULT_RADIUS,
    *,
    l2: float = DEFAULT_L2,
    features: str = "base",
    ps: Sequence[float] | np.ndarray = DEFAULT_PS,
    folds: int = DEFAULT_FOLDS,
    repeats: int = DEFAULT_REPEATS,
) -> PCurve:
    """The learned gate's curve as p varies, cross-validated (module docstring): each query
    read under the gate fitted without its fold, averaged over ``repeats`` fold assignments.

    Raises:
        SettingsError: fewer than 10 queries, or duplicate ids (:func:`assign_folds`).
        FitError: a fold's training queries hold no gold neighbour (or nothing else).
    """
    assigned = assign_folds(run.queries, folds, repeats)
    table = query_table(run, k, radius, features == "lexical")
    names = gate_features(features, max(1, radius))
    x = table.features[:, [ALL_FEATURES.index(f) for f in names]]
    fit_rows = table.training_rows(max(1, radius))[None, :] & assigned.training()[:, table.query]
    fits = fit_folds(x, table.gold, fit_rows, l2)
    if not fits.ok.all():
        raise FitError(
            "A cross-validation fold's training queries have no gold neighbour among their "
            "candidates (or nothing else): too few labelled queries to cross-validate the gate."
        )
    ps = np.asarray(ps, dtype=np.float64).reshape(-1)
    bars = np.array([threshold_logit(p) for p in ps])
    scores = fits.scores(table.features, names)  # (F, M)
    n_q = table.n_queries
    chunks = np.zeros((len(ps), n_q))
    recall = np.zeros((len(ps), n_q))
    held = assigned.held_row()  # (R, Q)
    for f, row in enumerate(scores):
        mine = held == f  # the (repeat, query) cells this fold's gate reads
        if not mine.any():
            continue
        q_chunks, q_recall = per_query(table, admitted_matrix(table, row, bars))
        weight = mine.sum(axis=0) / assigned.repeats  # (Q,) share of the repeats
        chunks += q_chunks * weight[None, :]
        recall += q_recall * weight[None, :]
    return PCurve(
        ps,
        recall.mean(axis=1) if n_q else np.zeros(len(ps)),
        chunks.mean(axis=1) if n_q else np.zeros(len(ps)),
        recall,
        chunks,
        np.array([q.fragmented for q in run.queries], dtype=bool),
    )
