"""The learned neighbour gate: fitting, JSON, SCAR as a special case, the p-curve, the policy."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from scar_viz.errors import UserError
from scar_viz.policies import QueryInputs, run_policy
from scar_viz.scoring.learned_gate import (
    BASE_FEATURES,
    FEATURES,
    FitError,
    GateFileError,
    LearnedGate,
    LearnedSelection,
    build_table,
    default_gate,
    fit_arrays,
    fit_gate,
    learned_select,
    p_curve,
    resolve_gate,
    setting_notes,
    sigmoid,
    threshold_logit,
)
from scar_viz.scoring.params import PRESETS, GateParams
from scar_viz.scoring.scar import normalize, select_from_sims


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


# --- fitting -------------------------------------------------------------------------------


def test_fit_recovers_a_known_linear_rule():
    rng = np.random.default_rng(0)
    m = 6000
    x = np.column_stack(
        [
            rng.normal(0.3, 0.1, m),  # like cos(q,n)
            rng.normal(0.5, 0.1, m),  # like cos(q,c)
            rng.normal(0.45, 0.1, m),  # like cos(c,n)
            rng.integers(0, 4, m).astype(float),  # rank
            rng.integers(0, 2, m).astype(float),  # side
        ]
    )
    true_w = np.array([10.0, -4.0, -3.0, -0.5, 0.4])
    raw = x @ true_w
    true_b = -np.quantile(raw, 0.92)  # about 8 % positives, as imbalanced as real candidates
    y = raw + true_b > 0
    gate = fit_arrays(x, y, BASE_FEATURES, l2=1e-3)
    # back on the raw scale: w_raw = w / std
    w_raw = np.asarray(gate.weights) / np.asarray(gate.std)
    assert np.all(np.sign(w_raw) == np.sign(true_w))
    cosine = w_raw @ true_w / (np.linalg.norm(w_raw) * np.linalg.norm(true_w))
    assert cosine > 0.99
    # the balanced fit's boundary sits at p = π after the prior correction
    share = gate.fitted_on["gold_share"]
    assert share == pytest.approx(y.mean(), abs=1e-6)
    feats = np.zeros((m, len(FEATURES)))
    feats[:, :5] = x
    agree = np.mean(gate.admits(feats, p=y.mean()) == y)
    assert agree >= 0.99
    # probabilities are on the data's scale: mean predicted ≈ share of positives
    assert gate.probabilities(feats).mean() == pytest.approx(y.mean(), abs=0.05)


def test_fit_needs_both_classes():
    x = np.random.default_rng(1).normal(size=(20, 5))
    with pytest.raises(FitError, match="gold and non-gold"):
        fit_arrays(x, np.zeros(20), BASE_FEATURES)
    assert issubclass(FitError, UserError) and issubclass(FitError, ValueError)


def test_fit_gate_on_candidates_uses_unretrieved_radius_one_neighbours():
    rng = np.random.default_rng(2)
    unit = drifting_doc(rng)
    sims, golds = random_queries(rng, unit, 50)
    table = build_table(sims, unit, golds, k=4, radius=2)
    gate = fit_gate(table)
    rows = ~table.is_retrieved & (table.features[:, 5] == 1)
    assert gate.feature_names == BASE_FEATURES
    assert gate.fitted_on["n_candidates"] == int(rows.sum())
    assert gate.fitted_on["n_gold"] == int(table.gold[rows].sum())
    assert gate.mean[3] == pytest.approx(table.features[rows, 3].mean())
    gate6 = fit_gate(table, radius=2)
    assert gate6.feature_names == FEATURES
    assert gate6.fitted_on["n_candidates"] == int((~table.is_retrieved).sum())
    # neighbours closer to the query are likelier gold
    assert gate.weights[0] > 0


# --- JSON ----------------------------------------------------------------------------------


def test_json_round_trips_exactly(tmp_path):
    rng = np.random.default_rng(3)
    unit = drifting_doc(rng)
    sims, golds = random_queries(rng, unit, 40)
    gate = fit_gate(build_table(sims, unit, golds, 4), fitted_on={"document": "x.md"})
    back = LearnedGate.from_json(gate.to_json())
    assert back == gate
    assert back.to_dict() == gate.to_dict()
    assert back.weights == gate.weights  # bit for bit, not approximately
    assert hash(back) == hash(gate)  # usable as a cache key
    path = gate.save(tmp_path / "g.json")
    loaded = LearnedGate.load(path)
    assert loaded.to_dict() == gate.to_dict()
    assert loaded.fitted_on["document"] == "x.md"
    assert resolve_gate(str(path)) == gate


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"weights": [1]}', "lacks feature_names"),
        (
            '{"feature_names": ["cos_qn"], "weights": [1], "intercept": 0, '
            '"mean": [0], "std": [0]}',
            "positive",
        ),
        (
            '{"feature_names": ["colour"], "weights": [1], "intercept": 0, '
            '"mean": [0], "std": [1]}',
            "Unknown gate feature",
        ),
        (
            '{"feature_names": ["cos_qn", "rank"], "weights": [1], "intercept": 0, '
            '"mean": [0, 0], "std": [1, 1]}',
            "as many weights",
        ),
        (
            '{"feature_names": ["cos_qn"], "weights": ["a"], "intercept": 0, '
            '"mean": [0], "std": [1]}',
            "malformed",
        ),
        ('{"format": "other", "weights": []}', "Not a learned gate"),
    ],
)
def test_bad_gate_files_raise_one_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(GateFileError, match=message) as info:
        LearnedGate.load(path)
    assert "\n" not in str(info.value)
    with pytest.raises(GateFileError, match="Cannot read"):
        LearnedGate.load(tmp_path / "missing.json")


def test_default_gate_ships_with_the_package():
    gate = resolve_gate(None)
    assert gate is default_gate()
    assert gate.feature_names == BASE_FEATURES
    meta = gate.fitted_on
    assert meta["k"] == 4 and meta["chunking"] == "recursive 600/60"
    assert "all-MiniLM-L6-v2" in meta["model"]
    assert meta["document"].endswith("harbor_manual.md")
    assert gate.weights[0] > 0  # relevance of the neighbour counts for it


def test_threshold_logit():
    assert threshold_logit(0.5) == 0.0
    for p in (0.001, 0.04, 0.3, 0.9):
        assert float(sigmoid(threshold_logit(p))) == pytest.approx(p, rel=1e-12)
    for bad in (0.0, 1.0, -0.1, 2.0, math.nan):
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            threshold_logit(bad)


# --- SCAR as a special case ----------------------------------------------------------------


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
            ref = select_from_sims(sims, unit, GateParams(k, lam, tau, radius))
            got = learned_select(sims, unit, k, gate, p=0.5, radius=radius)
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
        ref = select_from_sims(sims, unit, GateParams(1, lam, tau, 1))
        got = learned_select(sims, unit, 1, gate, p=0.5, radius=1)
        assert ref.retrieved == got.retrieved == [0]
        assert (1 in ref.admitted) is admitted
        assert got.admitted == ref.admitted
        if not admitted:
            assert got.decisions[0].score == 0.0 and got.decisions[0].probability == 0.5


def test_scar_weights_through_the_policy_interface():
    rng = np.random.default_rng(20)
    unit = drifting_doc(rng, n_chunks=30, dim=8)
    from scar_viz.chunking.base import Chunk
    from scar_viz.documents.reading import document_from_text

    text = "".join(f"chunk {i:02d}. " for i in range(30))
    chunks = [Chunk(i, i * 10, i * 10 + 10, text[i * 10 : i * 10 + 10]) for i in range(30)]
    doc = document_from_text("d.txt", text)
    for _ in range(10):
        q = normalize(rng.normal(size=8))
        inputs = QueryInputs(doc, chunks, unit, "q", q, unit @ q, GateParams(3, 0.5, 0.1, 2))
        scar = run_policy("scar", inputs)
        learned = run_policy("learned", inputs, gate=LearnedGate.scar(0.5, 0.1), p=0.5)
        assert learned.chunk_ids == scar.chunk_ids
        assert learned.spans == scar.spans
        assert isinstance(learned.detail, LearnedSelection)


# --- selection details and the p-curve ----------------------------------------------------


def test_decisions_explain_themselves():
    rng = np.random.default_rng(30)
    unit = drifting_doc(rng)
    sims, golds = random_queries(rng, unit, 30)
    gate = fit_gate(build_table(sims, unit, golds, 4))
    sel = learned_select(sims[0], unit, 4, gate, p=0.1, radius=1)
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


@pytest.mark.parametrize("radius", [1, 2])
def test_p_curve_matches_the_policy_query_by_query(radius):
    rng = np.random.default_rng(40 + radius)
    unit = drifting_doc(rng, n_chunks=80)
    sims, golds = random_queries(rng, unit, 30)
    gate = fit_gate(build_table(sims, unit, golds, 4))
    ps = [0.005, 0.03, 0.1, 0.3, 0.8]
    table = build_table(sims, unit, golds, 4, radius)
    fragmented = [len(g) >= 2 for g in golds]
    curve = p_curve(table, gate, ps, fragmented)
    for t, p in enumerate(ps):
        for qi in range(len(golds)):
            sel = learned_select(sims[qi], unit, 4, gate, p=p, radius=radius)
            gold = set(golds[qi])
            assert curve.query_chunks[t, qi] == len(sel.selected)
            assert curve.query_recall[t, qi] == pytest.approx(
                len(gold & set(sel.selected)) / len(gold)
            )
    # a higher bar never admits more
    assert np.all(np.diff(curve.mean_chunks) <= 1e-12)
    frag_recall, _ = curve.subset("fragmented")
    assert frag_recall == pytest.approx(curve.query_recall[:, np.array(fragmented)].mean(axis=1))
    assert [r["p"] for r in curve.rows()] == ps


def test_gate_json_is_plain_json():
    data = json.loads(LearnedGate.scar(0.5, 0.1).to_json())
    assert data["feature_names"] == list(BASE_FEATURES)
    assert data["weights"] == [1.0, -0.1, 0.5, 0.0, 0.0]
    assert data["intercept"] == -0.5


# --- charts ----------------------------------------------------------------------------------


def test_charts_for_the_pages():
    import plotly.graph_objects as go

    from scar_viz.charts.learned import add_p_curve, contributions_chart, gate_weights_chart

    rng = np.random.default_rng(50)
    unit = drifting_doc(rng)
    sims, golds = random_queries(rng, unit, 20)
    table = build_table(sims, unit, golds, 4)
    gate = fit_gate(table)
    curve = p_curve(table, gate, [0.01, 0.05, 0.2])
    fig = add_p_curve(go.Figure(), curve, current_p=0.05)
    line, star = fig.data
    assert sorted(line.customdata[:, 0]) == [0.01, 0.05, 0.2]
    assert list(line.x) == sorted(curve.mean_chunks)
    assert star.x[0] == curve.mean_chunks[1] and star.y[0] == curve.recall[1]
    bars = gate_weights_chart(gate).data[0]
    assert list(bars.x) == list(gate.weights) and list(bars.y) == list(gate.feature_names)
    decision = learned_select(sims[0], unit, 4, gate, p=0.05).decisions[0]
    water = contributions_chart(decision).data[0]
    assert list(water.x) == [*gate.feature_names, "intercept", "score"]
    assert water.y[-1] == pytest.approx(sum(water.y[:-1]))


def test_setting_notes_name_each_difference():
    gate = default_gate()
    meta = gate.fitted_on
    assert setting_notes(gate, meta["model"], meta["chunking"], meta["k"]) == ()
    notes = setting_notes(gate, "hash-256", meta["chunking"], 3)
    assert len(notes) == 2
    assert "model" in notes[0] and "hash-256" in notes[0]
    assert "k 4" in notes[1] and "3" in notes[1]
    assert setting_notes(LearnedGate.scar(0.5, 0.1), "x", "y", 9) == ()


@pytest.mark.model
def test_the_shipped_default_gate_is_reproduced_by_its_script(tmp_path):
    import subprocess
    import sys

    from tests.conftest import ROOT

    out = tmp_path / "gate.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fit_default_gate.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    fresh, shipped = LearnedGate.load(out), default_gate()
    assert fresh.feature_names == shipped.feature_names
    assert fresh.weights == pytest.approx(shipped.weights, abs=1e-6)
    assert fresh.intercept == pytest.approx(shipped.intercept, abs=1e-6)
    assert fresh.fitted_on["n_candidates"] == shipped.fitted_on["n_candidates"]
