"""Fitting a learned gate: L2-regularised logistic regression with balanced class weights.

The gate is fitted on the radius-1 neighbours of the top-k that are not themselves retrieved,
labelled by gold membership
(:meth:`~scar_viz.scoring.learned.features.CandidateTable.training_rows`).
Gold candidates are rare (5–10 %), so each class gets total weight N/2 (balanced class weights)
to find the direction w; the intercept is then shifted by logit(π), π the training share of
gold candidates (prior correction), so σ reads as a probability of being gold on data like the
training set and small p such as 0.04 are meaningful thresholds.

The fit is scikit-learn's ``LogisticRegression`` (solver lbfgs, deterministic: it starts from
zero and draws nothing at random) on the standardised features. It maximises

    Σ_i s_i·[y_i·log σ(z_i·w + b) + (1 − y_i)·log(1 − σ(z_i·w + b))] − l2/2·‖w‖²

with s_i the balanced class weight N / (2·N_class) and the intercept b not penalised (lbfgs
leaves the intercept out of the penalty).

Tolerance: on the same data, its weights and intercept agree with a Newton (IRLS) solution of
that objective to max |Δ| ≤ 1e-5 (:data:`WEIGHT_TOLERANCE`; about 3e-7 at worst when measured
on 60 fits like the gate's; ``tests/scoring/learned/test_fit.py`` keeps the Newton reference).
Fitted gates, and figures computed with them, may move from the exact optimum by that much.

Many fits at once (:func:`fit_folds`): the cross-validated verdict fits one gate per training
fold, feature set, retriever and k (16 × 2 × 3 × 10 = 960 fits on 248 queries). One
``LogisticRegression`` fit took about 90 ms there (measured on a 1,543-chunk corpus, 248
queries, k = 1 … 10), about 85 s for all of them against the verdict's 30 s target, so those
fits solve the same objective by Newton's method (IRLS) for every fold at once in numpy
(stacked matrix products), and fall back on scikit-learn for a fold that does not converge.
They agree with :func:`fit_arrays` to :data:`WEIGHT_TOLERANCE` (``tests/scoring/learned/
test_fit.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.common.errors import UserError
from scar_viz.runtime.blas import one_blas_thread
from scar_viz.scoring.learned.features import (
    ALL_FEATURES,
    BASE_FEATURES,
    CandidateTable,
    gate_features,
)
from scar_viz.scoring.learned.model import LearnedGate
from scar_viz.scoring.params import DEFAULT_RADIUS

DEFAULT_L2 = 1.0
"""Default L2 penalty on the standardised weights (the intercept is not penalised)."""
WEIGHT_TOLERANCE = 1e-5
"""How far a fitted weight or intercept may lie from the exact optimum (module docstring)."""
_TOL = 1e-10
"""lbfgs's gradient tolerance, tight enough for :data:`WEIGHT_TOLERANCE`."""
_MAX_ITER = 1000


class FitError(UserError, ValueError):
    """A query set a gate cannot be fitted on (e.g. no gold neighbour among the candidates)."""


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = DEFAULT_L2) -> tuple[np.ndarray, float]:
    """Balanced-weight, L2-regularised logistic regression (module docstring's objective).

    scikit-learn minimises ``C·Σ_i s_i·loss_i + ½‖w‖²``; dividing by C gives
    ``Σ_i s_i·loss_i + 1/(2C)·‖w‖²``, which is our objective when C = 1 / l2 (the sum is not
    averaged, so no factor of N); l2 = 0 is C = ∞, no penalty.

    Returns:
        (w, b), the intercept before any prior correction.
    """
    # Imported here: scikit-learn takes seconds to import, and only fitting needs it.
    from sklearn.linear_model import LogisticRegression

    c = math.inf if l2 == 0 else 1.0 / float(l2)
    model = LogisticRegression(
        C=c, class_weight="balanced", solver="lbfgs", tol=_TOL, max_iter=_MAX_ITER
    )
    model.fit(np.asarray(x, dtype=np.float64), np.asarray(y).astype(int).reshape(-1))
    return model.coef_[0].astype(np.float64), float(model.intercept_[0])


def fit_arrays(
    x: np.ndarray,
    y: np.ndarray,
    feature_names: Sequence[str] = BASE_FEATURES,
    *,
    l2: float = DEFAULT_L2,
    fitted_on: Mapping[str, object] | None = None,
) -> LearnedGate:
    """Fit a gate on raw feature rows ``x`` (M, n) in ``feature_names`` order, labels ``y``.

    Standardises ``x`` (a constant column keeps std 1), fits with balanced class weights, then
    shifts the intercept by logit(π), π the share of positives.

    Raises:
        FitError: when there are no rows, or only one class.
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    n_pos, n = int(y.sum()), len(y)
    if n == 0 or n_pos == 0 or n_pos == n:
        raise FitError(
            f"Fitting needs gold and non-gold candidates; got {n} candidates of which "
            f"{n_pos} gold. Use more labelled queries or a larger k."
        )
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    std = np.where(std > 1e-12, std, 1.0)
    w, b = fit_logistic((x - mean) / std, y, l2=l2)
    prior = n_pos / n
    b_corrected = b + math.log(prior) - math.log1p(-prior)
    meta = {
        **dict(fitted_on or {}),
        "n_candidates": n,
        "n_gold": n_pos,
        "gold_share": round(prior, 6),
        "l2": float(l2),
        "class_weight": "balanced",
        "intercept_before_prior_correction": float(b),
    }
    return LearnedGate(
        tuple(feature_names),
        tuple(float(v) for v in w),
        float(b_corrected),
        tuple(float(v) for v in mean),
        tuple(float(v) for v in std),
        meta,
    )


def fit_gate(
    table: CandidateTable,
    *,
    l2: float = DEFAULT_L2,
    radius: int = DEFAULT_RADIUS,
    fitted_on: Mapping[str, object] | None = None,
    features: str = "base",
) -> LearnedGate:
    """Fit a gate on the labelled candidates of ``table``.

    Uses the candidates up to distance ``radius`` that are not retrieved; ``radius`` > 1 adds
    the distance feature, ``features="lexical"`` the three lexical ones (the table must have
    been built with lexical evidence). Balanced class weights find the direction; the intercept
    is then prior-corrected by logit(π) (module docstring).

    Raises:
        FitError: when there are no candidates, only one class, or lexical features asked of a
            table without them.
        ValueError: when ``radius`` exceeds the table's.
    """
    radius = max(1, int(radius))
    if radius > table.radius:
        raise ValueError(f"The candidates reach r = {table.radius}; cannot fit on r = {radius}.")
    rows = table.training_rows(radius)
    names = gate_features(features, radius)
    x = table.features[rows][:, [ALL_FEATURES.index(f) for f in names]]
    if np.isnan(x).any():
        raise FitError("Lexical features need the question and chunk texts; none were given.")
    meta = {**dict(fitted_on or {}), "k": table.k, "radius": radius, "n_queries": table.n_queries}
    if features != "base":
        meta["features"] = features
    return fit_arrays(x, table.gold[rows], names, l2=l2, fitted_on=meta)


_NEWTON_TOL = 1e-10
_NEWTON_ITER = 50


@dataclass(frozen=True)
class FoldFits:
    """One gate per fold from :func:`fit_folds`: ``weights`` (F, n), ``intercept`` (F,) after
    the prior correction, ``mean`` and ``std`` (F, n); ``ok`` (F,) is False where a fold's rows
    hold one class only (nothing fitted; its row is zeros)."""

    weights: np.ndarray
    intercept: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    ok: np.ndarray

    def scores(self, features: np.ndarray, feature_names: Sequence[str]) -> np.ndarray:
        """(F, M) w·z + b of feature rows (M, 9) in :data:`ALL_FEATURES` order under each
        fold's gate over ``feature_names``: :meth:`LearnedGate.scores` itself, so a fold's
        figures are those of its gate saved and read back."""
        return np.stack(
            [self.gate(f, feature_names, {}).scores(features) for f in range(len(self.ok))]
        )

    def gate(
        self, f: int, feature_names: Sequence[str], fitted_on: Mapping[str, object]
    ) -> LearnedGate:
        """Fold ``f``'s gate as a :class:`LearnedGate`."""
        return LearnedGate(
            tuple(feature_names),
            tuple(float(v) for v in self.weights[f]),
            float(self.intercept[f]),
            tuple(float(v) for v in self.mean[f]),
            tuple(float(v) for v in self.std[f]),
            dict(fitted_on),
        )


def fit_folds(x: np.ndarray, y: np.ndarray, folds: np.ndarray, l2: float = DEFAULT_L2) -> FoldFits:
    """:func:`fit_arrays`' gate on each fold's rows at once: ``folds`` (F, M) marks the rows
    each fold fits on (its training rows); ``x`` (M, n) raw features, ``y`` (M,) labels.

    Per fold: standardise on its rows (a constant column keeps std 1), maximise the module
    docstring's objective by Newton's method from zero (to a step below 1e-10; scikit-learn
    where that does not converge), shift the intercept by logit(π).

    Every fold's standardised design is the one shared matrix X = [x₀, 1] (x₀: ``x`` centred
    and scaled on all rows) times a small affine matrix A_f, so each Newton step works on
    X (M, n+1) and (F, M) arrays: η_f = X·(A_f·β_f), the gradient A_fᵀ·Xᵀ·r_f, the Hessian
    A_fᵀ·(Xᵀ·diag(h_f)·X)·A_f, the middle product one matrix product over the rows' outer
    products. The same objective and steps as building each fold's standardised matrix (the
    verdict's nested choice fits ~77 folds a step; measured 17 s → below 2 s of its run).
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    use = np.atleast_2d(np.asarray(folds, dtype=bool))
    n_f, (m, n) = use.shape[0], x.shape
    rows = use.astype(np.float64)
    count = rows.sum(axis=1)
    n_pos = rows @ y
    ok = (n_pos > 0) & (n_pos < count)
    safe = np.maximum(count, 1.0)
    m0 = x.mean(axis=0) if m else np.zeros(n)
    s0 = x.std(axis=0) if m else np.ones(n)
    s0 = np.where(s0 > 1e-12, s0, 1.0)
    x0 = (x - m0) / s0
    mean0 = rows @ x0 / safe[:, None]
    var0 = np.maximum(rows @ (x0 * x0) / safe[:, None] - mean0 * mean0, 0.0)
    mean = m0 + s0 * mean0
    std = s0 * np.sqrt(var0)
    std = np.where(std > 1e-12, std, 1.0)
    design = np.c_[x0, np.ones(m)]  # (M, n+1)
    outer = (design[:, :, None] * design[:, None, :]).reshape(m, -1)
    a = np.zeros((n_f, n + 1, n + 1))
    idx = np.arange(n)
    a[:, idx, idx] = s0[None] / std
    a[:, n, :n] = (m0[None] - mean) / std
    a[:, n, n] = 1.0
    pos_w = np.where(ok, count / (2.0 * np.maximum(n_pos, 1)), 0.0)
    neg_w = np.where(ok, count / (2.0 * np.maximum(count - n_pos, 1)), 0.0)
    s = rows * np.where(y[None] > 0, pos_w[:, None], neg_w[:, None])
    reg = np.full(n + 1, float(l2))
    reg[-1] = 0.0
    beta = np.zeros((n_f, n + 1))
    done = ~ok
    with one_blas_thread():
        _newton(design, outer, a, s, y, reg, beta, done)
    for f in np.flatnonzero(~done | ~np.isfinite(beta).all(axis=1)):
        z = (x[use[f]] - mean[f]) / std[f]
        w, b = fit_logistic(z, y[use[f]], l2=l2)
        beta[f] = np.append(w, b)
    prior = np.where(ok, n_pos / safe, 0.5)
    intercept = beta[:, n] + np.log(prior) - np.log1p(-prior)
    weights = beta[:, :n].copy()
    weights[~ok], intercept[~ok] = 0.0, 0.0
    return FoldFits(weights, np.where(ok, intercept, 0.0), mean, std, ok)


def _newton(
    design: np.ndarray,
    outer: np.ndarray,
    a: np.ndarray,
    s: np.ndarray,
    y: np.ndarray,
    reg: np.ndarray,
    beta: np.ndarray,
    done: np.ndarray,
) -> None:
    """:func:`fit_folds`' Newton steps, updating ``beta`` and ``done`` in place."""
    n = design.shape[1] - 1
    for _ in range(_NEWTON_ITER):
        live = np.flatnonzero(~done)
        al, bl, sl = a[live], beta[live], s[live]
        eta = np.einsum("fij,fj->fi", al, bl) @ design.T
        prob = 1.0 / (1.0 + np.exp(-eta))
        g_raw = (sl * (y[None] - prob)) @ design
        grad = np.einsum("fji,fj->fi", al, g_raw) - reg * bl
        h_raw = ((sl * prob * (1.0 - prob)) @ outer).reshape(-1, n + 1, n + 1)
        hess = np.matmul(al.transpose(0, 2, 1), np.matmul(h_raw, al)) + np.diag(reg)[None]
        step = np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        beta[live] += step
        done[live] |= np.abs(step).max(axis=1) < _NEWTON_TOL
        if done.all():
            break
