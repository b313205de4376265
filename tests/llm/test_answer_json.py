"""scar_viz.llm.answer_json: the ``answer --json`` shape, written like ``eval --json``."""

from __future__ import annotations

import json

import pytest

from scar_viz.llm.answer_json import ANSWER_SETTING, answer_json
from scar_viz.llm.scores import SCORES
from tests.llm.answer_sample import SECRET, answer_setting, run


@pytest.fixture(scope="module")
def setting():
    return answer_setting()


def test_json_shape_follows_eval(llm_server, setting):
    out = answer_json(run(llm_server, setting))
    json.dumps(out)
    assert out["n_queries"] == 5
    assert list(out)[1 : 1 + len(ANSWER_SETTING)] == list(ANSWER_SETTING)
    assert out["params"] == {"k": 2, "lam": 0.5, "tau": 0.1, "radius": 1}
    for entry in out["policies"].values():
        assert set(SCORES) <= set(entry)
        assert entry["n_scored"]["faithfulness"] == 5
        assert entry["mean_context_tokens"] > 0
        assert entry["answer_tokens"]["calls"] + entry["answer_tokens"]["cached"] == 5
        assert entry["unparseable"] == 0
    assert out["unparseable"] == [] and out["errors"] == {}
    first = out["queries"][0]
    assert list(first) == ["id", "query", "type", "policies"]
    assert {"answer", "faithfulness", "claims"} <= set(first["policies"]["scar"])
    assert SECRET not in json.dumps(out)


def test_per_query_rows_follow_the_query_order_and_can_be_left_out(llm_server, setting):
    bad = {"qasc": {"percentile": 150.0}}
    check = run(llm_server, setting, policies=("topk", "qasc"), knobs=bad, n_boot=0)
    out = answer_json(check)
    assert [q["id"] for q in out["queries"]] == [q.id for q in check.queries]
    for q, row in zip(out["queries"], check.policies["topk"].rows, strict=True):
        assert q["policies"]["topk"]["answer"] == row.answer  # rows matched by position
        assert set(q["policies"]) == {"topk"}  # the failed policy has no per-query entry
    assert set(out["errors"]) == {"qasc"} and "qasc" not in out["policies"]
    assert "queries" not in answer_json(check, per_query=False)
