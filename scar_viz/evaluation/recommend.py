"""The verdict: should SCAR replace window ±1 on this query set, and at which (k, λ, τ)?

The labelled queries are split in two (:func:`~scar_viz.evaluation.queries.split_alternate`);
the setting is tuned on the tune half and judged on the check half, which it never saw.

Tuning (the vectorised sweep, :mod:`scar_viz.scoring.sweep`), for every k of ``ks``:

    W(k)        = window ±1's recall on the tune half at k
    best(k)     = the (λ, τ) of the λ×τ grid with the fewest mean chunks among those whose
                  recall ≥ W(k) − 0.01 (:func:`~scar_viz.evaluation.best_point.frugal_best`)

and the setting is the best(k) with the fewest mean chunks (ties: higher recall, then the
smaller k) among the k whose best(k) keeps the recall of window ±1 at the reference k:
recall(best(k)) ≥ W(k_ref) − 0.01. Without that guard the fewest chunks is nearly always
k = 1, where window ±1 itself finds little; with it, a smaller k is chosen only when it loses
no more than a point against the window at the k the user runs.

Checking: SCAR at the setting and window ±1 at the same k on the check half
(:func:`~scar_viz.evaluation.evaluate`, so ``eval`` on the check queries gives the same
figures), the paired bootstrap of the token and chunk saving (window − SCAR per query,
:mod:`scar_viz.evaluation.bootstrap`) and of the recall change (SCAR − window), and the equal
budget (:mod:`scar_viz.evaluation.budget`) of every policy at k = 1 … 10 on the check half: is
SCAR at the setting on the front; if not, the point that beats it.

The verdict (:attr:`Verdict.kind`):

- ``keep the window``: on the check half SCAR loses more than a recall point to window ±1, or
  its token saving's 95 % interval does not lie above 0, or a window beats it at equal budget;
- ``other``: SCAR saves, but another policy (not a window) beats it at equal budget;
- ``use SCAR``: it keeps window ±1's recall, saves tokens with an interval above 0, and is on
  the equal-budget front.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.errors import SettingsError
from scar_viz.evaluation.best_point import DEFAULT_TOLERANCE, frugal_best, window_baseline
from scar_viz.evaluation.bootstrap import (
    DEFAULT_BOOT,
    DEFAULT_SEED,
    PairedBootstrap,
    paired_bootstrap,
)
from scar_viz.evaluation.budget import BUDGET_KS, BudgetPoint, equal_budget
from scar_viz.evaluation.queries import GoldQuery, split_alternate
from scar_viz.evaluation.run import Embed, candidates_for, default_policies, evaluate
from scar_viz.evaluation.run_json import rounded
from scar_viz.pipeline import PreparedDoc
from scar_viz.scoring.params import DEFAULT_PARAMS, GateParams
from scar_viz.scoring.sweep import LAMS, TAUS, sweep

RECOMMEND_KS = tuple(range(1, 11))
"""The k the verdict tries: 1 … 10."""

KEEP_WINDOW, USE_SCAR, OTHER = "keep the window", "use SCAR", "other"


@dataclass(frozen=True)
class Figures:
    """One policy on the check half: mean recall, unique chunks and context tokens."""

    recall: float
    mean_chunks: float
    mean_tokens: float

    def as_dict(self) -> dict[str, float | None]:
        return {
            "recall": rounded(self.recall),
            "mean_chunks": rounded(self.mean_chunks),
            "mean_tokens": rounded(self.mean_tokens),
        }


@dataclass(frozen=True)
class TunePoint:
    """The tuned setting at one k on the tune half, and window ±1's figures there."""

    k: int
    lam: float
    tau: float
    recall: float
    mean_chunks: float
    window_recall: float
    window_chunks: float


@dataclass(frozen=True)
class Verdict:
    """The tuned setting, what it does on the check half, and the verdict.

    ``token_saving`` / ``chunk_saving`` bootstrap window ±1 − SCAR per query (positive: SCAR
    sends less); ``recall_change`` SCAR − window ±1. ``beaten_by`` is the equal-budget point
    of another policy that beats SCAR at the setting (fewer or equal tokens and higher or
    equal recall, one strictly; the highest recall of those, then the fewest tokens), None
    when it is on the front of the other policies (SCAR at another k with the same λ, τ is not
    a rival: the tuning chose k).
    """

    params: GateParams
    tune_ids: tuple[str, ...]
    check_ids: tuple[str, ...]
    per_k: tuple[TunePoint, ...]
    scar: Figures
    window1: Figures
    learned: Figures | None
    token_saving: PairedBootstrap
    chunk_saving: PairedBootstrap
    recall_change: PairedBootstrap
    scar_point: BudgetPoint
    beaten_by: BudgetPoint | None
    reference_k: int

    @property
    def k(self) -> int:
        return self.params.k

    @property
    def lam(self) -> float:
        return self.params.lam

    @property
    def tau(self) -> float:
        return self.params.tau

    @property
    def recall_kept(self) -> bool:
        """SCAR's check recall is within a point of window ±1's."""
        return self.scar.recall >= self.window1.recall - DEFAULT_TOLERANCE - 1e-12

    @property
    def saves(self) -> bool:
        """The token saving's interval lies above 0."""
        return self.token_saving.ci_low > 0

    @property
    def kind(self) -> str:
        """``keep the window``, ``use SCAR`` or ``other`` (see the module docstring)."""
        if not (self.recall_kept and self.saves):
            return KEEP_WINDOW
        if self.beaten_by is None:
            return USE_SCAR
        return KEEP_WINDOW if self.beaten_by.policy.startswith("window") else OTHER

    @property
    def penalty_off(self) -> bool:
        """λ = 0: the boundary penalty is off and SCAR reduces to a relative bar."""
        return self.lam == 0

    @property
    def keep_window(self) -> bool:
        return self.kind == KEEP_WINDOW

    def setting(self) -> str:
        return f"k = {self.k}, λ = {self.lam:.2f}, τ = {self.tau:.2f}"

    def sentence(self) -> str:
        """The verdict in one sentence."""
        n = len(self.check_ids)
        tok, ch = self.token_saving, self.chunk_saving
        saved = (
            f"{tok.mean_diff:,.0f} tokens (95 % CI {tok.ci_low:,.0f} to {tok.ci_high:,.0f}) and "
            f"{ch.mean_diff:.2f} chunks a query"
        )
        recall = f"{self.scar.recall:.3f} against {self.window1.recall:.3f} for window ±1"
        at = f"SCAR at {self.setting()}"
        beat = self.beaten_by
        if not self.recall_kept:
            return (
                f"Keep the window: on {n} unseen queries {at} loses recall ({recall}) while "
                f"saving {saved}."
            )
        if not self.saves:
            return (
                f"Keep the window: on {n} unseen queries {at} keeps recall ({recall}) but its "
                f"saving is not sure: {saved}."
            )
        if beat is not None:
            head = (
                f"Keep the window: window ±{beat.policy[6:]}"
                if self.kind == KEEP_WINDOW
                else f"Use {beat.policy}"
            )
            return (
                f"{head} at k = {beat.k}: it does better at equal budget (recall "
                f"{beat.recall:.3f} at {beat.mean_tokens:,.0f} tokens) than {at} "
                f"({self.scar_point.recall:.3f} at {self.scar_point.mean_tokens:,.0f}), though "
                f"SCAR saves {saved} against window ±1."
            )
        return (
            f"Use {at}: on {n} unseen queries it keeps window ±1's recall ({recall}) and saves "
            f"{saved}; no policy beats it at equal budget."
        )

    def as_json(self) -> dict[str, object]:
        """The ``recommend --json`` shape."""

        def interval(b: PairedBootstrap) -> dict[str, object]:
            return {
                "mean": rounded(b.mean_diff),
                "ci_low": rounded(b.ci_low),
                "ci_high": rounded(b.ci_high),
                "p_value": rounded(b.p_value),
                "n_boot": b.n_boot,
                "seed": b.seed,
            }

        def point(p: BudgetPoint | None) -> dict[str, object] | None:
            if p is None:
                return None
            return {
                "policy": p.policy,
                "k": p.k,
                "recall": rounded(p.recall),
                "mean_tokens": rounded(p.mean_tokens),
            }

        check = {"scar": self.scar.as_dict(), "window1": self.window1.as_dict()}
        if self.learned is not None:
            check["learned"] = self.learned.as_dict()
        return {
            "verdict": self.kind,
            "sentence": self.sentence(),
            "k": self.k,
            "lam": self.lam,
            "tau": self.tau,
            "radius": self.params.radius,
            "reference_k": self.reference_k,
            "tune_ids": list(self.tune_ids),
            "check_ids": list(self.check_ids),
            "check": check,
            "token_saving": interval(self.token_saving),
            "chunk_saving": interval(self.chunk_saving),
            "recall_change": interval(self.recall_change),
            "equal_budget": {
                "on_front": self.beaten_by is None,
                "scar": point(self.scar_point),
                "beaten_by": point(self.beaten_by),
            },
            "tuning": [
                {
                    "k": t.k,
                    "lam": t.lam,
                    "tau": t.tau,
                    "recall": rounded(t.recall),
                    "mean_chunks": rounded(t.mean_chunks),
                    "window1_recall": rounded(t.window_recall),
                    "window1_chunks": rounded(t.window_chunks),
                }
                for t in self.per_k
            ],
        }


def tune_per_k(
    prep: PreparedDoc,
    queries: Sequence[GoldQuery],
    query_vecs: np.ndarray,
    ks: Sequence[int] = RECOMMEND_KS,
    radius: int = DEFAULT_PARAMS.radius,
) -> tuple[TunePoint, ...]:
    """best(k) for every k of ``ks`` (module docstring), on ``queries``; a k where no grid
    setting reaches window ±1's recall is left out."""
    out = []
    for k in ks:
        cands = candidates_for(prep, queries, query_vecs, int(k), radius)
        grid = sweep(cands, LAMS, TAUS)
        base = window_baseline(cands)
        best = frugal_best(grid, base.recall, DEFAULT_TOLERANCE)
        if best is None:
            continue
        out.append(
            TunePoint(
                int(k),
                float(grid.lams[best[0]]),
                float(grid.bars[best[1]]),
                float(grid.recall[best]),
                float(grid.mean_chunks[best]),
                base.recall,
                base.mean_chunks,
            )
        )
    return tuple(out)


def choose(per_k: Sequence[TunePoint], reference_k: int) -> TunePoint:
    """The setting among ``per_k``: the fewest mean chunks among those whose recall keeps
    window ±1's at ``reference_k`` (within a point); ties: higher recall, then the smaller k.

    Raises:
        SettingsError: when ``per_k`` holds no point.
    """
    if not per_k:
        raise SettingsError("No setting reaches window ±1's recall on the tune half.")
    ref = next((t for t in per_k if t.k == reference_k), None)
    floor = ref.window_recall - DEFAULT_TOLERANCE - 1e-12 if ref is not None else -np.inf
    keep = [t for t in per_k if t.recall >= floor] or list(per_k)
    return min(keep, key=lambda t: (round(t.mean_chunks, 12), -t.recall, t.k))


def _beaten_by(points: Sequence[BudgetPoint], ours: BudgetPoint) -> BudgetPoint | None:
    better = [
        p
        for p in points
        if p.policy != ours.policy
        and p.mean_tokens <= ours.mean_tokens
        and p.recall >= ours.recall
        and (p.mean_tokens < ours.mean_tokens or p.recall > ours.recall)
    ]
    if not better:
        return None
    return min(better, key=lambda p: (-p.recall, p.mean_tokens, p.policy, p.k))


def _figures(ev, name: str) -> Figures:
    s = ev.policies[name].summaries["all"]
    return Figures(s.recall, s.mean_chunks, s.mean_tokens)


def recommend(
    prep: PreparedDoc,
    queries: Sequence[GoldQuery],
    query_vecs: np.ndarray,
    *,
    reference_k: int = DEFAULT_PARAMS.k,
    radius: int = DEFAULT_PARAMS.radius,
    ks: Sequence[int] = RECOMMEND_KS,
    budget_policies: Sequence[str] | None = None,
    knobs: dict[str, dict[str, object]] | None = None,
    embed: Embed | None = None,
    n_boot: int = DEFAULT_BOOT,
    seed: int = DEFAULT_SEED,
) -> Verdict:
    """Tune on one half of ``queries``, check on the other, and give the verdict.

    Args:
        query_vecs: (Q, d) unit query vectors in the order of ``queries``.
        reference_k: the k whose window ±1 recall the setting must keep (module docstring).
        budget_policies: the policies of the equal-budget check (default
            :func:`~scar_viz.evaluation.default_policies`, and ``learned`` when ``knobs``
            carries a learned gate).
        knobs: per-policy knobs, e.g. ``{"learned": {"gate": gate, "p": 0.5}}``; with a
            learned gate, the learned policy runs beside SCAR on the check half.

    Raises:
        SettingsError: with fewer than two queries of a type-balanced split, or mismatched
            vectors.
    """
    vecs = np.atleast_2d(np.asarray(query_vecs, dtype=np.float64))
    if len(queries) < 2:
        raise SettingsError(
            "The verdict needs at least two labelled queries (one to tune, one to check)."
        )
    if vecs.shape[0] != len(queries):
        raise SettingsError(f"{len(queries)} queries but {vecs.shape[0]} query vectors.")
    row = {id(q): i for i, q in enumerate(queries)}
    tune, check = split_alternate(queries)
    if not tune or not check:
        raise SettingsError("The verdict needs queries in both halves of the split.")
    v_tune = vecs[[row[id(q)] for q in tune]]
    v_check = vecs[[row[id(q)] for q in check]]
    per_k = tune_per_k(prep, tune, v_tune, ks, radius)
    pick = choose(per_k, reference_k)
    params = GateParams(k=pick.k, lam=pick.lam, tau=pick.tau, radius=radius)
    learned = bool(knobs and knobs.get("learned", {}).get("gate") is not None)
    names = ("window1", "scar", *(("learned",) if learned else ()))
    ev = evaluate(prep, check, v_check, names, params, embed=embed, knobs=knobs)
    for name in names:
        if ev.policies[name].error:
            raise SettingsError(f"Policy {name} could not run: {ev.policies[name].error}")
    scar_t, win_t = ev.values("scar", "tokens"), ev.values("window1", "tokens")
    scar_c, win_c = ev.values("scar", "chunks"), ev.values("window1", "chunks")
    scar_r, win_r = ev.values("scar", "recall"), ev.values("window1", "recall")
    policies = tuple(budget_policies or (*default_policies(), *names))
    policies = tuple(dict.fromkeys((*policies, "scar")))
    budget = equal_budget(
        prep, check, v_check, policies, BUDGET_KS, params, embed=embed, knobs=knobs
    )
    ours = next(p for p in budget.points if p.policy == "scar" and p.k == params.k)
    return Verdict(
        params=params,
        tune_ids=tuple(q.id for q in tune),
        check_ids=tuple(q.id for q in check),
        per_k=per_k,
        scar=_figures(ev, "scar"),
        window1=_figures(ev, "window1"),
        learned=_figures(ev, "learned") if learned else None,
        token_saving=paired_bootstrap(win_t, scar_t, n_boot, seed),
        chunk_saving=paired_bootstrap(win_c, scar_c, n_boot, seed),
        recall_change=paired_bootstrap(scar_r, win_r, n_boot, seed),
        scar_point=ours,
        beaten_by=_beaten_by(budget.points, ours),
        reference_k=int(reference_k),
    )


def verdict_rows(v: Verdict) -> list[dict[str, object]]:
    """The verdict's small table: SCAR at the setting, window ±1 at the same k (and the
    learned gate), on the check half: recall and the mean chunks and tokens a query."""
    rows = [("SCAR", v.scar), ("window ±1", v.window1)]
    if v.learned is not None:
        rows.append(("learned gate", v.learned))
    return [
        {
            "policy": name,
            "k": v.k,
            "recall": f.recall,
            "chunks": f.mean_chunks,
            "tokens": f.mean_tokens,
        }
        for name, f in rows
    ]
