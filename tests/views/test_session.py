"""Saved-session files round-trip settings and an uploaded document, and refuse anything else."""

from __future__ import annotations

import json

import pytest

from scar_viz.documents.reading import document_from_text
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
