"""Synthetic documents and labelled queries the learned-gate tests share."""

from __future__ import annotations

import numpy as np

from scar_viz.scoring.scar import normalize


def drifting_doc(rng, n_chunks=60, dim=24):
    """Unit chunk vectors whose neighbours are similar, as in real text."""
    drift = np.cumsum(rng.normal(size=(n_chunks, dim)) * 0.4, axis=0)
    return normalize(drift + rng.normal(size=(n_chunks, dim)))


def random_queries(rng, unit, n_queries):
    """(sims (Q, N), gold runs): each query aims at a run of 1–3 chunks."""
    n, dim = unit.shape
    golds, sims = [], []
    for _ in range(n_queries):
        start = int(rng.integers(0, n - 3))
        gold = tuple(range(start, start + int(rng.integers(1, 4))))
        q = normalize(unit[list(gold)].mean(axis=0) + rng.normal(size=dim) * 0.6)
        golds.append(gold)
        sims.append(unit @ q)
    return np.array(sims), golds
