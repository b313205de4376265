"""The one sidebar every page shows: document, chunking, retriever, embedding model, LLM,
presenter mode and sharing, each drawn by its own module.

Selects carry short ids (the URL holds the id) and show names (:mod:`ui.named_select`).
Widgets whose value a preset, a callback or a restored session may set take no default then
(:func:`ui.state.default`). What a page works on is :mod:`ui.setup`'s; the Chunking lab's
document is :mod:`ui.lab_source`'s.
"""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents.reading import Document
from ui import keys
from ui.chunking_controls import sidebar_chunking
from ui.document_picker import sidebar_document
from ui.model_controls import sidebar_llm, sidebar_model
from ui.presenter import presenter_toggle
from ui.retriever_controls import sidebar_retriever
from ui.share import share_panel


class SidebarChoice(NamedTuple):
    """What the sidebar's widgets chose: (content key, document) or None, chunking or None
    (invalid or not shown), embedding spec and base URL, and the document's choice (a built-in
    sample's id or ``UPLOAD``; None when the sidebar shows no document picker)."""

    document: tuple[str, Document] | None
    config: ChunkingConfig | None
    spec: str
    base_url: str
    name: str | None = None


def sidebar(document: bool = True) -> SidebarChoice:
    """The whole sidebar. ``document=False`` (the lesson, which runs on the sample at the
    default chunking) leaves out the document and chunking controls."""
    picked, config = None, None
    if document:
        picked = sidebar_document()
        config = sidebar_chunking()
        sidebar_retriever()
    spec, base_url = sidebar_model()
    sidebar_llm()
    presenter_toggle()
    share_panel(picked[1] if picked else None)
    name = str(st.session_state.get(keys.DOC)) if document else None
    return SidebarChoice(picked, config, spec, base_url, name)
