"""The p-curve: vectorised recall and chunks agree with the learned policy query by query."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.scoring.learned import build_table, fit_gate, learned_select, p_curve
from tests.scoring.learned.synthetic import drifting_doc, random_queries


@pytest.mark.parametrize("radius", [1, 2])
def test_p_curve_matches_the_policy_query_by_query(radius):
    rng = np.random.default_rng(40 + radius)
    unit = drifting_doc(rng, n_chunks=80)
    sims, golds = random_queries(rng, unit, 30)
    gate = fit_gate(build_table(sims, unit, golds, 4, doc_of=one_file(len(unit))))
    ps = [0.005, 0.03, 0.1, 0.3, 0.8]
    table = build_table(sims, unit, golds, 4, radius, doc_of=one_file(len(unit)))
    fragmented = [len(g) >= 2 for g in golds]
    curve = p_curve(table, gate, ps, fragmented)
    for t, p in enumerate(ps):
        for qi in range(len(golds)):
            sel = learned_select(
                sims[qi], unit, 4, gate, p=p, radius=radius, doc_of=one_file(len(unit))
            )
            gold = set(golds[qi])
            assert curve.query_chunks[t, qi] == len(sel.selected)
            assert curve.query_recall[t, qi] == pytest.approx(
                len(gold & set(sel.selected)) / len(gold)
            )
    # a higher bar never admits more
    assert np.all(np.diff(curve.mean_chunks) <= 1e-12)
    frag_recall, _ = curve.subset("fragmented")
    assert frag_recall == pytest.approx(curve.query_recall[:, np.array(fragmented)].mean(axis=1))
    assert [r["p"] for r in curve.rows()] == ps


def test_p_curve_refuses_an_empty_grid_and_reads_subsets():
    rng = np.random.default_rng(45)
    unit = drifting_doc(rng)
    sims, golds = random_queries(rng, unit, 10)
    table = build_table(sims, unit, golds, 4, doc_of=one_file(len(unit)))
    gate = fit_gate(table)
    with pytest.raises(ValueError, match="empty"):
        p_curve(table, gate, [])
    curve = p_curve(table, gate, [0.01, 0.1])
    with pytest.raises(ValueError, match="Unknown subset"):
        curve.subset("fragmented")
    assert curve.nearest(0.09) == 1


def test_in_a_corpus_the_table_and_the_policy_stay_inside_each_file():
    rng = np.random.default_rng(48)
    unit = drifting_doc(rng, n_chunks=60)
    sims, golds = random_queries(rng, unit, 20)
    doc_of = np.repeat(np.arange(4), [10, 25, 5, 20])
    table = build_table(sims, unit, golds, 4, 2, doc_of=doc_of)
    assert np.all(doc_of[table.chunk] == doc_of[table.neighbour])
    plain = build_table(sims, unit, golds, 4, 2, doc_of=one_file(len(unit)))
    assert np.any(doc_of[plain.chunk] != doc_of[plain.neighbour])  # the data would cross
    gate = fit_gate(build_table(sims, unit, golds, 4, doc_of=one_file(len(unit))))
    ps = [0.01, 0.1, 0.5]
    curve = p_curve(table, gate, ps, [True] * len(golds))
    for t, p in enumerate(ps):
        for qi in range(len(golds)):
            sel = learned_select(sims[qi], unit, 4, gate, p=p, radius=2, doc_of=doc_of)
            assert curve.query_chunks[t, qi] == len(sel.selected)
            assert all(doc_of[d.chunk] == doc_of[d.neighbour] for d in sel.decisions)
