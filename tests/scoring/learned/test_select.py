"""Selection with a learned gate: SCAR's walk with the learned judge; SCAR's weights make SCAR's
decisions exactly; each decision explains itself."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.common.errors import SettingsError
from scar_viz.scoring.learned import LearnedGate, build_table, fit_gate, learned_select
from scar_viz.scoring.params import PRESETS, GateParams
from scar_viz.scoring.scar import normalize, select_from_sims
from tests.scoring.learned.synthetic import drifting_doc, random_queries


@pytest.mark.parametrize("radius", [0, 1, 2, 3])
def test_scar_weights_make_scars_decisions_exactly(radius):
    rng = np.random.default_rng(10 + radius)
    settings = [(v["lam"], v["tau"]) for v in PRESETS.values()]
    settings += [tuple(rng.uniform([0.0, 0.0], [2.0, 1.5])) for _ in range(6)]
    for lam, tau in settings:
        gate = LearnedGate.scar(lam, tau)
        for _ in range(25):
            unit = drifting_doc(rng, n_chunks=int(rng.integers(5, 40)), dim=8)
            q = normalize(rng.normal(size=8))
            sims = unit @ q
            k = int(rng.integers(1, 6))
            ref = select_from_sims(
                sims, unit, GateParams(k, lam, tau, radius), doc_of=one_file(len(unit))
            )
            got = learned_select(
                sims, unit, k, gate, p=0.5, radius=radius, doc_of=one_file(len(unit))
            )
            assert got.selected == ref.selected
            assert got.admitted == ref.admitted
            assert [(d.chunk, d.neighbour, d.outcome) for d in got.decisions] == [
                (d.chunk, d.neighbour, d.outcome) for d in ref.decisions
            ]
            for a, b in zip(got.decisions, ref.decisions, strict=True):
                assert a.score == pytest.approx(b.score - b.bar, abs=1e-12)


@pytest.mark.parametrize(("lam", "tau"), [(0.5, 0.5), (0.25, 0.75), (0.0, 0.5), (1.0, 0.25)])
def test_scar_weights_treat_ties_as_scar_does(lam, tau):
    """S = bar exactly is rejected by both (strict >); a hair above is admitted by both."""
    # cos(c,n) = 0.5 exactly: c = (1, 0), n = (0.5, √0.75); cos(q,c) given directly. Every
    # number is a short binary fraction, so both sides compute the tie without rounding.
    unit = np.array([[1.0, 0.0], [0.5, math.sqrt(0.75)], [0.0, 1.0]])
    cos_qc, cos_cn = 0.875, 0.5
    tie_qn = tau * cos_qc + lam * (1.0 - cos_cn)  # S = bar
    gate = LearnedGate.scar(lam, tau)
    for cos_qn, admitted in ((tie_qn, False), (tie_qn + 2.0**-20, True)):
        sims = np.array([cos_qc, cos_qn, -1.0])
        ref = select_from_sims(sims, unit, GateParams(1, lam, tau, 1), doc_of=one_file(len(unit)))
        got = learned_select(sims, unit, 1, gate, p=0.5, radius=1, doc_of=one_file(len(unit)))
        assert ref.retrieved == got.retrieved == [0]
        assert (1 in ref.admitted) is admitted
        assert got.admitted == ref.admitted
        if not admitted:
            assert got.decisions[0].score == 0.0 and got.decisions[0].probability == 0.5


def test_decisions_explain_themselves():
    rng = np.random.default_rng(30)
    unit = drifting_doc(rng)
    sims, golds = random_queries(rng, unit, 30)
    gate = fit_gate(build_table(sims, unit, golds, 4, doc_of=one_file(len(unit))))
    sel = learned_select(sims[0], unit, 4, gate, p=0.1, radius=1, doc_of=one_file(len(unit)))
    assert sel.decisions
    for d in sel.decisions:
        assert set(d.contributions) == set(gate.feature_names)
        assert sum(d.contributions.values()) + d.intercept == pytest.approx(d.score, abs=1e-12)
        assert d.probability == pytest.approx(1 / (1 + math.exp(-d.score)))
        assert d.passes == (d.probability > 0.1)
        assert d.features["rank"] == sel.retrieved.index(d.chunk)
        assert d.features["right"] == (1.0 if d.side == "right" else 0.0)
        rows = d.why_rows()
        assert [r["term"] for r in rows] == [*gate.feature_names, "intercept"]
    assert {d.outcome for d in sel.decisions} <= {"admitted", "rejected", "retrieved"}


def test_a_bad_p_or_radius_is_refused():
    unit = np.eye(3)
    gate = LearnedGate.scar(0.5, 0.1)
    with pytest.raises(ValueError, match="strictly between"):
        learned_select(np.array([0.9, 0.1, 0.0]), unit, 1, gate, p=1.0, doc_of=one_file(len(unit)))
    with pytest.raises(SettingsError, match=r"^r, the radius, must be 0 or more; got -1\.$"):
        learned_select(
            np.array([0.9, 0.1, 0.0]), unit, 1, gate, radius=-1, doc_of=one_file(len(unit))
        )
    with pytest.raises(SettingsError, match=r"^k must be at least 1; got 0\.$"):
        learned_select(np.array([0.9, 0.1, 0.0]), unit, 0, gate, doc_of=one_file(len(unit)))
