"""The SCAR gate inside LangChain (docs/integrations.md): a model, a splitter, a retriever.

- :class:`ScarEmbeddings`: a LangChain ``Embeddings`` over any scar-viz model spec;
- :func:`split_document`: ``Document`` chunks cut exactly as scar-viz cuts them, each with
  ``id`` ``f"{source}:{chunk}"`` and metadata ``source``, ``chunk``, ``start_index``,
  ``end_index``;
- :class:`ScarRetriever`: a ``BaseRetriever`` that takes the top k from a vector store's own
  similarity search, fetches each one's neighbours by id (``get_by_ids``, never across
  sources) and lets the gate of :mod:`scar_viz.scoring.scar` decide each.

Needs ``langchain-core`` (``pip install 'scar-viz[integrations]'``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scar_viz.integrations import needs

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.vectorstores import InMemoryVectorStore, VectorStore
except ImportError as exc:  # pragma: no cover - the message is the point
    raise needs(__name__, "langchain-core") from exc
from pydantic import model_validator

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.embeddings import Embedder
from scar_viz.evaluation.settings import SettingsFileError, load_settings
from scar_viz.integrations.local import (
    chains_of_positions,
    closest,
    gate_runs,
    lexical_of,
    picked,
    runs_of,
)
from scar_viz.integrations.models import CacheSpec, ScarModel
from scar_viz.integrations.split import chunk_id, split_for
from scar_viz.scoring.params import DEFAULT_LAM, DEFAULT_MU, DEFAULT_RADIUS, DEFAULT_TAU, GateParams

RETRIEVER_K = 4
"""The retriever's default k: LangChain's own (``VectorStore.as_retriever``)."""

"""Metadata naming the model that embeds a chunk (its scar-viz id), when the splitter knows."""

Key = tuple[str, int]


class ScarEmbeddings(Embeddings):
    """A LangChain ``Embeddings`` over a scar-viz model (:class:`~scar_viz.integrations.models.
    ScarModel`): the vectors ``python -m scar_viz`` computes, through the same disk cache.

    Args:
        model: ``default`` (the embedded all-MiniLM-L6-v2), ``hash``, ``static``,
            ``st:NAME``, ``openai:MODEL``, a folder, or an embedder.
        base_url: an OpenAI-compatible endpoint (its key is read from ``OPENAI_API_KEY``).
        cache: True (the default cache), a file or folder, or False.
    """

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
        return self.model.lists([text])[0]


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


class ScarRetriever(BaseRetriever):
    """The top ``k`` of ``vectorstore``'s similarity search, expanded by the SCAR gate.

    The store proposes ``fetch_k`` chunks (default 2k) by its own similarity search; the k
    closest of them by cos(q, c), an exact tie going to the earlier chunk in reading order,
    are retrieved (as ``select --policy scar`` ranks them). For each, the neighbours within
    ``r`` in its file are fetched by id (``f"{source}:{chunk±d}"``, :meth:`get_by_ids`) and
    decided by the gate, S(c, n) = cos(q, n) − λ·b(c, n) (+ μ·lex(q, n)) > τ·cos(q, c)
    (docs/method.md §2). Chunks must carry ``source`` and ``chunk`` metadata
    (:func:`split_document`'s).

    Vectors are the store's where it keeps them (``InMemoryVectorStore``), else the chunk texts
    embedded with the store's embeddings. Returns the retrieved and admitted chunks in reading
    order, each with its decision in metadata: ``scar_role`` (``retrieved``/``admitted``),
    ``scar_cos_q``, and ``scar_rank``, or ``scar_score`` (S), ``scar_bar`` (τ·cos(q, c)) and
    ``scar_by`` (the id of the retrieved chunk whose gate admitted it).
    """

    vectorstore: VectorStore
    k: int = RETRIEVER_K
    r: int = DEFAULT_RADIUS
    lam: float = DEFAULT_LAM
    tau: float = DEFAULT_TAU
    mu: float = DEFAULT_MU
    fetch_k: int | None = None

    @model_validator(mode="after")
    def _check(self) -> ScarRetriever:
        GateParams(self.k, self.lam, self.tau, self.r, self.mu)  # k, r and μ in range
        if self.fetch_k is not None and self.fetch_k < self.k:
            raise ValueError("fetch_k must be at least k.")
        return self

    @classmethod
    def from_settings(
        cls, path: str | Path, vectorstore: VectorStore, **overrides: Any
    ) -> ScarRetriever:
        """The retriever ``recommend --save`` (or the app's verdict) chose, read with
        :func:`~scar_viz.evaluation.settings.load_settings`: policy ``scar`` (k, r, λ, τ, μ)
        or ``topk`` (k, no neighbours), on the dense retriever; ``overrides`` replace fields.

        Raises:
            SettingsFileError: an unreadable file, or a setting this retriever cannot run
                (one sentence).
        """
        chosen = load_settings(path)
        if chosen.retriever != "dense":
            raise SettingsFileError(
                f"'{path}' chose the {chosen.retriever} retriever; ScarRetriever ranks by the "
                "vector store's similarity search (dense)."
            )
        if chosen.policy not in ("scar", "topk"):
            raise SettingsFileError(
                f"'{path}' chose the policy {chosen.policy}; ScarRetriever runs the SCAR gate "
                "(scar) or plain top-k (topk)."
            )
        model = chosen.chosen_on.get("model")
        embeddings = getattr(vectorstore, "embeddings", None)
        if model and isinstance(embeddings, ScarEmbeddings) and embeddings.model_id != model:
            warnings.warn(
                f"'{path}' was chosen with {model}; this store embeds with {embeddings.model_id}.",
                stacklevel=2,
            )
        p = chosen.params
        fields: dict[str, Any] = {"k": p.k, "r": p.radius, "lam": p.lam, "tau": p.tau, "mu": p.mu}
        if chosen.policy == "topk":
            fields["r"] = 0
        return cls(vectorstore=vectorstore, **{**fields, **overrides})

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        embeddings = getattr(self.vectorstore, "embeddings", None)
        if embeddings is None:
            raise ValueError("ScarRetriever needs a vector store with its embeddings.")
        query_vec = np.asarray(embeddings.embed_query(query), dtype=np.float64)
        fetch_k = self.fetch_k or 2 * self.k
        hits = _by_key(self.vectorstore.similarity_search_by_vector(query_vec.tolist(), fetch_k))
        keys = list(hits)
        vectors = self._vectors(hits)
        best = closest(query_vec, np.asarray([vectors[k] for k in keys]), keys, self.k)
        retrieved = [keys[i] for i in best]
        if not retrieved:
            return []
        window = {
            (source, index + d)
            for source, index in retrieved
            for d in range(-self.r, self.r + 1)
            if index + d >= 0
        }
        missing = sorted(window - set(hits))
        found = _by_key(self.vectorstore.get_by_ids([chunk_id(*key) for key in missing]))
        found = {key: doc for key, doc in found.items() if key in window}
        hits.update(found)
        vectors.update(self._vectors(found))
        runs = runs_of(chains_of_positions([key for key in window if key in hits]), vectors)
        lexical = lexical_of(query, runs.keys, self._texts()) if self.mu else None
        params = GateParams(self.k, self.lam, self.tau, self.r, self.mu)
        selection = gate_runs(runs, query_vec, retrieved, params, lexical)
        out = []
        for pick in picked(runs, selection):
            doc = hits[pick.key]
            by = chunk_id(*pick.by) if pick.by is not None else None
            out.append(
                Document(
                    id=doc.id or chunk_id(*pick.key),
                    page_content=doc.page_content,
                    metadata={**doc.metadata, **pick.metadata(by)},
                )
            )
        return out

    def _vectors(self, docs: dict[Key, Document]) -> dict[Key, Sequence[float]]:
        """The stored vector of each of ``docs`` where the store keeps them, else the text
        embedded by the store's embeddings."""
        store = self.vectorstore
        if isinstance(store, InMemoryVectorStore):
            return {key: store.store[str(doc.id)]["vector"] for key, doc in docs.items()}
        embeddings = store.embeddings
        if embeddings is None:
            raise ValueError(
                "This vector store keeps no vectors scar-viz can read and names no embeddings "
                "to make them with."
            )
        keys = list(docs)
        texts = [docs[key].page_content for key in keys]
        return dict(zip(keys, embeddings.embed_documents(texts), strict=True))

    def _texts(self) -> dict[Key, str] | None:
        """Every chunk's text by key (μ > 0 weighs words by their idf over all of them); None
        for a store that does not list its chunks."""
        store = self.vectorstore
        if not isinstance(store, InMemoryVectorStore):
            return None
        out = {}
        for entry in store.store.values():
            key = _key_of(entry.get("metadata") or {}, entry.get("id"))
            if key is not None:
                out[key] = entry["text"]
        return out


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
