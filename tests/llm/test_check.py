"""scar_viz.llm.check: the answer check against the loopback fake chat server (real openai
client over HTTP).

The fake's replies follow string rules, so these tests check the plumbing and the score
formulas, never answer quality.
"""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.llm.answer_json import answer_json
from scar_viz.llm.check import answer_contexts, check_question
from scar_viz.llm.client import LLMError
from tests.fake_llm import HTML_ANSWER
from tests.llm.answer_sample import POLICIES, SECRET, answer_setting, chat, run


@pytest.fixture(scope="module")
def setting():
    return answer_setting()


def test_happy_path_scores_tokens_and_calls(llm_server, setting):
    check = run(llm_server, setting)
    assert check.n_queries == 5 and set(check.policies) == set(POLICIES)
    rows = 5 * len(POLICIES)
    # identical contexts share their calls: at most 1 answer + 3 judge calls per row
    assert llm_server.calls == check.usage.calls <= 4 * rows
    assert check.usage.calls + check.usage.cached == 4 * rows
    top, win = check.policies["topk"], check.policies["window1"]
    for pa in check.policies.values():
        assert pa.n_scored("answer_correctness") == 0  # no reference answers given
        for r in pa.rows:
            # the fake answers with the context's first line, and judges by substring:
            # every claim is supported, so faithfulness is 1
            assert r.faithfulness == 1.0 and r.claims
            assert -1.0 <= r.answer_relevancy <= 1.0
            assert len(r.generated_questions) == 3
            assert 0.0 <= r.context_recall <= 1.0
            assert r.answer_usage.total_tokens == 15
    for a, b in zip(top.rows, win.rows, strict=True):
        assert a.context in b.context or set(a.chunk_ids) <= set(b.chunk_ids)
        assert b.context_recall >= a.context_recall  # a wider context supports at least as much
        assert b.context_tokens >= a.context_tokens
    assert win.mean_context_tokens >= top.mean_context_tokens
    metrics = {(c.baseline, c.metric) for c in check.comparisons}
    assert ("topk", "tokens") in metrics and ("window1", "context_recall") in metrics


def test_a_rerun_makes_zero_http_calls(llm_server, setting):
    first = answer_json(run(llm_server, setting))
    calls = llm_server.calls
    again = run(llm_server, setting)
    assert llm_server.calls == calls and again.usage.calls == 0
    second = answer_json(again)
    for out in (first, second):  # calls vs cache hits differ, nothing else
        out.pop("usage")
        for entry in out["policies"].values():
            entry.pop("answer_tokens"), entry.pop("judge_tokens")
    assert first == second


def test_reference_answers_give_answer_correctness(llm_server, setting):
    prep, labelled, vecs, embed = setting
    refs = {q.id: q.query.evidence[0].text for q in labelled}
    check = run(llm_server, setting, references=refs)
    assert check.has_references
    for r in check.policies["topk"].rows:
        assert r.answer_correctness is not None
        # F1 is 1 or 0 with this fake; the cosine part is 0.25 · cos(answer, reference)
        cos = float(np.dot(*embed([r.answer.strip() or " ", refs[r.query_id]])))
        f1_part = r.answer_correctness - 0.25 * cos
        assert min(abs(f1_part), abs(f1_part - 0.75)) < 1e-5


def test_unparseable_judge_replies_are_counted_and_shown(llm_server, setting):
    llm_server.mode = "garbage"
    check = run(llm_server, setting, policies=("topk", "scar"))
    assert len(check.unparseable) == 2 * 5 * 3
    assert {u.step for u in check.unparseable} == {
        "faithfulness",
        "answer_relevancy",
        "context_recall",
    }
    assert check.unparseable[0].reply.startswith("Sorry")
    out = answer_json(check)
    assert out["policies"]["scar"]["unparseable"] == 15
    assert out["policies"]["scar"]["faithfulness"] is None
    assert out["policies"]["scar"]["n_scored"]["faithfulness"] == 0
    assert check.comparisons == tuple(c for c in check.comparisons if c.metric == "tokens")


def test_html_in_an_answer_is_returned_verbatim(llm_server, setting):
    llm_server.mode = "html"
    check = run(llm_server, setting, policies=("scar",), n_boot=0)
    assert all(r.answer.startswith(HTML_ANSWER) for r in check.policies["scar"].rows)
    out = answer_json(check)
    assert out["queries"][0]["policies"]["scar"]["answer"].startswith(HTML_ANSWER)


def test_a_separate_judge_model(llm_server, setting):
    run(llm_server, setting, policies=("scar",), judge=chat(llm_server, "judge-model"), n_boot=0)
    models = [r["body"]["model"] for r in llm_server.requests]
    assert models.count("fake-model") == 5  # the answers
    assert set(models) == {"fake-model", "judge-model"}


def test_server_failure_raises_one_sentence_and_keeps_what_was_done(llm_server, setting):
    llm_server.mode = "500"
    with pytest.raises(LLMError, match="HTTP 500") as info:
        run(llm_server, setting, chat=chat(llm_server, max_retries=0))
    assert SECRET not in str(info.value)


def test_answer_contexts_for_the_explorer(llm_server):
    model = chat(llm_server)
    out = answer_contexts(model, "When?", {"topk": "First line here.", "scar": "Other line."})
    assert {k: v.text for k, v in out.items()} == {
        "topk": "First line here.",
        "scar": "Other line.",
    }


def test_check_question_for_the_explorer(llm_server, setting):
    *_, embed = setting
    contexts = {"topk": "The gate shuts at dusk.", "scar": "The gate shuts at dusk.\n\nThen more."}
    free = check_question(chat(llm_server), embed, "When does the gate shut?", contexts)
    # 2 answers + 2 faithfulness; both answers are the same line, so 1 relevancy call
    assert llm_server.calls == 5
    assert set(free.rows) == {"topk", "scar"} and not free.unparseable
    assert free.rows["scar"].faithfulness == 1.0 and free.rows["scar"].context_recall is None
    assert free.rows["topk"].context_tokens < free.rows["scar"].context_tokens
    labelled = check_question(
        chat(llm_server),
        embed,
        "When does the gate shut?",
        {"topk": "Nothing relevant here at all.", "scar": contexts["scar"]},
        evidence=["The gate shuts at dusk."],
        reference="At dusk.",
    )
    assert labelled.rows["scar"].context_recall == 1.0
    assert labelled.rows["topk"].context_recall == 0.0
    assert labelled.rows["scar"].answer_correctness is not None


def test_a_policy_that_fails_is_kept_with_its_message(llm_server, setting):
    bad = {"qasc": {"percentile": 150.0}}
    check = run(llm_server, setting, policies=("scar", "qasc"), knobs=bad, n_boot=0)
    assert check.policies["qasc"].error and check.policies["qasc"].rows == ()
    assert len(check.policies["scar"].rows) == check.n_queries
    assert check.settings.params.k == 2 and check.answer_model == check.judge_model
