"""The one sidebar every page shows: document, chunking, embedding model, LLM, presenter mode
and sharing; then, for the pages that need it, the chunked and embedded document.

Selects carry short ids (the URL holds the id) and show names. Widgets whose value a preset,
a callback or a restored session may set take no default then (:func:`ui.state.default`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import streamlit as st

from scar_viz.chunking.base import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, DEFAULT_PERCENTILE
from scar_viz.chunking.config import ChunkingConfig
from scar_viz.chunking.registry import CHUNKERS
from scar_viz.devices import model_line
from scar_viz.documents import samples
from scar_viz.documents.reading import Document
from scar_viz.documents.samples import UPLOAD
from scar_viz.embeddings import Embedder, EmbeddingError
from scar_viz.embeddings.static import static_model_summary
from scar_viz.pipeline import PreparedDoc
from scar_viz.retrieval import DEFAULT_K_RRF, DEFAULT_RETRIEVER, DENSE, Retriever
from scar_viz.scoring.params import GateParams
from ui import keys
from ui.alerts import alert, or_stop
from ui.cache import cache_problems, document_key, prepared_key, sample_document
from ui.consent import CHAT, EMBEDDINGS, ProposalPending, proposal, proposal_box, typed
from ui.gate_controls import current_gate
from ui.loading import (
    SHOWN_SKIPPED,
    UPLOAD_TYPES,
    get_embedder,
    load_model,
    prepare,
    read_upload,
    upload_limits,
)
from ui.models import models_help
from ui.presenter import presenter_toggle
from ui.share import share_panel
from ui.state import (
    LLM_DEFAULT_MODEL,
    MODEL_NAMES,
    MODEL_OPTIONS,
    OPENAI_EMBEDDING_MODEL,
    URL,
    current_retriever,
    default,
    default_model,
    endpoint_choice,
    limits,
    llm_settings,
    model_spec,
)
from ui.store_open import STORE_CHOICE, STORE_NAME, index_caption, open_index, store_picker

NO_DOCUMENT = (
    "Upload a document in the sidebar (txt, md, pdf, html or a source file), several files or "
    "a .zip for a corpus, or pick a built-in sample. Opened from a shared link? An uploaded "
    "document cannot travel in a link; it travels in a session file. Ask the sender for "
    "theirs and open it under Share this view → Restore a session file."
)


class SidebarChoice(NamedTuple):
    """What the sidebar's widgets chose: (content key, document) or None, chunking or None
    (invalid or not shown), embedding spec and base URL, and the document's choice (a built-in
    sample's id or ``UPLOAD``; None when the sidebar shows no document picker)."""

    document: tuple[str, Document] | None
    config: ChunkingConfig | None
    spec: str
    base_url: str
    name: str | None = None


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


def named_select(where, label: str, names: dict[str, str], key: str, initial: str, **kw) -> str:
    """A select that shows names and keeps the chosen id in the address (``?key=id``).

    ``bind`` would write the shown name into the address, so this one syncs by hand. A new
    widget (a new session, or a page switch, which resets unbound widgets) starts at this
    session's choice, else the address's, else ``initial``; every run writes the id back
    (none when it is ``initial``).
    """
    last = keys.last_choice(key)
    seen = (st.session_state.get(key), st.query_params.get(key), st.session_state.get(last))
    wanted = next((value for value in seen if value in names), initial)
    options = list(names)
    choice = where.selectbox(
        label,
        options,
        index=default(key, options.index(wanted)),
        format_func=names.get,
        key=key,
        **kw,
    )
    st.session_state[last] = choice
    if choice == initial:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get(key) != choice:
        st.query_params[key] = choice
    return choice


def sidebar_document() -> tuple[str, Document] | None:
    """Document picker (built-in sample, upload, or an index). Returns (content key,
    document); None for an index (its folder is kept under ``keys.STORE_OPENED``)."""
    names = {key: samples.document_name(key) for key in [*samples.SAMPLES, UPLOAD]}
    names[STORE_CHOICE] = STORE_NAME
    choice = named_select(st.sidebar, "Document", names, keys.DOC, samples.DEFAULT_SAMPLE)
    area = st.sidebar.container()  # always present, so later widgets keep their places
    st.session_state[keys.STORE_OPENED] = None
    if choice == STORE_CHOICE:
        st.session_state[keys.STORE_OPENED] = store_picker(area)
        return None
    if choice != UPLOAD:
        return sample_document(choice)
    area.file_uploader(
        "A document, several files or a .zip",
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key=keys.UPLOAD_FILE,
        on_change=read_upload,
        help="One file is one document (txt, md, pdf, html, or text and source code such as "
        f"rst, py, java, go). {upload_limits()} Uploads stay on this server for your session "
        "only; they cannot travel in a shared link (a session file carries them).",
    )
    if st.session_state.get(keys.UPLOAD_ERROR):
        alert(st.session_state[keys.UPLOAD_ERROR], "error", area)
    uploaded = st.session_state.get(keys.UPLOADED)
    if uploaded is None:
        alert("No document loaded yet.", "caption", area)
        st.info(NO_DOCUMENT)
        return None
    # the uploader shows no file after a page change or a restored session: name the document
    alert(f"Active: {uploaded[1].name}", "caption", area)
    _upload_summary(uploaded[1], area)
    if uploaded[1].note:
        alert(uploaded[1].note, "caption", area)
    return uploaded


def _upload_summary(document: Document, area) -> None:
    """For an uploaded corpus: "N files · M skipped", and the skipped files with their reasons
    (file names are the uploader's: escaped)."""
    summary, skipped = st.session_state.get(keys.UPLOAD_SKIPPED) or ((), ())
    if not document.several_files and not skipped:
        return
    files = len(document.parts)
    alert(f"{files:,} file{'s' * (files != 1)} · {len(skipped):,} skipped", "caption", area)
    if not skipped:
        return
    with area.expander(f"Skipped files ({len(skipped):,})", expanded=False):
        if len(skipped) > SHOWN_SKIPPED:  # thousands of files: by reason first
            alert("\n".join(summary), "caption")
        listed = [f"{path} — {reason}" for path, reason in skipped[:SHOWN_SKIPPED]]
        if len(skipped) > SHOWN_SKIPPED:
            listed.append(f"… and {len(skipped) - SHOWN_SKIPPED:,} more (counted above)")
        alert("\n".join(listed), "caption")


def sidebar_chunking() -> ChunkingConfig | None:
    """Chunker, size, overlap, percentile and prepending; None (message shown) if invalid."""
    st.sidebar.subheader("Chunking")
    chunker = named_select(
        st.sidebar,
        "Chunker",
        {key: c.name for key, c in CHUNKERS.items()},
        keys.CHUNKER,
        ChunkingConfig().chunker,
        help="How the document is cut into chunks. Every page (and the gold chunks of a "
        "query set) uses this chunking.",
    )
    st.sidebar.caption(CHUNKERS[chunker].label)
    c1, c2 = st.sidebar.columns(2)
    size = c1.number_input(
        "Chunk size",
        *limits(keys.SIZE),
        default(keys.SIZE, DEFAULT_CHUNK_SIZE),
        step=50,
        key=keys.SIZE,
        bind=URL,
    )
    overlap = c2.number_input(
        "Overlap",
        *limits(keys.OVERLAP),
        default(keys.OVERLAP, DEFAULT_OVERLAP),
        step=10,
        key=keys.OVERLAP,
        bind=URL,
    )
    extra = st.sidebar.container()  # always present, so later widgets keep their places
    if CHUNKERS[chunker].unit != "characters":
        extra.caption(f"Size and overlap count {CHUNKERS[chunker].unit} (o200k_base).")
    percentile = DEFAULT_PERCENTILE
    if CHUNKERS[chunker].needs_embed:
        percentile = extra.slider(
            "Cut below similarity percentile",
            0.0,
            50.0,
            default(keys.PERCENTILE, DEFAULT_PERCENTILE),
            1.0,
            key=keys.PERCENTILE,
            bind=URL,
            help="Cut between two consecutive sentences when their cosine similarity is below "
            "this percentile of all consecutive-sentence similarities (0 = sentence packing "
            "only). The embedding model below compares the sentences.",
        )
    st.sidebar.checkbox(
        "Contextual prepending",
        False,
        key=keys.PREPEND,
        bind=URL,
        help="Prefix each chunk's section path to the text that is embedded "
        "(not to the text shown or counted).",
    )
    problem = st.sidebar.container()  # always present, so later widgets keep their places
    config = ChunkingConfig(chunker, int(size), int(overlap), float(percentile))
    try:
        config.validate()
    except ValueError as exc:
        problem.error(str(exc))
        st.error(f"Chunking settings are invalid: {exc}")
        return None
    return config


RETRIEVER_NAMES = {
    "dense": "Dense: cos(q, c)",
    "bm25": "BM25: the question's words",
    "hybrid": "Hybrid: dense and BM25 fused (RRF)",
}


def sidebar_retriever() -> None:
    """The retriever (and RRF's constant for hybrid); read with :func:`current_retriever`."""
    choice = named_select(
        st.sidebar,
        "Retriever",
        RETRIEVER_NAMES,
        keys.RETRIEVER,
        DEFAULT_RETRIEVER,
        help="What ranks the chunks before any policy expands them. The gate keeps using "
        "cos(q,c) whatever retrieves c. BM25: bm25s, lower-cased words of two or more letters, "
        "English stop words removed, no stemming.",
    )
    box = st.sidebar.container()  # always present, so later widgets keep their places
    if choice == "hybrid":
        box.number_input(
            "RRF constant k_rrf",
            *limits(keys.RRF_K),
            default(keys.RRF_K, DEFAULT_K_RRF),
            1.0,
            key=keys.RRF_K,
            bind=URL,
            help="Reciprocal rank fusion: score(c) = Σ 1 / (k_rrf + rank(c)) over the dense "
            "and BM25 rankings. A larger k_rrf flattens the difference between ranks.",
        )


def sidebar_model() -> tuple[str, str]:
    """The embedding model's widgets; returns (spec, base_url)."""
    st.sidebar.subheader("Embedding model")
    choice = named_select(
        st.sidebar,
        "Model",
        MODEL_NAMES,
        keys.MODEL,
        default_model(),
        on_change=typed,
        args=(keys.MODEL,),
    )
    extra = st.sidebar.container()  # always present, so later widgets keep their places
    extra.caption(MODEL_OPTIONS[choice])
    if choice == "static":
        extra.caption(static_model_summary())
    elif choice == "sentence-transformers":
        extra.text_input(
            "Model name or folder",
            key=keys.ST_MODEL,
            bind=URL,
            placeholder="a folder under the models root, or BAAI/bge-small-en-v1.5",
            help=models_help(),
        )
    elif choice == "openai":
        endpoint_inputs(
            extra,
            ("Model", "Base URL", "API key"),
            (keys.OPENAI_MODEL, keys.BASE_URL, keys.API_KEY_INPUT),
            OPENAI_EMBEDDING_MODEL,
        )
        if proposal_box(EMBEDDINGS, extra) is None:
            alert(endpoint_choice(model_spec()[1], keys.API_KEY_INPUT).note, "caption", extra)
    return model_spec()


def endpoint_inputs(
    box, labels: tuple[str, str, str], widget_keys: tuple[str, str, str], default_model: str
) -> None:
    """An OpenAI-compatible endpoint's model, base URL and API key inputs in ``box``, with
    these ``labels`` and ``widget_keys``; model and URL travel in the address, the key never.
    What the visitor types in model and URL is theirs (``ui.consent.typed``); what a link put
    there is a proposal until they confirm it."""
    model_label, url_label, key_label = labels
    model_key, url_key, key_key = widget_keys
    box.text_input(
        model_label,
        default(model_key, default_model),
        key=model_key,
        bind=URL,
        on_change=typed,
        args=(model_key,),
    )
    box.text_input(
        f"{url_label} (blank = OpenAI)",
        key=url_key,
        bind=URL,
        placeholder="http://localhost:11434/v1",
        on_change=typed,
        args=(url_key,),
    )
    box.text_input(f"{key_label} (yours, optional)", type="password", key=key_key)


def sidebar_llm() -> None:
    """The chat model for answers and query generation; read with ``ui.state.llm_settings``.
    Model and base URL travel in the address; the key never does."""
    waiting = proposal(CHAT) is not None  # open, so the visitor sees the question
    with st.sidebar.expander("LLM (answers and query generation)", expanded=waiting):
        endpoint_inputs(
            st,
            ("Chat model", "Chat base URL", "Chat API key"),
            (keys.LLM_MODEL, keys.LLM_URL, keys.LLM_KEY_INPUT),
            LLM_DEFAULT_MODEL,
        )
        proposal_box(CHAT)
        alert(
            f"Any OpenAI-compatible chat endpoint. {llm_settings().endpoint.note} A key you "
            "type stays in this session only.",
            "caption",
        )


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


def document_summary(prepared: PreparedDoc, name: str | None = None) -> str:
    """The document's size: "name: C characters, T sections, S chunks", or for a corpus
    "corpus: N files, C characters, S chunks" (the files' characters, not the joins).

    ``name``: the name the user opened it under (a prepared document is shared by content, so
    its own name is that of whoever opened the same text first)."""
    doc = prepared.document
    if doc.several_files:
        chars = sum(p.end - p.start for p in doc.parts)
        return (
            f"corpus: {len(doc.parts)} files, {chars:,} characters, {len(prepared.chunks)} chunks"
        )
    return (
        f"{name or doc.name}: {len(doc.text):,} characters, {len(doc.sections)} sections, "
        f"{len(prepared.chunks)} chunks"
    )


def cache_note() -> None:
    """One line in the sidebar for each disk cache that is off (its file broke): the app
    works on without it (:mod:`scar_viz.sqlite_cache`)."""
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
        f"{document_summary(prepared, picked[1].name)} · "
        f"{model_line(prepared.embedder_label, embedder)} · embedded now: "
        f"{st.session_state.get(keys.ENCODED_NOW, 0)} chunks in "
        f"{st.session_state.get(keys.ENCODED_SECONDS, 0.0):.1f} s (the rest from the cache)",
        "caption",
        st.sidebar,
    )
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
        line = index_caption(prepared, document_summary(prepared), embedder)
        alert(line, "caption", st.sidebar)
    return opened


class LabSource(NamedTuple):
    """What the Chunking lab cuts: the document's content key, the document, chunking A, the
    embedder (for semantic chunking), the Document select's choice, and for an opened index
    the spans its files were cut into (chunking A as stored; None otherwise)."""

    key: str
    document: Document
    config: ChunkingConfig
    embedder: Embedder
    name: str | None
    stored: list[tuple[int, int]] | None


def lab_source(slot) -> LabSource | None:
    """The whole sidebar, then the Chunking lab's document: the one picked at the sidebar's
    chunking, or an opened index at its own (said on the page). None (the reason shown) when
    there is none yet."""
    picked, config, spec, base_url, name = sidebar()
    cache_note()
    if name != STORE_CHOICE:
        if picked is None or config is None:
            return None
        embedder = or_stop(lambda: get_embedder(spec, base_url))
        return LabSource(picked[0], picked[1], config, embedder, name, None)
    opened = opened_index(spec, base_url, slot)
    if opened is None:
        return None
    prepared, embedder = opened
    config = prepared.config
    alert(
        f"A is the index's own chunking ({config.label}), where its files were cut; B and the "
        "statistics below re-cut the same files here, one by one.",
        "info",
    )
    stored = [(c.start, c.end) for c in prepared.chunks]
    doc = prepared.document
    return LabSource(document_key(doc), doc, config, embedder, name, stored)


def _index_setup(spec: str, base_url: str, slot) -> Setup | None:
    """The Setup of the index the picker opened."""
    opened = opened_index(spec, base_url, slot)
    return None if opened is None else _setup(STORE_CHOICE, *opened)
