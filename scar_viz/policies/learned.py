"""The ``learned`` policy: top-k plus the neighbours a fitted logistic gate admits.

Knobs: ``gate`` (a :class:`~scar_viz.scoring.learned.model.LearnedGate`, a path to a gate file,
or None for the gate shipped with the package) and ``p`` (the probability bar). The result's
``detail`` is a :class:`~scar_viz.scoring.learned.select.LearnedSelection` whose decisions carry
each feature's contribution, the score and the probability against p (the "why?" box).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from scar_viz.policies.base import PolicyResult, QueryInputs, chunk_result, policy_entry
from scar_viz.scoring.learned import (
    DEFAULT_P,
    LearnedGate,
    LearnedSelection,
    learned_select,
    resolve_gate,
)
from scar_viz.scoring.learned.select import learned_judge
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import top_k
from scar_viz.scoring.walk import walk_neighbours


def ranked_learned_select(
    sims: np.ndarray,
    unit: np.ndarray,
    k: int,
    gate: LearnedGate,
    p: float,
    radius: int,
    doc_of: np.ndarray | None = None,
    rank: np.ndarray | None = None,
) -> LearnedSelection:
    """:func:`~scar_viz.scoring.learned.select.learned_select` with the top-k taken by ``rank``
    (the retriever's scores, :mod:`scar_viz.retrieval`; None: ``sims``, exactly
    ``learned_select``); the gate's features keep using ``sims``."""
    if rank is None:
        return learned_select(sims, unit, k, gate, p, radius, doc_of)
    sims = np.asarray(sims, dtype=np.float64)
    if radius < 0:
        raise ValueError("Radius must be 0 or more.")
    judge = learned_judge(sims, unit, gate, p)
    retrieved = top_k(rank, k)
    selected, admitted, decisions = walk_neighbours(retrieved, len(sims), radius, judge, doc_of)
    return LearnedSelection(
        retrieved=retrieved,
        selected=selected,
        admitted=admitted,
        decisions=decisions,
        sims=sims,
        params=GateParams(k=int(k), lam=0.0, tau=0.0, radius=int(radius)),
        gate=gate,
        p=float(p),
    )


def learned_policy(
    inputs: QueryInputs, gate: LearnedGate | str | Path | None = None, p: float = DEFAULT_P
) -> PolicyResult:
    """Admit neighbour n iff σ(w·z(f) + b) > p, outward to radius r as SCAR does."""
    resolved = resolve_gate(gate)
    t0 = time.perf_counter()
    params = inputs.params
    sel = ranked_learned_select(
        inputs.sims,
        inputs.unit,
        params.k,
        resolved,
        float(p),
        params.radius,
        inputs.doc_of,
        inputs.ranking,
    )
    return chunk_result("learned", inputs, sel.selected, t0, detail=sel)


POLICY = policy_entry("learned", learned_policy)
