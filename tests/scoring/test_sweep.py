"""The vectorised sweep agrees exactly with scar_select, for r = 1 and r > 1."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scar_viz.common.edges import one_file
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import gate, normalize, scar_select, top_k
from scar_viz.scoring.sweep import (
    LAMS,
    TAUS,
    build_candidates,
    match_chunks,
    pareto_frontier,
    sweep,
)


def random_case(rng, n, q, d=6):
    walk = np.cumsum(rng.normal(size=(n, d)) * 0.5, axis=0) + rng.normal(size=(n, d))
    queries = rng.normal(size=(q, d))
    golds = [
        tuple(sorted(set(rng.integers(0, n, size=rng.integers(1, 4)).tolist()))) for _ in range(q)
    ]
    unit = normalize(walk)
    sims = np.stack([unit @ normalize(v) for v in queries])
    return walk, queries, golds, unit, sims


def test_grid_defaults_are_at_least_41_by_41_and_on_slider_steps():
    assert len(LAMS) >= 41 and len(TAUS) >= 41
    assert np.allclose(np.round(TAUS * 100), TAUS * 100)
    assert LAMS[0] == 0 and LAMS[-1] == 2 and TAUS[-1] == 1.5


def test_hand_computed_three_chunks():
    # query = chunk 1; chunk 0 near (cos 0.8 with q and c), chunk 2 orthogonal
    chunks = np.array([[0.8, 0.6], [1.0, 0.0], [0.0, 1.0]])
    cands = build_candidates(
        (chunks @ np.array([1.0, 0.0]))[None],
        normalize(chunks),
        [(0, 1)],
        k=1,
        doc_of=one_file(len(normalize(chunks))),
    )
    res = sweep(cands, [0.0, 1.0], [0.5, 0.9])
    # λ=0: chunk 0 passes iff 0.8 > τ·1 → yes at 0.5, no at 0.9; chunk 2 (cos 0) never
    # λ=1: S(0) = 0.8 − 0.2 = 0.6 → passes at 0.5 only
    assert res.query_chunks[:, :, 0].tolist() == [[2, 1], [2, 1]]
    assert res.recall.tolist() == [[1.0, 0.5], [1.0, 0.5]]
    assert res.efficiency[0, 0] == pytest.approx(0.5)


@pytest.mark.parametrize("radius", [1, 2, 3])
def test_agrees_exactly_with_scar_select_on_random_data(radius):
    rng = np.random.default_rng(radius)
    for _ in range(6):
        n = int(rng.integers(1, 30))
        walk, queries, golds, unit, sims = random_case(rng, n, 5)
        k = int(rng.integers(1, 6))
        lams, taus = LAMS[::5], TAUS[::6]
        res = sweep(
            build_candidates(sims, unit, golds, k, radius, doc_of=one_file(len(unit))), lams, taus
        )
        for i, lam in enumerate(lams):
            for j, tau in enumerate(taus):
                for q, gold in enumerate(golds):
                    sel = scar_select(
                        queries[q], walk, GateParams(k, float(lam), float(tau), radius)
                    )
                    assert res.query_chunks[i, j, q] == len(sel.selected)
                    assert res.query_recall[i, j, q] == len(set(sel.selected) & set(gold)) / len(
                        set(gold)
                    )


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 25),
    k=st.integers(1, 6),
    radius=st.integers(1, 3),
    seed=st.integers(0, 10_000),
    lam=st.sampled_from(list(LAMS)),
    tau=st.sampled_from(list(TAUS)),
)
def test_property_single_point_matches(n, k, radius, seed, lam, tau):
    rng = np.random.default_rng(seed)
    walk, queries, golds, unit, sims = random_case(rng, n, 3)
    res = sweep(
        build_candidates(sims, unit, golds, k, radius, doc_of=one_file(len(unit))), [lam], [tau]
    )
    for q in range(3):
        sel = scar_select(queries[q], walk, GateParams(k, float(lam), float(tau), radius))
        assert res.query_chunks[0, 0, q] == len(sel.selected)


def _absolute_reference(sims, unit, k, lam, theta, radius):
    """Straightforward loop: SCAR's expansion with the bar θ instead of τ·cos(q,c)."""
    n = len(sims)
    retrieved = top_k(sims, k)
    chosen = set(retrieved)
    for c in retrieved:
        for step in (-1, 1):
            for d in range(1, radius + 1):
                j = c + step * d
                if not 0 <= j < n:
                    break
                score, _, _ = gate(
                    float(sims[j]), float(sims[c]), float(1.0 - unit[c] @ unit[j]), lam, 0.0
                )
                if j in retrieved:
                    continue
                if score > theta:
                    chosen.add(j)
                else:
                    break
    return chosen


@pytest.mark.parametrize("radius", [1, 2])
def test_absolute_bar_matches_a_loop(radius):
    rng = np.random.default_rng(7)
    walk, queries, golds, unit, sims = random_case(rng, 20, 4)
    thetas = np.round(np.linspace(-0.3, 0.9, 13), 3)
    res = sweep(
        build_candidates(sims, unit, golds, 3, radius, doc_of=one_file(len(unit))),
        [0.0, 0.5],
        thetas,
        "absolute",
    )
    for i, lam in enumerate([0.0, 0.5]):
        for j, theta in enumerate(thetas):
            for q in range(4):
                ref = _absolute_reference(sims[q], unit, 3, lam, float(theta), radius)
                assert res.query_chunks[i, j, q] == len(ref)


def test_more_permissive_bar_never_costs_fewer_chunks():
    rng = np.random.default_rng(2)
    *_, unit, sims = random_case(rng, 40, 8)
    golds = [(0,)] * 8
    res = sweep(build_candidates(sims, unit, golds, 4, 1, doc_of=one_file(len(unit))))
    assert np.all(np.diff(res.mean_chunks, axis=1) <= 1e-12)  # higher τ: fewer or equal
    assert np.all(np.diff(res.mean_chunks, axis=0) <= 1e-12)  # higher λ: fewer or equal


def test_pareto_frontier_hand_computed():
    recall = np.array([0.5, 0.6, 0.6, 0.9, 0.4])
    chunks = np.array([3.0, 4.0, 5.0, 8.0, 3.0])
    assert pareto_frontier(recall, chunks).tolist() == [0, 1, 3]


def test_best_and_match_chunks():
    rng = np.random.default_rng(4)
    *_, unit, sims = random_case(rng, 30, 6)
    res = sweep(build_candidates(sims, unit, [(1, 2)] * 6, 3, 1, doc_of=one_file(len(unit))))
    i, j = res.best("efficiency")
    assert res.efficiency[i, j] == res.efficiency.max()
    t = match_chunks(res, 0, float(res.mean_chunks[0, 10]))
    assert abs(res.mean_chunks[0, t] - res.mean_chunks[0, 10]) < 1e-12
    with pytest.raises(ValueError, match="objective"):
        res.best("speed")


def test_validation():
    unit = normalize(np.eye(3))
    with pytest.raises(ValueError, match="gold"):
        build_candidates(unit, unit, [(0,), (), (1,)], 1, doc_of=one_file(len(unit)))
    with pytest.raises(ValueError, match="k ≥ 1"):
        build_candidates(unit, unit, [(0,)] * 3, 0, doc_of=one_file(len(unit)))
    with pytest.raises(ValueError, match="bar"):
        sweep(build_candidates(unit, unit, [(0,)] * 3, 1, doc_of=one_file(len(unit))), mode="fixed")


@pytest.mark.parametrize("radius", [1, 2])
def test_in_a_corpus_the_sweep_agrees_with_select_from_sims_and_never_crosses(radius):
    from scar_viz.scoring.scar import select_from_sims

    rng = np.random.default_rng(70 + radius)
    n = 40
    walk, queries, golds, unit, sims = random_case(rng, n, 8)
    doc_of = np.repeat(np.arange(5), [3, 12, 1, 16, 8])
    cands = build_candidates(sims, unit, golds, 4, radius, doc_of=doc_of)
    lams, taus = LAMS[::8], TAUS[::8]
    res = sweep(cands, lams, taus)
    crossed = 0
    for i, lam in enumerate(lams):
        for j, tau in enumerate(taus):
            for q, gold in enumerate(golds):
                params = GateParams(4, float(lam), float(tau), radius)
                sel = select_from_sims(sims[q], unit, params, doc_of)
                assert res.query_chunks[i, j, q] == len(sel.selected)
                assert res.query_recall[i, j, q] == len(set(sel.selected) & set(gold)) / len(
                    set(gold)
                )
                for d in sel.decisions:
                    assert doc_of[d.chunk] == doc_of[d.neighbour]
                joined = select_from_sims(sims[q], unit, params, doc_of=one_file(len(unit)))
                crossed += any(doc_of[d.chunk] != doc_of[d.neighbour] for d in joined.decisions)
    assert crossed  # without the edges the same data does cross files: the test can fail


@pytest.mark.parametrize(
    ("key", "radius"), [("harbor", 1), ("harbor", 2), ("kestrel", 1), ("kestrel", 3)]
)
def test_query_outcomes_count_the_tokens_of_each_selection(key, radius):
    """Per query and grid point, the tokens the sweep sums chunk by chunk are the tokens of the
    assembled context of scar_select's selection (a corpus keeps every file's edge)."""
    from scar_viz.chunking.tokens import count_tokens
    from scar_viz.policies.context import context_text, token_costs
    from scar_viz.scoring.scar import select_from_sims
    from scar_viz.scoring.sweep import admitted_at, query_outcomes
    from tests.evaluation_sample import labelled_sample

    prep, gold, vecs, _ = labelled_sample(key)
    sims = np.stack([prep.unit @ v for v in vecs])
    costs = token_costs(prep.chunks)
    taus = np.array([0.0, 0.4, 0.9, 1.5])
    for k in (1, 3, 6):
        cands = build_candidates(
            sims, prep.unit, [g.gold for g in gold], k, radius, doc_of=prep.doc_of
        )
        for lam in (0.0, 0.5, 1.5):
            chunks, recall, tokens = query_outcomes(cands, admitted_at(cands, lam, taus), costs)
            for t, tau in enumerate(taus):
                params = GateParams(k=k, lam=lam, tau=float(tau), radius=radius)
                for q in range(len(gold)):
                    sel = select_from_sims(sims[q], prep.unit, params, prep.doc_of)
                    assert chunks[t, q] == len(sel.selected)
                    text = context_text(prep.chunks, sel.selected)
                    assert tokens[t, q] == count_tokens(text), (k, lam, tau, q)
        none = query_outcomes(cands, np.zeros((1, len(cands.slot)), dtype=bool), costs)[2][0]
        tops = [top_k(s, k) for s in sims]
        assert none.tolist() == [count_tokens(context_text(prep.chunks, t)) for t in tops]


@pytest.mark.parametrize("radius", [1, 2, 3])
def test_threshold_outcomes_are_query_outcomes_at_every_bar(radius):
    """Counting each slot's critical bar gives the figures of listing every selection."""
    from scar_viz.policies.context import token_costs
    from scar_viz.scoring.sweep import contiguous, query_outcomes, threshold_outcomes
    from tests.evaluation_sample import labelled_sample

    prep, gold, vecs, _ = labelled_sample("kestrel")
    sims = np.stack([prep.unit @ v for v in vecs])
    costs = token_costs(prep.chunks)
    rng = np.random.default_rng(radius)
    for k in (1, 3, 6):
        cands = build_candidates(
            sims, prep.unit, [g.gold for g in gold], k, radius, doc_of=prep.doc_of
        )
        m = len(cands.slot)
        scores = rng.normal(size=(3, m))
        bars = np.sort(rng.normal(size=9))
        got = threshold_outcomes(cands, scores, bars, costs)
        passes = (scores[:, None, :] > bars[None, :, None]).reshape(-1, m)
        want = query_outcomes(cands, contiguous(cands, passes), costs)
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g, w.reshape(3, len(bars), -1))
    with pytest.raises(ValueError, match="ascending"):
        threshold_outcomes(cands, scores, bars[::-1], costs)
