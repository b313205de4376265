"""The SCAR gate: hand-computed cases, edge cases, a reference implementation, invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scar_viz.common.edges import one_file
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import (
    boundary_penalties,
    gate,
    query_similarities,
    scar_select,
    top_k,
    window,
)

# 2-d unit vectors with easy cosines: q = x-axis.
Q = np.array([1.0, 0.0])
CHUNKS = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [-1.0, 0.0]])


def test_similarities_and_penalties_by_hand():
    assert np.allclose(query_similarities(Q, CHUNKS), [1.0, 0.8, 0.0, -1.0])
    assert np.allclose(boundary_penalties(CHUNKS), [0.2, 0.4, 1.0])


def test_inputs_need_not_be_normalised():
    a = scar_select(Q * 7, CHUNKS * 3, GateParams(k=1, lam=0.5, tau=0.1))
    b = scar_select(Q, CHUNKS, GateParams(k=1, lam=0.5, tau=0.1))
    assert a.selected == b.selected and a.retrieved == b.retrieved


def test_admit_by_hand_and_document_start():
    sel = scar_select(Q, CHUNKS, GateParams(k=1, lam=0.5, tau=0.1))
    assert sel.retrieved == [0]
    (d,) = sel.decisions  # chunk 0 is at the document start: only a right neighbour
    assert (d.chunk, d.neighbour, d.side, d.distance) == (0, 1, "right", 1)
    assert d.penalty == pytest.approx(0.2)
    assert d.score == pytest.approx(0.8 - 0.5 * 0.2)
    assert d.bar == pytest.approx(0.1)
    assert d.margin == pytest.approx(0.7 - 0.1)
    assert d.outcome == "admitted"
    assert sel.selected == [0, 1] and sel.admitted == [1]


def test_rejection_names_the_blocking_term():
    # cos(q,n) = 0.8 clears the bar 0.7 alone, but λ·b = 1·0.2 pulls S to 0.6: penalty.
    (d,) = scar_select(Q, CHUNKS, GateParams(k=1, lam=1.0, tau=0.7)).decisions
    assert d.outcome == "rejected" and d.blocked_by == "penalty"
    # bar 0.9 is above cos(q,n) = 0.8 itself: relevance.
    (d,) = scar_select(Q, CHUNKS, GateParams(k=1, lam=0.0, tau=0.9)).decisions
    assert d.outcome == "rejected" and d.blocked_by == "relevance"


def test_gate_is_strict():
    score, bar, passes = gate(cos_qn=0.5, cos_qc=1.0, penalty=0.0, lam=1.0, tau=0.5)
    assert score == bar and not passes


def test_radius_two_expands_outward_contiguously():
    sel = scar_select(Q, CHUNKS, GateParams(k=1, lam=0.5, tau=0.1, radius=2))
    # distance 1 admitted, so distance 2 (chunk 2) is a candidate with b against chunk 0:
    # b = 1 - cos(c0, c2) = 1, S = 0 - 0.5 = -0.5 <= 0.1, rejected by relevance.
    assert [(d.neighbour, d.distance, d.outcome) for d in sel.decisions] == [
        (1, 1, "admitted"),
        (2, 2, "rejected"),
    ]
    assert sel.decisions[1].penalty == pytest.approx(1.0)
    assert sel.decisions[1].blocked_by == "relevance"
    assert sel.selected == [0, 1]


def test_radius_two_stops_after_a_rejection():
    # chunk 1 is rejected (λ large), so chunk 2 is never a candidate even if it would pass.
    chunks = np.array([[1.0, 0.0], [0.0, 1.0], [0.99, 0.141]])
    sel = scar_select(Q, chunks, GateParams(k=1, lam=2.0, tau=0.1, radius=2))
    assert [d.neighbour for d in sel.decisions] == [1]
    assert sel.selected == [0]


def test_neighbour_that_is_itself_retrieved_is_counted_once_and_expansion_passes_it():
    # chunks 1 and 2 are both retrieved; from 1 rightwards, 2 is "retrieved", and at r = 2
    # chunk 3 is still a candidate of chunk 1.
    chunks = np.array([[0.0, 1.0], [1.0, 0.0], [0.95, 0.312], [0.9, 0.436]])
    sel = scar_select(Q, chunks, GateParams(k=2, lam=0.1, tau=0.1, radius=2))
    assert sel.retrieved == [1, 2]
    from_1_right = [d for d in sel.decisions if d.chunk == 1 and d.side == "right"]
    assert [(d.neighbour, d.outcome) for d in from_1_right] == [(2, "retrieved"), (3, "admitted")]
    assert sel.selected == sorted(set(sel.selected))
    assert sel.selected.count(2) == 1
    assert 2 not in sel.admitted


def test_document_end_has_one_side_only():
    q = np.array([-1.0, 0.0])
    sel = scar_select(q, CHUNKS, GateParams(k=1, lam=0.5, tau=0.1))
    assert sel.retrieved == [3]
    assert [d.side for d in sel.decisions] == ["left"]


def test_non_positive_relevance_makes_the_bar_non_positive():
    # cos(q,c) = -0.2 for the best chunk; τ = 1.5 gives bar = -0.3, and a neighbour at
    # cos(q,n) = -0.25 with a tiny penalty passes: an edge case docs/method.md §2 shows rather
    # than hides.
    q = np.array([1.0, 0.0])
    c = np.array([-0.2, np.sqrt(1 - 0.2**2)])
    n = np.array([-0.25, np.sqrt(1 - 0.25**2)])
    sel = scar_select(q, np.stack([c, n]), GateParams(k=1, lam=0.1, tau=1.5))
    (d,) = sel.decisions
    assert d.cos_qc == pytest.approx(-0.2) and d.bar == pytest.approx(-0.3)
    assert d.bar <= 0
    expected = -0.25 - 0.1 * (1 - float(c @ n))
    assert d.score == pytest.approx(expected)
    assert (d.outcome == "admitted") == (expected > -0.3)
    assert d.outcome == "admitted"


def test_top_k_ties_go_to_the_lower_index_and_k_is_clipped():
    sims = np.array([0.5, 0.9, 0.5, 0.9, 0.1])
    assert top_k(sims, 3) == [1, 3, 0]
    assert top_k(sims, 99) == [1, 3, 0, 2, 4]
    sel = scar_select(
        np.array([1.0, 0.0]), np.array([[1.0, 0.0], [1.0, 0.0]]), GateParams(1, 0.5, 0.1)
    )
    assert sel.retrieved == [0]


def test_one_chunk_and_radius_zero_have_no_candidates():
    assert scar_select(Q, CHUNKS[:1], GateParams(k=3, lam=0.5, tau=0.1)).decisions == ()
    sel = scar_select(Q, CHUNKS, GateParams(k=2, lam=0.5, tau=0.1, radius=0))
    assert sel.decisions == () and sel.selected == sorted(sel.retrieved)


def test_dimension_mismatch_is_a_clear_error():
    with pytest.raises(ValueError, match="dimension"):
        scar_select(np.ones(3), CHUNKS, GateParams(k=1, lam=0.5, tau=0.1))


def test_window_by_hand():
    assert window([0, 5], 7, 1, doc_of=one_file(7)) == [0, 1, 4, 5, 6]
    assert window([3], 7, 2, doc_of=one_file(7)) == [1, 2, 3, 4, 5]


# --- against the plain-loop reference: tests/scoring/test_reference.py ----------------------


# --- invariants ---------------------------------------------------------------------------

vectors = st.integers(0, 2**32 - 1).map(lambda s: np.random.default_rng(s))
SETTINGS = {
    "rng": vectors,
    "k": st.integers(1, 6),
    "r": st.integers(1, 3),
    "lam": st.floats(0, 2),
    "tau": st.floats(0, 1.5),
}
"""A random generator and gate settings (k, r, λ, τ) for the properties below."""


@settings(max_examples=150, deadline=None)
@given(**SETTINGS, dl=st.floats(0, 1), dt=st.floats(0, 1))
def test_raising_lambda_or_tau_never_admits_more(rng, k, r, lam, tau, dl, dt):
    n = int(rng.integers(2, 30))
    chunks = rng.normal(size=(n, 8))
    q = chunks.mean(axis=0) + 0.1 * rng.normal(size=8)  # relevant to most chunks
    base = scar_select(q, chunks, GateParams(k, lam, tau, r))
    if min(base.sims[c] for c in base.retrieved) <= 0:
        return  # the property holds only when cos(q,c) > 0 (docs/method.md §2 edge case)
    stricter = scar_select(q, chunks, GateParams(k, lam + dl, tau + dt, r))
    assert set(stricter.selected) <= set(base.selected)


@settings(max_examples=150, deadline=None)
@given(**SETTINGS)
def test_topk_within_scar_within_window(rng, k, r, lam, tau):
    n = int(rng.integers(1, 30))
    chunks = rng.normal(size=(n, 6))
    q = rng.normal(size=6)
    sel = scar_select(q, chunks, GateParams(k, lam, tau, r))
    assert (
        set(top_k(sel.sims, k))
        <= set(sel.selected)
        <= set(window(sel.retrieved, n, r, doc_of=one_file(n)))
    )
    assert sel.selected == sorted(set(sel.selected))
