"""The SCAR gate inside LlamaIndex (docs/integrations.md): a model, a node parser's output, a
node postprocessor.

- :class:`ScarEmbedding`: a LlamaIndex ``BaseEmbedding`` over any scar-viz model spec;
- :func:`split_nodes`: ``TextNode`` chunks cut exactly as scar-viz cuts them, with
  PREVIOUS/NEXT relationships inside each file, start/end character offsets and metadata
  ``source``, ``chunk``; :func:`source_documents`: the files themselves, for the docstore;
- :class:`ScarPostprocessor`: expands the retrieved nodes through their PREVIOUS/NEXT
  relationships and lets the gate of :mod:`scar_viz.scoring.scar` decide each neighbour.

Needs ``llama-index-core`` (``pip install 'scar-viz[integrations]'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scar_viz.integrations import needs

try:
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.schema import (
        BaseNode,
        MetadataMode,
        NodeRelationship,
        NodeWithScore,
        ObjectType,
        QueryBundle,
        RelatedNodeInfo,
        TextNode,
    )
    from llama_index.core.schema import Document as LlamaDocument
    from llama_index.core.storage.docstore.types import BaseDocumentStore
except ImportError as exc:  # pragma: no cover - the message is the point
    raise needs(__name__, "llama-index-core") from exc
from pydantic import Field, PrivateAttr, model_validator

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.embeddings import Embedder
from scar_viz.integrations.local import Order, closest, gate_runs, lexical_of, picked, runs_of
from scar_viz.integrations.models import CacheSpec, ScarModel
from scar_viz.integrations.split import MODEL_KEY, file_texts, read_files, split_for
from scar_viz.scoring.params import (
    DEFAULT_K,
    DEFAULT_LAM,
    DEFAULT_MU,
    DEFAULT_RADIUS,
    DEFAULT_TAU,
    GateParams,
)

"""Metadata naming the model that embeds a node (its scar-viz id), when the splitter knows."""

OWN_KEYS = ("source", "chunk", MODEL_KEY)
"""The metadata :func:`split_nodes` writes; none of it is embedded (a node's vector is its
text's, as on the command line)."""

BATCH = 2048
"""Texts :class:`ScarEmbedding` takes a call (LlamaIndex's largest): a file's chunks go to the
model together, batched as the command line batches them."""


class ScarEmbedding(BaseEmbedding):
    """A LlamaIndex ``BaseEmbedding`` over a scar-viz model: the vectors ``python -m scar_viz``
    computes, through the same disk cache (``model_name`` is the model's scar-viz id).

    Args:
        model: ``default`` (the embedded all-MiniLM-L6-v2), ``hash``, ``static``,
            ``st:NAME``, ``openai:MODEL``, a folder, or an embedder.
        base_url: an OpenAI-compatible endpoint (its key is read from ``OPENAI_API_KEY``).
        cache: True (the default cache), a file or folder, or False.
    """

    _model: ScarModel = PrivateAttr()

    def __init__(
        self,
        model: str | Embedder = "default",
        base_url: str | None = None,
        cache: CacheSpec = True,
        **kwargs: Any,
    ) -> None:
        scar = ScarModel(model, base_url, cache)
        kwargs.setdefault("embed_batch_size", BATCH)
        super().__init__(model_name=scar.model_id, **kwargs)
        self._model = scar

    @classmethod
    def class_name(cls) -> str:
        return "ScarEmbedding"

    @property
    def model(self) -> ScarModel:
        return self._model

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._model.lists([query])[0]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._model.lists([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._model.lists(texts)


def split_nodes(
    path_or_text: str | Path,
    chunker: str = "recursive",
    size: int = 600,
    overlap: int = 60,
    model: str | ScarEmbedding | None = None,
) -> list[TextNode]:
    """``TextNode`` chunks of a file, a folder, a glob or a ``.zip`` (every file's chunks, in
    path order) or of a text, cut as scar-viz cuts them.

    Args:
        path_or_text: a ``Path`` or a string naming an existing file or folder; any other
            string is the text itself (source ``text``).
        chunker, size, overlap: scar-viz's chunking.
        model: the model that will embed the nodes (a spec or :class:`ScarEmbedding`): the
            semantic chunker needs it, and when given it is named in each node's metadata
            (``embedding_model``), so scar-viz, opening the persisted index, can say which
            model embeds its questions.

    Returns:
        One node a chunk: ``id_`` ``f"{source}:{chunk}"``, ``start_char_idx`` and
        ``end_char_idx`` in its file's own text, metadata ``source`` and ``chunk`` (excluded
        from what is embedded), SOURCE the file (:func:`source_documents`' id) and
        PREVIOUS/NEXT its neighbours in the file.
    """
    chunks, named = split_for(path_or_text, ChunkingConfig(chunker, size, overlap), _model(model))
    nodes = []
    for i, c in enumerate(chunks):
        relations = {
            NodeRelationship.SOURCE: RelatedNodeInfo(
                node_id=c.source, node_type=ObjectType.DOCUMENT
            )
        }
        if i > 0 and chunks[i - 1].source == c.source:
            relations[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id=chunks[i - 1].id)
        if i + 1 < len(chunks) and chunks[i + 1].source == c.source:
            relations[NodeRelationship.NEXT] = RelatedNodeInfo(node_id=chunks[i + 1].id)
        nodes.append(
            TextNode(
                id_=c.id,
                text=c.text,
                start_char_idx=c.start,
                end_char_idx=c.end,
                metadata={"source": c.source, "chunk": c.index, **named},
                excluded_embed_metadata_keys=list(OWN_KEYS),
                excluded_llm_metadata_keys=["chunk", MODEL_KEY],
                relationships=relations,
            )
        )
    return nodes


def source_documents(path_or_text: str | Path) -> list[LlamaDocument]:
    """The files :func:`split_nodes` cuts, as LlamaIndex ``Document`` s (``id_`` the source, the
    file's text as scar-viz reads it). Kept in the docstore, they let scar-viz open the
    persisted index with each file's exact text (between chunks too)."""
    texts = file_texts(read_files(path_or_text))
    return [
        LlamaDocument(
            id_=source,
            text=text,
            metadata={"source": source},
            excluded_embed_metadata_keys=["source"],
        )
        for source, text in texts.items()
    ]


def _model(model: str | ScarEmbedding | None) -> ScarModel | None:
    if model is None:
        return None
    return model.model if isinstance(model, ScarEmbedding) else ScarModel(model)


class ScarPostprocessor(BaseNodePostprocessor):
    """The retrieved nodes expanded by the SCAR gate, through their PREVIOUS/NEXT relationships.

    For each retrieved node, the nodes up to ``r`` steps back and forth are read from
    ``docstore`` and each is decided by S(c, n) = cos(q, n) − λ·b(c, n) (+ μ·lex(q, n)) >
    τ·cos(q, c) (docs/method.md §2). Vectors are the index's own where it holds them (a node's
    ``embedding``, else ``vector_store.get(id)``), else the node's text embedded with
    ``embed_model``; the question's is the query bundle's, else ``embed_model``'s.

    With ``k``, only the k given nodes closest to the question by cos(q, c) are expanded, an
    exact tie going to the earlier chunk in reading order (as ``select --policy scar`` ranks
    them): retrieve more (``similarity_top_k`` = 2k) and let this decide the k. Without it,
    every node given is expanded.

    Returns the retrieved and admitted nodes in reading order; each node is a copy whose
    metadata holds its decision (``scar_role``, ``scar_cos_q``, and ``scar_rank``, or
    ``scar_score`` S, ``scar_bar`` τ·cos(q, c) and ``scar_by``, the id of the retrieved node
    whose gate admitted it), kept out of what the LLM reads. A retrieved node keeps its score;
    an admitted one scores cos(q, n).
    """

    docstore: BaseDocumentStore
    embed_model: BaseEmbedding
    r: int = DEFAULT_RADIUS
    lam: float = DEFAULT_LAM
    tau: float = DEFAULT_TAU
    mu: float = DEFAULT_MU
    k: int | None = None
    vector_store: Any = Field(default=None, exclude=True)

    def __init__(
        self, docstore: BaseDocumentStore, embed_model: BaseEmbedding, **kwargs: Any
    ) -> None:
        # pydantic fields, which mypy without pydantic's plugin does not see
        super().__init__(docstore=docstore, embed_model=embed_model, **kwargs)  # type: ignore[call-arg]

    @model_validator(mode="after")
    def _check(self) -> ScarPostprocessor:
        k = DEFAULT_K if self.k is None else self.k
        GateParams(k, self.lam, self.tau, self.r, self.mu)  # k, r and μ in range
        return self

    @classmethod
    def class_name(cls) -> str:
        return "ScarPostprocessor"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if query_bundle is None:
            raise ValueError("ScarPostprocessor needs the question (query_bundle or query_str).")
        if not nodes:
            return []
        query_vec = np.asarray(
            query_bundle.embedding or self.embed_model.get_query_embedding(query_bundle.query_str),
            dtype=np.float64,
        )
        given: dict[str, NodeWithScore] = {}
        for hit in nodes:
            given.setdefault(hit.node.node_id, hit)
        ids = list(given)
        vectors = self._vectors([given[i].node for i in ids])
        order = [_order(given[i].node) for i in ids]
        best = closest(query_vec, np.asarray([vectors[i] for i in ids]), order, self.k or len(ids))
        retrieved = [ids[i] for i in best]
        fetched = {i: given[i].node for i in retrieved}
        for node_id in retrieved:
            for relation in (NodeRelationship.PREVIOUS, NodeRelationship.NEXT):
                self._follow(fetched[node_id], relation, fetched)
        vectors.update(self._vectors([n for i, n in fetched.items() if i not in vectors]))
        runs = runs_of(_chains(fetched), vectors)
        lexical = lexical_of(query_bundle.query_str, runs.keys, self._texts()) if self.mu else None
        params = GateParams(len(retrieved), self.lam, self.tau, self.r, self.mu)
        selection = gate_runs(runs, query_vec, retrieved, params, lexical)
        out = []
        for pick in picked(runs, selection):
            node = fetched[pick.key]
            decision = pick.metadata(pick.by)
            copy = node.model_copy(
                update={
                    "metadata": {**node.metadata, **decision},
                    "excluded_llm_metadata_keys": [*node.excluded_llm_metadata_keys, *decision],
                    "excluded_embed_metadata_keys": [
                        *node.excluded_embed_metadata_keys,
                        *decision,
                    ],
                }
            )
            score = given[pick.key].score if pick.role == "retrieved" else pick.cos_q
            out.append(NodeWithScore(node=copy, score=score))
        return out

    def _follow(self, node: BaseNode, relation: NodeRelationship, into: dict) -> None:
        """Read up to ``r`` nodes along ``relation`` from ``node`` into ``into``."""
        for _ in range(self.r):
            link = node.relationships.get(relation)
            if not isinstance(link, RelatedNodeInfo):
                return
            found = into.get(link.node_id) or self.docstore.get_node(link.node_id, False)
            if found is None:
                return
            into[link.node_id] = node = found

    def _vectors(self, nodes: Sequence[BaseNode]) -> dict[str, Sequence[float]]:
        out: dict[str, Sequence[float]] = {}
        todo = []
        for node in nodes:
            vector = node.embedding
            if vector is None and self.vector_store is not None:
                try:
                    vector = self.vector_store.get(node.node_id)
                except (KeyError, NotImplementedError, AttributeError):
                    vector = None
            if vector is None:
                todo.append(node)
            else:
                out[node.node_id] = vector
        if todo:
            texts = [n.get_content(metadata_mode=MetadataMode.EMBED) for n in todo]
            vectors = self.embed_model.get_text_embedding_batch(texts)
            out.update(zip([n.node_id for n in todo], vectors, strict=True))
        return out

    def _texts(self) -> dict[str, str]:
        """Every chunk node's text (μ > 0 weighs words by their idf over all of them)."""
        return {
            node_id: node.get_content()
            for node_id, node in self.docstore.docs.items()
            if node.get_type() != ObjectType.DOCUMENT
        }


def _order(node: BaseNode) -> Order:
    """A node's place in reading order: (its file, its chunk index, else its start offset)."""
    source = node.metadata.get("source")
    if not isinstance(source, str):
        source = node.source_node.node_id if node.source_node is not None else ""
    chunk = node.metadata.get("chunk")
    if isinstance(chunk, int) and not isinstance(chunk, bool):
        return source, float(chunk)
    start = getattr(node, "start_char_idx", None)
    return source, float(start if start is not None else 0)


def _chains(nodes: dict[str, BaseNode]) -> list[list[str]]:
    """The node ids in ``nodes`` as chains linked by NEXT, in reading order of their heads."""
    nxt: dict[str, str] = {}
    for node_id, node in nodes.items():
        link = node.relationships.get(NodeRelationship.NEXT)
        if isinstance(link, RelatedNodeInfo) and link.node_id in nodes:
            nxt[node_id] = link.node_id
    heads = [i for i in nodes if i not in set(nxt.values())]
    chains = []
    for head in sorted(heads, key=lambda i: _order(nodes[i])):
        chain = [head]
        while chain[-1] in nxt and len(chain) <= len(nodes):
            chain.append(nxt[chain[-1]])
        chains.append(chain)
    return chains
