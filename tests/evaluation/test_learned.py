"""The learned gate on labelled queries over a prepared document: the candidate table, the fit
and the p-curve the CLI and pages call."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.learned import fit_gate_on, p_curve_on, query_table
from scar_viz.scoring.learned import BASE_FEATURES, learned_select
from scar_viz.scoring.scar import normalize
from tests.evaluation_sample import hash_sample


@pytest.fixture(scope="module")
def sample():
    prep, labelled, vecs, _, _ = hash_sample()
    return prep, labelled, vecs


def test_query_table_lists_the_candidates_of_every_query(sample):
    prep, labelled, vecs = sample
    table = query_table(LabelledRun(prep, labelled, vecs), 4, radius=2)
    assert table.n_queries == len(labelled) and table.k == 4 and table.radius == 2
    sims = normalize(vecs) @ prep.unit.T
    m = 0
    assert table.features[m, 0] == pytest.approx(sims[table.query[m], table.neighbour[m]])
    for q, query in enumerate(labelled):
        golds = set(query.gold)
        rows = table.query == q
        assert set(table.neighbour[rows & table.gold]) <= golds


def test_fit_gate_on_records_where_it_was_fitted(sample):
    prep, labelled, vecs = sample
    gate = fit_gate_on(LabelledRun(prep, labelled, vecs), 4, source="x.md")
    meta = gate.fitted_on
    assert gate.feature_names == BASE_FEATURES
    assert meta["document"] == "x.md" and meta["model"] == prep.embedder_id
    assert meta["chunking"] == prep.config.label and meta["k"] == 4
    assert meta["n_queries"] == len(labelled) and 0 < meta["n_gold"] < meta["n_candidates"]


def test_p_curve_on_matches_the_selection_of_each_query(sample):
    prep, labelled, vecs = sample
    gate = fit_gate_on(LabelledRun(prep, labelled, vecs), 4)
    curve = p_curve_on(LabelledRun(prep, labelled, vecs), gate, 4, radius=1, ps=[0.04])
    sims = normalize(vecs) @ prep.unit.T
    chunks = [
        len(
            learned_select(s, prep.unit, 4, gate, 0.04, 1, doc_of=one_file(len(prep.unit))).selected
        )
        for s in sims
    ]
    assert curve.query_chunks[0].tolist() == chunks
    assert curve.fragmented.tolist() == [q.fragmented for q in labelled]
    assert np.isfinite(curve.recall).all()


@pytest.mark.parametrize(("features", "radius"), [("base", 1), ("lexical", 2)])
def test_the_crossvalidated_curve_reads_each_query_under_a_gate_not_fitted_on_it(
    sample, features, radius
):
    """Against a reference written out: for every fold of every repeat, fit_gate_on the other
    folds' queries, p_curve_on each held-out query; each query's figures averaged over the
    repeats, then over the queries."""
    from scar_viz.evaluation.folds import assign_folds
    from scar_viz.evaluation.learned import crossval_p_curve

    prep, labelled, vecs = sample
    ps = [0.01, 0.05, 0.2, 0.5]
    curve = crossval_p_curve(
        LabelledRun(prep, labelled, vecs), 4, radius, features=features, ps=ps, folds=3, repeats=2
    )
    folds = assign_folds(labelled, 3, 2)
    recall = np.zeros((len(ps), len(labelled)))
    chunks = np.zeros_like(recall)
    for r in range(folds.repeats):
        for f in range(folds.k):
            held = np.flatnonzero(folds.fold[r] == f)
            train = [labelled[i] for i in np.flatnonzero(folds.fold[r] != f)]
            tv = vecs[np.flatnonzero(folds.fold[r] != f)]
            gate = fit_gate_on(LabelledRun(prep, train, tv), 4, radius=radius, features=features)
            for i in held:
                one = p_curve_on(
                    LabelledRun(prep, [labelled[i]], vecs[[i]]), gate, 4, radius, ps=ps
                )
                recall[:, i] += one.query_recall[:, 0] / folds.repeats
                chunks[:, i] += one.query_chunks[:, 0] / folds.repeats
    assert np.allclose(curve.query_recall, recall) and np.allclose(curve.query_chunks, chunks)
    assert np.allclose(curve.recall, recall.mean(axis=1))
    everything = LabelledRun(prep, labelled, vecs)
    gate = fit_gate_on(everything, 4, radius=radius, features=features)
    in_sample = p_curve_on(everything, gate, 4, radius, ps=ps)
    assert not np.allclose(in_sample.query_recall, curve.query_recall)  # another gate per fold


def test_crossvalidation_needs_ten_queries(sample):
    from scar_viz.common.errors import SettingsError
    from scar_viz.evaluation.learned import crossval_p_curve

    prep, labelled, vecs = sample
    with pytest.raises(SettingsError, match="at least 10"):
        crossval_p_curve(LabelledRun(prep, labelled[:9], vecs[:9]), 4)
