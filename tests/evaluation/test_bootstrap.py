"""Paired bootstrap and Cohen's d against straightforward references."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scar_viz.evaluation.bootstrap import bootstrap_means, cohens_d, paired_bootstrap


def test_cohens_d_hand_computed():
    # d = [1, 2, 3]: mean 2, sd (ddof 1) = 1
    assert cohens_d(np.array([1.0, 2.0, 3.0])) == pytest.approx(2.0)
    assert cohens_d(np.zeros(5)) == 0.0
    assert np.isnan(cohens_d(np.ones(4)))


def test_means_match_a_loop_with_the_same_draws():
    rng = np.random.default_rng(3)
    diff = rng.normal(size=17)
    fast = bootstrap_means(diff, 500, seed=11)
    draw = np.random.default_rng(11)
    idx = draw.integers(0, len(diff), size=(500, len(diff)))
    slow = np.array([sum(diff[i] for i in row) / len(row) for row in idx])
    assert np.allclose(fast, slow)


def test_interval_and_p_against_a_reference():
    rng = np.random.default_rng(0)
    a = rng.normal(1.0, 1.0, 40)
    b = a - rng.normal(0.4, 0.5, 40)
    res = paired_bootstrap(a, b, 2000, seed=5)
    means = bootstrap_means(a - b, 2000, seed=5)
    assert res.ci_low == pytest.approx(np.percentile(means, 2.5))
    assert res.ci_high == pytest.approx(np.percentile(means, 97.5))
    expected_p = min(1.0, 2 * (min((means <= 0).sum(), (means >= 0).sum()) + 1) / 2001)
    assert res.p_value == pytest.approx(expected_p)
    assert res.mean_diff == pytest.approx(np.mean(a - b))
    assert res.ci_low < res.mean_diff < res.ci_high
    assert res.p_value < 0.01


def test_no_difference_gives_p_one():
    x = np.arange(10.0)
    res = paired_bootstrap(x, x)
    assert res.p_value == 1.0 and res.cohens_d == 0.0 and res.ci_low == res.ci_high == 0.0


def test_validation():
    with pytest.raises(ValueError, match="same queries"):
        paired_bootstrap([1, 2], [1])
    with pytest.raises(ValueError, match="at least one query"):
        paired_bootstrap([], [])
    with pytest.raises(ValueError, match="B ≥ 1"):
        paired_bootstrap([1], [2], n_boot=0)


def test_ten_thousand_resamples_take_well_under_a_second():
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    paired_bootstrap(rng.normal(size=320), rng.normal(size=320), 10_000)
    assert time.perf_counter() - t0 < 2.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-10, 10), min_size=2, max_size=30), st.integers(0, 1000))
def test_swapping_sides_mirrors_the_result(values, seed):
    a = np.array(values)
    b = a[::-1].copy()
    fwd, back = paired_bootstrap(a, b, 300, seed), paired_bootstrap(b, a, 300, seed)
    assert fwd.mean_diff == pytest.approx(-back.mean_diff, abs=1e-9)
    assert fwd.p_value == pytest.approx(back.p_value)
    assert 0 < fwd.p_value <= 1


def test_many_rows_at_once_agree_with_paired_bootstrap_row_by_row():
    from scar_viz.evaluation.bootstrap import paired_intervals

    rng = np.random.default_rng(5)
    values, reference = rng.random((30, 41)), rng.random(41)
    mean, low, high = paired_intervals(values, reference, 3000, seed=9)
    for i in (0, 7, 29):
        one = paired_bootstrap(values[i], reference, 3000, seed=9)
        assert mean[i] == pytest.approx(one.mean_diff, abs=1e-12)
        assert low[i] == pytest.approx(one.ci_low, abs=1e-12)
        assert high[i] == pytest.approx(one.ci_high, abs=1e-12)
    assert paired_intervals(values, reference, 3000, seed=10)[1][0] != low[0]  # the seed counts
    with pytest.raises(ValueError, match="same queries"):
        paired_intervals(values, reference[:-1])
