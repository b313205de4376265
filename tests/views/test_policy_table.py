"""The policy comparison table: one row per policy, failed policies carry their message."""

from __future__ import annotations

import pytest

from scar_viz.policies import PolicyResult
from scar_viz.views.policy_table import comparison_rows


def _result(name: str, spans: tuple[tuple[int, int], ...], ids=None) -> PolicyResult:
    return PolicyResult(name, spans, ids, "x" * 7, 7, 2, 0.0012345, ("a", "b"))


def test_rows_follow_the_results_and_compare_with_the_reference():
    results = {
        "topk": _result("topk", ((0, 10),), (0,)),
        "rerank": "cannot be loaded offline",
        "scar": _result("scar", ((5, 15),)),
    }
    rows = comparison_rows(results)
    assert [r["policy"] for r in rows] == ["topk", "rerank", "scar"]
    assert rows[0]["jaccard vs scar"] == pytest.approx(5 / 15)
    assert rows[0]["chunks"] == 1 and rows[2]["chunks"] is None
    assert rows[0]["ms"] == 1.23 and rows[0]["notes"] == "a b"
    assert rows[1]["notes"] == "not available: cannot be loaded offline"
    assert rows[1]["tokens"] is None
    assert rows[2]["jaccard vs scar"] == 1.0


def test_jaccard_is_blank_when_the_reference_failed():
    rows = comparison_rows({"topk": _result("topk", ((0, 10),)), "scar": "failed"})
    assert rows[0]["jaccard vs scar"] is None
