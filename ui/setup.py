"""What a page works on: the sidebar's choice chunked and embedded (or an opened index read),
as one :class:`Setup`, with its line in the sidebar.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from scar_viz.documents.reading import Document
from scar_viz.embeddings import Embedder, EmbeddingError
from scar_viz.pipeline import PreparedDoc
from scar_viz.retrieval import DENSE, Retriever
from scar_viz.runtime.devices import model_line
from scar_viz.scoring.params import GateParams
from scar_viz.views.corpus import document_size
from scar_viz.views.model_language import model_language_note
from ui import keys
from ui.alerts import alert
from ui.cache import cache_problems, prepared_key
from ui.consent import ProposalPending
from ui.gate_controls import current_gate
from ui.loading import get_embedder, load_model, prepare
from ui.sidebar import sidebar
from ui.state import current_retriever
from ui.store_open import STORE_CHOICE, index_caption, open_index


@dataclass(frozen=True)
class Setup:
    """What a page works on, from the sidebar: every page takes this one object.

    ``name`` is the source's id (a built-in sample's key, or ``UPLOAD``) and ``source`` its
    document; ``prepared`` its chunks and vectors under the sidebar's chunking and
    ``embedder``; ``gate`` the gate setting this session holds as the run starts (a page that
    draws the gate sliders uses what they return); ``key`` the content the prepared document
    stands for (:func:`ui.cache.prepared_key`), for cache keys.
    """

    name: str
    source: Document
    prepared: PreparedDoc
    embedder: Embedder
    gate: GateParams
    key: tuple
    retriever: Retriever = DENSE
    """What ranks the chunks before any policy (:mod:`scar_viz.retrieval`); a retriever
    other than dense is part of ``key``."""

    @property
    def doc_key(self) -> str:
        """The document's digest (its files' paths and ranges too, for a corpus)."""
        return str(self.key[0])


def cache_note() -> None:
    """One line in the sidebar for each disk cache that is off (its file broke): the app
    works on without it (:mod:`scar_viz.runtime.sqlite_cache`)."""
    for problem in cache_problems():
        alert(problem, "caption", st.sidebar)


def sidebar_setup() -> Setup | None:
    """The whole sidebar, then chunk and embed (and a line for a disk cache that is off).
    None (with a message shown) when not ready."""
    setup = _sidebar_setup()
    cache_note()
    return setup


def _sidebar_setup() -> Setup | None:
    slot = st.empty()  # spinner, progress bar and errors of this step, always at this place
    picked, config, spec, base_url, name = sidebar()
    if name == STORE_CHOICE:
        return _index_setup(spec, base_url, slot)
    if picked is None or config is None:
        return None
    try:
        embedder = get_embedder(spec, base_url)
    except ProposalPending as exc:
        with slot.container():
            alert(str(exc), "info")
        return None
    except (ValueError, EmbeddingError) as exc:
        with slot.container():
            alert(str(exc))
        return None
    if not load_model(embedder, slot):
        return None
    prepared = prepare(
        picked[0],
        picked[1],
        config,
        embedder,
        bool(st.session_state.get(keys.PREPEND, False)),
        slot,
    )
    if prepared is None:
        return None
    alert(
        f"{document_size(prepared.document, len(prepared.chunks), picked[1].name)} · "
        f"{model_line(prepared.embedder_label, embedder)} · embedded now: "
        f"{st.session_state.get(keys.ENCODED_NOW, 0)} chunks in "
        f"{st.session_state.get(keys.ENCODED_SECONDS, 0.0):.1f} s (the rest from the cache)",
        "caption",
        st.sidebar,
    )
    note = model_language_note(picked[1].text, embedder.model_id)
    if note:
        alert(note, "warning", st.sidebar)
    return _setup(str(name), prepared, embedder)


def _setup(name: str, prepared, embedder) -> Setup:
    """The Setup of ``prepared``: its cache key carries the retriever when it is not dense."""
    retriever = current_retriever()
    key = prepared_key(prepared)
    if not retriever.dense:
        key = (*key, ("retriever", retriever.name, retriever.k_rrf))
    return Setup(name, prepared.document, prepared, embedder, current_gate(), key, retriever)


def opened_index(spec: str, base_url: str, slot) -> tuple[PreparedDoc, Embedder] | None:
    """The index the picker opened, read (its chunks and vectors as stored), with its line in
    the sidebar; None when none is open or it cannot be (the message in ``slot``)."""
    path = st.session_state.get(keys.STORE_OPENED)
    opened = open_index(path, spec, base_url, slot) if path else None
    if opened is not None:
        prepared, embedder = opened
        line = index_caption(
            prepared, document_size(prepared.document, len(prepared.chunks)), embedder
        )
        alert(line, "caption", st.sidebar)
        if prepared.document.note:  # e.g. a file rebuilt from its chunks
            alert(prepared.document.note, "caption", st.sidebar)
    return opened


def _index_setup(spec: str, base_url: str, slot) -> Setup | None:
    """The Setup of the index the picker opened."""
    opened = opened_index(spec, base_url, slot)
    return None if opened is None else _setup(STORE_CHOICE, *opened)
