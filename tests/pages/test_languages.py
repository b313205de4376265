"""AppTest of a Japanese document: the Explorer and the lesson run on the Japanese sample, the
sidebar's prompts reach the model's name, and the model-language line appears for the English
default model on it (and not on an English document)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.documents import samples
from scar_viz.scoring.scar import DEFAULT_K
from tests.pages.helpers import alerts

APP = "../../app.py"
JA = "reitou"


def open_app(doc: str, **params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["doc"] = doc
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_explorer_runs_on_the_japanese_sample_with_its_japanese_question(hash_model):
    at = open_app(JA)
    assert at.selectbox(key="doc").value == JA
    question = at.text_input(key="q").value
    assert question == samples.sample_questions(JA)[0]["query"] and question.endswith("？")
    assert int(next(m.value for m in at.metric if m.label == "Retrieved")) == DEFAULT_K
    assert [c.key for c in at.get("plotly_chart")] == ["overview_marks", "overview"]
    at.selectbox(key="retriever").set_value("bm25").run()
    assert not at.exception, at.exception
    assert not alerts(at.sidebar, "warning")  # the hash model is lexical: nothing to say


def test_the_lesson_runs_on_the_japanese_sample(hash_model):
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["l_doc"] = JA
    at.switch_page("pages/learn.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="l_doc").value == JA
    assert [h.value for h in at.header][:4] == [
        "1 · Boundary fragmentation",
        "2 · The gate",
        "3 · Predict, then reveal",
        "4 · Why the bar is relative",
    ]
    lesson = next(r for r in samples.sample_questions(JA) if r["id"] == "ja-f-06")
    shown = " ".join(m.value for m in at.markdown)
    assert lesson["query"] in shown
    assert "cut it between chunk 1 and chunk 2" in " ".join(m.value for m in at.get("markdown"))
    at.radio(key="l_round").set_value(1).run()
    assert not at.exception, at.exception


def test_the_sidebar_prompts_are_in_the_models_name(hash_model):
    at = open_app(samples.DEFAULT_SAMPLE)
    at.text_input(key="query_prompt").set_value("query: ").run()
    at.text_input(key="doc_prompt").set_value("passage: ").run()
    assert not at.exception, at.exception
    line = next(a for a in alerts(at.sidebar, "caption") if "embedded now" in a)
    assert '[query "query: ", document "passage: "]' in line


@pytest.mark.model
def test_the_model_language_line_for_the_default_model_on_japanese_only():
    at = open_app(JA)
    warnings = [a for a in alerts(at.sidebar, "warning") if "English only" in a]
    assert len(warnings) == 1 and "Japanese" in warnings[0] and "st:" in warnings[0]
    at.selectbox(key="doc").set_value(samples.DEFAULT_SAMPLE).run()
    assert not [a for a in alerts(at.sidebar, "warning") if "English only" in a]
