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
