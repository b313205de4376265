"""The learned gate as a model: its JSON file, the shipped gate, the logit bar, setting notes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from scar_viz.scoring.learned import (
    BASE_FEATURES,
    LEXICAL_FEATURES,
    GateFileError,
    LearnedGate,
    build_table,
    default_gate,
    fit_gate,
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
    assert setting_notes(gate, meta["model"], meta["chunking"], meta["k"]) == ()
    notes = setting_notes(gate, "hash-256", meta["chunking"], 3)
    assert len(notes) == 2
    assert "model" in notes[0] and "hash-256" in notes[0]
    assert "k 4" in notes[1] and "3" in notes[1]
    assert setting_notes(LearnedGate.scar(0.5, 0.1), "x", "y", 9) == ()
