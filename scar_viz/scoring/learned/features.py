"""The features of a candidate neighbour, and the table of every candidate of a query set.

For a retrieved chunk c (rank ρ among the top-k, 0 = the top hit) and a candidate neighbour n at
distance d on one side, the features are

    f = (cos(q,n), cos(q,c), cos(c,n), ρ, right, d)      right = 1 for n after c, 0 before

The distance d is used only by a gate fitted on candidates up to a radius r > 1: a gate fitted
on radius-1 candidates has seen d = 1 only, so d has no identifiable weight there.

A lexical gate (``features="lexical"``, this project's extension, docs/method.md §8) adds three
features from the question's words (:mod:`scar_viz.scoring.lexical`):

    (lex(q,n), lex(q,c), new(q,c,n))     the weighted share of the question's terms in n, in c,
                                          and in n but not in c

Feature rows always have the nine columns of :data:`ALL_FEATURES`; the lexical ones are NaN
when no lexical evidence was given (a five-feature gate never reads them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.common.errors import SettingsError
from scar_viz.scoring.lexical import QuestionLex
from scar_viz.scoring.params import DEFAULT_RADIUS
from scar_viz.scoring.sweep import CandidateSlots, walk_candidates

FEATURES: tuple[str, ...] = ("cos_qn", "cos_qc", "cos_cn", "rank", "right", "distance")
"""Every feature the gate may use, in the column order of the feature matrices."""
BASE_FEATURES: tuple[str, ...] = FEATURES[:5]
"""The five features of a gate fitted on radius-1 candidates."""
LEXICAL_FEATURES: tuple[str, ...] = ("lex_qn", "lex_qc", "lex_new")
"""The lexical features a ``features="lexical"`` gate adds."""
ALL_FEATURES: tuple[str, ...] = FEATURES + LEXICAL_FEATURES
"""The column order of every feature matrix (the lexical columns NaN when not computed)."""
FEATURE_SETS = ("base", "lexical")
"""What ``fit-gate --features`` accepts: the five (six for r > 1) or those plus the lexical."""
FEATURE_MEANING: dict[str, str] = {
    "cos_qn": "cos(q,n): how relevant the neighbour is to the query",
    "cos_qc": "cos(q,c): how relevant the retrieved chunk is",
    "cos_cn": "cos(c,n): how much the neighbour continues the retrieved chunk",
    "rank": "rank of c among the retrieved chunks (0 = top hit)",
    "right": "side: 1 when n follows c, 0 when it precedes it",
    "distance": "distance from c to n in chunks (1 = adjacent)",
    "lex_qn": "lex(q,n): weighted share of the question's words found in the neighbour",
    "lex_qc": "lex(q,c): weighted share of the question's words found in the retrieved chunk",
    "lex_new": "new(q,c,n): weighted share of the question's words in n but not in c",
}


def gate_features(features: str, radius: int = DEFAULT_RADIUS) -> tuple[str, ...]:
    """The feature names of a gate fitted with ``features`` (base | lexical) up to ``radius``.

    Raises:
        SettingsError: for another ``features``.
    """
    if features not in FEATURE_SETS:
        raise SettingsError(f"Unknown features '{features}'; use one of {', '.join(FEATURE_SETS)}.")
    names = FEATURES if radius > 1 else BASE_FEATURES
    return names + LEXICAL_FEATURES if features == "lexical" else names


def candidate_features(
    sims: np.ndarray,
    unit: np.ndarray,
    c: int,
    rank: int,
    j: int,
    distance: int,
    lexical: QuestionLex | None = None,
) -> np.ndarray:
    """The nine features (:data:`ALL_FEATURES`) of neighbour ``j`` of retrieved chunk ``c``
    (rank 0-based); the lexical three are NaN without ``lexical``."""
    lex = lexical.features(c, j) if lexical is not None else np.full(3, np.nan)
    return np.array(
        [
            float(sims[j]),
            float(sims[c]),
            float(unit[c] @ unit[j]),
            float(rank),
            1.0 if j > c else 0.0,
            float(distance),
            *(float(v) for v in lex),
        ]
    )


def _walk_features(sims: np.ndarray, unit: np.ndarray, walk) -> np.ndarray:
    """(M, 9) :func:`candidate_features` of every candidate of ``walk``, as arrays (the same
    numbers: cos(c,n) is the same dot product, taken once per (c, n) pair)."""
    out = np.full((len(walk.query), len(ALL_FEATURES)), np.nan)
    keys = list(zip(walk.chunk.tolist(), walk.neighbour.tolist(), strict=True))
    pairs: dict[tuple[int, int], float] = {}
    for c, j in keys:
        if (c, j) not in pairs:
            pairs[(c, j)] = float(unit[c] @ unit[j])
    out[:, 0] = sims[walk.query, walk.neighbour]
    out[:, 1] = sims[walk.query, walk.chunk]
    out[:, 2] = [pairs[cj] for cj in keys]
    out[:, 3] = walk.rank
    out[:, 4] = walk.neighbour > walk.chunk
    out[:, 5] = walk.distance
    return out


@dataclass(frozen=True)
class CandidateTable(CandidateSlots):
    """:class:`~scar_viz.scoring.sweep.CandidateSlots` with each candidate's ``features`` (M, 9)
    in :data:`ALL_FEATURES` order (lexical columns NaN when not computed); ``query``,
    ``chunk``, ``neighbour`` index the query and chunks; ``gold`` marks gold neighbours."""

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
    *,
    doc_of: np.ndarray,
    lexical: Sequence[QuestionLex] | None = None,
    rank: np.ndarray | None = None,
) -> CandidateTable:
    """List every candidate (query, retrieved c, neighbour at distance 1…r on each side).

    Args:
        sims: (Q, N), sims[q, i] = cos(q, c_i).
        unit: (N, d) unit-norm chunk vectors in document order.
        golds: gold chunk indices per query (None: no labels, every gold set empty).
        k: chunks retrieved per query.
        radius: r ≥ 1.
        doc_of: (N,) the file of each chunk (all zeros for one file): no candidate
            crosses its retrieved chunk's file edge.
        lexical: each query's lexical evidence (:func:`scar_viz.scoring.lexical.question_lex`)
            for the lexical features; None leaves them NaN.
        rank: (Q, N) the retriever's scores each top-k is taken by (None: ``sims``); the
            features keep using the cosines.

    Raises:
        ValueError: for mismatched shapes, k < 1 or r < 1.
    """
    sims = np.atleast_2d(np.asarray(sims, dtype=np.float64))
    unit = np.asarray(unit, dtype=np.float64)
    golds = [()] * sims.shape[0] if golds is None else [tuple(g) for g in golds]
    walk = walk_candidates(
        sims, unit, golds, k, radius, "The candidates need k ≥ 1 and r ≥ 1.", doc_of, rank
    )
    features = _walk_features(sims, unit, walk)
    if lexical is not None:
        if len(lexical) != sims.shape[0]:
            raise SettingsError(f"{sims.shape[0]} queries but {len(lexical)} lexical records.")
        for q, lex in enumerate(lexical):
            m = walk.query == q
            features[m, len(FEATURES) :] = lex.features(walk.chunk[m], walk.neighbour[m])
    return CandidateTable(
        **walk.slots,
        n_gold=np.array([max(1, len(set(g))) for g in golds], dtype=np.float64),
        features=features,
        query=walk.query,
        chunk=walk.chunk,
        neighbour=walk.neighbour,
        gold=walk.gold,
    )
