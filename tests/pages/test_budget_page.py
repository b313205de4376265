"""AppTest of the Equal budget page: every policy over k = 1 … 10 on one chart with the front,
the table, the CSV, the policy picker, SCAR's preset and the session's learned gate."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.documents.reading import document_from_text
from scar_viz.evaluation.budget import BUDGET_KS
from scar_viz.policies.rerank import RERANK_HINT
from scar_viz.scoring.learned import LearnedGate
from scar_viz.scoring.params import PRESETS
from tests.pages.helpers import assert_corpus_files, by_file, open_corpus, open_page

PAGE = "pages/budget.py"
TIMEOUT = 120


@pytest.fixture
def at(hash_model) -> AppTest:
    return open_page(PAGE, TIMEOUT)


def points(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "on the front" in d.value.columns)


def chart(at: AppTest) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def test_every_policy_over_k_with_the_front(at):
    assert at.title[0].value == "Equal budget"
    frame = points(at)
    picked = at.multiselect(key="bud_pols").value
    assert "rerank" not in picked and any(RERANK_HINT in c.value for c in at.caption)
    assert set(frame["policy"]) == set(picked)
    assert sorted(set(frame["k"])) == list(BUDGET_KS)
    assert len(frame) == len(picked) * len(BUDGET_KS)
    traces = chart(at)["data"]
    assert len(traces) == len(picked) + 1 and traces[-1]["name"].startswith("Pareto front")
    assert len(traces[-1]["x"]) == int(frame["on the front"].sum()) >= 1
    assert at.get("download_button")


def test_fewer_policies_and_another_preset(at):
    before = points(at)
    at.multiselect(key="bud_pols").set_value(["topk", "scar"]).run()
    frame = points(at)
    assert set(frame["policy"]) == {"topk", "scar"} and len(chart(at)["data"]) == 3
    cols = ["k", "recall", "mean tokens"]
    pd.testing.assert_frame_equal(
        frame[frame.policy == "topk"][cols].reset_index(drop=True),
        before[before.policy == "topk"][cols].reset_index(drop=True),
    )
    at.selectbox(key="bud_preset").set_value("B").run()
    after = points(at)
    scar_a = frame[frame.policy == "scar"].reset_index(drop=True)
    scar_b = after[after.policy == "scar"].reset_index(drop=True)
    assert not scar_a[["recall", "mean tokens"]].equals(scar_b[["recall", "mean tokens"]])


def test_the_session_gate_is_the_learned_policy(at):
    lam, tau = PRESETS["A"]["lam"], PRESETS["A"]["tau"]
    at.session_state["learned_gate_json"] = LearnedGate.scar(lam, tau).to_json()
    at.session_state["learned_p"] = 0.5
    at.multiselect(key="bud_pols").set_value(["scar", "learned"]).run()
    assert not at.exception
    frame = points(at)
    scar = frame[frame.policy == "scar"].reset_index(drop=True)
    learned = frame[frame.policy == "learned"].reset_index(drop=True)
    pd.testing.assert_series_equal(scar["recall"], learned["recall"])
    pd.testing.assert_series_equal(scar["mean chunks"], learned["mean chunks"])


def test_a_document_without_queries_says_how_to_get_some(hash_model):
    text = "# Notes\n\n" + "\n\n".join(f"Paragraph {i} says something." for i in range(30))
    app = open_page(PAGE, TIMEOUT, upload=document_from_text("n.md", text))
    assert not app.exception
    assert any("no labelled queries" in i.value for i in app.info)
    assert not app.get("plotly_chart")


def test_the_sentence_policies_can_be_left_out(at):
    with_them = points(at)
    at.toggle(key="bud_sent").set_value(False).run()
    assert not at.exception, at.exception
    frame = points(at)
    left = {"qasc", "qasc-hybrid", "sentence-window"}
    assert left <= set(with_them["policy"]) and not left & set(frame["policy"])
    assert set(frame["policy"]) == set(with_them["policy"]) - left


def test_on_the_sample_corpus_each_policy_is_broken_down_by_file_at_a_chosen_k(hash_model):
    app = open_corpus(PAGE, TIMEOUT, k=5)  # the lab's k, set on another page
    app.multiselect(key="bud_pols").set_value(["topk", "window1", "scar"]).run()
    assert not app.exception, app.exception
    assert app.selectbox(key="bud_by_file_k").value == 5
    frame = by_file(app)
    assert_corpus_files(frame)
    assert (frame["topk chunks"] == 5).all()
    assert {"window1 recall", "scar recall", "scar chunks"} <= set(frame)
    app.selectbox(key="bud_by_file_k").set_value(1).run()
    assert not app.exception, app.exception
    assert (by_file(app)["topk chunks"] == 1).all()


def test_one_document_has_no_breakdown_by_file(at):
    assert by_file(at) is None
    assert not [s for s in at.selectbox if s.key == "bud_by_file_k"]


def test_a_large_set_runs_on_a_spread_sample_unless_every_question_is_asked(
    hash_model, monkeypatch
):
    from scar_viz.evaluation import budget

    monkeypatch.setattr(budget, "BUDGET_QUESTIONS", 3)  # the sample's set is larger than 3
    at = open_page(PAGE, TIMEOUT)
    every = at.toggle(key="bud_every")
    assert every.value is False
    (note,) = [c.value for c in at.caption if c.value.startswith("On 3 of the ")]
    n_all = int(note.split(" of the ")[1].split()[0])
    assert n_all > 3 and every.label == f"Every question ({n_all})"
    sampled = points(at)
    every.set_value(True).run()
    assert not at.exception
    assert not [c for c in at.caption if c.value.startswith("On 3 of the ")]
    assert not points(at).equals(sampled)  # recall over every question differs
