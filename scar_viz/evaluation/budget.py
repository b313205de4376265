"""Equal budget: recall against context tokens for every policy as k runs from 1 to 10.

A policy that sends fewer chunks is not better if it also finds less, and one that finds more
is not better if it sends the whole document; both are judged together on one plane. Each
(policy, k) is one point (mean context tokens, Recall@K) of :func:`scar_viz.evaluation.evaluate`
over a labelled query set (gold chunks from the queries); the Pareto front is the set of
points that no other point beats on both (fewer or equal tokens and higher or equal recall,
one strictly). Policies that do not use k (RSE) give the same point at every k. Recall is
Recall@K over gold chunks for chunk policies and character coverage of the gold chunks for
span policies (qasc, qasc-hybrid, sentence-window), as in the evaluation.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from scar_viz.embeddings import Progress
from scar_viz.evaluation import Embed, Evaluation, available_policies
from scar_viz.evaluation.by_file import file_rows
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.run import evaluate_ks
from scar_viz.runtime.cancel import ShouldStop
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.sweep import pareto_frontier

BUDGET_KS = tuple(range(1, 11))
"""k = 1 … 10."""


@dataclass(frozen=True)
class BudgetPoint:
    """One policy at one k: means over the queries of the chosen subset."""

    policy: str
    k: int
    recall: float
    mean_tokens: float
    mean_chunks: float


@dataclass(frozen=True)
class BudgetResult:
    """Every (policy, k) point, the Pareto front (indices into ``points``, by tokens) and the
    policies that could not run (name -> message); on a corpus, ``by_file`` holds each k's
    per-file rows (:func:`~scar_viz.evaluation.by_file.file_rows`, over all the queries)."""

    points: tuple[BudgetPoint, ...]
    front: tuple[int, ...]
    errors: dict[str, str]
    subset: str = "all"
    by_file: dict[int, list[dict[str, object]]] = field(default_factory=dict, compare=False)

    @property
    def policies(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.policy for p in self.points))

    def of(self, policy: str) -> tuple[BudgetPoint, ...]:
        """The points of ``policy``, by k."""
        return tuple(sorted((p for p in self.points if p.policy == policy), key=lambda p: p.k))

    def on_front(self) -> tuple[BudgetPoint, ...]:
        return tuple(self.points[i] for i in self.front)


def token_front(points: Sequence[BudgetPoint]) -> tuple[int, ...]:
    """Indices of the non-dominated points (fewer tokens, higher recall), by tokens."""
    if not points:
        return ()
    recall = np.array([p.recall for p in points], dtype=float)
    tokens = np.array([p.mean_tokens for p in points], dtype=float)
    return tuple(int(i) for i in pareto_frontier(recall, tokens))


def budget_points(evaluations: Sequence[Evaluation], subset: str = "all") -> BudgetResult:
    """Points and front from evaluations of the same queries at different k."""
    points: list[BudgetPoint] = []
    errors: dict[str, str] = {}
    for ev in evaluations:
        for name, pe in ev.policies.items():
            if pe.error or not pe.outcomes:
                errors.setdefault(name, pe.error or "no query")
                continue
            s = pe.summaries[subset]
            if s.n == 0:
                continue
            points.append(
                BudgetPoint(name, ev.settings.params.k, s.recall, s.mean_tokens, s.mean_chunks)
            )
    return BudgetResult(tuple(points), token_front(points), errors, subset)


def equal_budget(
    run: LabelledRun,
    policies: Sequence[str] | None = None,
    ks: Sequence[int] = BUDGET_KS,
    params: GateParams | None = None,
    *,
    embed: Embed | None = None,
    knobs: dict[str, dict[str, object]] | None = None,
    subset: str = "all",
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
) -> BudgetResult:
    """Recall and mean context tokens of every policy at every k in ``ks`` on a labelled run
    (every policy's top-k ranked by the run's retriever, :mod:`scar_viz.retrieval`).

    Args:
        policies: labels as in :func:`~scar_viz.evaluation.resolve_policy` (default: every
            available policy, :func:`~scar_viz.evaluation.available_policies`).
        params: λ, τ and r for SCAR (its k is replaced by each k of ``ks``).
        embed: embeds extra texts with the same model (the sentence policies need it).
        progress: called as progress(done, total) over all (k, query) steps.
        should_stop: asked before each query (:mod:`scar_viz.runtime.cancel`).

    Returns:
        The points and front (over ``subset``) and, on a corpus, each k's per-file rows
        from the same evaluations.

    Raises:
        ValueError: for an unknown policy or a k below 1 (GateParams' check).
    """
    params = params or GateParams()
    labels = tuple(policies or available_policies())
    evaluations = evaluate_ks(
        run,
        labels,
        params,
        ks,
        embed=embed,
        knobs=knobs,
        progress=progress,
        should_stop=should_stop,
    )
    result = budget_points(evaluations, subset)
    by_file = {ev.settings.params.k: rows for ev in evaluations if (rows := file_rows(ev))}
    return replace(result, by_file=by_file) if by_file else result


def evaluation_points(
    ev: Evaluation, subset: str = "all", exclude: Sequence[str] = ("scar",)
) -> list[tuple[str, float, float]]:
    """(label, mean chunks, recall) of every policy that ran in ``ev``, for the Pareto chart's
    ``labelled`` points (:func:`scar_viz.charts.pareto.pareto_chart`). Span policies count
    chunk equivalents (their characters / the mean chunk length)."""
    out = []
    for name, pe in ev.policies.items():
        if name in exclude or pe.error or not pe.outcomes:
            continue
        s = pe.summaries[subset]
        out.append((name, float(s.mean_chunks), float(s.recall)))
    return out


BUDGET_QUESTIONS = 60
"""How many questions Equal budget runs on unless every question is asked for: its cost grows
with the questions × 10 values of k × the policies (92 s for 250 questions on a 1,151-chunk
corpus, default model, cold, 2 loaded cores; 3 s for 40), so a larger set is sampled."""


def spread_sample(n: int, m: int = BUDGET_QUESTIONS) -> list[int]:
    """``m`` indices of ``range(n)`` spread evenly from the first to the last (all of them when
    ``n <= m``): a sample of a query set in its own order, the same on every run."""
    if n <= m:
        return list(range(n))
    return sorted({int(round(i * (n - 1) / (m - 1))) for i in range(m)})


def budget_rows(result: BudgetResult) -> list[dict[str, object]]:
    """The points as a table, highest recall first (ties: fewer tokens first, then policy and
    k): recall, mean tokens and chunks, on the front."""
    front = set(result.front)
    return [
        {
            "policy": p.policy,
            "k": p.k,
            "recall": p.recall,
            "mean tokens": p.mean_tokens,
            "mean chunks": p.mean_chunks,
            "on the front": i in front,
        }
        for i, p in sorted(
            enumerate(result.points),
            key=lambda ip: (-ip[1].recall, ip[1].mean_tokens, ip[1].policy, ip[1].k),
        )
    ]


def budget_csv(result: BudgetResult) -> str:
    """:func:`budget_rows` as CSV text (header first), for download."""
    rows = budget_rows(result)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["policy", "k"])
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
