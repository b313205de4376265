"""AppTest of the compare page: six policies on the sample and on an upload, knobs, the diff."""

from __future__ import annotations

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.documents import document_from_text
from scar_viz.embeddings import text_key
from scar_viz.policies import ORDER
from tests.fakes import tiny_cross_encoder
from tests.pages.helpers import alerts

APP = "../../app.py"
TIMEOUT = 90


def open_compare(app: AppTest) -> AppTest:
    app.run()
    app.switch_page("pages/compare.py")
    app.run()
    assert not app.exception, app.exception
    return app


def table(at: AppTest) -> pd.DataFrame:
    frame = next(d.value for d in at.dataframe if "jaccard vs scar" in d.value.columns)
    return frame.set_index("policy", drop=False)


def row(at: AppTest, policy: str) -> pd.Series:
    frame = table(at)
    return frame.iloc[list(ORDER).index(policy)]


@pytest.fixture
def at(hash_model) -> AppTest:
    return open_compare(AppTest.from_file(APP, default_timeout=TIMEOUT))


@pytest.fixture(scope="module")
def tiny_reranker(tmp_path_factory) -> str:
    return str(tiny_cross_encoder(tmp_path_factory.mktemp("tiny_ce")))


def test_six_policies_render_and_the_reranker_failure_is_a_message(at):
    assert at.title[0].value == "Compare policies"
    frame = table(at)
    assert list(frame["label"].str.split().str[0]) == [
        "topk",
        "window",
        "parent",
        "rerank",
        "scar",
        "qasc",
    ]
    assert any(
        "bge-reranker-large" in w and "cannot be loaded offline" in w for w in alerts(at, "warning")
    )
    assert pd.isna(row(at, "rerank")["tokens"])
    others = frame.drop(index="rerank")
    assert (others["tokens"] > 0).all() and (others["characters"] > 0).all()
    assert row(at, "scar")["jaccard vs scar"] == pytest.approx(1.0)
    assert len(at.get("plotly_chart")) == 1
    assert any("not in SCAR" in m.value for m in at.markdown)


def test_a_local_reranker_makes_the_sixth_policy_work(at, tiny_reranker):
    at.text_input(key="rr").set_value(tiny_reranker).run()
    assert not at.exception
    assert not any("not available" in w for w in alerts(at, "warning"))
    rerank = row(at, "rerank")
    assert rerank["chunks"] == at.slider(key="k").value and rerank["tokens"] > 0


def test_qasc_knobs_change_its_context(at):
    before = row(at, "qasc")["characters"]
    at.slider(key="qp").set_value(97).run()
    after = row(at, "qasc")["characters"]
    assert not at.exception
    assert after < before
    at.toggle(key="qa").set_value(True).run()
    assert "adaptive" in row(at, "qasc")["label"]


def test_window_width_and_k_change_the_table(at):
    narrow = row(at, "window")["chunks"]
    at.number_input(key="w").set_value(2).run()
    assert row(at, "window")["chunks"] > narrow
    at.slider(key="k").set_value(1).run()
    assert row(at, "topk")["chunks"] == 1


def diff_heads(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("**In ")]


def test_diff_view_follows_the_chosen_policy(at):
    at.selectbox(key="vs").set_value("topk").run()
    theirs, ours = diff_heads(at)
    assert theirs.startswith(f"**In topk (k={at.slider(key='k').value}), not in SCAR**")
    assert theirs.endswith("· 0 characters")  # top-k is always inside SCAR
    at.selectbox(key="vs").set_value("qasc").run()
    theirs, ours = diff_heads(at)
    assert theirs.startswith("**In qasc m=2, not in SCAR**")
    assert not theirs.endswith("· 0 characters")


def test_diff_text_is_escaped(hash_model):
    text = "# Tags\n\n" + "\n\n".join(
        f"Rule {i}: the <b>crew</b> & <script>alert({i})</script> passengers." for i in range(200)
    )
    doc = document_from_text("tags.md", text)
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.session_state["uploaded"] = (text_key(text), doc)
    open_compare(app)
    app.selectbox(key="doc").set_value("upload").run()
    app.text_input(key="q").set_value("What is rule 7 about the crew?").run()
    app.selectbox(key="vs").set_value("parent").run()
    assert not app.exception
    bodies = [h.proto.body for h in app.get("html")]
    diff = [b for b in bodies if "characters" in b and "chars " in b]
    assert diff and any("&lt;script&gt;alert(" in b and "&lt;b&gt;crew" in b for b in diff)
    assert not any("<script>" in b for b in bodies)


def test_uploaded_document_runs_every_policy(hash_model):
    text = "# Notes\n\n" + "\n\n".join(
        f"## Part {i}\n\nParagraph {i} talks about topic {i % 4}. It goes on at some length. " * 3
        for i in range(20)
    )
    doc = document_from_text("notes.md", text)
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.session_state["uploaded"] = (text_key(text), doc)
    open_compare(app)
    app.selectbox(key="doc").set_value("upload").run()
    app.text_input(key="q").set_value("What does paragraph 7 say about topic 3?").run()
    assert not app.exception
    assert any("notes.md" in t for t in alerts(app.sidebar))
    frame = table(app)
    assert (frame.drop(index="rerank")["characters"] > 0).all()
    assert frame["characters"].max() <= len(text) + 200
