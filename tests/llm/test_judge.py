"""scar_viz.llm.judge: the judge's replies read into verdicts, and one job scored from them."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.llm.client import Reply
from scar_viz.llm.judge import (
    Job,
    Unparseable,
    judge_requests,
    parse_correctness,
    parse_faithfulness,
    parse_recall,
    parse_relevancy,
    score_row,
)
from scar_viz.llm.scores import Claim


def reply(data: dict | None, text: str = "{}") -> Reply:
    return Reply(text, data, "" if data else "not JSON", 10, 5, False)


def embed(texts):
    return np.ones((len(texts), 2))


@pytest.mark.parametrize(
    "flag, expected", [(True, True), (1, True), ("Yes", True), ("unsupported", False), (0, False)]
)
def test_support_flags_in_the_usual_spellings(flag, expected):
    v = parse_faithfulness({"claims": [{"claim": "x", "supported": flag}]})
    assert v.claims == (Claim("x", expected),)


@pytest.mark.parametrize(
    "data",
    [
        None,
        {},
        {"claims": "x"},
        {"claims": [{"claim": "x", "supported": "maybe"}]},
        {"claims": [1]},
    ],
)
def test_unreadable_claims(data):
    assert parse_faithfulness(data) is None


def test_the_other_verdicts():
    assert parse_relevancy({"questions": ["a?", " ", "b?"]}).questions == ("a?", "b?")
    assert parse_relevancy({"questions": ["a?", 3]}) is None
    found = parse_recall({"statements": [{"statement": "s", "supported": False}]})
    assert found.statements == (Claim("s", False),)
    sort = parse_correctness({"TP": ["a"], "FP": [], "FN": ["b", "c"]})
    assert (sort.tp, sort.fp, sort.fn) == (("a",), (), ("b", "c"))
    assert parse_correctness({"TP": ["a"], "FP": []}) is None


def test_a_job_asks_only_for_the_scores_it_can_have():
    job = Job("q1", "Why?", "scar", "ctx", 3, (1,), (), "", reply(None, " An answer. "))
    assert set(judge_requests(job, 3)) == {"faithfulness", "answer_relevancy"}
    job.facts, job.reference = ("Fact.",), "Ref."
    asks = judge_requests(job, 3)
    assert set(asks) == {"faithfulness", "answer_relevancy", "context_recall", "answer_correctness"}
    assert "An answer." in asks["faithfulness"][1]["content"]
    assert job.n_judge_calls == 4


def test_score_row_scores_what_it_can_read_and_lists_the_rest():
    job = Job("q1", "Why?", "scar", "ctx", 3, (1,), ("F1.", "F2."), "", reply(None, "Ans."))
    replies = {
        "faithfulness": reply({"claims": [{"claim": "c", "supported": True}]}),
        "answer_relevancy": reply(None, "Sorry, I cannot."),
        "context_recall": reply({"statements": [{"statement": "F1.", "supported": True}]}),
    }
    bad: list[Unparseable] = []
    row = score_row(job, replies, embed, bad)
    assert (row.faithfulness, row.answer_relevancy, row.context_recall) == (1.0, None, 0.5)
    assert row.answer_correctness is None and row.generated_questions == ()
    assert bad == [Unparseable("q1", "scar", "answer_relevancy", "Sorry, I cannot.")]
    assert row.judge_usage.calls == 3 and row.answer_usage.prompt_tokens == 10
