"""Each QASC step on tiny hand-computed arrays, against references on random data, invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scar_viz.chunking.qasc import (
    QascParams,
    adaptive_window,
    fixed_window,
    merge_windows,
    qasc_select,
    seed_threshold,
    select_seeds,
    sentence_scores,
    snap_to_paragraphs,
    window_score,
)
from scar_viz.common.edges import one_file


def test_sentence_scores_are_cosines():
    vecs = np.array([[3.0, 4.0], [0.0, 2.0], [-1.0, 0.0]])
    assert np.allclose(sentence_scores(vecs, np.array([1.0, 0.0])), [0.6, 0.0, -1.0])
    with pytest.raises(ValueError, match="dimension"):
        sentence_scores(vecs, np.ones(3))


def test_sentence_scores_match_a_loop_on_random_data():
    rng = np.random.default_rng(3)
    vecs, q = rng.normal(size=(20, 7)), rng.normal(size=7)
    ref = [v @ q / (np.linalg.norm(v) * np.linalg.norm(q)) for v in vecs]
    assert np.allclose(sentence_scores(vecs, q), ref)


def test_seed_threshold_is_the_percentile():
    # 75th percentile of 0..4 by linear interpolation: position 0.75 * 4 = 3 -> 3.0
    assert seed_threshold(np.array([4.0, 0.0, 2.0, 1.0, 3.0]), 75) == pytest.approx(3.0)
    # of 0..3: position 0.75 * 3 = 2.25 -> 2.25
    assert seed_threshold(np.array([0.0, 1.0, 2.0, 3.0]), 75) == pytest.approx(2.25)
    with pytest.raises(ValueError):
        seed_threshold(np.zeros(0), 75)


def test_seeds_are_at_or_above_the_threshold():
    scores = np.array([0.1, 0.5, 0.3, 0.5, 0.9])
    assert select_seeds(scores, 0.5) == (1, 3, 4)  # "at or above": 0.5 counts
    assert select_seeds(scores, 0.5, max_seeds=2) == (1, 4)  # the best two, ties to the first


def test_fixed_window_clips_to_the_document():
    assert fixed_window(5, 10, 2) == (3, 7)
    assert fixed_window(0, 10, 2) == (0, 2)
    assert fixed_window(9, 10, 3) == (6, 9)
    assert fixed_window(4, 10, 0) == (4, 4)


def test_adaptive_window_grows_while_the_next_score_is_above():
    scores = np.array([0.9, 0.1, 0.6, 0.7, 0.95, 0.6, 0.2, 0.8])
    assert adaptive_window(scores, 4, 0.5, max_m=5) == (2, 5)  # stops at 0.1 and at 0.2
    assert adaptive_window(scores, 4, 0.5, max_m=1) == (3, 5)
    assert adaptive_window(scores, 4, 0.65, max_m=5) == (3, 4)  # 0.6 is not above 0.65
    assert adaptive_window(scores, 0, 0.0, max_m=9) == (0, 7)


def test_window_score_by_hand():
    scores = np.array([1.0, 0.0, 1.0])
    # decay ln 2: α = (1/2, 1, 1/2) -> W = (0.5 + 0 + 0.5) / 2 = 0.5
    assert window_score(scores, 0, 2, 1, math.log(2)) == pytest.approx(0.5)
    # decay 0: the plain mean
    assert window_score(scores, 0, 2, 1, 0.0) == pytest.approx(2 / 3)
    # seed at the edge, decay ln 2: α = (1, 1/2, 1/4) -> W = (1 + 0 + .25) / 1.75
    assert window_score(scores, 0, 2, 0, math.log(2)) == pytest.approx(1.25 / 1.75)


def test_window_score_matches_a_loop_on_random_data():
    rng = np.random.default_rng(7)
    scores = rng.normal(size=30)
    for _ in range(20):
        lo, hi = sorted(rng.integers(0, 30, size=2))
        r = int(rng.integers(lo, hi + 1))
        lam = float(rng.uniform(0, 2))
        num = sum(math.exp(-lam * abs(i - r)) * scores[i] for i in range(lo, hi + 1))
        den = sum(math.exp(-lam * abs(i - r)) for i in range(lo, hi + 1))
        assert window_score(scores, lo, hi, r, lam) == pytest.approx(num / den)


def test_merge_windows_joins_overlapping_and_adjacent():
    one = one_file(11)
    assert merge_windows([(5, 7), (0, 2), (3, 4), (10, 10), (6, 8)], one) == ((0, 8), (10, 10))
    assert merge_windows([(0, 8), (9, 9)], one) == ((0, 9),)  # adjacent
    assert merge_windows([(0, 1), (3, 4)], one) == ((0, 1), (3, 4))  # a gap of one sentence stays
    assert merge_windows([], one_file(0)) == ()


def test_snap_moves_boundaries_out_to_paragraph_breaks():
    paragraphs = [(0, 100), (102, 300)]
    assert snap_to_paragraphs([(20, 80)], paragraphs, 50) == (((0, 100),), 0)
    # 120 -> 102 (18 away) and 250 -> 300 (50 away); then 180 is 78 away and stays
    assert snap_to_paragraphs([(120, 250)], paragraphs, 60) == (((102, 300),), 0)
    assert snap_to_paragraphs([(180, 250)], paragraphs, 60) == (((180, 300),), 1)
    assert snap_to_paragraphs([(20, 80)], paragraphs, 0) == (((20, 80),), 0)


def test_qasc_select_end_to_end_by_hand():
    # ten sentences of 10 characters with a one-character gap; two paragraphs of five.
    sentences = [(11 * i, 11 * i + 10) for i in range(10)]
    paragraphs = [(0, 54), (55, 109)]
    scores = np.array([0.1, 0.2, 0.9, 0.2, 0.1, 0.1, 0.1, 0.1, 0.8, 0.7])
    params = QascParams(percentile=70, window_m=1, decay=0.0, keep_ratio=0.6, snap_chars=0)
    res = qasc_select(sentences, scores, paragraphs, params, doc_of=one_file(len(sentences)))
    # θ = 70th pct: sorted .1×5 .2 .2 .7 .8 .9 -> position 6.3 -> .2 + .3(.7 - .2) = .35
    assert res.threshold == pytest.approx(0.35)
    assert res.seeds == (2, 8, 9)
    # windows (1,3) W=(.2+.9+.2)/3; (7,9) W=(.1+.8+.7)/3; (8,9) W=.75; bar .6 · .35 = .21
    assert [(w.lo, w.hi) for w in res.windows] == [(1, 3), (7, 9), (8, 9)]
    assert [w.score for w in res.windows] == pytest.approx([1.3 / 3, 1.6 / 3, 0.75])
    assert res.keep_bar == pytest.approx(0.21)
    assert res.merged == ((1, 3), (7, 9))
    assert res.spans == ((11, 43), (77, 109))


@pytest.mark.parametrize(
    ("snap_chars", "spans", "unsnapped"),
    [
        (25, ((0, 54), (55, 109)), 0),  # 11 -> 0, 43 -> 54, 77 -> 55 (22 away), 109 stays
        (20, ((0, 54), (77, 109)), 1),  # 77 is 22 away from its paragraph start and stays
    ],
)
def test_qasc_select_snaps_by_hand(snap_chars, spans, unsnapped):
    # the sentences and scores of the test above; spans before snapping (11, 43), (77, 109)
    sentences = [(11 * i, 11 * i + 10) for i in range(10)]
    scores = np.array([0.1, 0.2, 0.9, 0.2, 0.1, 0.1, 0.1, 0.1, 0.8, 0.7])
    params = QascParams(percentile=70, window_m=1, decay=0.0, snap_chars=snap_chars)
    res = qasc_select(
        sentences, scores, [(0, 54), (55, 109)], params, doc_of=one_file(len(sentences))
    )
    assert res.spans == spans and res.unsnapped == unsnapped


def test_keep_rule_is_strict():
    sentences = [(0, 5), (6, 10)]
    scores = np.array([1.0, 0.0])
    # p = 100: θ = 1.0; seed 0, m = 1, decay 0: W = 0.5; bar = 0.5 · 1.0 -> not kept (W = bar)
    res = qasc_select(
        sentences,
        scores,
        (),
        QascParams(percentile=100, window_m=1, decay=0.0, keep_ratio=0.5, snap_chars=0),
        doc_of=one_file(len(sentences)),
    )
    assert not res.windows[0].kept and res.spans == ()


@pytest.mark.parametrize(
    "bad",
    [
        {"percentile": 101},
        {"window_m": -1},
        {"decay": -0.1},
        {"snap_chars": -1},
        {"expand_percentile": -5},
        {"max_seeds": -1},
    ],
)
def test_invalid_knobs_raise(bad):
    with pytest.raises(ValueError):
        qasc_select([(0, 1)], np.ones(1), (), QascParams(**bad), doc_of=one_file(len([(0, 1)])))


def test_mismatched_scores_raise():
    with pytest.raises(ValueError, match="sentence scores"):
        qasc_select([(0, 1), (2, 3)], np.ones(3), doc_of=one_file(len([(0, 1), (2, 3)])))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(-1, 1), min_size=1, max_size=40),
    st.floats(0, 100),
    st.booleans(),
    st.integers(0, 4),
    st.floats(0, 2),
)
def test_qasc_invariants(scores, p, adaptive, m, decay):
    scores = np.array(scores)
    n = len(scores)
    sentences = [(10 * i, 10 * i + 8) for i in range(n)]
    res = qasc_select(
        sentences,
        scores,
        (),
        QascParams(percentile=p, adaptive=adaptive, window_m=m, decay=decay, snap_chars=0),
        doc_of=one_file(len(sentences)),
    )
    assert res.seeds and all(scores[s] >= res.threshold for s in res.seeds)
    for a, b in zip(res.merged, res.merged[1:], strict=False):
        assert a[1] + 1 < b[0]  # disjoint and not adjacent
    for w in res.windows:
        assert w.lo <= w.seed <= w.hi
        assert min(scores[w.lo : w.hi + 1]) - 1e-9 <= w.score <= max(scores[w.lo : w.hi + 1]) + 1e-9
        if w.kept:
            assert any(lo <= w.lo and w.hi <= hi for lo, hi in res.merged)
    kept_chars = {c for w in res.kept for i in range(w.lo, w.hi + 1) for c in range(*sentences[i])}
    span_chars = {c for s, e in res.spans for c in range(s, e)}
    assert kept_chars <= span_chars
