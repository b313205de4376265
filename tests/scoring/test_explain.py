"""``explain_decision`` covers every outcome of the gate; ``edge_notes`` the edge cases."""

from __future__ import annotations

import re

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.scoring.explain import edge_notes, explain_decision
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import Decision, scar_select, select_from_sims


def decision(outcome: str, blocked_by: str = "", **kw) -> Decision:
    base = {
        "chunk": 4,
        "neighbour": 5,
        "side": "right",
        "distance": 1,
        "cos_qn": 0.42,
        "cos_qc": 0.60,
        "penalty": 0.30,
        "lam": 0.5,
        "tau": 0.1,
    }
    base.update(kw)
    score = base["cos_qn"] - base["lam"] * base["penalty"]
    bar = base["tau"] * base["cos_qc"]
    return Decision(
        **base,
        score=score,
        bar=bar,
        margin=score - bar,
        passes=score > bar,
        outcome=outcome,
        blocked_by=blocked_by,
    )


def gate_decisions() -> dict[tuple[str, str], Decision]:
    """One decision of each (outcome, blocked_by) that the real gate produces."""
    found: dict[tuple[str, str], Decision] = {}
    for seed in range(300):
        rng = np.random.default_rng(seed)
        vecs = rng.normal(size=(20, 16)) + 0.6 * rng.normal(size=(1, 16))
        q = vecs[rng.integers(20)] + 0.4 * rng.normal(size=16)
        lam, tau = rng.choice([0.0, 0.5, 1.5, 3.0]), rng.choice([0.1, 0.8, 1.2])
        for d in scar_select(q, vecs, GateParams(4, lam, tau, 2)).decisions:
            found.setdefault((d.outcome, d.blocked_by), d)
        if len(found) == 4:
            return found
    raise AssertionError(f"the gate gave only {sorted(found)}")


def test_the_gate_produces_four_kinds_and_each_gets_its_sentence():
    found = gate_decisions()
    assert set(found) == {
        ("admitted", ""),
        ("retrieved", ""),
        ("rejected", "relevance"),
        ("rejected", "penalty"),
    }
    starts = {
        ("admitted", ""): "Admitted:",
        ("retrieved", ""): f"Chunk {found[('retrieved', '')].neighbour} is itself retrieved",
        ("rejected", "relevance"): "Rejected by relevance:",
        ("rejected", "penalty"): "Rejected by the boundary penalty:",
    }
    for kind, d in found.items():
        why = explain_decision(d)
        assert why.sentence.startswith(starts[kind]), (kind, why.sentence)
        assert f"= {d.score:.3f}" in why.latex and f"= {d.bar:.3f}" in why.latex


def test_admitted_sentence_gives_the_margin_and_latex_says_greater():
    d = decision("admitted")
    why = explain_decision(d)
    assert d.passes and f"by {d.margin:.3f}" in why.sentence
    assert "S &> \\text{bar}" in why.latex and f"{d.margin:+.3f}" in why.latex


def test_relevance_rejection_names_cos_qn_and_the_bar():
    d = decision("rejected", "relevance", cos_qn=0.05, cos_qc=0.9, tau=0.8)
    why = explain_decision(d)
    assert not d.passes and "S &\\le \\text{bar}" in why.latex
    assert f"cos(q,n) = {d.cos_qn:.3f}" in why.sentence and f"bar {d.bar:.3f}" in why.sentence


def test_penalty_rejection_gives_the_penalty_term():
    d = decision("rejected", "penalty", cos_qn=0.5, cos_qc=0.6, penalty=0.9, lam=1.0, tau=0.5)
    why = explain_decision(d)
    assert d.cos_qn > d.bar and not d.passes
    assert f"λ·b = {d.lam * d.penalty:.3f}" in why.sentence
    assert f"S down to {d.score:.3f}" in why.sentence


def test_retrieved_neighbour_is_counted_once():
    why = explain_decision(decision("retrieved", neighbour=5))
    assert "counted once" in why.sentence and "Chunk 5" in why.sentence


@pytest.mark.parametrize("first", [True, False])
def test_edge_notes_for_document_edges_and_retrieved_neighbours(first):
    n = 6
    unit = np.eye(n)
    sims = (
        np.array([0.9, 0.8, 0.1, 0.0, 0.7, 0.95])
        if first
        else np.array([0.1, 0.2, 0.9, 0.85, 0.3, 0.1])
    )
    sel = select_from_sims(
        sims, unit, GateParams(3 if first else 2, 0.5, 0.1, 1), doc_of=one_file(len(unit))
    )
    notes = edge_notes(sel, n, doc_of=one_file(n))
    texts = " ".join(m for _, m in notes)
    assert ("Chunk 0 is retrieved" in texts) == (0 in sel.retrieved)
    assert (f"Chunk {n - 1} (the last)" in texts) == (n - 1 in sel.retrieved)
    both = sorted({d.neighbour for d in sel.decisions if d.outcome == "retrieved"})
    assert ("themselves retrieved" in texts) == bool(both)


def test_edge_note_warns_when_the_bar_is_not_positive():
    sims = np.array([-0.2, -0.3, -0.1, -0.5])
    sel = select_from_sims(
        sims, np.eye(4), GateParams(1, 0.5, 0.1, 1), doc_of=one_file(len(np.eye(4)))
    )
    notes = edge_notes(sel, 4, doc_of=one_file(4))
    assert notes[0][0] == "warning" and "cos(q,c) ≤ 0 for retrieved chunk 2" in notes[0][1]


def test_learned_box_says_already_retrieved_for_a_retrieved_neighbour():
    """A neighbour in the top-k is "already retrieved" whatever its probability, as SCAR's box
    says; the others are admitted or rejected by probability against p."""
    from scar_viz.scoring.explain import explain_learned, learned_verdict
    from scar_viz.scoring.learned import LearnedGate
    from scar_viz.scoring.learned.select import learned_select
    from tests.conftest import ROOT

    rng = np.random.default_rng(3)
    unit = rng.normal(size=(12, 8))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    sims = np.linspace(0.1, 0.6, 12)
    sims[[4, 5]] = [0.9, 0.8]  # chunks 4 and 5 both retrieved, each the other's neighbour
    gate = LearnedGate.load(ROOT / "tests/scoring/learned/data/five_feature_gate.json")
    sel = learned_select(sims, unit, 2, gate, p=0.001, doc_of=one_file(len(unit)))
    both = [d for d in sel.decisions if d.outcome == "retrieved"]
    assert {(d.chunk, d.neighbour) for d in both} == {(4, 5), (5, 4)}
    for d in both:
        assert d.passes  # p = 0.001: the gate's number alone would say "admitted"
        assert learned_verdict(d) == "already retrieved"
        sentence = explain_learned(d)
        assert "itself retrieved" in sentence and "Admitted" not in sentence
    others = [d for d in sel.decisions if d.outcome != "retrieved"]
    assert others
    for d in others:
        assert learned_verdict(d) == d.outcome
        assert explain_learned(d).startswith(d.outcome.capitalize())


def test_edge_notes_at_a_file_edge_inside_a_corpus():
    # two files of three chunks: chunk 2 ends the first file, chunk 3 opens the second
    n = 6
    doc_of = np.array([0, 0, 0, 1, 1, 1])
    sims = np.array([0.1, 0.2, 0.9, 0.85, 0.3, 0.1])
    sel = select_from_sims(sims, np.eye(n), GateParams(2, 0.5, 0.1, 1), doc_of=doc_of)
    texts = [m for _, m in edge_notes(sel, n, doc_of)]
    assert "Chunk 2 ends its file: it has no right neighbour there." in texts
    assert "Chunk 3 opens its file: it has no left neighbour there." in texts
    # one document: no file-edge note, the same chunks are in the middle
    assert not [m for _, m in edge_notes(sel, n, doc_of=one_file(n)) if "its file" in m]
    # the corpus' own edges keep their notes and get no second one
    first = np.array([0.9, 0.1, 0.2, 0.3, 0.2, 0.1])
    sel = select_from_sims(first, np.eye(n), GateParams(1, 0.5, 0.1, 1), doc_of=doc_of)
    assert list(sel.retrieved) == [0]
    assert [m for _, m in edge_notes(sel, n, doc_of) if m.startswith("Chunk")] == [
        "Chunk 0 is retrieved: it has no left neighbour."
    ]


LATEX_S = re.compile(r"\}_\{b\(c_\{\d+\},n\)\}(?:.*?)= (-?\d+\.\d+)\\\\")
LATEX_BAR = re.compile(r"\\text\{bar\} &= .*?= (-?\d+\.\d+)\\\\")


def _printed(why) -> tuple[float, float]:
    """(S, bar) as the explanation's LaTeX prints them."""
    return float(LATEX_S.search(why.latex).group(1)), float(LATEX_BAR.search(why.latex).group(1))


@pytest.mark.parametrize(("outcome", "gap"), [("admitted", 4e-5), ("rejected", -4e-5)])
def test_a_thin_margin_is_printed_with_the_digits_that_decide_it(outcome, gap):
    """S 0.00004 above (or below) a bar of 0.43: at three decimals both print 0.430, so the
    explanation prints as many as it takes to tell them apart."""
    d = decision(outcome, "penalty" if outcome == "rejected" else "", cos_qn=0.462 + gap,
                 penalty=0.32, lam=0.1, cos_qc=0.5375, tau=0.8)  # fmt: skip
    why = explain_decision(d)
    s, bar = _printed(why)
    assert (s > bar) == d.passes and s != bar, why.latex
    assert f"{d.score:.5f}" in why.latex and f"{d.bar:.5f}" in why.latex


def test_every_explanation_is_decided_by_its_printed_numbers():
    """Random gates at slider settings (two decimals): the printed S and bar compare as the
    gate decided, and the printed parts worked out give the same verdict."""
    parts = re.compile(
        r"S &= \\underbrace\{(-?\d+\.\d+)\}.*?\\underbrace\{([\d.]+)\}_\{\\lambda\}\\cdot"
        r"\\underbrace\{(-?\d+\.\d+)\}.*?\\text\{bar\} &= \\underbrace\{([\d.]+)\}_\{\\tau\}"
        r"\\cdot\\underbrace\{(-?\d+\.\d+)\}"
    )
    seen = 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        vecs = rng.normal(size=(16, 8)) + 0.6 * rng.normal(size=(1, 8))
        q = vecs[rng.integers(16)] + 0.4 * rng.normal(size=8)
        lam, tau = round(float(rng.uniform(0, 2)), 2), round(float(rng.uniform(0, 1.5)), 2)
        for d in scar_select(q, vecs, GateParams(4, lam, tau, 1)).decisions:
            if d.outcome == "retrieved":
                continue
            why = explain_decision(d)
            s, bar = _printed(why)
            assert (s > bar) == d.passes, why.latex
            cos, lam_shown, b, tau_shown, cos_qc = (
                float(x) for x in parts.search(why.latex).groups()
            )
            assert (cos - lam_shown * b > tau_shown * cos_qc) == d.passes, why.latex
            seen += 1
    assert seen > 500
