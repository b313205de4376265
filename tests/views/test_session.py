"""Saved-session files round-trip settings and an uploaded document or corpus, old files still
load, and anything else is refused."""

from __future__ import annotations

import json

import pytest

from scar_viz.documents import samples
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import Part, document_from_text
from scar_viz.views import session
from scar_viz.views.session import SETTING_KEYS, dumps, loads

DOC = document_from_text("mine.md", "# Rules\n\nNo <script>alert(1)</script> runs here.\n")


def test_round_trip_with_document():
    settings = {"doc": "upload", "q": "why?", "k": 4, "lam": 1.25, "tau": 0.3, "prepend": True}
    restored = loads(dumps(settings, DOC, uploaded=True))
    assert restored.settings == settings
    assert restored.document.text == DOC.text and restored.document.name == "mine.md"
    assert restored.document.sections == DOC.sections


def test_builtin_document_is_not_embedded():
    restored = loads(dumps({"doc": "harbor"}, DOC, uploaded=False))
    assert restored.document is None and restored.settings == {"doc": "harbor"}


def test_an_opened_index_travels_as_its_folder_only():
    # the folder under the server's index root, never the index's contents
    restored = loads(dumps({"doc": "index", "store_path": "kb", "q": "why?"}, None, False))
    assert restored.settings == {"doc": "index", "store_path": "kb", "q": "why?"}
    assert restored.document is None


def test_secrets_and_unknown_keys_are_never_written():
    text = dumps(
        {"api_key_input": "sk-SECRET", "OPENAI_API_KEY": "sk-SECRET", "lam": 0.5},
        None,
        uploaded=False,
    )
    assert "sk-SECRET" not in text
    assert set(json.loads(text)["settings"]) <= set(SETTING_KEYS)


@pytest.mark.parametrize(
    "raw,match",
    [
        (b"\x00\x01", "not JSON"),
        ("[1, 2]", "not a scar-viz session"),
        ('{"format": "scar-viz-session", "version": 9}', "version 9"),
        ('{"format": "scar-viz-session", "version": 1, "settings": {"k": "three"}}', "wrong type"),
        ('{"format": "scar-viz-session", "version": 1, "settings": {"k": true}}', "wrong type"),
        ('{"format": "scar-viz-session", "version": 1, "document": {"text": "   "}}', "no text"),
    ],
)
def test_bad_session_files(raw, match):
    with pytest.raises(ValueError, match=match):
        loads(raw)


def test_unknown_settings_in_a_file_are_ignored():
    raw = json.dumps(
        {
            "format": "scar-viz-session",
            "version": 1,
            "settings": {"lam": 1, "api_key_input": "sk-x"},
        }
    )
    assert loads(raw).settings == {"lam": 1.0}


# --- a corpus ----------------------------------------------------------------------------------

FILES = {
    "notes/b.md": "# B\n\nThe second file ends here.\n",
    "a.txt": "The first file, <b>plain</b> text.\n",
    "src/c.py": "def f():\n    return 1\n",
}


def corpus():
    return join_documents([document_from_text(p, t) for p, t in FILES.items()], "kb")


def test_a_corpus_round_trips_with_every_file():
    doc = corpus()
    settings = {"doc": "upload", "size": 300}
    raw = dumps(settings, doc, uploaded=True)
    data = json.loads(raw)
    assert data["version"] == 2 and "document" not in data
    assert {f["path"]: f["text"] for f in data["documents"]} == FILES
    restored = loads(raw)
    assert restored.settings == settings
    assert restored.document.several_files and restored.document.name == "kb"
    assert restored.document.text == doc.text
    assert restored.document.parts == doc.parts
    assert restored.document.sections == doc.sections


def test_a_single_file_is_written_as_a_corpus_of_one():
    data = json.loads(dumps({"doc": "upload"}, DOC, uploaded=True))
    assert data["version"] == 2 and "document" not in data
    assert data["corpus"] == "mine.md"
    assert data["documents"] == [{"path": "mine.md", "text": DOC.text}]
    restored = loads(json.dumps(data)).document
    assert restored.name == "mine.md" and not restored.several_files
    assert restored.parts == DOC.parts and restored.sections == DOC.sections


def test_a_version_2_file_without_documents_holds_no_document():
    raw = json.dumps({"format": "scar-viz-session", "version": 2, "settings": {"k": 3}})
    restored = loads(raw)
    assert restored.document is None and restored.settings == {"k": 3}


def test_a_sample_corpus_travels_by_its_id_only():
    doc = samples.load_sample("kestrel")
    data = json.loads(dumps({"doc": "kestrel"}, doc, uploaded=False))
    assert data["settings"] == {"doc": "kestrel"} and "documents" not in data
    assert loads(json.dumps(data)).document is None


def test_an_old_session_file_still_loads():
    old = {
        "format": "scar-viz-session",
        "version": 1,
        "settings": {"doc": "upload", "k": 5},
        "document": {"name": "old.md", "text": "# Old\n\nSaved before corpora existed.\n"},
    }
    restored = loads(json.dumps(old))
    assert restored.settings == {"doc": "upload", "k": 5}
    text = old["document"]["text"]
    assert restored.document.name == "old.md" and not restored.document.several_files
    assert restored.document.parts == (Part("old.md", 0, len(text)),)
    # the old file reads as the same document the new format writes and reads back
    again = loads(dumps(restored.settings, restored.document, uploaded=True))
    assert json.loads(dumps({}, restored.document, uploaded=True))["version"] == 2
    assert again.document == restored.document and again.settings == restored.settings


def _v2(documents) -> str:
    return json.dumps({"format": "scar-viz-session", "version": 2, "documents": documents})


@pytest.mark.parametrize(
    "documents,match",
    [
        (None, "malformed"),
        ([], "malformed"),
        ([{"path": "a.md"}], "malformed"),
        ([{"path": 3, "text": "x"}], "malformed"),
        ([{"path": "a.md", "text": "x"}, {"path": "a.md", "text": "y"}], "share the path"),
        ([{"path": "a.md", "text": "x"}, {"path": "b.md", "text": "  "}], "no text"),
    ],
)
def test_bad_corpus_session_files(documents, match):
    with pytest.raises(ValueError, match=match):
        loads(_v2(documents))


def test_a_corpus_over_the_document_limit_is_refused(monkeypatch):
    monkeypatch.setattr(session, "MAX_DOCUMENTS", 2)
    with pytest.raises(ValueError, match="limit is 2"):
        loads(dumps({}, corpus(), uploaded=True))


def test_session_carries_query_sets_and_the_gate():
    from scar_viz.documents.reading import document_from_text
    from scar_viz.scoring.learned import default_gate
    from scar_viz.views.session import SavedWork, dumps, loads

    doc = document_from_text("notes.txt", "Alpha beta gamma. Delta epsilon.")
    line = '{"id": "q1", "query": "beta?", "evidence": [{"text": "beta", "start": 6, "end": 10}]}'
    work = SavedWork(
        "digest",
        {"upload": ("mine.jsonl", line), "session": ("labelled in this session", line)},
        "session",
        default_gate().to_json(),
        0.2,
    )
    back = loads(dumps({"k": 4, "lam": 0.3}, doc, True, work))
    assert back.work == work
    assert back.settings == {"k": 4, "lam": 0.3}
    old = loads(dumps({"k": 4}, doc, True))  # a file without them (written before) still loads
    assert old.work == SavedWork() and old.document.text == doc.text


def test_a_broken_gate_in_a_session_is_a_clear_error():
    import json

    import pytest

    from scar_viz.common.errors import SettingsError
    from scar_viz.views.session import loads

    raw = {"format": "scar-viz-session", "version": 1, "settings": {}, "gate": {"json": "{"}}
    with pytest.raises(SettingsError, match="gate"):
        loads(json.dumps(raw))


def test_session_carries_the_gate_policy_and_refuses_another():
    import json

    import pytest

    from scar_viz.common.errors import SettingsError
    from scar_viz.views.session import loads

    raw = {"format": "scar-viz-session", "version": 1, "settings": {"policy": "learned"}}
    assert loads(json.dumps(raw)).settings == {"policy": "learned"}
    raw["settings"] = {"policy": "rse"}
    with pytest.raises(SettingsError, match="gate policy must be 'SCAR' or 'learned'"):
        loads(json.dumps(raw))
