"""What following the verdict yields, the choice itself held out (docs/method.md §9).

Every candidate's figure is out of fold, but the verdict is the best of ~180 such figures
chosen on those same figures, so the winner's figure carries the winner's curse: on a few dozen
queries it promises several points the user will not see on new queries. The nested estimate
holds the choice out too. For each outer fold f of each repeat r:

1. the whole verdict procedure runs on the other folds' queries alone: every candidate is
   cross-validated there with the remaining folds as inner folds (each tuned candidate tuned
   on the inner training folds, read on the inner held-out fold), and the candidate with the
   most mean recall within the budget is chosen by the verdict's own rule (:func:`best_of`;
   the budget is the user's, or the reference's mean tokens on those queries);
2. the chosen candidate is read on fold f, at its setting tuned on the other folds: its
   out-of-fold figure of repeat r for those queries.

Each query's held-out recall is the mean over the repeats; the expected gain is the mean over
queries of that recall minus the reference's, and its interval the 95 % paired bootstrap
interval over queries of those per-query differences (the outer folds' choices held fixed, so
it leaves out the spread from choosing again on other queries).

The inner training sets are the outer folds of the same repeat (fold f's training set split
by the other K − 1 folds), so every candidate's inner figures come from the same machinery as
its outer ones, for R·K·(K − 1) more training sets (:meth:`~scar_viz.evaluation.folds.Folds.
inner_training`). This needs K ≥ 3 (15 queries); with fewer the estimate is not given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.evaluation.bootstrap import DEFAULT_BOOT, DEFAULT_SEED, paired_bootstrap
from scar_viz.evaluation.crossval import Candidate
from scar_viz.evaluation.folds import Folds


def best_of(
    recall: np.ndarray,
    tokens: np.ndarray,
    budget: float,
    available: np.ndarray | None = None,
) -> int:
    """The verdict's rule on mean figures (C,): the most recall among those whose tokens are
    ≤ ``budget`` (ties: fewer tokens, then the lower index); when none fits, the fewest tokens
    (ties: more recall, then the lower index). ``available`` (C,) leaves candidates out."""
    recall = np.round(np.asarray(recall, dtype=np.float64), 12)
    tokens = np.round(np.asarray(tokens, dtype=np.float64), 9)
    ok = np.ones(len(recall), dtype=bool) if available is None else np.asarray(available, bool)
    order = np.arange(len(recall))
    fits = ok & (tokens <= budget + 1e-9)
    if fits.any():
        return int(
            np.lexsort((order, np.where(fits, tokens, np.inf), -np.where(fits, recall, -np.inf)))[0]
        )
    return int(np.lexsort((order, -np.where(ok, recall, -np.inf), np.where(ok, tokens, np.inf)))[0])


@dataclass(frozen=True)
class NestedEstimate:
    """The nested estimate: ``gain`` (mean held-out recall of following the verdict minus the
    reference's) with its 95 % interval, the per-query held-out ``recall`` and ``tokens`` (Q,)
    (means over the repeats), and ``chosen`` (R, K): the candidate each outer fold chose."""

    gain: float
    ci_low: float
    ci_high: float
    recall: np.ndarray
    tokens: np.ndarray
    chosen: np.ndarray

    @property
    def agreement(self) -> float:
        """The share of outer folds whose choice was ``chosen``'s most frequent one."""
        _, counts = np.unique(self.chosen, return_counts=True)
        return float(counts.max() / self.chosen.size)


def nested_estimate(
    candidates: Sequence[Candidate],
    reference: int,
    folds: Folds,
    budget: float | None,
    n_boot: int = DEFAULT_BOOT,
    seed: int = DEFAULT_SEED,
) -> NestedEstimate | None:
    """The module docstring's estimate over ``candidates`` (from
    :func:`~scar_viz.evaluation.crossval.cross_validate` on ``folds``); None when K < 3.

    Args:
        reference: the index of the reference candidate (a fixed one: its figures are the
            same on every training set).
        budget: the user's token budget (None: the reference's mean tokens on each outer
            training set).
    """
    if not folds.nestable or any(c.nested_recall is None for c in candidates):
        return None
    rec = np.stack([np.asarray(c.nested_recall) for c in candidates])  # (C, R, K, Q)
    tok = np.stack([np.asarray(c.nested_tokens) for c in candidates])
    ref = candidates[reference]
    n_rep, n_q = folds.repeats, folds.n_queries
    got_r, got_t = np.empty((n_rep, n_q)), np.empty((n_rep, n_q))
    chosen = np.empty((n_rep, folds.k), dtype=np.int64)
    for r in range(n_rep):
        for f in range(folds.k):
            train = folds.fold[r] != f
            m_rec = rec[:, r, f][:, train].mean(axis=1)
            m_tok = tok[:, r, f][:, train].mean(axis=1)
            b = float(budget) if budget is not None else float(ref.tokens[train].mean())
            i = best_of(m_rec, m_tok, b, np.isfinite(m_rec) & np.isfinite(m_tok))
            chosen[r, f] = i
            got_r[r, ~train] = rec[i, r, f][~train]
            got_t[r, ~train] = tok[i, r, f][~train]
    recall, tokens = got_r.mean(axis=0), got_t.mean(axis=0)
    boot = paired_bootstrap(recall, ref.recall, n_boot, seed)
    return NestedEstimate(boot.mean_diff, boot.ci_low, boot.ci_high, recall, tokens, chosen)
