"""Saved-session files: the shareable settings plus the document text, as JSON.

A URL carries settings but not an uploaded document; this file carries both. Only keys in
:data:`SETTING_KEYS` are written or restored, so no secret (an API key) can ever be saved.

An uploaded document is written in one format, version 2, whether it holds one file or many
(a file is a corpus of one): every file's path and text under ``"documents"`` and the
document's name under ``"corpus"``; it is restored as the same joined document
(:func:`scar_viz.documents.corpus.join_documents`, which gives one file back as itself). Files
of the old version 1, which carried a single file as ``"document": {name, text}``, still load
(:func:`_old_document`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from scar_viz.common.bounded_json import JsonInputError, read_json
from scar_viz.common.errors import SettingsError
from scar_viz.documents.corpus import join_documents, part_document
from scar_viz.documents.reading import Document, DocumentError, document_from_text
from scar_viz.scoring.learned import GateFileError, LearnedGate
from scar_viz.views.explorer import POLICIES
from scar_viz.views.ranges import RANGES, out_of_range

FORMAT = "scar-viz-session"
VERSION = 2
"""The version written: a document of any number of files under ``"documents"``, or none."""
OLD_VERSION = 1
"""The version written before corpora: one file under ``"document"``, or none (read only)."""
VERSIONS = (OLD_VERSION, VERSION)
MAX_TEXT_CHARS = 20 * 1024 * 1024
MAX_CORPUS_CHARS = 200 * 1024 * 1024
"""All the documents of a corpus together."""
MAX_DOCUMENTS = 2_000
MAX_FILE_BYTES = 256 * 1024 * 1024
"""A session file's size: its corpus' characters (:data:`MAX_CORPUS_CHARS`) and room for
escapes; the app's upload limit is far below it."""

SETTING_KEYS: tuple[str, ...] = (
    "doc",
    "q",
    "size",
    "overlap",
    "prepend",
    "retriever",
    "rrf_k",
    "chunker",
    "model",
    "st_model",
    "openai_model",
    "base_url",
    "k",
    "r",
    "lam",
    "tau",
    "mu",
    "policy",
    "llm_model",
    "llm_url",
    "store_path",
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
    "rrf_k": (int, float),
    "mu": (int, float),
}


@dataclass(frozen=True)
class SavedWork:
    """What a session carries besides settings and document (every field optional, so files
    written before it still load): the document's query sets by source (name, JSON Lines
    text; ``session`` holds the questions labelled in the session), the active source, the
    fitted gate as JSON text and its p. ``doc_key`` is the content digest of the document the
    sets belong to."""

    doc_key: str = ""
    query_sets: dict[str, tuple[str, str]] = field(default_factory=dict)
    query_pick: str | None = None
    gate: str | None = None
    p: float | None = None

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {}
        if self.query_sets:
            out["queries"] = {
                "doc_key": self.doc_key,
                "active": self.query_pick,
                "sets": {s: {"name": n, "jsonl": t} for s, (n, t) in self.query_sets.items()},
            }
        if self.gate:
            out["gate"] = {"json": self.gate, "p": self.p}
        return out


@dataclass(frozen=True)
class SavedSession:
    """A session file read back. ``reset`` names each setting left out because its value is
    out of range (:data:`scar_viz.views.ranges.RANGES`), with the range: "k = 1e12 (allowed
    1 … 20)"."""

    settings: dict[str, object]
    document: Document | None
    work: SavedWork = field(default_factory=SavedWork)
    reset: tuple[str, ...] = ()

    @property
    def reset_note(self) -> str:
        """One sentence naming the settings left out, or "" when none was."""
        if not self.reset:
            return ""
        return (
            "The session file held values out of range, left as they were: "
            + "; ".join(self.reset)
            + "."
        )


def _work(data: dict) -> SavedWork:
    """The optional query sets and gate of a file (absent in older files)."""
    queries, gate = data.get("queries"), data.get("gate")
    sets: dict[str, tuple[str, str]] = {}
    doc_key, pick = "", None
    if queries is not None:
        raw = queries.get("sets") if isinstance(queries, dict) else None
        if not isinstance(raw, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("jsonl"), str) for v in raw.values()
        ):
            raise SettingsError("The session file's query sets are malformed.")
        if sum(len(v["jsonl"]) for v in raw.values()) > MAX_TEXT_CHARS:
            raise SettingsError("The session file's query sets are over the size limit.")
        sets = {str(k): (str(v.get("name") or k), v["jsonl"]) for k, v in raw.items()}
        doc_key = str(queries.get("doc_key") or "")
        pick = queries.get("active") if queries.get("active") in sets else None
    gate_text, p = None, None
    if gate is not None:
        if not isinstance(gate, dict) or not isinstance(gate.get("json"), str):
            raise SettingsError("The session file's gate is malformed.")
        try:
            LearnedGate.from_json(gate["json"])
        except GateFileError as exc:
            raise SettingsError(f"The session file's gate cannot be read: {exc}") from exc
        gate_text = gate["json"]
        raw_p = gate.get("p")
        if raw_p is not None and (isinstance(raw_p, bool) or not isinstance(raw_p, int | float)):
            raise SettingsError("The session file's p has the wrong type.")
        p = None if raw_p is None or not RANGES["p"].holds(raw_p) else float(raw_p)
    return SavedWork(doc_key, sets, pick, gate_text, p)


def dumps(
    settings: dict[str, object],
    document: Document | None,
    uploaded: bool,
    work: SavedWork | None = None,
) -> str:
    """JSON text of a session: whitelisted settings, the document text if it was uploaded
    (every file's path and text), and ``work`` (query sets, the fitted gate)."""
    payload: dict[str, object] = {
        "format": FORMAT,
        "version": VERSION,
        "settings": {k: settings[k] for k in SETTING_KEYS if k in settings},
    }
    if uploaded and document is not None:
        files = [part_document(document, i) for i in range(len(document.parts))]
        payload["corpus"] = document.name
        payload["documents"] = [{"path": f.name, "text": f.text} for f in files]
    if work is not None:
        payload.update(work.as_json())
    return json.dumps(payload, ensure_ascii=False, indent=1)


def _old_document(doc: object) -> Document:
    """A version-1 file's ``document`` (the reader of the old format)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("text"), str):
        raise SettingsError("The session file's document is malformed.")
    if len(doc["text"]) > MAX_TEXT_CHARS:
        raise SettingsError("The session file's document is over the size limit.")
    return document_from_text(str(doc.get("name") or "restored.txt"), doc["text"])


def _documents(data: dict) -> Document:
    """A version-2 file's document: its ``documents`` joined in path order."""
    files = data.get("documents")
    if not isinstance(files, list) or not files:
        raise SettingsError("The session file's documents are malformed.")
    if len(files) > MAX_DOCUMENTS:
        raise SettingsError(
            f"The session file holds {len(files):,} documents; the limit is {MAX_DOCUMENTS:,}."
        )
    if not all(
        isinstance(f, dict) and isinstance(f.get("path"), str) and isinstance(f.get("text"), str)
        for f in files
    ):
        raise SettingsError("The session file's documents are malformed.")
    if sum(len(f["text"]) for f in files) > MAX_CORPUS_CHARS:
        raise SettingsError("The session file's documents are over the size limit.")
    docs = [document_from_text(f["path"] or "restored.txt", f["text"]) for f in files]
    return join_documents(docs, str(data.get("corpus") or "corpus"))


def loads(raw: bytes | str) -> SavedSession:
    """Parse and validate a session file.

    Raises:
        ValueError: with a sentence for the user when the file is not a valid session.
    """
    try:
        data = read_json(raw, max_bytes=MAX_FILE_BYTES)
    except JsonInputError as exc:
        if exc.kind == "syntax":
            raise SettingsError("This is not a scar-viz session file (it is not JSON).") from None
        raise SettingsError(f"This session file cannot be read: it is {exc.reason}.") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SettingsError("This JSON file is not a scar-viz session file.")
    version = data.get("version")
    if isinstance(version, bool) or version not in VERSIONS:
        raise SettingsError(f"Session file version {version} is not supported.")
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
        if key in ("lam", "tau") and isinstance(value, int | float):  # what _TYPES allows
            value = float(value)
        if key == "policy" and value not in POLICIES:  # with the gate and p of SavedWork
            raise SettingsError("The session file's gate policy must be 'SCAR' or 'learned'.")
        settings[key] = value
    bad = out_of_range(settings)
    reset = tuple(RANGES[key].describe(settings.pop(key)) for key in bad)
    document = None
    try:
        if version == VERSION and "documents" in data:
            document = _documents(data)
        elif version == OLD_VERSION and data.get("document") is not None:
            document = _old_document(data["document"])
    except DocumentError as exc:
        raise SettingsError(str(exc)) from exc
    return SavedSession(settings, document, _work(data), reset)
