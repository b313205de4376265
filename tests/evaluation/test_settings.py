"""scar_viz.evaluation.settings: one run-setting record, read off a prepared document."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.evaluation.settings import RunSettings
from scar_viz.scoring.params import GateParams
from tests.evaluation_sample import hash_sample


@pytest.fixture(scope="module")
def settings():
    prep = hash_sample()[0]
    return RunSettings.of(prep, GateParams(np.int64(3), 1, 0.25, np.int64(2)))


def test_of_reads_the_prepared_document_and_makes_numbers_plain(settings):
    assert settings.document == "harbor_manual.md" and settings.model == "hash:256"
    assert settings.n_chunks > 1 and settings.prepend is False
    p = settings.params
    assert (type(p.k), type(p.lam), type(p.radius)) == (int, float, int)
    assert (p.k, p.lam, p.tau, p.radius) == (3, 1.0, 0.25, 2)


def test_as_json_keeps_the_order_asked_and_takes_extras(settings):
    out = settings.as_json(("chunking", "answer_model", "params", "document"), answer_model="m")
    assert list(out) == ["chunking", "answer_model", "params", "document"]
    assert out["answer_model"] == "m"
    assert out["params"] == {"k": 3, "lam": 1.0, "tau": 0.25, "radius": 2}
    assert settings.as_json(("params",), prepend=True)["params"]["prepend"] is False
    with pytest.raises(KeyError):
        settings.as_json(("judge_model",))


# --- the settings file a verdict writes -----------------------------------------------------


def test_settings_round_trip_bit_for_bit(tmp_path):
    from scar_viz.evaluation.settings import ChosenSettings, load_settings
    from scar_viz.scoring.learned import default_gate

    scar = ChosenSettings("hybrid", "scar", 4, 1, 0.35, 1 / 3, 0.25, None, k_rrf=30.0)
    learned = ChosenSettings("bm25", "learned", 6, 1, None, None, None, 0.013, default_gate())
    for s in (scar, learned):
        back = load_settings(s.save(tmp_path / f"{s.policy}.json"))
        assert back == s and back.to_dict() == s.to_dict()
    assert load_settings(tmp_path / "scar.json").tau == 1 / 3  # floats read back exactly
    assert load_settings(tmp_path / "learned.json").gate.weights == default_gate().weights
    assert scar.params == GateParams(4, 0.35, 1 / 3, 1, 0.25)
    assert scar.retriever_setting.label == "hybrid (k_rrf = 30)"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other"}, "Not a scar-viz settings file"),
        ({"version": 2}, "version 2"),
        ({"policy": "rse"}, "Unknown policy 'rse'"),
        ({"retriever": "sparse"}, "Unknown retriever 'sparse'"),
        ({"lam": None}, "needs lam"),
        ({"k": "4"}, "'k' must be a whole number"),
        ({"tau": "x"}, "'tau' must be a number"),
        ({"policy": "learned", "p": 0.05}, "needs its gate"),
        ({"gate": {"weights": []}}, "gate"),
    ],
)
def test_a_bad_settings_file_is_one_sentence(tmp_path, change, message):
    import json

    from scar_viz.evaluation.settings import ChosenSettings, SettingsFileError, load_settings

    data = {**ChosenSettings("dense", "scar", 3, 1, 0.5, 0.1, 0.0, None).to_dict(), **change}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SettingsFileError, match=message) as err:
        load_settings(path)
    assert "\n" not in str(err.value)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(SettingsFileError, match="not valid JSON"):
        load_settings(path)
    path.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    with pytest.raises(SettingsFileError, match="nested deeper than 64 levels"):
        load_settings(path)
    with pytest.raises(SettingsFileError, match="Cannot read"):
        load_settings(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"radius": 10**9}, "radius = 1000000000 (allowed 0 … 16) is out of range"),
        ({"tau": -5}, "τ = -5.0 (allowed 0 … 1.5) is out of range"),
        ({"k_rrf": -60}, "k_rrf = -60.0 (allowed 0 … 1000) is out of range"),
        ({"lam": 1e300}, "λ = 1e+300 (allowed 0 … 2) is out of range"),
        ({"k": 10**7}, "k = 10000000 (allowed 1 … 1000) is out of range"),
        ({"k": 0}, "k = 0 (allowed 1 … 1000) is out of range"),
        ({"mu": -0.5}, "μ = -0.5 (allowed 0 … 2) is out of range"),
    ],
)
def test_a_settings_files_numbers_are_held_to_the_addresss_ranges(tmp_path, change, message):
    import json

    from scar_viz.evaluation.settings import ChosenSettings, SettingsFileError, load_settings

    data = {**ChosenSettings("dense", "scar", 3, 1, 0.5, 0.1, 0.0, None).to_dict(), **change}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SettingsFileError) as err:
        load_settings(path)
    assert message in str(err.value) and "\n" not in str(err.value)
