"""Saved-session files: the shareable settings plus the document text, as JSON.

A URL carries settings but not an uploaded document; this file carries both. Only keys in
:data:`SETTING_KEYS` are written or restored, so no secret (an API key) can ever be saved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from scar_viz.documents.reading import Document, DocumentError, document_from_text
from scar_viz.errors import SettingsError

FORMAT = "scar-viz-session"
VERSION = 1
MAX_TEXT_CHARS = 20 * 1024 * 1024

SETTING_KEYS: tuple[str, ...] = (
    "doc",
    "q",
    "size",
    "overlap",
    "prepend",
    "chunker",
    "model",
    "st_model",
    "openai_model",
    "base_url",
    "k",
    "r",
    "lam",
    "tau",
    "llm_model",
    "llm_url",
)
"""Settings a session file may hold: the sidebar's and the gate's (never a key or secret)."""

_TYPES: dict[str, tuple[type, ...]] = {
    "size": (int,),
    "overlap": (int,),
    "k": (int,),
    "r": (int,),
    "prepend": (bool,),
    "lam": (int, float),
    "tau": (int, float),
}


@dataclass(frozen=True)
class SavedSession:
    settings: dict[str, object]
    document: Document | None


def dumps(settings: dict[str, object], document: Document | None, uploaded: bool) -> str:
    """JSON text of a session: whitelisted settings, and the document text if it was uploaded."""
    payload: dict[str, object] = {
        "format": FORMAT,
        "version": VERSION,
        "settings": {k: settings[k] for k in SETTING_KEYS if k in settings},
    }
    if uploaded and document is not None:
        payload["document"] = {"name": document.name, "text": document.text}
    return json.dumps(payload, ensure_ascii=False, indent=1)


def loads(raw: bytes | str) -> SavedSession:
    """Parse and validate a session file.

    Raises:
        ValueError: with a sentence for the user when the file is not a valid session.
    """
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError("This is not a scar-viz session file (it is not JSON).") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SettingsError("This JSON file is not a scar-viz session file.")
    if data.get("version") != VERSION:
        raise SettingsError(f"Session file version {data.get('version')} is not supported.")
    raw_settings = data.get("settings", {})
    if not isinstance(raw_settings, dict):
        raise SettingsError("The session file's settings are malformed.")
    settings: dict[str, object] = {}
    for key in SETTING_KEYS:
        if key not in raw_settings:
            continue
        value = raw_settings[key]
        types = _TYPES.get(key, (str,))
        if isinstance(value, bool) and bool not in types:
            raise SettingsError(f"Setting '{key}' has the wrong type in the session file.")
        if not isinstance(value, types):
            raise SettingsError(f"Setting '{key}' has the wrong type in the session file.")
        settings[key] = float(value) if key in ("lam", "tau") else value
    document = None
    doc = data.get("document")
    if doc is not None:
        if not isinstance(doc, dict) or not isinstance(doc.get("text"), str):
            raise SettingsError("The session file's document is malformed.")
        if len(doc["text"]) > MAX_TEXT_CHARS:
            raise SettingsError("The session file's document is over the size limit.")
        try:
            document = document_from_text(str(doc.get("name") or "restored.txt"), doc["text"])
        except DocumentError as exc:
            raise SettingsError(str(exc)) from exc
    return SavedSession(settings, document)
