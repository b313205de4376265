"""LangChain: ScarEmbeddings is scar-viz's model, split_document cuts as scar-viz cuts, and
ScarRetriever fetches neighbours by id inside their file, says each decision, reads the
settings recommend writes and refuses what it cannot run, in one sentence."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.cli.common import load_document
from scar_viz.embeddings import HashEmbedder, embed_cached
from scar_viz.evaluation.settings import ChosenSettings, SettingsFileError
from tests.integrations.helpers import SAMPLE_CORPUS, SAMPLE_DOC, cli_selected, require

require("langchain_core")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import Embeddings  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore  # noqa: E402

from scar_viz.integrations.langchain import (  # noqa: E402
    ScarEmbeddings,
    ScarRetriever,
    split_document,
)

QUESTION = "What happens if the last crossing of the day is cancelled?"


@pytest.fixture(scope="module")
def store() -> InMemoryVectorStore:
    s = InMemoryVectorStore(ScarEmbeddings("hash", cache=False))
    s.add_documents(split_document(SAMPLE_DOC))
    return s


def test_scar_embeddings_are_scar_vizs_vectors():
    emb = ScarEmbeddings("hash", cache=False)
    assert isinstance(emb, Embeddings) and emb.model_id == "hash:256"
    texts = ["the gate admits a neighbour", "a second text"]
    want = embed_cached(HashEmbedder(), texts, None).vectors
    assert np.array_equal(np.asarray(emb.embed_documents(texts), dtype=np.float32), want)
    assert emb.embed_query(texts[0]) == emb.embed_documents(texts[:1])[0]


def test_scar_embeddings_share_the_command_lines_cache(tmp_path):
    first = ScarEmbeddings("hash", cache=tmp_path / "cache.sqlite")
    first.embed_documents(["cached once"])
    assert first.model.cache.count() == 1


def test_split_document_cuts_as_scar_viz_does():
    docs = split_document(SAMPLE_DOC, size=400, overlap=40)
    document = load_document(str(SAMPLE_DOC))
    chunks = chunk_document(document, ChunkingConfig(size=400, overlap=40))
    assert [d.page_content for d in docs] == [c.text for c in chunks]
    for i, d in enumerate(docs):
        m = d.metadata
        assert d.id == f"harbor_manual.md:{i}"
        assert (m["source"], m["chunk"]) == ("harbor_manual.md", i)
        assert document.text[m["start_index"] : m["end_index"]] == d.page_content


@pytest.mark.parametrize("form", ["folder", "zip"])
def test_a_folder_or_a_zip_gives_every_files_chunks_with_offsets_in_that_file(form, tmp_path):
    source: Path | str = SAMPLE_CORPUS
    if form == "zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as zf:
            for f in sorted(SAMPLE_CORPUS.rglob("*")):
                if f.is_file():
                    zf.write(f, f.relative_to(SAMPLE_CORPUS).as_posix())
        source = tmp_path / "kb.zip"
        source.write_bytes(buffer.getvalue())
    docs = split_document(source)
    files = sorted({d.metadata["source"] for d in docs})
    assert files == sorted(
        f.relative_to(SAMPLE_CORPUS).as_posix() for f in SAMPLE_CORPUS.rglob("*") if f.is_file()
    )
    for d in docs:
        own = (SAMPLE_CORPUS / d.metadata["source"]).read_text(encoding="utf-8")
        assert own[d.metadata["start_index"] : d.metadata["end_index"]] == d.page_content
    per_file = [d.metadata["chunk"] for d in docs if d.metadata["source"] == files[0]]
    assert per_file == list(range(len(per_file)))


def test_a_string_that_names_no_file_is_the_text_itself():
    text = "First paragraph about tides.\n\nSecond paragraph about ferries."
    (doc,) = split_document(text)
    assert (doc.id, doc.page_content, doc.metadata["source"]) == ("text:0", text, "text")


def test_the_semantic_chunker_needs_a_model_and_the_model_is_named(tmp_path):
    with pytest.raises(ValueError, match="semantic chunker needs a model"):
        split_document(SAMPLE_DOC, chunker="semantic")
    docs = split_document(SAMPLE_DOC, chunker="semantic", model="hash")
    assert docs and {d.metadata["embedding_model"] for d in docs} == {"hash:256"}


def test_the_retriever_is_a_langchain_retriever_that_says_each_decision(store):
    retriever = ScarRetriever(vectorstore=store, k=3, lam=0.5, tau=0.1)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke(QUESTION)
    roles = [d.metadata["scar_role"] for d in docs]
    assert roles.count("retrieved") == 3 and "admitted" in roles
    chunks = [d.metadata["chunk"] for d in docs]
    assert chunks == sorted(chunks)  # reading order
    for d in docs:
        if d.metadata["scar_role"] == "admitted":
            assert d.metadata["scar_score"] > d.metadata["scar_bar"]
            source, _, by = d.metadata["scar_by"].rpartition(":")
            assert source == "harbor_manual.md" and abs(int(by) - d.metadata["chunk"]) == 1
        else:
            assert d.metadata["scar_rank"] in (0, 1, 2)
    ranks = sorted(
        (d.metadata["scar_rank"], -d.metadata["scar_cos_q"])
        for d in docs
        if "scar_rank" in d.metadata
    )
    assert [r for r, _ in ranks] == [0, 1, 2]
    assert [c for _, c in ranks] == sorted(c for _, c in ranks)


class Delegating(VectorStore):
    """A vector store that keeps no vectors where the retriever can read them: every search
    and lookup goes to an InMemoryVectorStore, and the ids asked for are recorded."""

    def __init__(self, inner: InMemoryVectorStore) -> None:
        self.inner = inner
        self.asked: list[str] = []

    @property
    def embeddings(self):
        return self.inner.embeddings

    def add_texts(self, texts, metadatas=None, **kwargs):
        return self.inner.add_texts(texts, metadatas, **kwargs)

    @classmethod
    def from_texts(cls, texts, embedding, metadatas=None, **kwargs):
        raise NotImplementedError

    def similarity_search(self, query, k=4, **kwargs):
        return self.inner.similarity_search(query, k, **kwargs)

    def similarity_search_by_vector(self, embedding, k=4, **kwargs):
        return self.inner.similarity_search_by_vector(embedding, k, **kwargs)

    def get_by_ids(self, ids, /):
        self.asked.extend(ids)
        return self.inner.get_by_ids(ids)


def test_neighbours_are_fetched_by_id_inside_their_file_and_re_embedded_where_not_stored():
    inner = InMemoryVectorStore(ScarEmbeddings("hash", cache=False))
    inner.add_documents(split_document(SAMPLE_CORPUS, size=300, overlap=30))
    outer = Delegating(inner)
    q = "How do I restore a backup?"
    got = ScarRetriever(vectorstore=outer, k=4, r=2, lam=0.2, tau=0.0).invoke(q)
    want = ScarRetriever(vectorstore=inner, k=4, r=2, lam=0.2, tau=0.0).invoke(q)
    assert [d.id for d in got] == [d.id for d in want]
    assert [(d.metadata["source"], d.metadata["chunk"]) for d in got] == cli_selected(
        SAMPLE_CORPUS, q, 4, 2, 0.2, 0.0, chunk_size=300, overlap=30
    )
    assert outer.asked and all(int(i.rpartition(":")[2]) >= 0 for i in outer.asked)
    sources = {i.rpartition(":")[0] for i in outer.asked}
    retrieved = {d.metadata["source"] for d in got if d.metadata["scar_role"] == "retrieved"}
    assert sources <= retrieved  # never a neighbour asked for in another file


def test_chunks_not_made_by_split_document_are_refused_in_one_sentence():
    s = InMemoryVectorStore(ScarEmbeddings("hash", cache=False))
    s.add_documents([Document(page_content="a ferry timetable", metadata={"source": "x"})])
    with pytest.raises(ValueError, match="no 'source' and 'chunk' metadata"):
        ScarRetriever(vectorstore=s).invoke("ferry")


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"k": 0}, "k must be at least 1"),
        ({"r": -1}, "r, the radius, must be 0 or more"),
        ({"mu": -0.1}, r"μ \(mu\) must be 0 or more"),
        ({"k": 4, "fetch_k": 2}, "fetch_k must be at least k"),
    ],
)
def test_bad_settings_are_one_sentence(store, fields, said):
    with pytest.raises(ValueError, match=said):
        ScarRetriever(vectorstore=store, **fields)


def _settings(tmp_path, **changes) -> Path:
    fields = {"retriever": "dense", "policy": "scar", "k": 2, "radius": 2, "lam": 0.25,
              "tau": 0.05, "mu": 0.0, "p": None, "chosen_on": {"model": "hash:256"}}  # fmt: skip
    fields.update(changes)
    return ChosenSettings(**fields).save(tmp_path / "settings.json")


def test_from_settings_loads_what_recommend_saves(store, tmp_path):
    retriever = ScarRetriever.from_settings(_settings(tmp_path), vectorstore=store)
    assert (retriever.k, retriever.r, retriever.lam, retriever.tau, retriever.mu) == (
        2, 2, 0.25, 0.05, 0.0,
    )  # fmt: skip
    got = [d.metadata["chunk"] for d in retriever.invoke(QUESTION)]
    assert [("harbor_manual.md", c) for c in got] == cli_selected(
        SAMPLE_DOC, QUESTION, 2, 2, 0.25, 0.05
    )
    topk = ScarRetriever.from_settings(
        _settings(tmp_path, policy="topk", lam=None, tau=None, mu=None), vectorstore=store, k=3
    )
    assert topk.policy == "topk" and topk.k == 3
    assert [d.metadata["scar_role"] for d in topk.invoke(QUESTION)] == ["retrieved"] * 3


def test_from_settings_warns_when_the_store_embeds_with_another_model(tmp_path):
    other = InMemoryVectorStore(ScarEmbeddings("hash:64", cache=False))
    with pytest.warns(UserWarning, match="chosen with hash:256"):
        ScarRetriever.from_settings(_settings(tmp_path), vectorstore=other)


def test_from_settings_refuses_a_bad_file_in_one_sentence(store, tmp_path):
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(SettingsFileError, match="not valid JSON"):
        ScarRetriever.from_settings(tmp_path / "bad.json", vectorstore=store)
    with pytest.raises(SettingsFileError, match="Cannot read settings file"):
        ScarRetriever.from_settings(tmp_path / "missing.json", vectorstore=store)


def test_bm25_and_hybrid_need_a_store_that_lists_its_chunks(tmp_path):
    inner = InMemoryVectorStore(ScarEmbeddings("hash", cache=False))
    inner.add_documents(split_document(SAMPLE_DOC))
    path = _settings(tmp_path, retriever="hybrid")
    with pytest.raises(ValueError, match="does not list its chunks"):
        ScarRetriever.from_settings(path, vectorstore=Delegating(inner)).invoke(QUESTION)


def test_mu_needs_a_store_that_lists_its_chunks():
    inner = InMemoryVectorStore(ScarEmbeddings("hash", cache=False))
    inner.add_documents(split_document(SAMPLE_DOC))
    with pytest.raises(ValueError, match="does not list its chunks"):
        ScarRetriever(vectorstore=Delegating(inner), mu=0.3).invoke(QUESTION)
