"""Loading, with the user watching: the embedder (spinner or distillation bar), an uploaded
document, and the chunked, embedded document (progress bar), each cached by content."""

from __future__ import annotations

import numpy as np
import streamlit as st

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents.reading import DEFAULT_MAX_BYTES, Document, DocumentError, read_document
from scar_viz.documents.starters import starter_questions
from scar_viz.embeddings import Embedder, EmbeddingError, text_key
from scar_viz.endpoints import EndpointError
from scar_viz.pipeline import PreparedDoc, prepare_document
from scar_viz.views.language import UsualCosine, usual_cosine
from ui import cache, keys
from ui.alerts import alert, or_stop
from ui.state import endpoint_choice


def get_embedder(spec: str, base_url: str = "") -> Embedder:
    """The (process-wide) embedder for ``spec``; an endpoint (``openai:`` spec) gets the key
    the operator's rules give it: the visitor's own, the server's where allowed, or none.

    Raises:
        EndpointError: this server may not send requests to ``base_url``.
    """
    key = ""
    if spec.startswith("openai:"):
        choice = endpoint_choice(base_url, keys.API_KEY_INPUT)
        if choice.problem:
            raise EndpointError(choice.problem)
        key = choice.key.key
    fingerprint = text_key(key)[:12] if key else ""
    return cache.embedder(spec, base_url, fingerprint, key)


def load_model(embedder: Embedder, slot) -> bool:
    """Load a lazily loaded model under a spinner in ``slot`` so the page shell paints first.

    The static model's one-time distillation shows a progress bar instead. False (with the
    message shown in ``slot``) when the model cannot be loaded.
    """
    distil = embedder.needs_distillation
    if not distil and not embedder.needs_loading:
        return True
    try:
        if distil:
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
    except EmbeddingError as exc:
        with slot.container():
            alert(str(exc))
        return False
    slot.empty()
    return True


def read_upload() -> None:
    """Callback of the sidebar's uploader: read the file into ``uploaded`` (digest, document),
    or its one-sentence problem into ``upload_error``."""
    upload = st.session_state.get(keys.UPLOAD_FILE)
    if upload is None:
        return
    try:
        doc = read_document(upload.name, upload.getvalue(), max_bytes=DEFAULT_MAX_BYTES)
    except DocumentError as exc:
        st.session_state[keys.UPLOAD_ERROR] = str(exc)
        return
    st.session_state[keys.UPLOAD_ERROR] = ""
    st.session_state[keys.UPLOADED] = (text_key(doc.text), doc)


def prepare(
    doc_key: str,
    document: Document,
    config: ChunkingConfig,
    embedder: Embedder,
    prepend: bool,
    slot=None,
) -> PreparedDoc | None:
    """Chunk and embed, with a progress bar in ``slot``; once per content in this process.

    The bar lives in a placeholder that every run creates, so the page's element tree keeps
    the same shape whether or not embedding happened (URL-bound widgets rely on that). None
    (with the message shown) when embedding fails.
    """
    st.session_state[keys.ENCODED_NOW] = 0
    st.session_state[keys.ENCODED_SECONDS] = 0.0

    def compute() -> PreparedDoc:
        pieces = None if config.needs_embed else cache.chunks(doc_key, document, config)
        what = f"{len(pieces)} chunks" if pieces is not None else "sentences, then chunks,"
        bar = place.progress(0.0, text=f"Embedding {what} with {embedder.label} …")

        def progress(done: int, total: int) -> None:
            bar.progress(
                min(1.0, done / max(total, 1)),
                text=f"Embedding chunks: {done}/{total} ({embedder.label})",
            )

        try:
            prepared = prepare_document(
                document, embedder, config, prepend, cache.disk_cache(), progress, chunks=pieces
            )
        finally:
            bar.empty()
        st.session_state[keys.ENCODED_NOW] = prepared.n_encoded
        st.session_state[keys.ENCODED_SECONDS] = prepared.seconds
        return prepared

    place = slot if slot is not None else st.empty()
    try:
        return cache.cached(("prepared", doc_key, config, embedder.model_id, prepend), compute)
    except EmbeddingError as exc:
        place.empty()
        alert(f"Embedding failed: {exc}")
        return None


def query_vector(embedder: Embedder, query: str | None) -> np.ndarray:
    """The unit vector of ``query`` (cached by model and text). The page stops here when
    there is no question yet, or with the message shown when embedding it fails."""
    if query is None:
        st.stop()
    return or_stop(
        lambda: cache.query_vector(embedder.model_id, query, embedder),
        "Embedding the query failed:",
    )


def usual_cosine_for(
    content_key: tuple, prep: PreparedDoc, embedder: Embedder
) -> UsualCosine | None:
    """What the document's starter questions score against its chunks
    (:func:`scar_viz.views.language.usual_cosine`), once per document, chunking and model
    (``content_key``, :func:`ui.cache.prepared_key`); None for a document without headings
    (no starter questions) or when embedding them fails (the low-cosine notice is then off).
    """

    def compute() -> UsualCosine | None:
        questions = starter_questions(prep.document)
        if not questions:
            return None
        try:
            vectors = [cache.query_vector(embedder.model_id, q, embedder) for q in questions]
        except (EmbeddingError, EndpointError):
            return None
        return usual_cosine(np.stack(vectors), prep.unit)

    return cache.cached(("usual-cos", *content_key), compute)
