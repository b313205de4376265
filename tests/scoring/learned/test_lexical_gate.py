"""The learned gate with lexical features: fitted where words decide, shown in the why? box, and
gate files from before lexical features still load and select the same."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.common.errors import SettingsError
from scar_viz.scoring.learned import (
    BASE_FEATURES,
    LEXICAL_FEATURES,
    FitError,
    LearnedGate,
    build_table,
    fit_gate,
    learned_select,
    p_curve,
)
from scar_viz.scoring.lexical import chunk_index
from scar_viz.scoring.scar import normalize

DATA = Path(__file__).parent / "data"


def words_decide(seed: int = 3, n: int = 60, n_q: int = 50):
    """Vectors that say nothing about which neighbour is gold; the question's word does.

    Each query's top hit c (k = 1) and one neighbour of c are gold; the question's own term
    occurs in both and nowhere else."""
    rng = np.random.default_rng(seed)
    unit = normalize(rng.normal(size=(n, 16)))
    texts = [[f"filler{i}", "common"] for i in range(n)]
    sims, golds, questions = [], [], []
    for q in range(n_q):
        c = int(rng.integers(1, n - 1))
        other = c + 1 if rng.random() < 0.5 else c - 1
        row = rng.uniform(0.0, 0.3, size=n)
        row[c] = 0.9
        sims.append(row)
        golds.append(tuple(sorted((c, other))))
        texts[c].append(f"term{q}")
        texts[other].append(f"term{q}")
        questions.append(f"Where is term{q} described?")
    chunks = [" ".join(t) for t in texts]
    index = chunk_index(chunks)
    return np.array(sims), unit, golds, [index.question(q) for q in questions]


def test_a_lexical_gate_learns_what_the_words_say():
    sims, unit, golds, lex = words_decide()
    table = build_table(sims, unit, golds, k=1, radius=1, lexical=lex, doc_of=one_file(len(unit)))
    lexical = fit_gate(table, features="lexical")
    base = fit_gate(table)
    assert lexical.feature_names == BASE_FEATURES + LEXICAL_FEATURES
    assert lexical.fitted_on["features"] == "lexical"
    assert "features" not in base.fitted_on
    assert lexical.weights[BASE_FEATURES.__len__()] > 0  # lex(q,n) pushes towards admitting
    for q, gold in enumerate(golds):
        sel = learned_select(
            sims[q], unit, 1, lexical, p=0.5, radius=1, lexical=lex[q], doc_of=one_file(len(unit))
        )
        assert tuple(sel.selected) == gold
    # the five features alone cannot tell the gold neighbour: the lexical gate is better
    lex_curve = p_curve(table, lexical, [0.5])
    base_curve = p_curve(table, base, [0.5])
    assert lex_curve.recall[0] == 1.0 and lex_curve.mean_chunks[0] == 2.0
    assert base_curve.recall[0] < 0.9 or base_curve.mean_chunks[0] > 2.5


def test_the_why_box_shows_each_lexical_contribution():
    sims, unit, golds, lex = words_decide()
    gate = fit_gate(
        build_table(sims, unit, golds, 1, 1, lexical=lex, doc_of=one_file(len(unit))),
        features="lexical",
    )
    sel = learned_select(
        sims[0], unit, 1, gate, p=0.5, radius=1, lexical=lex[0], doc_of=one_file(len(unit))
    )
    d = sel.decisions[0]
    rows = {r["term"]: r for r in d.why_rows()}
    assert set(LEXICAL_FEATURES) <= set(rows)
    assert sum(r["contribution"] for r in rows.values()) == pytest.approx(d.score)
    assert rows["lex_qn"]["value"] == d.features["lex_qn"]
    assert "question's words" in rows["lex_qn"]["meaning"]


def test_a_lexical_gate_round_trips_and_needs_the_words():
    sims, unit, golds, lex = words_decide()
    gate = fit_gate(
        build_table(sims, unit, golds, 1, 1, lexical=lex, doc_of=one_file(len(unit))),
        features="lexical",
    )
    again = LearnedGate.from_json(gate.to_json())
    assert again == gate and again.uses_lexical
    with pytest.raises(SettingsError, match="lexical"):
        learned_select(sims[0], unit, 1, gate, p=0.5, radius=1, doc_of=one_file(len(unit)))
    with pytest.raises(SettingsError, match="lexical"):
        p_curve(build_table(sims, unit, golds, 1, 1, doc_of=one_file(len(unit))), gate, [0.5])
    with pytest.raises(FitError, match="Lexical"):
        fit_gate(
            build_table(sims, unit, golds, 1, 1, doc_of=one_file(len(unit))), features="lexical"
        )
    with pytest.raises(SettingsError, match="Unknown features"):
        fit_gate(build_table(sims, unit, golds, 1, 1, doc_of=one_file(len(unit))), features="words")


def test_a_gate_file_from_before_lexical_features_selects_as_it_did():
    gate = LearnedGate.load(DATA / "five_feature_gate.json")
    assert gate.feature_names == BASE_FEATURES and not gate.uses_lexical
    ref = json.loads((DATA / "five_feature_selections.json").read_text())
    rng = np.random.default_rng(ref["seed"])
    unit = normalize(rng.normal(size=(ref["n"], ref["d"])))
    qs = normalize(rng.normal(size=(ref["queries"], ref["d"])))
    words = chunk_index([f"w{i % 7} w{i % 5}" for i in range(ref["n"])]).question("w3 w4")
    got, got_with_words = [], []
    for q in qs:
        sims = unit @ q
        for r in (1, 2):
            for p in (0.04, 0.2):
                got.append(
                    learned_select(
                        sims, unit, ref["k"], gate, p, r, doc_of=one_file(len(unit))
                    ).selected
                )
                with_words = learned_select(
                    sims, unit, ref["k"], gate, p, r, lexical=words, doc_of=one_file(len(unit))
                )
                got_with_words.append(with_words.selected)
    assert got == ref["selected"]
    assert got_with_words == ref["selected"]
