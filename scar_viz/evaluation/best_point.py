"""The sweep's "best" setting: the cheapest one that keeps a stated recall.

Maximising chunk efficiency (recall / chunks) rewards doing nothing: it peaks where SCAR admits
almost nothing (mean chunks ≈ k, recall ≈ top-k's). The mark instead answers the question a
user asks: *what is the fewest chunks I can pay for window ±1's recall (within a tolerance),
or for a recall floor I state?*
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scar_viz.scoring.sweep import CandidateSlots, SweepResult

DEFAULT_TOLERANCE = 0.01
"""One recall point: a setting qualifies when its recall ≥ target − 0.01."""


@dataclass(frozen=True)
class Baseline:
    """Window ±1 on the sweep's queries: mean recall and mean unique chunks."""

    recall: float
    mean_chunks: float


def window_per_query(cands: CandidateSlots) -> tuple[np.ndarray, np.ndarray]:
    """(chunks, recall), each (Q,): window ±1 on each query of the sweep, with the same k and
    gold: every distance-1 neighbour of every retrieved chunk joins the context (counted once
    per query)."""
    n_q = cands.n_queries
    first = cands.chain[:, 0] if cands.chain.size else np.zeros(0, dtype=np.int64)
    first = first[first >= 0]
    first = first[~cands.is_retrieved[first]]
    slots = np.unique(cands.slot[first])
    query = np.searchsorted(cands.slot_bounds, slots, side="right") - 1
    chunks = cands.base_chunks + np.bincount(query, minlength=n_q)
    hits = cands.base_hits + np.bincount(
        query, weights=cands.slot_gold[slots].astype(np.float64), minlength=n_q
    )
    return chunks, hits / cands.n_gold


def window_baseline(cands: CandidateSlots) -> Baseline:
    """Window ±1 on the same queries, k and gold as the sweep: the means of
    :func:`window_per_query`."""
    if not cands.n_queries:
        return Baseline(0.0, 0.0)
    chunks, recall = window_per_query(cands)
    return Baseline(float(np.mean(recall)), float(np.mean(chunks)))


def frugal_best(
    result: SweepResult, target_recall: float, tolerance: float = DEFAULT_TOLERANCE
) -> tuple[int, int] | None:
    """Grid indices (i, j) of the setting with the fewest mean chunks among those whose recall
    is at least ``target_recall − tolerance`` (ties: higher recall, then the first in λ-major
    order); None when no setting reaches it.

    Pass window ±1's recall (:func:`window_baseline`) for "within a point of window ±1", or a
    recall floor the user states with ``tolerance=0``.
    """
    recall, chunks = result.recall.ravel(), result.mean_chunks.ravel()
    ok = np.flatnonzero(recall >= target_recall - tolerance - 1e-12)
    if not len(ok):
        return None
    order = np.lexsort((ok, -recall[ok], np.round(chunks[ok], 12)))
    i, j = np.unravel_index(int(ok[order[0]]), result.recall.shape)
    return int(i), int(j)
