"""The SCAR gate inside LlamaIndex (docs/integrations.md): a model, a node parser's output, a
node postprocessor.

- :class:`ScarEmbedding`: a LlamaIndex ``BaseEmbedding`` over any scar-viz model spec;
- :func:`split_nodes`: ``TextNode`` chunks cut exactly as scar-viz cuts them, with
  PREVIOUS/NEXT relationships inside each file, start/end character offsets and metadata
  ``source``, ``chunk``; :func:`source_documents`: the files themselves, for the docstore;
- :class:`ScarRetriever`: a ``BaseRetriever`` that runs a saved setting on an index — ranks
  (dense, BM25, hybrid), takes the top k, expands them (top-k, window ±1, SCAR, the learned
  gate) — through :func:`~scar_viz.evaluation.apply.run_setting`;
- :class:`ScarPostprocessor`: the same expansion of the nodes your retriever returns, through
  their PREVIOUS/NEXT relationships.

Needs ``llama-index-core`` (``pip install 'scar-viz[integrations]'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scar_viz.integrations import needs

try:
    from llama_index.core.base.base_retriever import BaseRetriever
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
from pydantic import Field, PrivateAttr

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.embeddings import Embedder
from scar_viz.evaluation.apply import reach
from scar_viz.integrations.local import (
    Order,
    Picked,
    Runs,
    SettingFields,
    closest,
    runs_of,
    select_all,
    select_given,
)
from scar_viz.integrations.models import CacheSpec, ScarModel
from scar_viz.integrations.split import MODEL_KEY, file_texts, read_files, split_for

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

    ``model``, ``base_url`` and ``cache`` are :class:`~scar_viz.integrations.models.ScarModel`'s
    (``default`` is the embedded all-MiniLM-L6-v2; an endpoint's key is read from
    ``OPENAI_API_KEY``)."""

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
        return self._model.query_list(query)

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


class ScarPostprocessor(BaseNodePostprocessor, SettingFields):
    """A saved setting's expansion (or the fields given) of the nodes your retriever returns,
    through their PREVIOUS/NEXT relationships.

    The nodes given are the retrieved ones: with ``k``, under the ``dense`` retriever the k
    closest to the question by cos(q, c), an exact tie to the earlier chunk in reading order
    (as ``select`` ranks them: retrieve 2k and let this decide the k); under ``bm25`` or
    ``hybrid`` the first k in the order given. Without ``k``, every node given. For each, the
    nodes up to ``r`` steps back and forth (1 for ``window1``, none for ``topk``) are read
    from ``docstore`` along ``prev_node``/``next_node`` and decided as ``policy`` says —
    ``scar``: S(c, n) = cos(q, n) − λ·b(c, n) (+ μ·lex(q, n)) > τ·cos(q, c) (docs/method.md
    §2); ``learned``: the learned gate ``gate`` at ``p``; ``window1``: all — by
    :func:`~scar_viz.evaluation.apply.run_setting`. Vectors are the index's own where it holds
    them (a node's ``embedding``, else ``vector_store.get(id)``), else the node's text
    embedded with ``embed_model``; the question's is the query bundle's, else
    ``embed_model``'s.

    Returns the retrieved and admitted nodes in reading order; each node is a copy whose
    metadata holds its decision (``scar_role``, ``scar_cos_q``, and ``scar_rank``, or
    ``scar_score``, ``scar_bar`` and ``scar_by``, the id of the retrieved node whose gate
    admitted it), kept out of what the LLM reads. A retrieved node keeps its score; an
    admitted one scores cos(q, n).
    """

    docstore: BaseDocumentStore
    embed_model: BaseEmbedding
    k: int | None = None  # type: ignore[assignment]  # None: every node given
    vector_store: Any = Field(default=None, exclude=True)

    def __init__(
        self, docstore: BaseDocumentStore, embed_model: BaseEmbedding, **kwargs: Any
    ) -> None:
        # pydantic fields, which mypy without pydantic's plugin does not see
        super().__init__(docstore=docstore, embed_model=embed_model, **kwargs)  # type: ignore[call-arg]

    @classmethod
    def class_name(cls) -> str:
        return "ScarPostprocessor"

    @classmethod
    def from_settings(
        cls,
        path: str | Path,
        docstore: BaseDocumentStore,
        embed_model: BaseEmbedding,
        **overrides: Any,
    ) -> ScarPostprocessor:
        """The setting ``recommend --save`` (or the app's verdict) wrote — any expansion, the
        learned gate included — with its k; ``overrides`` replace fields (``vector_store``).

        Raises:
            SettingsFileError: an unreadable or malformed file (one sentence).
        """
        return cls.from_file(
            path, _model_id(embed_model), docstore=docstore, embed_model=embed_model, **overrides
        )

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if query_bundle is None:
            raise ValueError("ScarPostprocessor needs the question (query_bundle or query_str).")
        if not nodes:
            return []
        setting = self.setting()
        query_vec = _query_vector(query_bundle, self.embed_model)
        given: dict[str, NodeWithScore] = {}
        for hit in nodes:
            given.setdefault(hit.node.node_id, hit)
        ids = list(given)
        vectors = _vectors([given[i].node for i in ids], self.embed_model, self.vector_store)
        k = self.k or len(ids)
        if setting.retriever == "dense":
            order = [_order(given[i].node) for i in ids]
            rows = np.asarray([vectors[i] for i in ids])
            retrieved = [ids[i] for i in closest(np.asarray(query_vec), rows, order, k)]
        else:
            retrieved = ids[:k]
        fetched = {i: given[i].node for i in retrieved}
        for node_id in retrieved:
            for step in (_previous, _next):
                self._follow(fetched[node_id], step, reach(setting), fetched)
        todo = [n for i, n in fetched.items() if i not in vectors]
        vectors.update(_vectors(todo, self.embed_model, self.vector_store))
        runs = runs_of(_chains(fetched), vectors)
        picks = select_given(
            setting,
            runs,
            retrieved,
            query_bundle.query_str,
            query_vec,
            lambda: _texts(self.docstore),
        )
        return [
            _scored(fetched[pick.key], pick, given[pick.key].score if pick.key in given else None)
            for pick in picks
        ]

    def _follow(self, node: BaseNode, step: Any, steps: int, into: dict) -> None:
        """Read up to ``steps`` nodes along ``step`` (:func:`_previous`, :func:`_next`) from
        ``node`` into ``into``."""
        for _ in range(steps):
            link = step(node)
            if link is None:
                return
            found = into.get(link.node_id) or self.docstore.get_node(link.node_id, False)
            if found is None:
                return
            into[link.node_id] = node = found


class ScarRetriever(BaseRetriever):
    """A saved setting (or the fields given: :class:`~scar_viz.integrations.local.
    SettingFields`) run on a ``VectorStoreIndex``: every node of its docstore ranked as
    scar-viz ranks chunks — ``dense`` cos(q, c), ``bm25`` BM25 over the node texts with
    scar-viz's tokeniser and idf, ``hybrid`` their reciprocal rank fusion with ``k_rrf`` —, an
    exact tie to the earlier node in reading order (file, then chunk), the top ``k`` expanded
    as ``policy`` says (``topk``, ``window1``, ``scar``, ``learned``) inside each file's
    PREVIOUS/NEXT chain, by :func:`~scar_viz.evaluation.apply.run_setting` — what
    ``select --settings`` runs on the same chunks. A ``BaseRetriever``: use it in a
    ``RetrieverQueryEngine``.

    Vectors are the index's (a node's ``embedding``, else its vector store's), else the node
    text embedded with ``embed_model`` (default: the index's). Returns the selected nodes in
    reading order, scored cos(q, n), with the decision metadata of :class:`ScarPostprocessor`.
    """

    def __init__(
        self,
        index: Any,
        embed_model: BaseEmbedding | None = None,
        **fields: Any,
    ) -> None:
        super().__init__()
        self.index = index
        self.fields = SettingFields(**fields)
        model = embed_model or getattr(index, "_embed_model", None)
        if model is None:
            raise ValueError("ScarRetriever needs the index's embed_model.")
        self.embed_model: BaseEmbedding = model
        self._whole: tuple[tuple[str, ...], Any] | None = None

    @classmethod
    def from_settings(
        cls,
        path: str | Path,
        index: Any,
        embed_model: BaseEmbedding | None = None,
        **overrides: Any,
    ) -> ScarRetriever:
        """The setting ``recommend --save`` (or the app's verdict) wrote — any retriever, any
        expansion, the learned gate included; ``overrides`` replace fields.

        Raises:
            SettingsFileError: an unreadable or malformed file (one sentence).
        """
        model = embed_model or getattr(index, "_embed_model", None)
        fields = SettingFields.from_file(path, _model_id(model), **overrides)
        return cls(index, embed_model, **dict(fields))

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        setting = self.fields.setting()
        query_vec = _query_vector(query_bundle, self.embed_model)
        runs, nodes, texts = self._every_node()
        picks = select_all(setting, runs, texts, query_bundle.query_str, query_vec)
        return [_scored(nodes[pick.key], pick, None) for pick in picks]

    def _every_node(self) -> tuple[Runs, dict[str, BaseNode], list[str]]:
        """Every text node of the index in reading order (kept while the docstore holds the
        same ids)."""
        docstore = self.index.docstore
        ids = tuple(docstore.docs)
        if self._whole is not None and self._whole[0] == ids:
            return self._whole[1]
        nodes = {i: n for i, n in docstore.docs.items() if n.get_type() != ObjectType.DOCUMENT}
        vector_store = getattr(self.index, "vector_store", None)
        vectors = _vectors(list(nodes.values()), self.embed_model, vector_store)
        runs = runs_of(_chains(nodes), vectors)
        whole = (runs, nodes, [nodes[i].get_content() for i in runs.keys])
        self._whole = (ids, whole)
        return whole


def _model_id(embed_model: Any) -> str | None:
    return embed_model.model.model_id if isinstance(embed_model, ScarEmbedding) else None


def _query_vector(query_bundle: QueryBundle, embed_model: BaseEmbedding) -> list[float]:
    """The query bundle's vector, else ``embed_model``'s."""
    return query_bundle.embedding or embed_model.get_query_embedding(query_bundle.query_str)


def _scored(node: BaseNode, pick: Picked, score: float | None) -> NodeWithScore:
    """A copy of ``node`` whose metadata holds its decision (kept out of what the LLM reads and
    what is embedded), scored ``score`` (else cos(q, n))."""
    decision = pick.metadata(pick.by)
    copy = node.model_copy(
        update={
            "metadata": {**node.metadata, **decision},
            "excluded_llm_metadata_keys": [*node.excluded_llm_metadata_keys, *decision],
            "excluded_embed_metadata_keys": [*node.excluded_embed_metadata_keys, *decision],
        }
    )
    return NodeWithScore(node=copy, score=pick.cos_q if score is None else score)


def _vectors(
    nodes: Sequence[BaseNode], embed_model: BaseEmbedding, vector_store: Any = None
) -> dict[str, Sequence[float]]:
    """Each node's vector: its ``embedding``, else ``vector_store.get(id)``, else its text
    embedded with ``embed_model``."""
    out: dict[str, Sequence[float]] = {}
    todo = []
    for node in nodes:
        vector = node.embedding
        if vector is None and vector_store is not None:
            try:
                vector = vector_store.get(node.node_id)
            except (KeyError, NotImplementedError, AttributeError):
                vector = None
        if vector is None:
            todo.append(node)
        else:
            out[node.node_id] = vector
    if todo:
        texts = [n.get_content(metadata_mode=MetadataMode.EMBED) for n in todo]
        vectors = embed_model.get_text_embedding_batch(texts)
        out.update(zip([n.node_id for n in todo], vectors, strict=True))
    return out


def _texts(docstore: BaseDocumentStore) -> dict[str, str]:
    """Every chunk node's text (μ > 0 and a lexical gate weigh words by their idf over all of
    them)."""
    return {
        node_id: node.get_content()
        for node_id, node in docstore.docs.items()
        if node.get_type() != ObjectType.DOCUMENT
    }


def _previous(node: BaseNode) -> RelatedNodeInfo | None:
    return _link(node, "prev_node")


def _next(node: BaseNode) -> RelatedNodeInfo | None:
    return _link(node, "next_node")


def _link(node: BaseNode, helper: str) -> RelatedNodeInfo | None:
    """LlamaIndex's own ``prev_node``/``next_node``; None where the link is missing or is not
    one node."""
    try:
        return getattr(node, helper)
    except ValueError:
        return None


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
        link = _next(node)
        if link is not None and link.node_id in nodes:
            nxt[node_id] = link.node_id
    heads = [i for i in nodes if i not in set(nxt.values())]
    chains = []
    for head in sorted(heads, key=lambda i: _order(nodes[i])):
        chain = [head]
        while chain[-1] in nxt and len(chain) <= len(nodes):
            chain.append(nxt[chain[-1]])
        chains.append(chain)
    return chains
