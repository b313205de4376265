"""Other tools' indexes opened as they are: a LlamaIndex storage folder and a LangChain dump
read as plain JSON into the chunks, offsets and vectors they hold, files rebuilt where the
store keeps no copy, and every way such a store can be wrong said in one sentence."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.cli.common import load_document
from scar_viz.documents.corpus import local_span
from scar_viz.embeddings import HashEmbedder, embed_cached
from scar_viz.store import StoreError
from scar_viz.store.other_tools import foreign_kind, foreign_version, read_foreign
from tests.integrations.helpers import SAMPLE_CORPUS, require


@pytest.fixture(scope="module")
def llama_storage(tmp_path_factory):
    """The sample corpus through split_nodes into a persisted LlamaIndex storage (hash model),
    its files kept in the docstore; and one without them."""
    require("llama_index.core")
    from llama_index.core import VectorStoreIndex

    from scar_viz.integrations.llamaindex import ScarEmbedding, source_documents, split_nodes

    root = tmp_path_factory.mktemp("llama")
    embedding = ScarEmbedding("hash", cache=False)
    index = VectorStoreIndex(split_nodes(SAMPLE_CORPUS, model=embedding), embed_model=embedding)
    index.storage_context.persist(str(root / "bare"))
    index.docstore.add_documents(source_documents(SAMPLE_CORPUS))
    index.storage_context.persist(str(root / "with-files"))
    return root


@pytest.fixture(scope="module")
def lang_dump(tmp_path_factory):
    require("langchain_core")
    from langchain_core.vectorstores import InMemoryVectorStore

    from scar_viz.integrations.langchain import ScarEmbeddings, split_document

    path = tmp_path_factory.mktemp("lang") / "kb.json"
    store = InMemoryVectorStore(ScarEmbeddings("hash", cache=False))
    store.add_documents(split_document(SAMPLE_CORPUS))
    store.dump(str(path))
    return path


def _same_as_the_files(prep) -> None:
    """The chunks the files are cut into, each at its offsets in its own file, with the
    vectors the model gives them."""
    document = load_document(str(SAMPLE_CORPUS))
    chunks = chunk_document(document, ChunkingConfig())
    assert [p.path for p in prep.document.parts] == [p.path for p in document.parts]

    def local(doc, cs):
        return [(*local_span(doc, (c.start, c.end)), c.text) for c in cs]

    assert local(prep.document, prep.chunks) == local(document, chunks)
    want = embed_cached(HashEmbedder(), [c.text for c in chunks], None).vectors
    assert np.allclose(prep.unit, want / np.linalg.norm(want, axis=1, keepdims=True))


def test_a_llamaindex_storage_with_its_files_is_the_corpus_exactly(llama_storage):
    store = read_foreign(llama_storage / "with-files")
    assert foreign_kind(llama_storage / "with-files") == "LlamaIndex storage"
    assert store.model == "hash:256" and store.dim == 256
    prep = store.prepared("hash:256", "hash")
    _same_as_the_files(prep)
    assert prep.document.text == load_document(str(SAMPLE_CORPUS)).text
    assert prep.config.label == "as stored (LlamaIndex storage)"
    assert prep.document.note == ""


def test_without_its_files_a_storage_is_rebuilt_from_its_chunks_and_says_so(llama_storage):
    prep = read_foreign(llama_storage / "bare").prepared("hash:256", "hash")
    _same_as_the_files(prep)  # the same chunks at the same offsets
    note = prep.document.note  # one line for all files, never one a file
    assert note.startswith("The index keeps no copy of 6 files: rebuilt from its chunks, ")
    assert note.endswith("of 6 files) were not stored (shown as line breaks).")


def test_a_langchain_dump_opens_as_its_chunks_by_start_index(lang_dump):
    assert foreign_kind(lang_dump) == "LangChain dump"
    store = read_foreign(lang_dump)
    assert store.model is None  # split_document was not told the model
    _same_as_the_files(store.prepared("hash:256", "hash"))


def test_neither_kind_is_refused_by_name(tmp_path, llama_storage):
    assert foreign_kind(tmp_path) is None
    (tmp_path / "other.json").write_text('{"a": [1, 2]}', encoding="utf-8")
    assert foreign_kind(tmp_path / "other.json") is None
    with pytest.raises(StoreError, match="neither a LlamaIndex storage folder"):
        read_foreign(tmp_path / "other.json")
    version = foreign_version(llama_storage / "bare")
    assert [name for name, _, _ in version] == sorted(
        p.name for p in (llama_storage / "bare").glob("*.json")
    )


def test_a_model_the_store_names_or_a_dimension_it_lacks_is_one_sentence(llama_storage):
    store = read_foreign(llama_storage / "with-files")
    store.check_model("hash:256")
    with pytest.raises(StoreError, match="was embedded with hash:256, not hash:64"):
        store.check_model("hash:64")
    with pytest.raises(StoreError, match="holds 256-dimensional vectors, but M makes 64-dim"):
        store.check_dimension(64, "M")


def _dump(path, entries) -> str:
    path.write_text(json.dumps(entries), encoding="utf-8")
    return str(path)


def test_a_dump_without_start_index_says_how_to_split(tmp_path):
    path = _dump(
        tmp_path / "d.json", {"x": {"id": "x", "vector": [1.0], "text": "t", "metadata": {}}}
    )
    with pytest.raises(StoreError, match="no start_index metadata; split with add_start_index"):
        read_foreign(path)


def test_chunks_that_disagree_about_their_file_are_refused(tmp_path):
    entries = {
        "a": {"id": "a", "vector": [1.0, 0.0], "text": "abcdef",
              "metadata": {"source": "f.md", "start_index": 0}},
        "b": {"id": "b", "vector": [0.0, 1.0], "text": "XYZ",
              "metadata": {"source": "f.md", "start_index": 3}},
    }  # fmt: skip
    with pytest.raises(StoreError, match="disagree about its text at offset 3"):
        read_foreign(_dump(tmp_path / "d.json", entries)).prepared("m", "m")


def test_vectors_of_different_lengths_are_refused(tmp_path):
    entries = {
        "a": {"id": "a", "vector": [1.0, 0.0], "text": "abc", "metadata": {"start_index": 0}},
        "b": {"id": "b", "vector": [1.0], "text": "def", "metadata": {"start_index": 4}},
    }
    with pytest.raises(StoreError, match="missing or of different lengths"):
        read_foreign(_dump(tmp_path / "d.json", entries)).prepared("m", "m")


def test_a_rebuilt_file_keeps_offsets_and_names_the_gaps(tmp_path):
    entries = {
        "a": {"id": "a", "vector": [1.0, 0.0], "text": "# Title", "metadata": {"start_index": 0}},
        "b": {"id": "b", "vector": [0.0, 1.0], "text": "Body text.",
              "metadata": {"start_index": 9}},
    }  # fmt: skip
    prep = read_foreign(_dump(tmp_path / "d.json", entries)).prepared("m", "m")
    assert prep.document.text == "# Title\n\nBody text."
    assert prep.document.name == "document"
    assert prep.document.note == (
        "The index keeps no copy of the file: rebuilt from its chunks, 2 characters between "
        "chunks were not stored (shown as line breaks)."
    )
    assert [c.section for c in prep.chunks][1] == ("Title",)
