"""The plain-loop gate (:mod:`scar_viz.scoring.reference`) and every vectorised one agree on
random inputs: the walk (``select_from_sims``), the sweep's selection at one grid point, and
the integrations' gate on the runs an adapter fetches, with file edges, μ and a retriever's
ranking. Scores agree within 1e-12; retrieved, selected and every outcome exactly. Inputs
where a score lies within 1e-9 of its bar, or two ranking scores within 1e-9, are left out:
there the last bit of a sum decides, and which way is no property of the gate."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scar_viz.common.edges import reach
from scar_viz.common.errors import SettingsError
from scar_viz.common.vectors import normalize
from scar_viz.evaluation.apply import ChunkSet, run_setting
from scar_viz.integrations.local import chains_of_positions, closest, runs_of, setting_of
from scar_viz.scoring import reference
from scar_viz.scoring.lexical import QuestionLex
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import query_similarities, select_from_sims
from scar_viz.scoring.sweep import admitted_at, build_candidates, slot_admitted

NEAR = 1e-9


@st.composite
def cases(draw):
    """(q, chunks, doc_of, params, lexical or None, rank or None)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, dim = draw(st.integers(1, 14)), draw(st.integers(2, 6))
    chunks = rng.normal(size=(n, dim))
    chunks[1:] += draw(st.floats(0, 1.5)) * chunks[:-1]  # continuity between neighbours
    q = rng.normal(size=dim)
    cuts = draw(st.lists(st.booleans(), min_size=n - 1, max_size=n - 1))
    doc_of = np.concatenate(([0], np.cumsum(cuts))).astype(np.int64)
    mu = draw(st.sampled_from([0.0, 0.0, 0.3, 1.0]))
    params = GateParams(
        k=draw(st.integers(1, 5)),
        lam=draw(st.floats(0, 2)),
        tau=draw(st.floats(-0.5, 1.5)),
        radius=draw(st.integers(0, 3)),
        mu=mu,
    )
    lexical = None
    if mu:
        n_terms = draw(st.integers(1, 4))
        weights = rng.uniform(0.1, 1, n_terms)
        lexical = QuestionLex(
            tuple(f"t{i}" for i in range(n_terms)),
            weights / weights.sum(),
            rng.random((n_terms, n)) < 0.4,
        )
    rank = rng.normal(size=n) if draw(st.booleans()) else None
    return q, chunks, doc_of, params, lexical, rank


def _reference(q, chunks, doc_of, p, lexical, rank):
    lex = None if lexical is None else lexical.share.tolist()
    got = reference.gate(
        q.tolist(), chunks.tolist(), p.k, p.lam, p.tau, p.radius, p.mu, lex,
        doc_of=doc_of.tolist(), rank=None if rank is None else rank.tolist(),
    )  # fmt: skip
    retrieved, _, decisions = got
    by = [reference.cos(q, c) for c in chunks] if rank is None else list(rank)
    assume(all(abs(a - b) > NEAR for i, a in enumerate(by) for b in by[i + 1 :]))
    assume(all(abs(s - bar) > NEAR for _, n, s, bar, o in decisions if n not in retrieved))
    return got


@settings(max_examples=300, deadline=None)
@given(cases())
def test_the_walk_equals_the_reference(case):
    q, chunks, doc_of, params, lexical, rank = case
    retrieved, selected, decisions = _reference(*case)
    sims = query_similarities(q, chunks)
    sel = select_from_sims(sims, normalize(chunks), params, doc_of, lexical, rank)
    assert (sel.retrieved, sel.selected) == (retrieved, selected)
    assert [(d.chunk, d.neighbour, d.outcome) for d in sel.decisions] == [
        (c, n, outcome) for c, n, _, _, outcome in decisions
    ]
    for d, (_, _, score, bar, _) in zip(sel.decisions, decisions, strict=True):
        assert d.score == pytest.approx(score, rel=1e-12, abs=1e-12)
        assert d.bar == pytest.approx(bar, rel=1e-12, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(cases())
def test_the_sweep_selects_what_the_reference_selects(case):
    q, chunks, doc_of, params, lexical, rank = case
    assume(params.radius >= 1)  # the sweep's grid needs a neighbour to gate
    retrieved, selected, _ = _reference(*case)
    sims = query_similarities(q, chunks)[None, :]
    lex = None if lexical is None else lexical.share[None, :]
    cands = build_candidates(
        sims, normalize(chunks), [[0]], params.k, params.radius, doc_of=doc_of, lex=lex,
        rank=None if rank is None else rank[None, :],
    )  # fmt: skip
    admitted = admitted_at(cands, params.lam, np.array([params.tau]), mu=params.mu)
    neighbours = cands.slot_neighbour[slot_admitted(cands, admitted)[0]]
    assert cands.retrieved[0].tolist() == retrieved
    assert sorted(set(retrieved) | set(neighbours.tolist())) == selected


@settings(max_examples=200, deadline=None)
@given(cases())
def test_the_integrations_gate_on_fetched_runs_equals_the_reference(case):
    """What LangChain's retriever and LlamaIndex's postprocessor run: the top k by cosine in
    reading order (``closest``), then the setting's runner (``run_setting``) on the runs of
    chunks within r of each."""
    q, chunks, doc_of, params, lexical, _ = case
    retrieved, selected, _ = _reference(q, chunks, doc_of, params, lexical, None)
    order = [(f"file{doc_of[i]}", float(i)) for i in range(len(chunks))]
    assert closest(q, chunks, order, params.k) == retrieved
    window = set()
    for c in retrieved:
        lo, hi = reach(doc_of, len(chunks), c)
        window |= set(range(max(lo, c - params.radius), min(hi, c + params.radius + 1)))
    keys = [(f"file{doc_of[i]}", i) for i in sorted(window)]
    runs = runs_of(chains_of_positions(keys), {key: chunks[key[1]] for key in keys})
    fetched = None
    if lexical is not None:
        at = [key[1] for key in runs.keys]
        fetched = QuestionLex(lexical.terms, lexical.weights, lexical.member[:, at])
    at = runs.position()
    picked = [at[(f"file{doc_of[c]}", c)] for c in retrieved]
    setting = setting_of("scar", "dense", 60.0, params, None, None)  # the adapters' setting
    sel = run_setting(
        setting, ChunkSet(runs.unit, runs.run_of), "", normalize(q), retrieved=picked,
        lexical=fetched,
    )  # fmt: skip
    assert sorted(runs.keys[i][1] for i in sel.selected) == selected


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"k": 0}, "k must be at least 1"),
        ({"radius": -1}, "r, the radius, must be 0 or more"),
        ({"mu": -0.1}, r"μ \(mu\) must be 0 or more"),
        ({"mu": float("nan")}, r"μ \(mu\) must be 0 or more"),
    ],
)
def test_gate_params_checks_k_r_and_mu_once_where_it_is_made(fields, said):
    with pytest.raises(SettingsError, match=said):
        GateParams(**fields)
    with pytest.raises(SettingsError, match=said):
        GateParams().with_(**fields)
