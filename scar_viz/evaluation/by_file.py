"""A corpus evaluation broken down by file: each file's queries, and each policy's recall and
mean chunks on them.

A query belongs to the file its evidence is in (``GoldQuery.gold_refs``); a query whose
evidence spans two or more files (scattered across files) is counted under
:data:`SEVERAL_FILES`. An evaluation on a single document has no breakdown: every function
here returns no rows for it.

:func:`grouped_rows` and :func:`policy_file_rows` average any per-query values by file (one
row per file, or one per file and policy); the other functions feed them what each page of
the Evaluation lab has per query: an :class:`~scar_viz.evaluation.run.Evaluation`
(:func:`file_rows`, :func:`paired_file_rows`), the λ×τ sweep's candidates
(:func:`sweep_file_rows`) or the learned gate's p-curve (:func:`curve_file_rows`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from scar_viz.evaluation.best_point import window_per_query
from scar_viz.evaluation.run import Evaluation
from scar_viz.queries.gold import GoldQuery
from scar_viz.scoring.learned.p_curve import PCurve
from scar_viz.scoring.sweep import Candidates, sweep

SEVERAL_FILES = "(evidence in several files)"

Rows = list[dict[str, object]]
Values = Sequence[float | None] | np.ndarray
"""Per-query values in query order (None or NaN: not scored, left out of the mean)."""


def query_file(refs: tuple[tuple[str, int], ...]) -> str:
    """The file a query's gold chunks are in, or :data:`SEVERAL_FILES`."""
    files = {path for path, _ in refs}
    return next(iter(files)) if len(files) == 1 else SEVERAL_FILES


def file_groups(queries: Sequence[GoldQuery]) -> list[tuple[str, list[int]]]:
    """(file, indices of its queries) in path order, :data:`SEVERAL_FILES` last; empty when
    the queries are not on a corpus (no query names its gold chunks by file)."""
    if not any(gq.gold_refs for gq in queries):
        return []
    members: dict[str, list[int]] = defaultdict(list)
    for qi, gq in enumerate(queries):
        members[query_file(gq.gold_refs)].append(qi)
    order = sorted(members, key=lambda f: (f == SEVERAL_FILES, f))
    return [(path, members[path]) for path in order]


def _mean(values: Values, idx: list[int]) -> float:
    """The mean of ``values`` at ``idx`` over those that are set (NaN when none is)."""
    picked = np.array([np.nan if values[i] is None else values[i] for i in idx], dtype=float)
    picked = picked[~np.isnan(picked)]
    return float(np.mean(picked)) if len(picked) else float("nan")


def _check_lengths(queries: Sequence[GoldQuery], columns: Mapping[str, Values]) -> None:
    for name, values in columns.items():
        if len(values) != len(queries):
            raise ValueError(f"{len(values)} values of '{name}' for {len(queries)} queries.")


def grouped_rows(queries: Sequence[GoldQuery], columns: Mapping[str, Values]) -> Rows:
    """One row per file (:func:`file_groups`): ``file``, ``queries`` (how many are its), then
    the mean of each column over them.

    Raises:
        ValueError: when a column does not have one value per query.
    """
    _check_lengths(queries, columns)
    rows: Rows = []
    for path, idx in file_groups(queries):
        row: dict[str, object] = {"file": path, "queries": len(idx)}
        row |= {name: _mean(values, idx) for name, values in columns.items()}
        rows.append(row)
    return rows


def policy_file_rows(
    queries: Sequence[GoldQuery], by_policy: Mapping[str, Mapping[str, Values]]
) -> Rows:
    """One row per file and policy (files in :func:`file_groups` order, policies in the
    order given): ``file``, ``policy``, ``queries``, then the mean of each of that policy's
    columns over the file's queries.

    Raises:
        ValueError: when a column does not have one value per query.
    """
    for columns in by_policy.values():
        _check_lengths(queries, columns)
    rows: Rows = []
    for path, idx in file_groups(queries):
        for policy, columns in by_policy.items():
            row: dict[str, object] = {"file": path, "policy": policy, "queries": len(idx)}
            row |= {name: _mean(values, idx) for name, values in columns.items()}
            rows.append(row)
    return rows


def _ran(ev: Evaluation, policies: Sequence[str] | None = None) -> list[str]:
    return [n for n in (policies or list(ev.policies)) if not ev.policies[n].error]


def _recall_chunks(ev: Evaluation, name: str) -> tuple[list[float], list[float]]:
    outcomes = ev.policies[name].outcomes
    return [o.recall for o in outcomes], [o.chunks for o in outcomes]


def file_rows(ev: Evaluation, policies: list[str] | None = None) -> Rows:
    """One row per file holding evidence (in path order, :data:`SEVERAL_FILES` last): its
    number of queries, and for each policy that ran its mean recall and mean chunks over
    them. Empty when the evaluation is not on a corpus."""
    columns: dict[str, Values] = {}
    for name in _ran(ev, policies):
        columns[f"{name} recall"], columns[f"{name} chunks"] = _recall_chunks(ev, name)
    return grouped_rows(ev.queries, columns)


def paired_file_rows(evals: Mapping[str, Evaluation]) -> Rows:
    """The same queries under two or more settings (two models, two chunkers), by file: one
    row per file and policy that ran in every evaluation, with ``recall · LABEL`` and
    ``chunks · LABEL`` for each evaluation's label. Files are the first evaluation's (the
    file of a query's evidence does not depend on the model or the chunking).

    Raises:
        ValueError: when the evaluations are not of the same number of queries.
    """
    if not evals:
        return []
    first = next(iter(evals.values()))
    if any(ev.n_queries != first.n_queries for ev in evals.values()):
        raise ValueError("The evaluations to set side by side must be of the same queries.")
    names = [n for n in _ran(first) if all(n in _ran(ev) for ev in evals.values())]
    by_policy: dict[str, dict[str, Values]] = {}
    for name in names:
        columns: dict[str, Values] = {}
        for label, ev in evals.items():
            columns[f"recall · {label}"], _ = _recall_chunks(ev, name)
        for label, ev in evals.items():
            _, columns[f"chunks · {label}"] = _recall_chunks(ev, name)
        by_policy[name] = columns
    return policy_file_rows(first.queries, by_policy)


def sweep_file_rows(
    queries: Sequence[GoldQuery], cands: Candidates, lam: float, tau: float, mu: float = 0.0
) -> Rows:
    """Window ±1 and SCAR at one (λ, τ) (and μ) of the sweep, by file: their recall and
    chunks from the sweep's candidates of ``queries`` (no policy is run again)."""
    if not file_groups(queries):
        return []
    one = sweep(cands, [lam], [tau], mu=mu)
    chunks, recall = window_per_query(cands)
    columns: dict[str, Values] = {"window1 recall": recall, "window1 chunks": chunks}
    columns |= {"scar recall": one.query_recall[0, 0], "scar chunks": one.query_chunks[0, 0]}
    return grouped_rows(queries, columns)


def curve_file_rows(
    queries: Sequence[GoldQuery], curve: PCurve, p: float, window: tuple[Values, Values]
) -> Rows:
    """Window ±1 and the learned gate at the curve's p nearest ``p``, by file: recall and
    chunks from the p-curve of ``queries`` and window ±1's per-query (chunks, recall) on the
    same queries, k and r (:func:`~scar_viz.evaluation.best_point.window_per_query`)."""
    if not file_groups(queries):
        return []
    i = curve.nearest(p)
    columns: dict[str, Values] = {"window1 recall": window[1], "window1 chunks": window[0]}
    columns |= {"learned recall": curve.query_recall[i], "learned chunks": curve.query_chunks[i]}
    return grouped_rows(queries, columns)
