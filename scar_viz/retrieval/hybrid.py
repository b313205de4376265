"""Reciprocal rank fusion (Cormack et al. 2009; docs/method.md §8).

    score(c) = Σ_r 1 / (k_rrf + rank_r(c))

over the rankings r (here dense and BM25); ranks are 1-based and ties in a ranking go to the
chunk earlier in corpus order, as :func:`~scar_viz.scoring.scar.top_k` breaks them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scar_viz.common.errors import SettingsError

DEFAULT_K_RRF = 60.0
"""RRF's constant k_rrf (Cormack et al.'s 60)."""


def ranks(scores: np.ndarray) -> np.ndarray:
    """(N,) the 1-based rank of each chunk by ``scores``, highest first, ties to the lower
    index."""
    scores = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-scores, kind="stable")
    out = np.empty(len(scores), dtype=np.int64)
    out[order] = np.arange(1, len(scores) + 1)
    return out


def rrf(rankings: Sequence[np.ndarray], k_rrf: float = DEFAULT_K_RRF) -> np.ndarray:
    """(N,) the fused score of each chunk from score vectors ``rankings`` (each (N,)).

    Raises:
        SettingsError: for k_rrf < 0 or rankings of different lengths.
    """
    if not k_rrf >= 0:
        raise SettingsError(f"The RRF constant must be 0 or more; got {k_rrf}.")
    if len({len(r) for r in rankings}) > 1:
        raise SettingsError("Every ranking must cover the same chunks.")
    total = np.zeros(len(rankings[0]) if rankings else 0)
    for scores in rankings:
        total = total + 1.0 / (float(k_rrf) + ranks(scores))
    return total
