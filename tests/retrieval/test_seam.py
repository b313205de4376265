"""Every policy takes its top-k by the retriever's scores while the gate keeps the cosines."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.policies import run_policy
from scar_viz.scoring.learned import LearnedGate, learned_select
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import select_from_sims, top_k
from scar_viz.scoring.sweep import LAMS, TAUS, build_candidates, sweep
from tests.policies.test_policies import _inputs
from tests.scoring.test_sweep import random_case

FIVE_FEATURE_GATE = (
    Path(__file__).parent.parent / "scoring" / "learned" / "data" / "five_feature_gate.json"
)


def _reversed(inputs):
    """The same inputs with a ranking that reverses the dense order."""
    return dataclasses.replace(inputs, ranking=-inputs.sims, retriever="bm25")


@pytest.mark.parametrize("policy", ["topk", "scar", "window", "learned", "parent", "automerge"])
def test_a_ranking_moves_the_top_k_and_none_is_dense(policy):
    dense = _inputs(k=2)
    assert dense.rank is dense.sims
    ranked = _reversed(dense)
    want = top_k(-dense.sims, 2)
    a, b = run_policy(policy, dense), run_policy(policy, ranked)
    if policy in ("topk", "scar", "window", "learned"):
        assert set(want) <= set(b.chunk_ids)
        assert not set(top_k(dense.sims, 2)) <= set(b.chunk_ids) or policy == "window"
    assert a.chunk_ids != b.chunk_ids


def test_scar_decisions_keep_the_cosines():
    inputs = _reversed(_inputs(k=2, lam=0.0, tau=0.0))
    sel = select_from_sims(
        inputs.sims,
        inputs.unit,
        inputs.params,
        rank=inputs.ranking,
        doc_of=one_file(len(inputs.unit)),
    )
    assert sel.retrieved == top_k(inputs.ranking, 2)
    for d in sel.decisions:
        assert d.cos_qc == inputs.sims[d.chunk] and d.cos_qn == inputs.sims[d.neighbour]


def test_learned_select_takes_its_top_k_by_the_ranking_and_judges_on_cosines():
    inputs = _inputs(k=2, radius=2)
    gate = LearnedGate.load(FIVE_FEATURE_GATE)
    a = learned_select(inputs.sims, inputs.unit, 2, gate, 0.5, 2, doc_of=one_file(len(inputs.unit)))
    c = learned_select(
        inputs.sims,
        inputs.unit,
        2,
        gate,
        0.5,
        2,
        rank=-inputs.sims,
        doc_of=one_file(len(inputs.unit)),
    )
    assert a.retrieved == top_k(inputs.sims, 2)
    assert c.retrieved == top_k(-inputs.sims, 2)
    assert [d.probability for d in c.decisions] != [d.probability for d in a.decisions]


@pytest.mark.parametrize("radius", [1, 2])
def test_the_sweep_with_a_ranking_agrees_with_select_from_sims(radius):
    rng = np.random.default_rng(7 + radius)
    _, _, golds, unit, sims = random_case(rng, 20, 4)
    rank = rng.normal(size=sims.shape)
    rank[:, :3] = 5.0  # ties: the lower index first
    k = 4
    lams, taus = LAMS[::10], TAUS[::10]
    res = sweep(
        build_candidates(sims, unit, golds, k, radius, rank=rank, doc_of=one_file(len(unit))),
        lams,
        taus,
    )
    for i, lam in enumerate(lams):
        for j, tau in enumerate(taus):
            for q, gold in enumerate(golds):
                params = GateParams(k, float(lam), float(tau), radius)
                sel = select_from_sims(
                    sims[q], unit, params, rank=rank[q], doc_of=one_file(len(unit))
                )
                assert sel.retrieved[:3] == [0, 1, 2]
                assert res.query_chunks[i, j, q] == len(sel.selected)
                hits = len(set(sel.selected) & set(gold)) / len(set(gold))
                assert res.query_recall[i, j, q] == hits
