"""The SCAR gate inside LangChain (docs/integrations.md): a model, a splitter, a retriever.

- :class:`ScarEmbeddings`: a LangChain ``Embeddings`` over any scar-viz model spec;
- :func:`split_document`: ``Document`` chunks cut exactly as scar-viz cuts them, each with
  ``id`` ``f"{source}:{chunk}"`` and metadata ``source``, ``chunk``, ``start_index``,
  ``end_index``;
- :class:`ScarRetriever`: a ``BaseRetriever`` that runs a saved setting (or the fields given)
  on a vector store: ranks (dense, BM25, hybrid), takes the top k and expands them (top-k,
  window ±1, SCAR, the learned gate) through :func:`~scar_viz.evaluation.apply.run_setting`;
- :class:`ScarCompressor`: a ``BaseDocumentCompressor``, the same expansion behind any
  retriever (``ContextualCompressionRetriever``), neighbours fetched by id from a store or a
  docstore.

Needs ``langchain-core`` (``pip install 'scar-viz[integrations]'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scar_viz.integrations import needs

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun, Callbacks
    from langchain_core.documents import BaseDocumentCompressor, Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.vectorstores import InMemoryVectorStore, VectorStore
except ImportError as exc:  # pragma: no cover - the message is the point
    raise needs(__name__, "langchain-core") from exc
from pydantic import PrivateAttr, model_validator

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.embeddings import Embedder
from scar_viz.evaluation.settings import ChosenSettings
from scar_viz.integrations.local import (
    ADAPTER_K,
    Picked,
    Runs,
    SettingFields,
    chains_of_positions,
    closest,
    runs_of,
    select_all,
    select_given,
    window_keys,
)
from scar_viz.integrations.models import CacheSpec, ScarModel
from scar_viz.integrations.split import chunk_id, split_for

RETRIEVER_K = ADAPTER_K
"""The retriever's default k: LangChain's own (``VectorStore.as_retriever``)."""

Key = tuple[str, int]


class ScarEmbeddings(Embeddings):
    """A LangChain ``Embeddings`` over a scar-viz model (:class:`~scar_viz.integrations.models.
    ScarModel`): the vectors ``python -m scar_viz`` computes, through the same disk cache.

    ``model``, ``base_url`` and ``cache`` are :class:`~scar_viz.integrations.models.ScarModel`'s
    (``default`` is the embedded all-MiniLM-L6-v2; an endpoint's key is read from
    ``OPENAI_API_KEY``)."""

    def __init__(
        self,
        model: str | Embedder = "default",
        base_url: str | None = None,
        cache: CacheSpec = True,
    ) -> None:
        self.model = ScarModel(model, base_url, cache)

    @property
    def model_id(self) -> str:
        return self.model.model_id

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.model.lists(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.model.query_list(text)


def split_document(
    path_or_text: str | Path,
    chunker: str = "recursive",
    size: int = 600,
    overlap: int = 60,
    model: str | ScarEmbeddings | None = None,
) -> list[Document]:
    """``Document`` chunks of a file, a folder, a glob or a ``.zip`` (every file's chunks, in
    path order) or of a text, cut as scar-viz cuts them (:mod:`scar_viz.integrations.split`).

    Args:
        path_or_text: a ``Path`` or a string naming an existing file or folder; any other
            string is the text itself (source ``text``).
        chunker, size, overlap: scar-viz's chunking (``--chunker``, ``--chunk-size``,
            ``--overlap``).
        model: the model that will embed the chunks (a spec or :class:`ScarEmbeddings`): the
            semantic chunker needs it, and when given it is named in each chunk's metadata
            (``embedding_model``) so that scar-viz, opening the store, can say which model
            embeds its questions.

    Returns:
        One ``Document`` a chunk, ``id`` ``f"{source}:{chunk}"``, ``page_content`` the chunk
        text, metadata ``source``, ``chunk`` (index in its file), ``start_index`` and
        ``end_index`` (offsets in the file's own text).
    """
    chunks, named = split_for(path_or_text, ChunkingConfig(chunker, size, overlap), _model(model))
    return [
        Document(
            id=c.id,
            page_content=c.text,
            metadata={
                "source": c.source,
                "chunk": c.index,
                "start_index": c.start,
                "end_index": c.end,
                **named,
            },
        )
        for c in chunks
    ]


def _model(model: str | ScarEmbeddings | None) -> ScarModel | None:
    if model is None:
        return None
    return model.model if isinstance(model, ScarEmbeddings) else ScarModel(model)


class ScarRetriever(BaseRetriever, SettingFields):
    """A saved setting (or the fields given) run on ``vectorstore``: rank, take the top
    ``k``, expand.

    On a store that lists its chunks (``InMemoryVectorStore``) every chunk is ranked as
    scar-viz ranks it — ``dense`` by cos(q, c), ``bm25`` by BM25 over the chunk texts with
    scar-viz's tokeniser and idf, ``hybrid`` by reciprocal rank fusion of the two with
    ``k_rrf`` — an exact tie going to the earlier chunk in reading order (file by path, then
    chunk), and the top k are expanded as ``policy`` says: ``topk`` (none), ``window1`` (±1),
    ``scar`` (the gate of docs/method.md §2 with r, λ, τ, μ), ``learned`` (the learned gate
    ``gate`` at ``p``). That is :func:`~scar_viz.evaluation.apply.run_setting`, the runner of
    ``select --settings``, on the same chunks.

    On any other store (dense retrieval only), the store proposes ``fetch_k`` chunks (default
    2k) by its own similarity search, the k closest are retrieved, and the neighbours within
    ``r`` in their file are fetched by id (``f"{source}:{chunk±d}"``, ``get_by_ids``) and
    expanded by the same runner. Chunks must carry ``source`` and ``chunk`` metadata
    (:func:`split_document`'s).

    Returns the retrieved and admitted chunks in reading order, each with its decision in
    metadata: ``scar_role`` (``retrieved``/``admitted``), ``scar_cos_q``, and ``scar_rank``,
    or ``scar_score`` (S, or the learned gate's score), ``scar_bar`` (τ·cos(q, c), or
    logit(p)) and ``scar_by`` (the id of the retrieved chunk whose gate admitted it; the three
    are None for a window's neighbour).
    """

    vectorstore: VectorStore
    fetch_k: int | None = None
    _whole: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _check(self) -> ScarRetriever:
        if self.fetch_k is not None and self.fetch_k < self.k:
            raise ValueError("fetch_k must be at least k.")
        return self

    @classmethod
    def from_settings(
        cls, path: str | Path, vectorstore: VectorStore, **overrides: Any
    ) -> ScarRetriever:
        """The setting ``recommend --save`` (or the app's verdict) wrote, read with
        :func:`~scar_viz.evaluation.settings.load_settings` — any retriever, any expansion,
        the learned gate included; ``overrides`` replace fields. A store whose
        :class:`ScarEmbeddings` model is not the one the setting was chosen with gives a
        warning.

        Raises:
            SettingsFileError: an unreadable or malformed file (one sentence).
        """
        embeddings = getattr(vectorstore, "embeddings", None)
        return cls.from_file(path, _model_id(embeddings), vectorstore=vectorstore, **overrides)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        embeddings = getattr(self.vectorstore, "embeddings", None)
        if embeddings is None:
            raise ValueError("ScarRetriever needs a vector store with its embeddings.")
        setting = self.setting()
        query_vec = embeddings.embed_query(query)
        whole = self._every_chunk()
        if whole is not None:
            runs, docs, texts = whole
            return _documents(select_all(setting, runs, texts, query, query_vec), docs)
        if setting.retriever != "dense":
            raise ValueError(
                f"The {setting.retriever} retriever ranks every chunk of the store by its "
                "words, and this store does not list its chunks (an InMemoryVectorStore does)."
            )
        fetch_k = self.fetch_k or 2 * self.k
        hits = _by_key(self.vectorstore.similarity_search_by_vector(list(query_vec), fetch_k))
        vectors = _vectors(self.vectorstore, hits)
        keys = list(hits)
        best = closest(np.asarray(query_vec), np.asarray([vectors[k] for k in keys]), keys, self.k)
        retrieved = [keys[i] for i in best]
        return _expand(setting, self.vectorstore, None, hits, vectors, retrieved, query, query_vec)

    def _every_chunk(self) -> tuple[Runs, dict[Key, Document], list[str]] | None:
        """The store's every chunk laid out in reading order, with its documents and texts
        (kept while the store holds the same ids); None for a store that does not list them."""
        store = self.vectorstore
        if not isinstance(store, InMemoryVectorStore):
            return None
        ids = tuple(store.store)
        if self._whole is not None and self._whole[0] == ids:
            return self._whole[1]
        docs = _by_key(store.get_by_ids(list(ids)))
        vectors = _vectors(store, docs)
        runs = runs_of(chains_of_positions(list(docs)), vectors)
        whole = (runs, docs, [docs[key].page_content for key in runs.keys])
        self._whole = (ids, whole)
        return whole


class ScarCompressor(BaseDocumentCompressor, SettingFields):
    """A saved setting's expansion behind any retriever (``ContextualCompressionRetriever``):
    the documents your retriever returns are the retrieved chunks, and each one's neighbours
    within ``r`` in its file are fetched by id from ``vectorstore`` (``get_by_ids``) or
    ``docstore`` (a LangChain ``BaseStore`` of ``Document`` s by id, ``mget``) and decided as
    ``policy`` says (``topk``, ``window1``, ``scar``, ``learned``) by
    :func:`~scar_viz.evaluation.apply.run_setting`.

    Which of the given documents are retrieved: under the ``dense`` retriever, the ``k``
    closest to the question by cos(q, c), an exact tie to the earlier chunk in reading order
    (as ``select`` ranks them: give it 2k); under ``bm25`` or ``hybrid``, the first ``k`` in
    the order your retriever gave. Vectors are the store's where it keeps them
    (``InMemoryVectorStore``), else the texts embedded with ``embeddings`` (default: the
    store's). Returns what :class:`ScarRetriever` returns, with the same metadata.
    """

    vectorstore: VectorStore | None = None
    docstore: Any = None
    embeddings: Any = None

    @model_validator(mode="after")
    def _check(self) -> ScarCompressor:
        if self.vectorstore is None and self.docstore is None:
            raise ValueError("ScarCompressor needs a vectorstore or a docstore to fetch from.")
        if self.embeddings is None and self.vectorstore is not None:
            self.embeddings = getattr(self.vectorstore, "embeddings", None)
        if self.embeddings is None:
            raise ValueError("ScarCompressor needs the embeddings of the chunks.")
        return self

    @classmethod
    def from_settings(cls, path: str | Path, **fields: Any) -> ScarCompressor:
        """The setting ``recommend --save`` wrote (any expansion, the learned gate included);
        ``fields`` give ``vectorstore`` or ``docstore`` (and ``embeddings``) and override the
        file's fields.

        Raises:
            SettingsFileError: an unreadable or malformed file (one sentence).
        """
        embeddings = fields.get("embeddings") or getattr(
            fields.get("vectorstore"), "embeddings", None
        )
        return cls.from_file(path, _model_id(embeddings), **fields)

    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        if not documents:
            return []
        setting = self.setting()
        query_vec = self.embeddings.embed_query(query)
        hits = _by_key(documents)
        keys = list(hits)
        vectors = _vectors(self.vectorstore, hits, self.embeddings)
        if setting.retriever == "dense":
            rows = np.asarray([vectors[k] for k in keys])
            retrieved = [keys[i] for i in closest(np.asarray(query_vec), rows, keys, self.k)]
        else:
            retrieved = keys[: self.k]
        return _expand(
            setting, self.vectorstore, self.docstore, hits, vectors, retrieved, query, query_vec,
            self.embeddings,
        )  # fmt: skip


def _expand(
    setting: ChosenSettings,
    store: VectorStore | None,
    docstore: Any,
    hits: dict[Key, Document],
    vectors: dict[Key, Sequence[float]],
    retrieved: list[Key],
    query: str,
    query_vec: Sequence[float],
    embeddings: Any = None,
) -> list[Document]:
    """``retrieved`` (keys in rank order, all in ``hits``) expanded by ``setting`` over their
    neighbours within r, fetched by id from ``store`` (else ``docstore``) inside their file."""
    if not retrieved:
        return []
    window = window_keys(setting, retrieved)
    missing = sorted(window - set(hits))
    ids = [chunk_id(*key) for key in missing]
    if not ids:
        fetched: list[Document] = []
    elif store is not None:
        fetched = list(store.get_by_ids(ids))
    else:
        fetched = [d for d in docstore.mget(ids) if d is not None]
    found = {key: doc for key, doc in _by_key(fetched).items() if key in window}
    hits = {**hits, **found}
    vectors = {**vectors, **_vectors(store, found, embeddings)}
    runs = runs_of(chains_of_positions([key for key in window if key in hits]), vectors)
    picks = select_given(
        setting, runs, retrieved, query, query_vec, lambda: _texts(store, docstore)
    )
    return _documents(picks, hits)


def _documents(picks: list[Picked], docs: dict[Key, Document]) -> list[Document]:
    """The picked chunks in reading order, each a copy with its decision in metadata."""
    out = []
    for pick in picks:
        doc = docs[pick.key]
        by = chunk_id(*pick.by) if pick.by is not None else None
        out.append(
            Document(
                id=doc.id or chunk_id(*pick.key),
                page_content=doc.page_content,
                metadata={**doc.metadata, **pick.metadata(by)},
            )
        )
    return out


def _vectors(
    store: VectorStore | None, docs: dict[Key, Document], embeddings: Any = None
) -> dict[Key, Sequence[float]]:
    """The stored vector of each of ``docs`` where the store keeps them, else the text
    embedded by ``embeddings`` (default: the store's)."""
    if not docs:
        return {}
    if isinstance(store, InMemoryVectorStore) and all(
        str(d.id) in store.store for d in docs.values()
    ):
        return {key: store.store[str(doc.id)]["vector"] for key, doc in docs.items()}
    embeddings = embeddings or getattr(store, "embeddings", None)
    if embeddings is None:
        raise ValueError(
            "This vector store keeps no vectors scar-viz can read and names no embeddings "
            "to make them with."
        )
    keys = list(docs)
    texts = [docs[key].page_content for key in keys]
    return dict(zip(keys, embeddings.embed_documents(texts), strict=True))


def _texts(store: VectorStore | None, docstore: Any = None) -> dict[Key, str] | None:
    """Every chunk's text by key (μ > 0 and a lexical gate weigh words by their idf over all
    of them); None for a store that does not list its chunks."""
    out = {}
    if isinstance(store, InMemoryVectorStore):
        for entry in store.store.values():
            key = _key_of(entry.get("metadata") or {}, entry.get("id"))
            if key is not None:
                out[key] = entry["text"]
        return out
    if docstore is not None and hasattr(docstore, "yield_keys"):
        ids = list(docstore.yield_keys())
        for doc in docstore.mget(ids):
            key = _key_of(doc.metadata, doc.id) if isinstance(doc, Document) else None
            if key is not None:
                out[key] = doc.page_content
        return out
    return None


def _model_id(embeddings: Any) -> str | None:
    return embeddings.model_id if isinstance(embeddings, ScarEmbeddings) else None


def _by_key(docs: Sequence[Document]) -> dict[Key, Document]:
    """``docs`` by (source, chunk), first of each kept.

    Raises:
        ValueError: a chunk without ``source`` and ``chunk`` metadata.
    """
    out: dict[Key, Document] = {}
    for doc in docs:
        key = _key_of(doc.metadata, doc.id)
        if key is None:
            raise ValueError(
                f"Chunk {doc.id!r} has no 'source' and 'chunk' metadata; make the chunks with "
                "scar_viz.integrations.langchain.split_document."
            )
        out.setdefault(key, doc)
    return out


def _key_of(metadata: dict, doc_id: str | None) -> Key | None:
    source, chunk = metadata.get("source"), metadata.get("chunk")
    if isinstance(source, str) and isinstance(chunk, int) and not isinstance(chunk, bool):
        return source, chunk
    return None
