"""Every process-wide cache of the app, one mechanism: Streamlit's ``st.cache_resource`` and
``st.cache_data``, keyed by content (digests of text, the settings, the queries).

Several users share one process, so a key never names a user, a session, a file name or an
object's ``id()``: two users with the same document and settings share an entry, and nothing
else. A cached function cannot draw progress into the page (its elements would be replayed
on every hit), so a step that shows progress runs through :func:`cached`: it checks a
content-keyed box first and computes outside any cached function, drawing as it goes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
import streamlit as st

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.common.memo import Memo, held_bytes
from scar_viz.documents import samples
from scar_viz.documents.reading import Document
from scar_viz.documents.sentence_cache import SentenceSpanCache
from scar_viz.embeddings import Embedder, EmbeddingCache
from scar_viz.llm.cache import LLMCache
from scar_viz.pipeline import PreparedDoc, embed_query
from scar_viz.runtime.devices import DeviceChoice
from ui.models import app_embedder

T = TypeVar("T")

CACHED_BYTES = 512 * 2**20
"""What the process keeps of prepared documents, evaluations and the other values of
:func:`cached`, in bytes (512 MiB, weighed by :func:`~scar_viz.common.memo.held_bytes`), for all
sessions together; least recently used first out, the newest always kept. Was 48 entries,
whatever their size: 48 prepared corpora of 200 MiB each."""
CHUNKS_BYTES = 256 * 2**20
"""What the process keeps of chunk lists (:func:`chunks`), in bytes (256 MiB)."""

_CACHED: Memo[object] = Memo(CACHED_BYTES, measure=held_bytes)
_CHUNKS: Memo[list[Chunk]] = Memo(CHUNKS_BYTES, measure=held_bytes)


@st.cache_resource(show_spinner=False)
def disk_cache() -> EmbeddingCache:
    """The on-disk embedding cache (one per process; keyed by model id and text digest). A file
    that cannot be opened, or breaks later, turns it off for the process
    (:mod:`scar_viz.runtime.sqlite_cache`): every document still loads, embedded afresh."""
    return EmbeddingCache(degrade=True)


@st.cache_resource(show_spinner=False)
def span_cache() -> SentenceSpanCache:
    """The on-disk sentence span cache (one per process; off when its file breaks)."""
    return SentenceSpanCache(degrade=True)


@st.cache_resource(show_spinner=False)
def llm_cache() -> LLMCache:
    """The on-disk cache of chat replies (one per process; off when its file breaks)."""
    return LLMCache(degrade=True)


def cache_problems() -> list[str]:
    """One line for each of the app's disk caches that is off ("the cache at NAME is
    unreadable: working without it"); empty while they all work."""
    return [c.problem for c in (disk_cache(), span_cache(), llm_cache()) if c.problem]


@st.cache_resource(show_spinner=False, max_entries=8)
def embedder(
    spec: str,
    base_url: str,
    key_fingerprint: str,
    _api_key: str,
    device: DeviceChoice,
    root: str = "",
) -> Embedder:
    """The embedder for ``spec``: one per (spec, endpoint, key digest, device choice, models
    root) and process; a model named by a visitor only from the models ``root``
    (:func:`ui.models.app_embedder`). The key itself is never part of the cache key, only a
    digest of it."""
    return app_embedder(spec, base_url, _api_key, Path(root) if root else None, device)


@st.cache_resource(show_spinner=False)
def sample_document(key: str) -> tuple[str, Document]:
    """(content digest, document) of a built-in sample (shipped, immutable)."""
    doc = samples.load_sample(key)
    return doc.digest, doc


def chunks(doc_key: str, doc: Document, config: ChunkingConfig) -> list[Chunk]:
    """The chunks of the document whose digest (:attr:`Document.digest`) is ``doc_key``, kept
    within :data:`CHUNKS_BYTES` for the process (shared: never changed by a caller)."""
    return _CHUNKS.get_or_build((doc_key, config), lambda: chunk_document(doc, config))


@st.cache_data(show_spinner=False, max_entries=256)
def query_vector(model_id: str, query: str, _embedder: Embedder) -> np.ndarray:
    """The unit query vector of ``query`` under ``model_id`` (the disk cache behind it)."""
    return embed_query(_embedder, query, disk_cache())


def cached(key: tuple, compute: Callable[[], T]) -> T:
    """``compute()``'s value for the content ``key``, computed once per process and kept
    while it fits :data:`CACHED_BYTES` with the others (least recently used out first).

    ``compute`` runs outside any cached function, so it may draw a progress bar; if it
    raises, nothing is stored and the next call tries again. ``key`` holds content only
    (digests, settings, query text), never a user, a name or an ``id()``.
    """
    return _CACHED.get_or_build(key, compute)  # type: ignore[return-value]


def is_cached(key: tuple) -> bool:
    """Whether :func:`cached` holds a value for ``key`` now (nothing is computed)."""
    return key in _CACHED.entries


def clear() -> None:
    """Forget every value :func:`cached` and :func:`chunks` keep (tests start afresh)."""
    _CACHED.clear()
    _CHUNKS.clear()


def held() -> dict[str, int]:
    """Bytes the process-wide memos hold now: ``cached`` and ``chunks``."""
    return {"cached": _CACHED.weight, "chunks": _CHUNKS.weight}


def prepared_key(prep: PreparedDoc) -> tuple:
    """The content a prepared document stands for: the document's digest (its files too, for a
    corpus: :attr:`Document.digest`), chunking, model, prepending."""
    return (prep.document.digest, prep.config, prep.embedder_id, prep.prepend)
