"""Fitting a learned gate: scikit-learn's fit against a Newton reference, recovery of a known
rule, the candidates it is fitted on, the shipped default gate's reproduction, and many folds'
fits at once against scikit-learn's."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.common.errors import UserError
from scar_viz.scoring.learned import (
    BASE_FEATURES,
    FEATURES,
    WEIGHT_TOLERANCE,
    FitError,
    LearnedGate,
    build_table,
    candidate_features,
    default_gate,
    fit_arrays,
    fit_gate,
)
from scar_viz.scoring.learned.fit import fit_folds, fit_logistic
from scar_viz.scoring.scar import top_k
from tests.scoring.learned.synthetic import drifting_doc, random_queries


def newton_logistic(x, y, l2, max_iter=100, tol=1e-12):
    """Reference: maximise Σ s_i·loglik_i − l2/2·‖w‖² (balanced s_i, intercept unpenalised) by
    Newton's method (IRLS), the objective the module docstring states."""
    m, n = x.shape
    n_pos = y.sum()
    s = np.where(y > 0, m / (2.0 * n_pos), m / (2.0 * (m - n_pos)))
    xa = np.hstack([x, np.ones((m, 1))])
    reg = np.full(n + 1, float(l2))
    reg[-1] = 0.0
    beta = np.zeros(n + 1)
    for _ in range(max_iter):
        prob = 1.0 / (1.0 + np.exp(-(xa @ beta)))
        grad = xa.T @ (s * (y - prob)) - reg * beta
        hess = (xa * (s * prob * (1.0 - prob))[:, None]).T @ xa + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        beta = beta + step
        if np.max(np.abs(step)) < tol:
            break
    return beta[:-1], float(beta[-1])


def candidate_like(seed, m):
    """Standardised rows like the gate's five features, about 8 % positives, noisy labels."""
    rng = np.random.default_rng(seed)
    x = np.column_stack(
        [
            rng.normal(0.3, 0.1, m),
            rng.normal(0.5, 0.1, m),
            rng.normal(0.45, 0.1, m),
            rng.integers(0, 4, m).astype(float),
            rng.integers(0, 2, m).astype(float),
        ]
    )
    raw = x @ np.array([10.0, -4.0, -3.0, -0.5, 0.4]) + rng.normal(0.0, 0.5, m)
    y = (raw > np.quantile(raw, 0.92)).astype(float)
    return (x - x.mean(axis=0)) / x.std(axis=0), y


@pytest.mark.parametrize(
    ("seed", "m", "l2"), [(0, 163, 1.0), (1, 400, 0.1), (2, 2000, 1.0), (3, 60, 10.0), (4, 500, 0)]
)
def test_scikit_learn_fit_agrees_with_newton_within_the_stated_tolerance(seed, m, l2):
    z, y = candidate_like(seed, m)
    w_ref, b_ref = newton_logistic(z, y, l2)
    w, b = fit_logistic(z, y, l2)
    assert np.max(np.abs(np.r_[w - w_ref, b - b_ref])) <= WEIGHT_TOLERANCE


def test_the_intercept_is_not_penalised():
    """Shifting every feature by a constant moves only b (by −shift·Σw) when b is unpenalised;
    a penalised intercept would resist the shift and change w."""
    z, y = candidate_like(5, 300)
    w, b = fit_logistic(z, y, 1.0)
    w_shift, b_shift = fit_logistic(z + 3.0, y, 1.0)
    assert np.max(np.abs(w_shift - w)) <= WEIGHT_TOLERANCE
    assert b_shift == pytest.approx(b - 3.0 * w.sum(), abs=10 * WEIGHT_TOLERANCE)
    w_strong, _ = fit_logistic(z, y, 1000.0)
    assert np.linalg.norm(w_strong) < 0.2 * np.linalg.norm(w)


def test_fitting_is_deterministic():
    z, y = candidate_like(6, 400)
    first, second = fit_logistic(z, y, 1.0), fit_logistic(z, y, 1.0)
    assert first[0].tolist() == second[0].tolist() and first[1] == second[1]


def test_fit_recovers_a_known_linear_rule():
    rng = np.random.default_rng(0)
    m = 6000
    x = np.column_stack(
        [
            rng.normal(0.3, 0.1, m),  # like cos(q,n)
            rng.normal(0.5, 0.1, m),  # like cos(q,c)
            rng.normal(0.45, 0.1, m),  # like cos(c,n)
            rng.integers(0, 4, m).astype(float),  # rank
            rng.integers(0, 2, m).astype(float),  # side
        ]
    )
    true_w = np.array([10.0, -4.0, -3.0, -0.5, 0.4])
    raw = x @ true_w
    true_b = -np.quantile(raw, 0.92)  # about 8 % positives, as imbalanced as real candidates
    y = raw + true_b > 0
    gate = fit_arrays(x, y, BASE_FEATURES, l2=1e-3)
    # back on the raw scale: w_raw = w / std
    w_raw = np.asarray(gate.weights) / np.asarray(gate.std)
    assert np.all(np.sign(w_raw) == np.sign(true_w))
    cosine = w_raw @ true_w / (np.linalg.norm(w_raw) * np.linalg.norm(true_w))
    assert cosine > 0.99
    # the balanced fit's boundary sits at p = π after the prior correction
    share = gate.fitted_on["gold_share"]
    assert share == pytest.approx(y.mean(), abs=1e-6)
    feats = np.zeros((m, len(FEATURES)))
    feats[:, :5] = x
    agree = np.mean(gate.admits(feats, p=y.mean()) == y)
    assert agree >= 0.99
    # probabilities are on the data's scale: mean predicted ≈ share of positives
    assert gate.probabilities(feats).mean() == pytest.approx(y.mean(), abs=0.05)


def test_fit_needs_both_classes():
    x = np.random.default_rng(1).normal(size=(20, 5))
    with pytest.raises(FitError, match="gold and non-gold"):
        fit_arrays(x, np.zeros(20), BASE_FEATURES)
    assert issubclass(FitError, UserError) and issubclass(FitError, ValueError)


def test_fit_gate_on_candidates_uses_unretrieved_radius_one_neighbours():
    rng = np.random.default_rng(2)
    unit = drifting_doc(rng)
    sims, golds = random_queries(rng, unit, 50)
    table = build_table(sims, unit, golds, k=4, radius=2, doc_of=one_file(len(unit)))
    gate = fit_gate(table)
    rows = ~table.is_retrieved & (table.features[:, 5] == 1)
    assert gate.feature_names == BASE_FEATURES
    assert gate.fitted_on["n_candidates"] == int(rows.sum())
    assert gate.fitted_on["n_gold"] == int(table.gold[rows].sum())
    assert gate.mean[3] == pytest.approx(table.features[rows, 3].mean())
    gate6 = fit_gate(table, radius=2)
    assert gate6.feature_names == FEATURES
    assert gate6.fitted_on["n_candidates"] == int((~table.is_retrieved).sum())
    # neighbours closer to the query are likelier gold
    assert gate.weights[0] > 0
    with pytest.raises(ValueError, match="cannot fit on r = 3"):
        fit_gate(table, radius=3)


@pytest.mark.model
def test_the_shipped_default_gate_is_reproduced_by_its_script(tmp_path):
    import subprocess
    import sys

    from tests.conftest import ROOT

    out = tmp_path / "gate.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fit_default_gate.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    fresh, shipped = LearnedGate.load(out), default_gate()
    assert fresh.feature_names == shipped.feature_names
    assert fresh.weights == pytest.approx(shipped.weights, abs=WEIGHT_TOLERANCE)
    assert fresh.intercept == pytest.approx(shipped.intercept, abs=WEIGHT_TOLERANCE)
    assert fresh.fitted_on["n_candidates"] == shipped.fitted_on["n_candidates"]


# --- many folds at once ---------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "m", "l2"), [(7, 600, 1.0), (8, 2500, 1.0), (9, 300, 0.1)])
def test_fold_fits_agree_with_fit_arrays_fold_by_fold(seed, m, l2):
    """Each fold's gate (standardised on its rows, Newton on the same objective, prior
    correction) equals scikit-learn's fit_arrays on those rows within the stated tolerance,
    and scores rows as LearnedGate.scores does."""
    rng = np.random.default_rng(seed)
    z, y = candidate_like(seed, m)
    x = z * rng.uniform(0.05, 3.0, z.shape[1]) + rng.normal(size=z.shape[1])  # raw scales
    folds = np.stack([rng.random(m) < share for share in (0.5, 0.7, 0.8, 0.8, 1.0)])
    fits = fit_folds(x, y, folds, l2)
    assert fits.ok.all()
    rows9 = np.c_[x, np.zeros((m, 4))]
    scores = fits.scores(rows9, BASE_FEATURES)
    for f, rows in enumerate(folds):
        ref = fit_arrays(x[rows], y[rows], BASE_FEATURES, l2=l2)
        got = fits.gate(f, BASE_FEATURES, {})
        for name in ("weights", "mean", "std"):
            assert np.max(np.abs(np.subtract(getattr(got, name), getattr(ref, name)))) <= (
                WEIGHT_TOLERANCE
            ), name
        assert abs(got.intercept - ref.intercept) <= WEIGHT_TOLERANCE
        assert scores[f].tolist() == got.scores(rows9).tolist()


def test_a_fold_with_one_class_is_marked_not_fitted():
    z, y = candidate_like(10, 200)
    only_negatives = y == 0
    fits = fit_folds(z, y, np.stack([np.ones(200, bool), only_negatives]))
    assert fits.ok.tolist() == [True, False]
    assert not np.any(fits.weights[1]) and fits.intercept[1] == 0.0


def test_build_table_rows_are_candidate_features():
    """The table's feature rows, built as arrays, are candidate_features row by row."""
    rng = np.random.default_rng(3)
    unit = drifting_doc(rng)
    sims, golds = random_queries(rng, unit, 12)
    table = build_table(sims, unit, golds, k=3, radius=2, doc_of=one_file(len(unit)))
    for m in range(len(table.query)):
        q, c, j = int(table.query[m]), int(table.chunk[m]), int(table.neighbour[m])
        rank = top_k(sims[q], 3).index(c)
        want = candidate_features(sims[q], unit, c, rank, j, abs(j - c))
        np.testing.assert_array_equal(table.features[m], want)
