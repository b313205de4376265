"""Same answer everywhere: for the same files, chunking, model, k, r, λ, τ (and μ), LangChain's
ScarRetriever, LlamaIndex's ScarPostprocessor and ``select --policy scar`` select the same
chunks for every question, on the sample document, the sample corpus and a generated corpus
whose twin files tie exactly; the cases reach files' first and last chunks and ties."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.cli.common import load_document
from scar_viz.embeddings import HashEmbedder
from scar_viz.pipeline import embed_query, prepare_document
from scar_viz.scoring.scar import top_k
from tests.integrations.helpers import (
    SAMPLE_CORPUS,
    SAMPLE_CORPUS_QUERIES,
    SAMPLE_DOC,
    SAMPLE_QUERIES,
    cli_selected,
    generated_corpus,
    require,
    sample_questions,
)

SIZE, OVERLAP = 300, 30
CASES = [  # k, r, λ, τ, μ
    (3, 1, 0.5, 0.1, 0.0),
    (5, 2, 0.0, 0.3, 0.0),
    (2, 1, 1.0, -0.5, 0.0),  # a negative bar admits nearly all: walks run to the files' edges
    (4, 3, 0.2, 0.0, 0.0),
    (3, 1, 0.5, 0.1, 0.3),  # the lexical term (idf over every chunk of the store)
]


@pytest.fixture(scope="module", params=["sample", "sample corpus", "generated corpus"])
def kb(request, tmp_path_factory):
    """(path, questions, LangChain store, LlamaIndex index, embedding)."""
    require("langchain_core")
    require("llama_index.core")
    from langchain_core.vectorstores import InMemoryVectorStore
    from llama_index.core import VectorStoreIndex

    from scar_viz.integrations.langchain import ScarEmbeddings, split_document
    from scar_viz.integrations.llamaindex import ScarEmbedding, split_nodes

    if request.param == "sample":
        path, questions = SAMPLE_DOC, sample_questions(SAMPLE_QUERIES)
    elif request.param == "sample corpus":
        path, questions = SAMPLE_CORPUS, sample_questions(SAMPLE_CORPUS_QUERIES)
    else:
        path, questions = generated_corpus(tmp_path_factory.mktemp("generated"))
    store = InMemoryVectorStore(ScarEmbeddings("hash", cache=False))
    store.add_documents(split_document(path, size=SIZE, overlap=OVERLAP))
    embedding = ScarEmbedding("hash", cache=False)
    index = VectorStoreIndex(split_nodes(path, size=SIZE, overlap=OVERLAP), embed_model=embedding)
    return request.param, path, questions, store, index, embedding


def _langchain(store, k, r, lam, tau, mu, question):
    from scar_viz.integrations.langchain import ScarRetriever

    retriever = ScarRetriever(vectorstore=store, k=k, r=r, lam=lam, tau=tau, mu=mu)
    return [(d.metadata["source"], d.metadata["chunk"]) for d in retriever.invoke(question)]


def _llamaindex(index, embedding, k, r, lam, tau, mu, question):
    from scar_viz.integrations.llamaindex import ScarPostprocessor

    post = ScarPostprocessor(
        index.docstore, embedding, r=r, lam=lam, tau=tau, mu=mu, k=k,
        vector_store=index.vector_store,
    )  # fmt: skip
    found = index.as_retriever(similarity_top_k=2 * k).retrieve(question)
    nodes = post.postprocess_nodes(found, query_str=question)
    return [(n.node.metadata["source"], n.node.metadata["chunk"]) for n in nodes]


def test_the_retriever_the_postprocessor_and_select_choose_the_same_chunks(kb):
    name, path, questions, store, index, embedding = kb
    prep = prepare_document(
        load_document(str(path)), HashEmbedder(), ChunkingConfig(size=SIZE, overlap=OVERLAP)
    )
    files = prep.doc_of if prep.doc_of is not None else np.zeros(len(prep.chunks), dtype=int)
    first = {int(f): int(np.flatnonzero(files == f)[0]) for f in set(files.tolist())}
    last = {int(f): int(np.flatnonzero(files == f)[-1]) for f in set(files.tolist())}
    # and questions asked in the words of each file's first and last chunk
    questions = (
        questions
        + [prep.chunks[i].text[:90] for i in sorted({*first.values(), *last.values()})][:8]
    )
    edges = ties = compared = 0
    for k, r, lam, tau, mu in CASES:
        for question in questions:
            want = cli_selected(
                path, question, k, r, lam, tau, mu=mu, chunk_size=SIZE, overlap=OVERLAP
            )
            case = f"{name}: k={k} r={r} λ={lam} τ={tau} μ={mu} {question!r}"
            assert _langchain(store, k, r, lam, tau, mu, question) == want, case
            assert _llamaindex(index, embedding, k, r, lam, tau, mu, question) == want, case
            compared += 1
            sims = prep.unit @ embed_query(HashEmbedder(), question)
            best = top_k(sims, k + 1)
            ties += len(best) > k and sims[best[k - 1]] == sims[best[k]]
            at_edge = {first[int(files[c])] for c in best[:k]} | {
                last[int(files[c])] for c in best[:k]
            }
            edges += len(at_edge & set(best[:k])) if r else 0
    assert compared == len(CASES) * len(questions) >= 40
    assert edges > 0, "no case retrieved a file's first or last chunk"
    if name == "generated corpus":
        assert ties > 0, "no case tied at the k-th place"


def test_the_splitters_name_the_model_under_the_key_the_store_readers_read():
    from scar_viz.integrations.split import MODEL_KEY as written
    from scar_viz.store.foreign import MODEL_KEY as read

    assert written == read == "embedding_model"
