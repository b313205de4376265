"""scar_viz.evaluation.run_json: the one writer of ``eval --json`` and ``answer --json``."""

from __future__ import annotations

from dataclasses import dataclass

from scar_viz.chunking.tokens import TOKENIZER_NAME
from scar_viz.evaluation.run_json import rounded, run_json
from tests.evaluation_sample import hash_sample


@dataclass(frozen=True)
class Ran:
    value: float
    error: str = ""


def test_rounded():
    assert rounded(None) is None
    assert rounded(1 / 3) == 0.333333 and type(rounded(2)) is float


def test_policies_that_failed_are_listed_only_under_errors():
    queries = hash_sample()[1][:2]
    policies = {"a": Ran(0.1234567), "b": Ran(0.0, "broke")}
    out = run_json(
        queries,
        {"document": "d"},
        policies,
        lambda p: {"v": rounded(p.value)},
        tail={"usage": 1},
        per_query=lambda p, i: {"i": i},
    )
    assert list(out) == [
        "n_queries", "document", "tokenizer", "policies", "errors", "significance", "usage",
        "queries",
    ]  # fmt: skip
    assert out["n_queries"] == 2 and out["tokenizer"] == TOKENIZER_NAME
    assert out["policies"] == {"a": {"v": 0.123457}} and out["errors"] == {"b": "broke"}
    assert out["queries"][1] == {"id": queries[1].id, "policies": {"a": {"i": 1}}}
    assert "queries" not in run_json(queries, {}, policies, lambda p: {})
