"""The features of a candidate neighbour, and the table of every candidate of a query set.

For a retrieved chunk c (rank ρ among the top-k, 0 = the top hit) and a candidate neighbour n at
distance d on one side, the features are

    f = (cos(q,n), cos(q,c), cos(c,n), ρ, right, d)      right = 1 for n after c, 0 before

The distance d is used only by a gate fitted on candidates up to a radius r > 1: a gate fitted
on radius-1 candidates has seen d = 1 only, so d has no identifiable weight there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.scoring.params import DEFAULT_RADIUS
from scar_viz.scoring.sweep import CandidateSlots, walk_candidates

FEATURES: tuple[str, ...] = ("cos_qn", "cos_qc", "cos_cn", "rank", "right", "distance")
"""Every feature the gate may use, in the column order of the feature matrices."""
BASE_FEATURES: tuple[str, ...] = FEATURES[:5]
"""The five features of a gate fitted on radius-1 candidates."""
FEATURE_MEANING: dict[str, str] = {
    "cos_qn": "cos(q,n): how relevant the neighbour is to the query",
    "cos_qc": "cos(q,c): how relevant the retrieved chunk is",
    "cos_cn": "cos(c,n): how much the neighbour continues the retrieved chunk",
    "rank": "rank of c among the retrieved chunks (0 = top hit)",
    "right": "side: 1 when n follows c, 0 when it precedes it",
    "distance": "distance from c to n in chunks (1 = adjacent)",
}


def candidate_features(
    sims: np.ndarray, unit: np.ndarray, c: int, rank: int, j: int, distance: int
) -> np.ndarray:
    """The six features of neighbour ``j`` of retrieved chunk ``c`` (rank 0-based)."""
    return np.array(
        [
            float(sims[j]),
            float(sims[c]),
            float(unit[c] @ unit[j]),
            float(rank),
            1.0 if j > c else 0.0,
            float(distance),
        ]
    )


@dataclass(frozen=True)
class CandidateTable(CandidateSlots):
    """:class:`~scar_viz.scoring.sweep.CandidateSlots` with each candidate's ``features`` (M, 6) in
    :data:`FEATURES` order; ``query``, ``chunk``, ``neighbour`` index the query and chunks;
    ``gold`` marks gold neighbours."""

    features: np.ndarray
    query: np.ndarray
    chunk: np.ndarray
    neighbour: np.ndarray
    gold: np.ndarray

    def training_rows(self, max_distance: int = 1) -> np.ndarray:
        """Mask of the fitting candidates: not retrieved, at distance ≤ ``max_distance``."""
        return ~self.is_retrieved & (self.features[:, 5] <= max_distance)


def build_table(
    sims: np.ndarray,
    unit: np.ndarray,
    golds: Sequence[Sequence[int]] | None,
    k: int,
    radius: int = DEFAULT_RADIUS,
    doc_of: np.ndarray | None = None,
) -> CandidateTable:
    """List every candidate (query, retrieved c, neighbour at distance 1…r on each side).

    Args:
        sims: (Q, N), sims[q, i] = cos(q, c_i).
        unit: (N, d) unit-norm chunk vectors in document order.
        golds: gold chunk indices per query (None: no labels, every gold set empty).
        k: chunks retrieved per query.
        radius: r ≥ 1.
        doc_of: (N,) the file of each chunk in a corpus (None for one file): no candidate
            crosses its retrieved chunk's file edge.

    Raises:
        ValueError: for mismatched shapes, k < 1 or r < 1.
    """
    sims = np.atleast_2d(np.asarray(sims, dtype=np.float64))
    unit = np.asarray(unit, dtype=np.float64)
    golds = [()] * sims.shape[0] if golds is None else [tuple(g) for g in golds]
    walk = walk_candidates(
        sims, unit, golds, k, radius, "The candidates need k ≥ 1 and r ≥ 1.", doc_of
    )
    cols = (walk.query, walk.chunk, walk.rank, walk.neighbour, walk.distance)
    rows = [
        candidate_features(sims[q], unit, c, rank, j, d)
        for q, c, rank, j, d in zip(*(col.tolist() for col in cols), strict=True)
    ]
    return CandidateTable(
        **walk.slots,
        n_gold=np.array([max(1, len(set(g))) for g in golds], dtype=np.float64),
        features=np.array(rows, dtype=np.float64).reshape(-1, len(FEATURES)),
        query=walk.query,
        chunk=walk.chunk,
        neighbour=walk.neighbour,
        gold=walk.gold,
    )
