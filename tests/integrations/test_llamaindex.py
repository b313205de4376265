"""LlamaIndex: ScarEmbedding is scar-viz's model, split_nodes cuts as scar-viz cuts with
PREVIOUS/NEXT inside each file, and ScarPostprocessor expands through those relationships with
the index's stored vectors, saying each decision and keeping it out of what the LLM reads."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.cli.common import load_document
from scar_viz.embeddings import HashEmbedder, embed_cached
from tests.integrations.helpers import SAMPLE_CORPUS, SAMPLE_DOC, cli_selected, require

require("llama_index.core")

from llama_index.core import VectorStoreIndex  # noqa: E402
from llama_index.core.base.embeddings.base import BaseEmbedding  # noqa: E402
from llama_index.core.postprocessor.types import BaseNodePostprocessor  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeRelationship, QueryBundle  # noqa: E402

from scar_viz.integrations.llamaindex import (  # noqa: E402
    ScarEmbedding,
    ScarPostprocessor,
    source_documents,
    split_nodes,
)

QUESTION = "How do I restore a backup?"


class Counting(ScarEmbedding):
    """ScarEmbedding, counting the texts it embeds (for the vectors' source)."""

    def _get_text_embeddings(self, texts):
        self.__dict__.setdefault("_seen", []).extend(texts)
        return super()._get_text_embeddings(texts)


@pytest.fixture(scope="module")
def index():
    nodes = split_nodes(SAMPLE_CORPUS, size=300, overlap=30)
    return VectorStoreIndex(nodes, embed_model=ScarEmbedding("hash", cache=False))


def test_scar_embedding_is_scar_vizs_model():
    emb = ScarEmbedding("hash", cache=False)
    assert isinstance(emb, BaseEmbedding) and emb.model_name == "hash:256"
    texts = ["the gate admits a neighbour", "another"]
    want = embed_cached(HashEmbedder(), texts, None).vectors
    got = np.asarray(emb.get_text_embedding_batch(texts), dtype=np.float32)
    assert np.array_equal(got, want)
    assert emb.get_query_embedding(texts[0]) == emb.get_text_embedding(texts[0])


def test_split_nodes_cut_as_scar_viz_does_linked_inside_each_file():
    nodes = split_nodes(SAMPLE_CORPUS)
    document = load_document(str(SAMPLE_CORPUS))
    assert [n.text for n in nodes] == [c.text for c in chunk_document(document, ChunkingConfig())]
    by_id = {n.node_id: n for n in nodes}
    for n in nodes:
        source, chunk = n.metadata["source"], n.metadata["chunk"]
        assert n.node_id == f"{source}:{chunk}"
        own = (SAMPLE_CORPUS / source).read_text(encoding="utf-8")
        assert own[n.start_char_idx : n.end_char_idx] == n.text
        assert n.source_node.node_id == source
        assert n.get_content(metadata_mode=MetadataMode.EMBED) == n.text  # metadata not embedded
        prev, nxt = n.prev_node, n.next_node
        assert (prev is None) == (chunk == 0)
        if prev is not None:
            assert by_id[prev.node_id].metadata == {"source": source, "chunk": chunk - 1}
        if nxt is not None:
            assert by_id[nxt.node_id].metadata["source"] == source
    last = [n for n in nodes if n.next_node is None]
    assert len(last) == len(document.parts)  # one end a file


def test_source_documents_are_the_files_as_read():
    docs = source_documents(SAMPLE_DOC)
    assert [(d.doc_id, d.text) for d in docs] == [
        ("harbor_manual.md", load_document(str(SAMPLE_DOC)).text)
    ]


def test_the_postprocessor_reads_stored_vectors_and_embeds_only_what_the_index_lacks(index):
    assert isinstance(
        ScarPostprocessor(index.docstore, ScarEmbedding("hash")), BaseNodePostprocessor
    )
    found = index.as_retriever(similarity_top_k=8).retrieve(QUESTION)
    stored = Counting("hash", cache=False)
    with_store = ScarPostprocessor(
        index.docstore, stored, k=4, r=2, lam=0.2, tau=0.0, vector_store=index.vector_store
    )
    got = with_store.postprocess_nodes(found, query_str=QUESTION)
    assert stored.__dict__.get("_seen", []) == []  # every vector from the index
    embedding = Counting("hash", cache=False)
    again = ScarPostprocessor(index.docstore, embedding, k=4, r=2, lam=0.2, tau=0.0)
    re_embedded = again.postprocess_nodes(found, query_str=QUESTION)
    assert embedding.__dict__["_seen"]  # no vector store given: the node texts embedded
    keys = [(n.node.metadata["source"], n.node.metadata["chunk"]) for n in got]
    assert keys == [(n.node.metadata["source"], n.node.metadata["chunk"]) for n in re_embedded]
    assert keys == cli_selected(SAMPLE_CORPUS, QUESTION, 4, 2, 0.2, 0.0, chunk_size=300, overlap=30)


def test_each_node_says_its_decision_outside_what_the_llm_reads(index):
    found = index.as_retriever(similarity_top_k=3).retrieve(QUESTION)
    scores = {n.node.node_id: n.score for n in found}
    post = ScarPostprocessor(index.docstore, ScarEmbedding("hash", cache=False), lam=0.0, tau=0.0)
    out = post.postprocess_nodes(found, QueryBundle(QUESTION))
    roles = [n.node.metadata["scar_role"] for n in out]
    assert roles.count("retrieved") == 3 and "admitted" in roles
    for n in out:
        meta = n.node.metadata
        assert "scar_role" not in n.node.get_content(metadata_mode=MetadataMode.LLM)
        if meta["scar_role"] == "retrieved":
            assert n.score == scores[n.node.node_id]
        else:
            assert meta["scar_score"] > meta["scar_bar"] and n.score == meta["scar_cos_q"]
            by = index.docstore.get_node(meta["scar_by"])
            assert by.metadata["source"] == meta["source"]
            assert abs(by.metadata["chunk"] - meta["chunk"]) == 1
    stored = index.docstore.get_node(out[0].node.node_id)
    assert "scar_role" not in stored.metadata  # the docstore's nodes are left as they were


def test_without_the_question_the_postprocessor_says_so(index):
    found = index.as_retriever(similarity_top_k=2).retrieve(QUESTION)
    post = ScarPostprocessor(index.docstore, ScarEmbedding("hash", cache=False))
    with pytest.raises(ValueError, match="needs the question"):
        post.postprocess_nodes(found)
    assert post.postprocess_nodes([], query_str=QUESTION) == []


@pytest.mark.parametrize(
    ("fields", "said"),
    [({"r": -1}, "r, the radius, must be 0 or more"), ({"mu": -1.0}, r"μ \(mu\) must be 0 or more"),
     ({"k": 0}, "k must be at least 1")],
)  # fmt: skip
def test_bad_settings_are_one_sentence(index, fields, said):
    with pytest.raises(ValueError, match=said):
        ScarPostprocessor(index.docstore, ScarEmbedding("hash", cache=False), **fields)


def test_nodes_of_llamaindexs_own_parser_expand_through_their_relationships():
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceSplitter

    text = SAMPLE_DOC.read_text(encoding="utf-8")
    splitter = SentenceSplitter(chunk_size=120, chunk_overlap=0, tokenizer=str.split)
    nodes = splitter.get_nodes_from_documents([Document(text=text, id_="harbor")])
    embedding = ScarEmbedding("hash", cache=False)
    index = VectorStoreIndex(nodes, embed_model=embedding)
    found = index.as_retriever(similarity_top_k=2).retrieve("cancelled crossing accommodation")
    post = ScarPostprocessor(
        index.docstore, embedding, r=2, lam=0.0, tau=-1.0, vector_store=index.vector_store
    )
    out = post.postprocess_nodes(found, query_str="cancelled crossing accommodation")
    starts = [n.node.start_char_idx for n in out]
    assert starts == sorted(starts)
    order = [n.node_id for n in nodes]
    for hit in found:  # τ = −1 admits every neighbour: each hit ± 2 along NEXT/PREVIOUS
        i = order.index(hit.node.node_id)
        want = set(order[max(0, i - 2) : i + 3])
        assert want <= {n.node.node_id for n in out}
    assert all(n.node.relationships[NodeRelationship.SOURCE].node_id == "harbor" for n in out)
