"""AppTest of the explorer page: it renders on the sample, and sliders change the gate."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz import samples
from scar_viz.documents import document_from_text
from scar_viz.embeddings import text_key
from scar_viz.scoring import DEFAULT_K

APP = "../../app.py"
TIMEOUT = 60


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture
def at(hash_model) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.run()
    assert not app.exception, app.exception
    return app


def test_opens_on_sample_without_upload(at):
    assert at.title[0].value == "Explorer"
    assert at.selectbox(key="doc").value == samples.DEFAULT_SAMPLE
    assert at.text_input(key="q").value  # the default example question
    assert int(metric(at, "Retrieved")) == DEFAULT_K
    assert len(at.get("plotly_chart")) == 2


def test_lambda_and_tau_change_the_admitted_set(at):
    at.slider(key="lam").set_value(0.0)
    at.slider(key="tau").set_value(0.0).run()
    loose = int(metric(at, "Admitted neighbours"))
    at.slider(key="lam").set_value(2.0)
    at.slider(key="tau").set_value(1.5).run()
    strict = int(metric(at, "Admitted neighbours"))
    assert not at.exception
    assert loose > strict
    assert strict == 0


def test_presets_set_the_sliders(at):
    at.button(key="preset_b").click().run()
    assert at.slider(key="lam").value == pytest.approx(0.1)
    assert at.slider(key="tau").value == pytest.approx(0.8)
    at.button(key="preset_a").click().run()
    assert at.slider(key="lam").value == pytest.approx(0.5)
    assert at.slider(key="tau").value == pytest.approx(0.1)


def test_uploaded_document_is_used(hash_model):
    text = "# Notes\n\n" + "\n\n".join(
        f"Paragraph {i} talks about topic {i % 4} in some detail. " * 6 for i in range(30)
    )
    doc = document_from_text("notes.md", text)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["uploaded"] = (text_key(text), doc)
    at.run()
    at.selectbox(key="doc").set_value("upload").run()
    assert not at.exception
    assert any("notes.md" in h.proto.body for h in at.sidebar.get("html"))


def test_invalid_chunking_shows_message_and_keeps_page(at):
    at.number_input(key="overlap").set_value(700).run()
    assert not at.exception
    assert any("Overlap (700) must be smaller" in e.value for e in at.error)
    at.number_input(key="overlap").set_value(60).run()
    assert not at.error
    assert int(metric(at, "Retrieved")) == DEFAULT_K


def test_empty_query_asks_for_one(at):
    at.text_input(key="q").set_value("   ").run()
    assert not at.exception
    assert any("Type a question" in i.value for i in at.info)


def test_every_setting_restores_from_the_address(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    params = {
        "q": "Who decides a crossing in fog?",
        "k": "4",
        "r": "2",
        "lam": "1.25",
        "tau": "0.35",
        "size": "500",
        "overlap": "50",
        "chunker": "section",
        "model": "hash",
        "prepend": "true",
        "present": "true",
    }
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    assert at.text_input(key="q").value == params["q"]
    assert (at.slider(key="k").value, at.slider(key="r").value) == (4, 2)
    assert (at.slider(key="lam").value, at.slider(key="tau").value) == (1.25, 0.35)
    assert (at.number_input(key="size").value, at.number_input(key="overlap").value) == (500, 50)
    assert at.selectbox(key="chunker").value == "section"
    assert at.checkbox(key="prepend").value is True
    assert at.toggle(key="present").value is True
    assert int(metric(at, "Retrieved")) == 4


def test_decision_table_download_is_offered(at):
    assert any(b.key == "dl_decisions" for b in at.get("download_button"))


def test_hover_memo_is_keyed_on_content_not_object_identity(at):
    """The strip's hover text is cached under the document's digest, the chunking, the model,
    prepending, the query and the view: never ``id(prep)``, which CPython reuses."""
    import dataclasses

    from scar_viz.chunking import ChunkingConfig
    from scar_viz.documents import document_from_text
    from scar_viz.embeddings import make_embedder
    from scar_viz.pipeline import prepare_document
    from ui.cache import prepared_key

    emb = make_embedder("hash")
    doc = samples.load_sample()
    one = prepare_document(doc, emb, ChunkingConfig())
    two = prepare_document(doc, emb, ChunkingConfig())  # same content, another object
    assert one is not two and prepared_key(one) == prepared_key(two)
    other = prepare_document(document_from_text(doc.name, doc.text + " More."), emb)
    assert prepared_key(other) != prepared_key(one)
    assert prepared_key(dataclasses.replace(one, prepend=True)) != prepared_key(one)
    key = prepared_key(one)
    assert key[0] == text_key(doc.text) and len(key[0]) == 64
    assert isinstance(key[1], ChunkingConfig) and key[2].startswith("hash:")
    assert not any(isinstance(part, int) and part > 2**20 for part in key)
    source = (Path(__file__).resolve().parents[2] / "pages" / "explorer.py").read_text()
    assert '("hover", *prepared_key(prep)' in source and "id(prep)" not in source
