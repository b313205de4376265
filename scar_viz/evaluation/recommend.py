"""The verdict: which retriever, which expansion, at which k and setting, for how many tokens
(docs/method.md §9).

Every candidate (:mod:`scar_viz.evaluation.crossval`: dense, BM25 and hybrid retrieval × top-k,
window ±1, SCAR tuned, SCAR presets A and B, the learned gate × k = 1 … 10) is cross-validated:
K folds (default 5) stratified by query type, R repeats (default 3), every tuned thing tuned on
the training folds alone, every figure out of fold, per query. The queries are put in id order
first, so the order of the query file changes nothing.

The decision rule, at a token budget B (default: the reference's mean tokens; the reference is
window ±1 at the user's k under dense retrieval):

- the verdict is the candidate with the most mean recall among those whose mean tokens are
  ≤ B (ties: fewer tokens, then the listing order); when none fits, the fewest tokens;
- the runner-up is the best candidate within B of another option (another retriever or
  another expansion; the same expansion at another k is not a rival: k is part of a setting);
- ``decided`` when the 95 % paired bootstrap interval of the per-query recall difference
  (verdict − runner-up) lies above 0; otherwise the words say the two cannot be told apart
  and roughly how many more labelled queries would separate them
  (:mod:`scar_viz.views.verdict_words` says the verdict, answer first, and that guide).

Each candidate also carries the 95 % paired bootstrap interval of its recall difference from
the reference (same B resamples for all).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.common.errors import SettingsError
from scar_viz.evaluation.bootstrap import (
    DEFAULT_BOOT,
    DEFAULT_SEED,
    PairedBootstrap,
    paired_bootstrap,
    paired_intervals,
)
from scar_viz.evaluation.crossval import (
    EXPANSIONS,
    POLICY_OF,
    Candidate,
    CrossValidation,
    Progress,
    cross_validate,
)
from scar_viz.evaluation.folds import DEFAULT_FOLDS, DEFAULT_REPEATS, assign_folds
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.nested import NestedEstimate, best_of, nested_estimate
from scar_viz.evaluation.run_json import rounded
from scar_viz.evaluation.settings import ChosenSettings
from scar_viz.retrieval import DEFAULT_K_RRF, RETRIEVERS
from scar_viz.runtime.blas import one_blas_thread
from scar_viz.scoring.params import DEFAULT_K, DEFAULT_RADIUS

RECOMMEND_KS = tuple(range(1, 11))
"""The k every candidate is tried at: 1 … 10."""
VERDICT_POLICIES = ("topk", "window1", "scar", "learned")
"""The policies the verdict compares (``eval``'s names); ``scar`` brings the tuned setting and
presets A and B."""


@dataclass(frozen=True)
class Scored:
    """A candidate and its recall difference from the reference: the mean and the 95 %
    paired bootstrap interval (0, 0, 0 for the reference itself)."""

    candidate: Candidate
    diff: float
    ci_low: float
    ci_high: float

    def as_json(self) -> dict[str, object]:
        """The ``candidates`` entry of ``recommend --json``."""
        c = self.candidate
        return {
            **c.setting_json(),
            "recall": rounded(c.mean_recall),
            "recall_ci": [rounded(self.ci_low), rounded(self.ci_high)],
            "mean_chunks": rounded(c.mean_chunks),
            "mean_tokens": rounded(c.mean_tokens),
        }


@dataclass(frozen=True)
class Verdict:
    """The cross-validated candidates, the verdict, the runner-up and whether they differ."""

    cv: CrossValidation
    scored: tuple[Scored, ...]
    best: int
    runner_up: int | None
    budget_tokens: float
    budget_given: bool
    versus: PairedBootstrap | None
    """Verdict − runner-up, per-query recall (None without a runner-up)."""
    k_rrf: float = DEFAULT_K_RRF
    nested: NestedEstimate | None = None
    """What following the verdict yields, the choice held out (None when K < 3)."""

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        return self.cv.candidates

    @property
    def chosen(self) -> Candidate:
        return self.cv.candidates[self.best]

    @property
    def rival(self) -> Candidate | None:
        return None if self.runner_up is None else self.cv.candidates[self.runner_up]

    @property
    def reference(self) -> Candidate:
        return self.cv.candidates[self.cv.reference]

    @property
    def fits(self) -> bool:
        """Some candidate stays within the budget."""
        return self.chosen.mean_tokens <= self.budget_tokens + 1e-9

    @property
    def claimed_gain(self) -> float:
        """The verdict's own out-of-fold recall minus the reference's (best of many)."""
        return self.chosen.mean_recall - self.reference.mean_recall

    @property
    def gain_held_out(self) -> bool:
        """Following the verdict beats the reference with the choice held out: the nested
        estimate's interval lies above 0 (always so when the verdict is the reference)."""
        if self.best == self.cv.reference:
            return True
        return self.nested is not None and self.nested.ci_low > 0

    @property
    def decided(self) -> bool:
        """Within the budget, the runner-up (if any) beaten with an interval above 0, and,
        unless the verdict is the reference, following it beats the reference with the choice
        itself held out (the nested estimate's interval above 0)."""
        if not self.fits:
            return False
        return (self.versus is None or self.versus.ci_low > 0) and self.gain_held_out

    @property
    def folds(self) -> int:
        return self.cv.folds.k

    @property
    def repeats(self) -> int:
        return self.cv.folds.repeats

    @property
    def n_queries(self) -> int:
        return len(self.cv.ids)

    def as_json(self) -> dict[str, object]:
        """The ``recommend --json`` contract (docs/cli.md)."""
        e = self.nested
        return {
            "verdict": {
                **self.chosen.setting_json(),
                "decided": self.decided,
                "expected_gain": None if e is None else rounded(e.gain),
                "expected_gain_ci": None if e is None else [rounded(e.ci_low), rounded(e.ci_high)],
            },
            "folds": self.folds,
            "repeats": self.repeats,
            "budget_tokens": rounded(self.budget_tokens),
            "candidates": [s.as_json() for s in self.scored],
        }

    def settings(self, **chosen_on: object) -> ChosenSettings:
        """The verdict's setting for ``--save`` and *Apply* (the learned gate refitted on all
        queries); the file says what it was chosen on (document, model, chunking, prepending,
        the queries, folds and figures), and ``chosen_on`` adds to that."""
        c = self.chosen
        return c.setting(
            self.k_rrf,
            {
                **self.cv.meta,
                **chosen_on,
                "n_queries": self.n_queries,
                "folds": self.folds,
                "repeats": self.repeats,
                "budget_tokens": rounded(self.budget_tokens),
                "recall": rounded(c.mean_recall),
                "mean_tokens": rounded(c.mean_tokens),
                "decided": self.decided,
                "expected_gain": None if self.nested is None else rounded(self.nested.gain),
            },
        )


def decide(candidates: Sequence[Candidate], budget: float) -> tuple[int, int | None]:
    """(verdict, runner-up) indices by the module docstring's rule (runner-up None when no
    other option fits the budget, or when nothing does)."""
    recall = np.array([c.mean_recall for c in candidates])
    tokens = np.array([c.mean_tokens for c in candidates])
    best = best_of(recall, tokens, budget)
    within = tokens <= budget + 1e-9
    if not within.any():
        return best, None
    others = within & np.array([c.option != candidates[best].option for c in candidates])
    return best, (best_of(recall, tokens, budget, others) if others.any() else None)


def recommend(
    run: LabelledRun,
    *,
    reference_k: int = DEFAULT_K,
    budget: float | None = None,
    folds: int = DEFAULT_FOLDS,
    repeats: int = DEFAULT_REPEATS,
    retrievers: Sequence[str] = RETRIEVERS,
    policies: Sequence[str] = VERDICT_POLICIES,
    ks: Sequence[int] = RECOMMEND_KS,
    radius: int = DEFAULT_RADIUS,
    mu: float = 0.0,
    n_boot: int = DEFAULT_BOOT,
    seed: int = DEFAULT_SEED,
    progress: Progress | None = None,
) -> Verdict:
    """Cross-validate every candidate on a labelled run and give the verdict (module
    docstring); the run's retriever gives hybrid's RRF constant.

    Args:
        reference_k: the k of the reference, window ±1 (dense, or the only retriever given).
        budget: mean context tokens a query (None: the reference's).
        folds, repeats: K and R; ``seed`` … ``seed + R − 1`` assign the folds, ``seed`` draws
            the bootstrap's ``n_boot`` resamples.
        retrievers: the candidates' retrievers (a subset of dense, bm25, hybrid).
        policies: the candidates' policies (a subset of :data:`VERDICT_POLICIES`).
        mu: μ > 0 lets tuned SCAR choose μ ∈ {0, mu} on the training folds.
        progress: ``progress(done, total)`` as the (retriever, k) steps finish.

    Raises:
        SettingsError: too few queries (10), duplicate ids, an unknown retriever or policy, a
            budget ≤ 0, B < 1, k < 1, r < 0 or μ < 0.
    """
    if budget is not None and not budget > 0:
        raise SettingsError("The token budget must be more than 0.")
    if n_boot < 1:
        raise SettingsError("The bootstrap needs at least one resample (B ≥ 1).")
    unknown = [p for p in policies if p not in VERDICT_POLICIES]
    if unknown or not policies:
        got = ", ".join(unknown) or "none"
        raise SettingsError(f"The verdict compares {', '.join(VERDICT_POLICIES)}; got {got}.")
    bad = sorted(set(retrievers) - set(RETRIEVERS))
    if bad or not retrievers:
        raise SettingsError(
            f"Choose retrievers among {', '.join(RETRIEVERS)}; got {bad or 'none'}."
        )
    retrievers = [r for r in RETRIEVERS if r in set(retrievers)]
    run = run.by_id()
    assigned = assign_folds(run.queries, folds, repeats, seed)
    reference = ("dense" if "dense" in retrievers else retrievers[0], int(reference_k))
    expansions = [e for e in EXPANSIONS if POLICY_OF[e] in set(policies)]
    with one_blas_thread():
        cv = cross_validate(
            run,
            assigned,
            reference=reference,
            ks=ks,
            retrievers=retrievers,
            expansions=expansions,
            budget=budget,
            radius=radius,
            mus=(0.0, float(mu)) if mu else (0.0,),
            progress=progress,
        )
        cands = cv.candidates
        ref = cands[cv.reference]
        tokens = float(budget) if budget is not None else ref.mean_tokens
        diff, low, high = paired_intervals(
            np.stack([c.recall for c in cands]), ref.recall, n_boot, seed
        )
        scored = tuple(
            Scored(c, *(0.0, 0.0, 0.0) if i == cv.reference else (diff[i], low[i], high[i]))
            for i, c in enumerate(cands)
        )
        best, runner = decide(cands, tokens)
        versus = (
            None
            if runner is None
            else paired_bootstrap(cands[best].recall, cands[runner].recall, n_boot, seed)
        )
        nested = nested_estimate(cands, cv.reference, assigned, budget, n_boot, seed)
    return Verdict(
        cv, scored, best, runner, tokens, budget is not None, versus, run.retriever.k_rrf, nested
    )
