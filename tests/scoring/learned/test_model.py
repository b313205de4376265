"""The learned gate as a model: its JSON file, the shipped gate, the logit bar, setting notes."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.scoring.learned import (
    ALL_FEATURES,
    BASE_FEATURES,
    LEXICAL_FEATURES,
    GateFileError,
    LearnedGate,
    build_table,
    default_gate,
    fit_gate,
    fitted_k,
    k_note,
    rank_changes,
    resolve_gate,
    setting_notes,
    sigmoid,
    threshold_logit,
)
from tests.scoring.learned.synthetic import drifting_doc, random_queries


def test_json_round_trips_exactly(tmp_path):
    rng = np.random.default_rng(3)
    unit = drifting_doc(rng)
    sims, golds = random_queries(rng, unit, 40)
    gate = fit_gate(
        build_table(sims, unit, golds, 4, doc_of=one_file(len(unit))),
        fitted_on={"document": "x.md"},
    )
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
    assert gate.feature_names == BASE_FEATURES + LEXICAL_FEATURES
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


def test_gate_json_is_plain_json():
    data = json.loads(LearnedGate.scar(0.5, 0.1).to_json())
    assert data["feature_names"] == list(BASE_FEATURES)
    assert data["weights"] == [1.0, -0.1, 0.5, 0.0, 0.0]
    assert data["intercept"] == -0.5


def test_setting_notes_name_each_difference():
    gate = default_gate()
    meta = gate.fitted_on
    assert setting_notes(gate, meta["model"], meta["chunking"]) == ()
    notes = setting_notes(gate, "hash-256", "recursive 300/30")
    assert len(notes) == 2
    assert "model" in notes[0] and "hash-256" in notes[0]
    assert "chunking" in notes[1] and "300/30" in notes[1]
    assert setting_notes(LearnedGate.scar(0.5, 0.1), "x", "y") == ()


def _rows(ranks, cos_qn=0.4):
    """Candidate feature rows (ALL_FEATURES order) differing only in the rank of c."""
    rows = np.zeros((len(ranks), len(ALL_FEATURES)))
    rows[:, 0], rows[:, 1], rows[:, 2] = cos_qn, 0.5, 0.6
    rows[:, ALL_FEATURES.index("rank")] = ranks
    rows[:, ALL_FEATURES.index("distance")] = 1
    return rows


def test_a_k_at_or_below_the_fitted_one_changes_no_decision():
    gate = default_gate()
    k_fit = fitted_k(gate)
    assert k_fit == 4
    rows = _rows(np.repeat(np.arange(k_fit), 50), np.linspace(0, 1, 50 * k_fit))
    assert rank_changes(gate, rows, 0.05) == 0
    assert k_note(gate, 3, 0) == ""


def test_ranks_beyond_the_fit_change_decisions_where_holding_the_rank_flips_them():
    """A gate whose rank weight is strong: at rank 9 (k = 10) a candidate it would admit at
    rank 3, the last it knows, is rejected: one changed decision, and the note says so."""
    base = default_gate()
    weights = list(base.weights)
    weights[base.feature_names.index("rank")] = -5.0
    gate = replace(base, weights=tuple(weights))
    at_three = gate.scores(_rows([3]))[0]
    p = float(1 / (1 + np.exp(-(at_three - 0.01))))  # just admits at rank 3
    assert rank_changes(gate, _rows([3]), p) == 0
    assert rank_changes(gate, _rows([9, 2, 1]), p) == 1
    note = k_note(gate, 10, 1)
    assert "fitted with k = 4" in note and "at k = 10" in note and "ranked 5 to 10" in note
    assert "changes 1 of its decisions here" in note
    assert k_note(gate, 4, 3) == ""  # its own k: nothing to say
    assert rank_changes(LearnedGate.scar(0.5, 0.1), _rows([9]), 0.5) == 0  # no rank feature
