"""Loading, with the user watching: the embedder (spinner or distillation bar), an uploaded
document or corpus, and the chunked, embedded document (progress bar), each cached by content."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import PurePosixPath

import numpy as np
import streamlit as st

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import ChunkingConfig
from scar_viz.common.errors import SettingsError, UserError, user_message
from scar_viz.common.memo import held_bytes
from scar_viz.documents.collect import (
    LIMITS,
    MAX_FILES,
    MAX_TOTAL_BYTES,
    Collected,
    collect_files,
    describe_skipped,
)
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import (
    DEFAULT_MAX_BYTES,
    MAX_PDF_PAGES,
    SUPPORTED_SUFFIXES,
    TEXT_SUFFIXES,
    Document,
    Extraction,
    read_document,
)
from scar_viz.documents.starters import starter_questions
from scar_viz.embeddings import Embedder, EmbeddingError, text_key
from scar_viz.embeddings.prompts import set_prompts
from scar_viz.pipeline import PreparedDoc, prepare_document, vector_bytes
from scar_viz.runtime import devices
from scar_viz.runtime.cancel import Cancelled
from scar_viz.runtime.endpoints import EndpointError
from scar_viz.views.language import UsualCosine, usual_cosine
from ui import cache, keys
from ui.alerts import alert, or_stop, progress_bar, time_left
from ui.cancel import stop_check
from ui.consent import EMBEDDINGS, ProposalPending, Slot, proposal
from ui.models import models_root
from ui.session_budget import over_budget
from ui.state import endpoint_choice, typed_prompts

UPLOAD_TYPES = sorted({s.lstrip(".") for s in (*SUPPORTED_SUFFIXES, *TEXT_SUFFIXES, ".zip")})
"""What the sidebar's uploader accepts: prose, text and code, pdf, html, and zip archives."""
APP_TEXT_CHARS = 48_000_000
"""Characters of text one upload may give in the app (48 million), below the package's 200 Mi:
a server holds every chunk of it, its vectors and penalties, about 24 bytes a character of
text while it prepares (benchmarks/upload_memory.py measures the worst upload)."""
APP_LIMITS = replace(LIMITS, text_chars=APP_TEXT_CHARS)
"""The corpus limits of an upload to the app: the package's, with :data:`APP_TEXT_CHARS`."""
APP_VECTOR_BYTES = 2**30
"""What one document's vectors may take in the app (1 GiB), checked before a model that says
its dimensions beforehand embeds anything: ``hash:4096`` on the worst upload would be 4 GiB."""
SHOWN_SKIPPED = 50
"""Skipped files listed one by one; past this many, the per-reason summary stands for them."""


def get_embedder(spec: str, base_url: str = "", slot: Slot = EMBEDDINGS) -> Embedder:
    """The (process-wide) embedder for ``spec``, placed by the server's device choice
    (``SCAR_VIZ_DEVICE``, ``SCAR_VIZ_PRECISION``); an endpoint (``openai:`` spec) gets the key
    the operator's rules give it: the visitor's own, the server's where allowed, or none; a
    model a visitor names loads only from the models root or the local hub cache; an endpoint
    is used only once this visitor typed or confirmed it (``ui.consent``).

    Raises:
        EndpointError: this server may not send requests to ``base_url``.
        ProposalPending: the endpoint (``slot``'s fields) is a link's or a session file's
            proposal this visitor has not confirmed: nothing is sent.
        ModelRefused: the named model is not one this server loads.
    """
    key = ""
    if spec.startswith("openai:"):
        waiting = proposal(slot)
        if waiting is not None:
            raise ProposalPending(waiting.waiting)
        choice = endpoint_choice(base_url, keys.API_KEY_INPUT)
        if choice.problem:
            raise EndpointError(choice.problem)
        key = choice.key.key
    fingerprint = text_key(key)[:12] if key else ""
    root = models_root()
    model = cache.embedder(
        spec, base_url, fingerprint, key, devices.current(), str(root) if root else ""
    )
    return set_prompts(model, *typed_prompts())


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


def upload_limits() -> str:
    """The uploader's limits in one sentence (files, sizes), from the corpus reader's own."""
    per_upload = st.get_option("server.maxUploadSize")
    return (
        f"Several files or a .zip make a corpus: at most {MAX_FILES:,} files, "
        f"{MAX_TOTAL_BYTES / 2**20:.0f} MiB read and {APP_TEXT_CHARS / 1e6:.0f} million "
        f"characters of text in all, {DEFAULT_MAX_BYTES / 2**20:.0f} MiB a file, "
        f"{MAX_PDF_PAGES:,} pages a PDF, {per_upload} MB an upload. Files that cannot be read "
        "(binary, undecodable, over a limit, unsafe paths in a zip) are skipped and listed."
    )


def _corpus_name(names: list[str], collected: Collected) -> str:
    """A lone zip's file name, else how many files were uploaded."""
    if len(names) == 1:
        return PurePosixPath(names[0]).name
    return f"{len(collected.documents)} uploaded files"


def read_files(items: list[tuple[str, bytes]]) -> tuple[Document, Collected | None]:
    """The document of uploaded ``(name, bytes)`` items: one file (not a zip) is read as a
    single document, exactly as it always was; several files or a zip are collected and joined
    into a corpus, returned with what was collected (and skipped). Reading ends when this
    visitor's run does (:func:`ui.cancel.stop_check`), between files and a PDF's pages.

    Raises:
        DocumentError: the one file cannot be read, or no file of the several can.
        Cancelled: the visitor left, or a newer run superseded this one.
    """
    should_stop = stop_check()
    if len(items) == 1 and PurePosixPath(items[0][0]).suffix.lower() != ".zip":
        name, data = items[0]
        own = Extraction(chars=APP_TEXT_CHARS, should_stop=should_stop)
        return read_document(name, data, max_bytes=DEFAULT_MAX_BYTES, budget=own), None
    collected = collect_files(items, APP_LIMITS, should_stop=should_stop)
    names = [name for name, _ in items]
    return join_documents(collected.documents, _corpus_name(names, collected)), collected


def read_upload() -> None:
    """Callback of the sidebar's uploader: read the file(s) into ``uploaded`` (digest,
    document or corpus) and what was left out into ``_upload_skipped``, or the one-sentence
    problem into ``upload_error`` (the previous document stays)."""
    uploads = st.session_state.get(keys.UPLOAD_FILE)
    if uploads is not None and not isinstance(uploads, list | tuple):
        uploads = [uploads]
    if not uploads:
        return
    names = [u.name for u in uploads]
    seen, st.session_state[keys.UPLOAD_SEEN] = st.session_state.get(keys.UPLOAD_SEEN), names
    newest = uploads[-1]
    if seen == names[:-1] and len(names) > 1 and not newest.name.lower().endswith(".zip"):
        # one file added to what the uploader already held: if it cannot be read it gets its
        # own message, as a lone upload does, and the document in use stays
        own = Extraction(should_stop=stop_check())
        try:
            read_document(newest.name, newest.getvalue(), max_bytes=DEFAULT_MAX_BYTES, budget=own)
        except (UserError, ValueError) as exc:
            st.session_state[keys.UPLOAD_ERROR] = user_message(exc)
            return
        except Cancelled:
            return
    # the files and their text replace the document in use: counted against this session's
    # budget beside everything else it holds, before reading and again with the text read
    others = frozenset({keys.UPLOADED, keys.UPLOAD_FILE})
    raw = sum(int(u.size) for u in uploads)
    refused = over_budget(raw, "This upload", others)
    if not refused:
        try:
            doc, collected = read_files([(u.name, u.getvalue()) for u in uploads])
        except (UserError, ValueError) as exc:
            st.session_state[keys.UPLOAD_ERROR] = user_message(exc)
            return
        except Cancelled:  # the visitor left or moved on: nothing to say, the old one stays
            return
        refused = over_budget(raw + held_bytes(doc), "This upload and its text", others)
    if refused:  # the previous document stays
        st.session_state[keys.UPLOAD_ERROR] = refused
        return
    st.session_state[keys.UPLOAD_ERROR] = ""
    st.session_state[keys.UPLOADED] = (doc.digest, doc)
    skipped = collected.skipped if collected is not None else ()
    st.session_state[keys.UPLOAD_SKIPPED] = (
        tuple(describe_skipped(collected)) if skipped else (),
        tuple((s.path, s.reason) for s in skipped),
    )


def prepare(
    doc_key: str,
    document: Document,
    config: ChunkingConfig,
    embedder: Embedder,
    prepend: bool,
    slot=None,
    chunks: list[Chunk] | None = None,
) -> PreparedDoc | None:
    """Chunk and embed, with a progress bar in ``slot``; once per content in this process.

    ``chunks``: embed these (an opened index's, cut by another tool) instead of cutting. A
    chunking read from such an index (``config.stored``) cannot cut other text: without
    ``chunks`` its chunker's own fields cut, and say so in the label.

    The bar lives in a placeholder that every run creates, so the page's element tree keeps
    the same shape whether or not embedding happened (URL-bound widgets rely on that). None
    (with the message shown) when embedding fails.
    """
    st.session_state[keys.ENCODED_NOW] = 0
    st.session_state[keys.ENCODED_SECONDS] = 0.0

    spans: tuple[str, ...] = ()
    if chunks is not None:
        spans = (text_key(repr([(c.start, c.end) for c in chunks])),)
    elif config.stored:
        config = replace(config, stored="")

    def compute() -> PreparedDoc:
        if chunks is not None:
            pieces = chunks
        else:
            pieces = None if config.needs_embed else cache.chunks(doc_key, document, config)
        what = f"{len(pieces)} chunks" if pieces is not None else "sentences, then chunks,"
        _, bar = progress_bar(f"Embedding {what} with {embedder.label} …", place)
        t0 = time.perf_counter()

        def progress(done: int, total: int) -> None:
            elapsed = time.perf_counter() - t0
            bar.progress(
                min(1.0, done / max(total, 1)),
                text=embedding_text(done, total, embedder.label, elapsed),
            )

        cost = vector_bytes(len(pieces), embedder) if pieces is not None else None
        refused = (
            over_budget(cost, f"{embedder.model_id} on {len(pieces):,} chunks") if cost else ""
        )
        if refused:  # before anything is embedded: the session's budget
            place.empty()
            raise SettingsError(refused)
        try:
            prepared = prepare_document(
                document,
                embedder,
                config,
                prepend,
                cache.disk_cache(),
                progress,
                chunks=pieces,
                should_stop=stop_check(),
                max_vector_bytes=APP_VECTOR_BYTES,
            )
        finally:
            place.empty()
        st.session_state[keys.ENCODED_NOW] = prepared.n_encoded
        st.session_state[keys.ENCODED_SECONDS] = prepared.seconds
        return prepared

    place = slot if slot is not None else st.empty()
    try:
        key = ("prepared", doc_key, config, embedder.model_id, prepend, *spans)
        return cache.cached(key, compute)
    except EmbeddingError as exc:
        place.empty()
        alert(f"Embedding failed: {exc}")
        return None
    except SettingsError as exc:  # the vectors' budget: refused before anything was embedded
        place.empty()
        alert(str(exc))
        return None


def embedding_text(done: int, total: int, label: str, elapsed: float) -> str:
    """The embedding bar's line: done/total, the model and the time left at this run's own
    pace (``elapsed`` seconds for ``done``; a 90-file zip took minutes with no estimate)."""
    return f"Embedding chunks: {done}/{total} ({label}){time_left(done, total, elapsed)}"


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
