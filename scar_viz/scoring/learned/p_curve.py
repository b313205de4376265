"""The learned gate's recall and mean unique chunks as the probability bar p varies.

The candidates' features and scores are computed once
(:func:`~scar_viz.scoring.learned.features.build_table`); each p is one comparison of every
score against logit(p), with SCAR's contiguity rule for r > 1
(:func:`scar_viz.scoring.sweep.contiguous`), so the curve agrees query by query with
:func:`~scar_viz.scoring.learned.select.learned_select`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from scar_viz.scoring.learned.features import CandidateTable
from scar_viz.scoring.learned.model import LearnedGate, threshold_logit
from scar_viz.scoring.sweep import contiguous, per_query

DEFAULT_PS = tuple(float(p) for p in np.round(np.geomspace(0.002, 0.9, 60), 4))
"""Default p grid for :func:`p_curve`: 60 values from 0.002 to 0.9, log-spaced."""


@dataclass(frozen=True)
class PCurve:
    """The learned gate's recall and mean unique chunks at each p (arrays of length T).

    ``query_recall`` and ``query_chunks`` are (T, Q); ``fragmented`` (Q,) marks the
    boundary-fragmented queries, for :meth:`subset`.
    """

    ps: np.ndarray
    recall: np.ndarray
    mean_chunks: np.ndarray
    query_recall: np.ndarray = field(repr=False)
    query_chunks: np.ndarray = field(repr=False)
    fragmented: np.ndarray | None = field(default=None, repr=False)

    @property
    def efficiency(self) -> np.ndarray:
        return np.divide(
            self.recall,
            self.mean_chunks,
            out=np.zeros_like(self.recall),
            where=self.mean_chunks > 0,
        )

    def subset(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(recall, mean chunks) over ``all``, ``fragmented`` or ``atomic`` queries."""
        if name == "all":
            return self.recall, self.mean_chunks
        if self.fragmented is None or name not in ("fragmented", "atomic"):
            raise ValueError(f"Unknown subset '{name}' (or no query types given).")
        mask = self.fragmented if name == "fragmented" else ~self.fragmented
        if not mask.any():
            nan = np.full(len(self.ps), np.nan)
            return nan, nan
        return self.query_recall[:, mask].mean(axis=1), self.query_chunks[:, mask].mean(axis=1)

    def nearest(self, p: float) -> int:
        """Index of the grid p closest to ``p`` (in log space)."""
        return int(np.abs(np.log(self.ps) - math.log(p)).argmin())

    def rows(self) -> list[dict[str, float]]:
        """One row per p: p, recall, mean chunks, efficiency."""
        eff = self.efficiency
        return [
            {
                "p": float(p),
                "recall": float(r),
                "mean_chunks": float(c),
                "efficiency": float(e),
            }
            for p, r, c, e in zip(self.ps, self.recall, self.mean_chunks, eff, strict=True)
        ]


def admitted_matrix(table: CandidateTable, scores: np.ndarray, bars: np.ndarray) -> np.ndarray:
    """(T, M) booleans: candidate m admitted at score bar ``bars[t]``, with the contiguity rule."""
    return contiguous(table, scores[None, :] > bars[:, None])


def p_curve(
    table: CandidateTable,
    gate: LearnedGate,
    ps: Sequence[float] | np.ndarray = DEFAULT_PS,
    fragmented: Sequence[bool] | np.ndarray | None = None,
) -> PCurve:
    """Recall and mean unique chunks of the learned gate at every p, vectorised.

    The features and scores are computed once; each p is one comparison against logit(p).
    Per query: chunks = |retrieved| + |admitted| (unique), recall = |selected ∩ gold| / |gold|.

    Raises:
        ValueError: for a p outside (0, 1) or an empty grid.
    """
    ps = np.asarray(ps, dtype=np.float64).reshape(-1)
    if not len(ps):
        raise ValueError("The p grid is empty.")
    bars = np.array([threshold_logit(p) for p in ps])
    scores = gate.scores(table.features) if len(table.features) else np.zeros(0)
    admitted = admitted_matrix(table, scores, bars)
    n_t, n_q = len(ps), table.n_queries
    q_chunks, q_recall = per_query(table, admitted)
    frag = None if fragmented is None else np.asarray(fragmented, dtype=bool)
    return PCurve(
        ps,
        q_recall.mean(axis=1) if n_q else np.zeros(n_t),
        q_chunks.mean(axis=1) if n_q else np.zeros(n_t),
        q_recall,
        q_chunks,
        frag,
    )
