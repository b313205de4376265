"""Streamlit glue shared by the pages: state, cached loaders, the sidebar controls.

Pages stay short: they call these helpers and the pure ``scar_viz`` core. Every widget has an
explicit key; shareable settings are bound to the URL (``bind="query-params"``).
"""

from __future__ import annotations

import functools
import hashlib
import html
import os
import threading
from collections import OrderedDict

import numpy as np
import streamlit as st

from scar_viz import samples
from scar_viz.chunking import (
    CHUNKER_INFO,
    CHUNKERS,
    DEFAULT_PERCENTILE,
    Chunk,
    ChunkingConfig,
    chunk_document,
)
from scar_viz.documents import DEFAULT_MAX_BYTES, Document, DocumentError, read_document
from scar_viz.embeddings import Embedder, EmbeddingCache, EmbeddingError, make_embedder
from scar_viz.errors import UserError, user_message
from scar_viz.pipeline import PreparedDoc, embed_query, prepare_document

UPLOAD = "upload"
URL = "query-params"

MODEL_OPTIONS: dict[str, str] = {
    "default": "all-MiniLM-L6-v2 (embedded, offline, default)",
    "static": "Fast static model (model2vec, distilled locally from the default)",
    "hash": "Hashing bag-of-words (lexical, instant, no model)",
    "sentence-transformers": "Other sentence-transformers model (name or local path)",
    "openai": "OpenAI-compatible embeddings endpoint",
}


def default_model() -> str:
    """The model picked on first load; ``SCAR_VIZ_DEFAULT_MODEL`` overrides (used by tests)."""
    choice = os.environ.get("SCAR_VIZ_DEFAULT_MODEL", "default")
    return choice if choice in MODEL_OPTIONS else "default"


# --- messages that quote untrusted text ---------------------------------------------------------

_ALERT_STYLE = {
    "error": ("#fdecea", "#7d1f1a", "#e0a39e"),
    "warning": ("#fff6e0", "#6b4e00", "#e8cf8c"),
    "info": ("#e8f1fb", "#0f3d6e", "#a9c8ea"),
    "caption": ("transparent", "#555", "transparent"),
}


def alert(text: str, kind: str = "error", where=None) -> None:
    """Show a message that quotes untrusted text (a file name, a line of a query file, an
    endpoint's answer): HTML-escaped inside ``st.html``, so no markdown, directive, link or
    markup in it is ever interpreted."""
    bg, fg, border = _ALERT_STYLE[kind]
    size = "0.85rem" if kind == "caption" else "0.95rem"
    pad = "0" if kind == "caption" else "10px 14px"
    (where or st).html(
        f'<div data-testid="sv-alert-{kind}" style="background:{bg};color:{fg};'
        f"border:1px solid {border};border-radius:8px;padding:{pad};"
        f'font-size:{size};white-space:pre-wrap;overflow-wrap:anywhere">{html.escape(str(text))}</div>'
    )


# --- process-wide caches (content-keyed, so users never see each other's data) ---------------


class _LRU:
    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[tuple, object] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple):
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
            return None

    def put(self, key: tuple, value: object) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)


@st.cache_resource(show_spinner=False)
def _memory() -> _LRU:
    return _LRU(48)


@st.cache_resource(show_spinner=False)
def disk_cache() -> EmbeddingCache:
    return EmbeddingCache()


@st.cache_resource(show_spinner=False, max_entries=8)
def _embedder(spec: str, base_url: str, key_fingerprint: str, _api_key: str) -> Embedder:
    return make_embedder(spec, base_url=base_url or None, api_key=_api_key or None)


@st.cache_resource(show_spinner=False)
def sample_document(key: str) -> tuple[str, Document]:
    doc = samples.load_sample(key)
    return text_digest(doc.text), doc


@functools.lru_cache(maxsize=4)
def text_digest(text: str) -> str:
    """SHA-256 of ``text``; remembered for the last few texts, so a page that keys its memos
    on the document's content on every rerun hashes a large document once."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def prepared_key(prep: PreparedDoc) -> tuple:
    """The content a prepared document stands for: document digest, chunking, model and
    prepending (memo keys use this, never ``id(prep)``, which CPython reuses)."""
    return (text_digest(prep.document.text), prep.config, prep.embedder_id, prep.prepend)


@st.cache_data(show_spinner=False, max_entries=64)
def _chunks(doc_key: str, _doc: Document, config: ChunkingConfig) -> list[Chunk]:
    return chunk_document(_doc, config)


# --- settings --------------------------------------------------------------------------------


def api_key() -> str:
    """The OpenAI key: this session's entry, else ``st.secrets``, else the environment."""
    entered = st.session_state.get("api_key_input") or ""
    if entered:
        return entered
    try:
        secret = st.secrets.get("OPENAI_API_KEY", "")
    except (FileNotFoundError, KeyError, AttributeError):
        secret = ""
    except Exception:  # st.secrets raises its own error type when secrets.toml is malformed
        secret = ""
    return str(secret or os.environ.get("OPENAI_API_KEY", ""))


def model_spec() -> tuple[str, str]:
    """(spec for :func:`make_embedder`, base_url) from the sidebar's model widgets."""
    choice = st.session_state.get("model", default_model())
    if choice == "sentence-transformers":
        name = (st.session_state.get("st_model") or "").strip()
        return (f"st:{name}" if name else "default"), ""
    if choice == "openai":
        model = (st.session_state.get("openai_model") or "").strip() or "text-embedding-3-large"
        return f"openai:{model}", (st.session_state.get("base_url") or "").strip()
    return choice, ""


def get_embedder(spec: str, base_url: str = "") -> Embedder:
    key = api_key() if spec.startswith("openai:") else ""
    fingerprint = hashlib.sha256(key.encode()).hexdigest()[:12] if key else ""
    return _embedder(spec, base_url, fingerprint, key)


# --- sidebar ---------------------------------------------------------------------------------


def _read_upload() -> None:
    upload = st.session_state.get("upload_file")
    if upload is None:
        return
    try:
        doc = read_document(upload.name, upload.getvalue(), max_bytes=DEFAULT_MAX_BYTES)
    except DocumentError as exc:
        st.session_state["upload_error"] = str(exc)
        return
    st.session_state["upload_error"] = ""
    st.session_state["uploaded"] = (text_digest(doc.text), doc)


def sidebar_document() -> tuple[str, Document] | None:
    """Document picker (built-in sample or upload). Returns (content key, document)."""
    options = [*samples.SAMPLES, UPLOAD]
    labels = {k: s.title for k, s in samples.SAMPLES.items()} | {UPLOAD: "Upload a document…"}
    # options are short ids (the URL carries the id); the long title is shown beneath
    choice = st.sidebar.selectbox("Document", options, key="doc", bind=URL)
    st.sidebar.caption(labels[choice])
    area = st.sidebar.container()  # always present, so later widgets keep their places
    if choice != UPLOAD:
        return sample_document(choice)
    area.file_uploader(
        "txt, md, pdf or html",
        type=["txt", "md", "markdown", "pdf", "html", "htm"],
        key="upload_file",
        on_change=_read_upload,
        help="Uploaded documents stay on this server for your session only. They cannot travel "
        "in a shared link.",
    )
    if st.session_state.get("upload_error"):
        alert(st.session_state["upload_error"], "error", area)
    uploaded = st.session_state.get("uploaded")
    if uploaded is None:
        st.info(
            "Upload a document in the sidebar (txt, md, pdf or html), or pick the built-in sample."
        )
        return None
    if uploaded[1].note:
        area.caption(uploaded[1].note)
    return uploaded


def sidebar_chunking() -> ChunkingConfig | None:
    st.sidebar.subheader("Chunking")
    chunker = st.sidebar.selectbox(
        "Chunker",
        list(CHUNKERS),
        key="chunker",
        bind=URL,
        help="How the document is cut into chunks. Every page (and the gold chunks of a "
        "query set) uses this chunking.",
    )
    st.sidebar.caption(CHUNKER_INFO[chunker].label)
    c1, c2 = st.sidebar.columns(2)
    size = c1.number_input("Chunk size", 50, 8000, 600, step=50, key="size", bind=URL)
    overlap = c2.number_input("Overlap", 0, 4000, 60, step=10, key="overlap", bind=URL)
    extra = st.sidebar.container()  # always present, so later widgets keep their places
    if CHUNKER_INFO[chunker].unit != "characters":
        extra.caption(f"Size and overlap count {CHUNKER_INFO[chunker].unit} (o200k_base).")
    percentile = DEFAULT_PERCENTILE
    if CHUNKER_INFO[chunker].needs_embed:
        percentile = extra.slider(
            "Cut below similarity percentile",
            0.0,
            50.0,
            DEFAULT_PERCENTILE,
            1.0,
            key="cpct",
            bind=URL,
            help="Cut between two consecutive sentences when their cosine similarity is below "
            "this percentile of all consecutive-sentence similarities (0 = sentence packing "
            "only). The embedding model below compares the sentences.",
        )
    st.sidebar.checkbox(
        "Contextual prepending",
        False,
        key="prepend",
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


def sidebar_model() -> tuple[str, str]:
    st.sidebar.subheader("Embedding model")
    # options are short ids (the URL carries the id); the long label is shown beneath
    choice = st.sidebar.selectbox(
        "Model",
        list(MODEL_OPTIONS),
        index=list(MODEL_OPTIONS).index(default_model()),
        key="model",
        bind=URL,
    )
    extra = st.sidebar.container()  # always present, so later widgets keep their places
    extra.caption(MODEL_OPTIONS[choice])
    if choice == "static":
        from scar_viz.embeddings.static import static_model_summary

        extra.caption(static_model_summary())
    elif choice == "sentence-transformers":
        extra.text_input(
            "Model name or local path",
            key="st_model",
            bind=URL,
            placeholder="/path/to/model or BAAI/bge-small-en-v1.5",
        )
    elif choice == "openai":
        extra.text_input("Model", "text-embedding-3-large", key="openai_model", bind=URL)
        extra.text_input(
            "Base URL (blank = OpenAI)",
            key="base_url",
            bind=URL,
            placeholder="http://localhost:11434/v1",
        )
        extra.text_input(
            "API key (blank = OPENAI_API_KEY / st.secrets)", type="password", key="api_key_input"
        )
    return model_spec()


def presenter_toggle() -> bool:
    """Presenter mode (``?present=true``): large type, high contrast, charts first."""
    on = st.sidebar.toggle(
        "Presenter mode",
        False,
        key="present",
        bind=URL,
        help="Large type and high-contrast colours for a projector; the strip "
        "and the decision plane come first. Shareable: ?present=true",
    )
    if on:
        st.sidebar.html(PRESENTER_CSS)
    return bool(on)


PRESENTER_CSS = """<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 22px; }
[data-testid="stAppViewContainer"] { background: #ffffff; color: #000000; }
[data-testid="stHeader"], [data-testid="stToolbar"], footer { display: none; }
h1 { font-size: 2.6rem !important; } h2, h3 { font-size: 1.9rem !important; }
[data-testid="stMetricValue"] { font-size: 3rem !important; color: #000; }
[data-testid="stCaptionContainer"] { color: #111 !important; font-size: 1rem; }
.block-container { padding-top: 1rem !important; max-width: 100% !important; }
</style>"""


def presenting() -> bool:
    return bool(st.session_state.get("present", False))


def chart_config(name: str) -> dict:
    """Plotly config: the camera button saves the chart as PNG or SVG (Share panel choice)."""
    fmt = st.session_state.get("img_fmt", "png")
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": fmt, "filename": f"scar-viz-{name}", "scale": 2},
    }


# --- the prepared document -------------------------------------------------------------------


def prepare(
    doc_key: str,
    document: Document,
    config: ChunkingConfig,
    embedder: Embedder,
    prepend: bool,
    slot=None,
) -> PreparedDoc | None:
    """Chunk and embed, with a progress bar in ``slot``; memoised per content in this process.

    The bar lives in a placeholder that every run creates, so the page's element tree keeps
    the same shape whether or not embedding happened (URL-bound widgets rely on that).
    """
    memo_key = ("prepared", doc_key, config, embedder.model_id, prepend)
    hit = _memory().get(memo_key)
    if hit is not None:
        st.session_state["encoded_now"] = 0
        st.session_state["encoded_seconds"] = 0.0
        return hit
    chunks = None if config.needs_embed else _chunks(doc_key, document, config)
    what = f"{len(chunks)} chunks" if chunks is not None else "sentences, then chunks,"
    slot = slot if slot is not None else st.empty()
    bar = slot.progress(0.0, text=f"Embedding {what} with {embedder.label} …")

    def progress(done: int, total: int) -> None:
        bar.progress(
            min(1.0, done / max(total, 1)),
            text=f"Embedding chunks: {done}/{total} ({embedder.label})",
        )

    try:
        prepared = prepare_document(
            document, embedder, config, prepend, disk_cache(), progress, chunks=chunks
        )
    except EmbeddingError as exc:
        slot.empty()
        alert(f"Embedding failed: {exc}")
        return None
    finally:
        bar.empty()
    _memory().put(memo_key, prepared)
    st.session_state["encoded_now"] = prepared.n_encoded
    st.session_state["encoded_seconds"] = prepared.seconds
    return prepared


def memo(key: tuple, compute):
    """Process-wide memo for derived data keyed by content (never by user)."""
    hit = _memory().get(key)
    if hit is None:
        hit = compute()
        _memory().put(key, hit)
    return hit


def query_vector(embedder: Embedder, query: str) -> np.ndarray | None:
    memo_key = ("query", embedder.model_id, query)
    hit = _memory().get(memo_key)
    if hit is not None:
        return hit
    try:
        vec = embed_query(embedder, query, disk_cache())
    except EmbeddingError as exc:
        alert(f"Embedding the query failed: {exc}")
        return None
    _memory().put(memo_key, vec)
    return vec


def load_model_with_spinner(embedder: Embedder, slot) -> bool:
    """Load a lazily loaded model under a spinner in ``slot`` so the page shell paints first.

    The static model's one-time distillation shows a progress bar instead.
    """
    if not embedder.needs_loading:
        return True
    try:
        if embedder.needs_distillation:
            bar = slot.progress(0.0, text="Distilling the static model from the default (once) …")
            embedder.load(
                lambda done, total, stage: bar.progress(min(1.0, done / max(total, 1)), text=stage)
            )
        else:
            with (
                slot.container(),
                st.spinner(f"Loading {embedder.label} (first use in this server) …"),
            ):
                embedder.load()
    except UserError as exc:
        with slot.container():
            alert(user_message(exc))
        return False
    slot.empty()
    return True


def sidebar_setup() -> tuple[PreparedDoc, Embedder] | None:
    """The whole sidebar, then chunk and embed. None (with a message shown) when not ready."""
    slot = st.empty()  # spinner, progress bar and errors of this step, always at this place
    picked = sidebar_document()
    config = sidebar_chunking()
    spec, base_url = sidebar_model()
    presenter_toggle()
    from ui.share import share_panel  # ui.share builds on this module

    share_panel(picked[1] if picked else None)
    if picked is None or config is None:
        return None
    try:
        embedder = get_embedder(spec, base_url)
    except UserError as exc:
        with slot.container():
            alert(user_message(exc))
        return None
    if not load_model_with_spinner(embedder, slot):
        return None
    prepared = prepare(
        picked[0],
        picked[1],
        config,
        embedder,
        bool(st.session_state.get("prepend", False)),
        slot,
    )
    if prepared is None:
        return None
    alert(
        f"{prepared.document.name}: {len(prepared.document.text):,} characters, "
        f"{len(prepared.document.sections)} sections, {len(prepared.chunks)} chunks · "
        f"{prepared.embedder_label} · embedded now: {st.session_state.get('encoded_now', 0)} "
        f"chunks in {st.session_state.get('encoded_seconds', 0.0):.1f} s (the rest from the "
        "cache)",
        "caption",
        st.sidebar,
    )
    return prepared, embedder
