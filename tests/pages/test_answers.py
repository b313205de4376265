"""AppTest of the Answers (LLM) page against the loopback fake chat server, through the real
``openai`` client over HTTP. The fake's replies follow string rules: these tests check what
the page shows and keeps, never answer quality."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.fake_llm import HTML_ANSWER
from tests.pages.helpers import alerts, assert_corpus_files, by_file, open_corpus, open_page

APP = "../../app.py"
TIMEOUT = 90
SECRET = "sk-page-SECRET-0123456789abcdef"
POLICIES = ["topk", "window1", "scar"]


def metric(at: AppTest, label: str) -> int:
    return int(next(m.value for m in at.metric if m.label == label))


TABLES = {  # a column only this table has
    "gen_report": "outcome",
    "ans_summary": "LLM calls",
    "ans_side": "difference in context",
    "ans_significance": "Cohen's d",
}


def table(at: AppTest, name: str):
    return next(df.value for df in at.dataframe if TABLES[name] in df.value.columns)


def has_table(at: AppTest, name: str) -> bool:
    return any(TABLES[name] in df.value.columns for df in at.dataframe)


def everything(at: AppTest) -> str:
    """Every element's protobuf text: what the page sends to the browser."""
    return "\n".join(str(el.proto) for el in at.main) + "\n".join(
        str(el.proto) for el in at.sidebar
    )


@pytest.fixture
def at(hash_model, llm_server, monkeypatch) -> AppTest:
    for name in ("OPENAI_API_KEY", "SCAR_VIZ_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return open_page("pages/answers.py", TIMEOUT)


def connect(at: AppTest, server) -> None:
    at.text_input(key="llm_url").set_value(server.base_url)
    at.text_input(key="llm_key_input").set_value(SECRET).run()
    assert not at.exception, at.exception


def generate(at: AppTest, n: int = 6, seed: int = 0) -> None:
    at.number_input(key="gen_n").set_value(n)
    at.number_input(key="gen_seed").set_value(seed)
    at.button(key="gen_run").click().run()
    assert not at.exception, at.exception


def test_nothing_runs_and_no_score_shows_until_a_model_is_configured(at, llm_server):
    assert at.title[0].value == "Answers (LLM)"
    assert any("shows no answer-quality figure" in i.value for i in at.info)
    assert at.button(key="gen_run").disabled and at.button(key="ans_run").disabled
    assert not has_table(at, "ans_summary")
    connect(at, llm_server)
    assert not at.button(key="gen_run").disabled and not at.button(key="ans_run").disabled
    assert not any("shows no answer-quality figure" in i.value for i in at.info)


def source_radio(at):
    """The query-set picker's radio (its key follows the active source, so find it by label)."""
    return next(r for r in at.radio if r.label == "Use")


def test_generate_then_load_into_the_evaluation_lab(at, llm_server):
    connect(at, llm_server)
    generate(at, n=6)
    kept = metric(at, "Kept")
    assert kept > 0 and kept + metric(at, "Dropped") >= 6
    assert metric(at, "Fragmented") + metric(at, "Atomic") <= kept
    report = table(at, "gen_report")
    assert report["queries"].sum() == kept + metric(at, "Dropped")
    assert any("Tokens spent:" in a and "completion tokens" in a for a in alerts(at, "caption"))
    assert llm_server.requests[-1]["headers"]["authorization"] == f"Bearer {SECRET}"
    assert source_radio(at).value == "sample"

    at.button(key="gen_load").click().run()
    assert not at.exception, at.exception
    assert source_radio(at).value == "generated"
    assert metric(at, "Queries") == kept  # the picker's counts are the generated set's
    assert any("Loaded" in s.value for s in at.success)
    assert at.session_state["qs_pick"] == "generated"
    assert SECRET not in everything(at)


def test_answer_check_one_row_per_policy_and_side_by_side(at, llm_server):
    connect(at, llm_server)
    assert at.multiselect(key="ans_policies").value == POLICIES
    at.button(key="ans_run").click().run()
    assert not at.exception, at.exception
    summary = table(at, "ans_summary")
    assert list(summary["policy"]) == POLICIES
    assert {"faithfulness", "answer relevancy", "context recall", "LLM calls"} <= set(summary)
    assert "answer correctness" in summary  # the sample's file carries reference answers
    assert summary["answer tokens"].gt(0).all()
    side = table(at, "ans_side")
    assert list(side["policy"]) == POLICIES
    assert set(table(at, "ans_significance")["vs"]) == {"topk", "window1"}
    assert any(b.label.startswith("Download the answer check") for b in at.get("download_button"))
    assert SECRET not in everything(at)


@pytest.mark.parametrize(
    ("mode", "words"), [("500", "HTTP 500"), ("401", "refused the API key (401")]
)
def test_an_llm_error_gives_one_message_and_keeps_earlier_results(at, llm_server, mode, words):
    connect(at, llm_server)
    generate(at, n=4)
    kept = metric(at, "Kept")
    at.button(key="ans_run").click().run()
    before = table(at, "ans_summary")

    llm_server.mode = mode
    generate(at, n=4, seed=7)  # new requests: not in the cache
    errors = [a for a in alerts(at, "error") if words in a]
    assert len(errors) == 1 and SECRET not in errors[0]
    assert metric(at, "Kept") == kept  # the earlier generated set is still shown
    at.number_input(key="ans_nq").set_value(2)  # new judge requests: not in the cache
    at.button(key="ans_run").click().run()
    assert not at.exception, at.exception
    errors = [a for a in alerts(at, "error") if words in a]
    assert len(errors) == 1 and "Earlier results are kept" in errors[0]
    assert table(at, "ans_summary").equals(before)
    assert at.number_input(key="ans_nq").value == 2  # the user's settings stay
    assert at.text_input(key="llm_url").value == llm_server.base_url
    assert SECRET not in everything(at)


def test_an_answer_with_markup_is_shown_escaped(at, llm_server):
    llm_server.mode = "html"
    connect(at, llm_server)
    at.button(key="ans_run").click().run()
    assert not at.exception, at.exception
    assert table(at, "ans_side")["answer"].str.contains(HTML_ANSWER, regex=False).all()
    boxes = [el.proto.body for el in at.get("html") if "bold" in el.proto.body]
    assert len(boxes) == len(POLICIES)  # each answer is drawn in an alert box
    for body in boxes:
        assert "<script>" not in body and "<img" not in body and "<b>" not in body
        assert "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;" in body
    assert all("<script>" not in m.value for m in at.markdown)


def test_on_the_sample_corpus_the_scores_are_broken_down_by_file(
    hash_model, llm_server, monkeypatch
):
    for name in ("OPENAI_API_KEY", "SCAR_VIZ_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    app = open_corpus("pages/answers.py", TIMEOUT)
    connect(app, llm_server)
    assert by_file(app) is None  # nothing run yet
    app.button(key="ans_run").click().run()
    assert not app.exception, app.exception
    frame = by_file(app)
    assert_corpus_files(frame)
    assert set(frame["policy"]) == set(POLICIES)
    assert {"faithfulness", "answer relevancy", "context recall", "context tokens"} <= set(frame)


def test_one_document_has_no_breakdown_by_file(at, llm_server):
    connect(at, llm_server)
    at.button(key="ans_run").click().run()
    assert not at.exception, at.exception
    assert has_table(at, "ans_summary") and by_file(at) is None
