"""AppTest of the one sidebar: the active document is named, selects show names while the
address keeps ids, a shared upload link asks for a session file, the LLM settings keep their
key out of the address, no widget gets a default and a Session State value at once, and a
corpus (the sample corpus, or several uploaded files) is loaded, summed up and kept."""

from __future__ import annotations

import types
from unittest import mock

import pytest
from streamlit.elements.lib import policies
from streamlit.testing.v1 import AppTest

from scar_viz.chunking.registry import chunker_name
from scar_viz.documents import collect, samples
from scar_viz.documents.reading import Part, document_from_text, read_document
from scar_viz.embeddings import sidebar_models, text_key
from scar_viz.views.session import SETTING_KEYS
from tests.pages.helpers import alerts
from ui import keys, loading

APP = "../../app.py"
TIMEOUT = 60
HOSTILE_NAME = "<b>notes</b> [x](javascript:alert(1)).md"


def uploaded_app() -> AppTest:
    text = "# Notes\n\n" + "\n\n".join(
        f"Paragraph {i} talks about topic {i % 4} in some detail. " * 6 for i in range(30)
    )
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["uploaded"] = (text_key(text), document_from_text(HOSTILE_NAME, text))
    at.run()
    at.selectbox(key="doc").set_value("upload").run()
    assert not at.exception, at.exception
    return at


def test_active_document_is_named_after_a_page_change(hash_model):
    at = uploaded_app()
    assert f"Active: {HOSTILE_NAME}" in alerts(at.sidebar, "caption")
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="doc").value == "upload"
    # the uploader holds no file on the new page; the document is still named, escaped
    assert f"Active: {HOSTILE_NAME}" in alerts(at.sidebar, "caption")
    bodies = [h.proto.body for h in at.sidebar.get("html")]
    assert not any("<b>notes</b>" in body for body in bodies)


def test_selects_show_names_and_the_address_keeps_ids(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    doc, chunker, model = (at.selectbox(key=k) for k in ("doc", "chunker", "model"))
    assert samples.SAMPLES["harbor"].title in doc.options and "harbor" not in doc.options
    assert "upload" not in doc.options
    assert chunker_name("section") in chunker.options and "section" not in chunker.options
    assert sidebar_models()["hash"] in model.options and "hash" not in model.options
    at.selectbox(key="chunker").set_value("section").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="chunker").value == "section"
    assert at.query_params.get("chunker") == "section"
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    fresh.query_params.update(at.query_params)
    fresh.run()
    assert fresh.selectbox(key="chunker").value == "section"


def test_a_shared_upload_link_asks_for_the_session_file(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["doc"] = "upload"
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="doc").value == "upload"
    message = " ".join(i.value for i in at.info)
    assert "session file" in message and "cannot travel in a link" in message


def test_llm_settings_bind_model_and_url_but_never_the_key(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"llm_model": "my-chat-model", "llm_url": "http://localhost:11434/v1"})
    at.run()
    assert at.text_input(key="llm_model").value == "my-chat-model"
    assert at.text_input(key="llm_url").value == "http://localhost:11434/v1"
    key = at.text_input(key="llm_key_input")
    assert key.proto.type == key.proto.PASSWORD
    key.set_value("sk-never-in-the-url-123").run()
    assert not at.exception, at.exception
    assert "sk-never" not in repr(at.query_params)
    assert "llm_key_input" not in SETTING_KEYS  # never in a session file


@pytest.fixture
def warnings_logged(monkeypatch):
    """Streamlit's default-plus-Session-State check, live as under a server (AppTest has no
    runtime, and the warning shows once per process)."""
    monkeypatch.setattr(policies, "runtime", types.SimpleNamespace(exists=lambda: True))
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    logger = mock.Mock()
    monkeypatch.setattr(policies, "_LOGGER", logger)
    return logger


def test_presets_and_examples_set_widgets_without_the_duplicate_default_warning(
    hash_model, warnings_logged
):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.button(key="preset_b").click().run()
    assert (at.slider(key="lam").value, at.slider(key="tau").value) == (0.1, 0.8)
    at.selectbox(key="example").select_index(1).run()
    at.button(key="preset_a").click().run()
    assert not at.exception, at.exception
    assert at.slider(key="lam").value == 0.5
    assert not warnings_logged.warning.called, warnings_logged.warning.call_args


# --- a corpus: the sample corpus, uploads of several files --------------------------------------


class FakeUpload:
    """What the uploader hands its callback: a name and the bytes (``UploadedFile``'s API)."""

    def __init__(self, name: str, data: bytes) -> None:
        self.name = name
        self._data = data

    def getvalue(self) -> bytes:
        return self._data

    @property
    def size(self) -> int:
        return len(self._data)


PROSE = "Paragraph {i} of {name} explains part {i} of the knowledge base in plain words. "
FILES = [
    FakeUpload(name, "\n\n".join(PROSE.format(i=i, name=name) * 4 for i in range(6)).encode())
    for name in ("guide.md", "faq.txt", "tool.py")
]
BINARY = FakeUpload("<img src=x onerror=alert(1)>.txt", b"\x00\x01\x02 binary")


def uploaded_through_the_callback(monkeypatch, uploads) -> dict:
    """The session values the uploader's callback (``ui.loading.read_upload``) sets."""
    state = {keys.UPLOAD_FILE: uploads}
    monkeypatch.setattr(loading.st, "session_state", state)
    loading.read_upload()
    return state


def test_one_plain_file_is_read_as_it_always_was(monkeypatch):
    state = uploaded_through_the_callback(monkeypatch, [FILES[0]])
    doc = read_document(FILES[0].name, FILES[0].getvalue())
    assert state[keys.UPLOADED] == (text_key(doc.text), doc)
    assert not state[keys.UPLOADED][1].several_files and state[keys.UPLOAD_ERROR] == ""
    assert state[keys.UPLOADED][1].parts == (Part(doc.name, 0, len(doc.text)),)


def test_an_unreadable_upload_keeps_the_previous_document(monkeypatch):
    state = uploaded_through_the_callback(monkeypatch, [FILES[0]])
    before = state[keys.UPLOADED]
    state[keys.UPLOAD_FILE] = [BINARY]
    loading.read_upload()
    assert state[keys.UPLOADED] == before
    assert "binary" in state[keys.UPLOAD_ERROR]
    state[keys.UPLOAD_FILE] = [FakeUpload("a.txt", b""), FakeUpload("b.md", b"  ")]
    loading.read_upload()
    assert state[keys.UPLOADED] == before and "No document" in state[keys.UPLOAD_ERROR]
    # one file added to those the uploader holds: its own message, the corpus in use stays
    state[keys.UPLOAD_FILE] = list(FILES)
    loading.read_upload()
    corpus = state[keys.UPLOADED]
    state[keys.UPLOAD_FILE] = [*FILES, FakeUpload("empty.md", b"")]
    loading.read_upload()
    assert state[keys.UPLOADED] == corpus and "empty.md" in state[keys.UPLOAD_ERROR]


def test_three_uploaded_files_make_a_corpus_in_the_sidebar(monkeypatch, hash_model):
    state = uploaded_through_the_callback(monkeypatch, [*FILES, BINARY])
    monkeypatch.undo()
    key, corpus = state[keys.UPLOADED]
    assert [p.path for p in corpus.parts] == ["faq.txt", "guide.md", "tool.py"]
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for name in (keys.UPLOADED, keys.UPLOAD_SKIPPED):
        at.session_state[name] = state[name]
    at.run()
    at.selectbox(key="doc").set_value("upload").run()
    assert not at.exception, at.exception
    captions = alerts(at.sidebar, "caption")
    assert "3 files · 1 skipped" in captions
    assert any(c.startswith("corpus: 3 files, ") and " chunks · " in c for c in captions), captions
    listed = " ".join(captions)
    assert f"{BINARY.name} — binary" in listed  # the skipped file is named, with its reason
    bodies = " ".join(h.proto.body for h in at.sidebar.get("html"))
    assert "<img src=x" not in bodies  # and escaped
    uploader = at.sidebar.get("file_uploader")[0].proto
    assert uploader.multiple_files and ".zip" in uploader.type and ".py" in uploader.type
    assert f"{collect.MAX_FILES:,} files" in uploader.help


def test_the_sample_corpus_is_picked_and_kept_in_the_address(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.selectbox(key="doc").set_value("kestrel").run()
    assert not at.exception, at.exception
    assert at.query_params.get("doc") == "kestrel"
    caption = next(c for c in alerts(at.sidebar, "caption") if c.startswith("corpus: "))
    assert caption.startswith("corpus: 6 files, ")
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    fresh.query_params.update(at.query_params)
    fresh.run()
    assert not fresh.exception, fresh.exception
    assert fresh.selectbox(key="doc").value == "kestrel"


def test_the_same_text_under_another_name_is_summed_up_under_that_name(hash_model):
    # the prepared document is shared by content: the sample's text uploaded as mine.md must
    # still be called mine.md, not the name it had when the sample opened it first
    sample = samples.load_sample()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert any(line.startswith(f"{sample.name}:") for line in alerts(at.sidebar, "caption"))
    at.session_state["uploaded"] = (
        text_key(sample.text),
        document_from_text("mine.md", sample.text),
    )
    at.selectbox(key="doc").set_value("upload").run()
    assert not at.exception, at.exception
    captions = alerts(at.sidebar, "caption")
    assert any(line.startswith("mine.md:") for line in captions), captions
    assert not any(line.startswith(f"{sample.name}:") for line in captions), captions


def test_an_upload_past_the_sessions_budget_is_refused_and_the_document_stays(monkeypatch):
    from scar_viz.runtime.budget import SESSION_MB_ENV

    monkeypatch.setenv(SESSION_MB_ENV, "1")  # 1 MiB a session
    state = uploaded_through_the_callback(monkeypatch, [FILES[0]])
    before = state[keys.UPLOADED]
    assert state[keys.UPLOAD_ERROR] == ""
    big = FakeUpload("big.txt", b"Harbour notes on the tide.\n" * 45_000)  # 1.2 MB
    state[keys.UPLOAD_FILE] = [big]
    loading.read_upload()
    assert state[keys.UPLOADED] is before
    message = state[keys.UPLOAD_ERROR]
    assert message.startswith("This upload would need 1.2 MiB") and message.count(". ") == 0
    # its text counts too: 0.6 MB of bytes fits, with its text beside it it does not
    half = FakeUpload("half.txt", b"Harbour notes on the tide.\n" * 22_000)
    state[keys.UPLOAD_FILE] = [half]
    loading.read_upload()
    assert state[keys.UPLOADED] is before
    assert state[keys.UPLOAD_ERROR].startswith("This upload and its text would need")


def test_a_links_model_is_costed_against_the_sessions_budget_before_embedding(monkeypatch):
    from scar_viz.chunking.config import ChunkingConfig
    from scar_viz.documents import samples
    from scar_viz.embeddings import make_embedder
    from scar_viz.embeddings.hashing import HashEmbedder
    from scar_viz.runtime.budget import SESSION_MB_ENV

    embedded: list[int] = []
    monkeypatch.setattr(
        HashEmbedder, "embed", lambda self, texts, progress=None: embedded.append(1)
    )
    monkeypatch.setenv(SESSION_MB_ENV, "1")
    monkeypatch.setattr(loading.st, "session_state", {})
    alerts: list[str] = []
    monkeypatch.setattr(loading, "alert", alerts.append)
    doc = samples.load_sample()
    slot = loading.st.empty()
    prep = loading.prepare(
        "budget-test", doc, ChunkingConfig(), make_embedder("hash:4096"), False, slot
    )
    assert prep is None and embedded == []
    assert len(alerts) == 1 and alerts[0].startswith("hash:4096 on ")
    assert "allows 1.0 MiB a session" in alerts[0]
