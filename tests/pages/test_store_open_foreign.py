"""Open an index, for other tools' indexes: a LlamaIndex storage folder (made by LlamaIndex's
own SentenceSplitter) and a LangChain dump under the operator's root open as the corpus they
hold, without LanceDB and without re-embedding a chunk; the Explorer draws them; another model
is named in one message."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.integrations.helpers import SAMPLE_CORPUS, require, sentence_splitter_storage
from tests.pages.helpers import alerts, open_index
from ui import store_open

TIMEOUT = 120
QUESTION = "Can the duty officer overrule the master about sailing in fog?"


def _langchain_dump(path, model: str = "hash", named: bool = False) -> None:
    require("langchain_core")
    from langchain_core.vectorstores import InMemoryVectorStore

    from scar_viz.integrations.langchain import ScarEmbeddings, split_document

    embeddings = ScarEmbeddings(model, cache=False)
    store = InMemoryVectorStore(embeddings)
    store.add_documents(split_document(SAMPLE_CORPUS, model=embeddings if named else None))
    store.dump(str(path))


@pytest.fixture
def root(root, monkeypatch):
    monkeypatch.setattr(store_open, "extras_installed", lambda: False)  # no LanceDB needed
    return root


def test_a_llamaindex_storage_opens_draws_and_answers_without_embedding_a_chunk(root, embedded):
    sentence_splitter_storage(root / "storage")
    assert store_open.stores_under(root) == ["storage"]
    at = open_index("storage")
    embedded.clear()
    at.text_input(key="q").set_value(QUESTION).run()
    assert not at.exception, at.exception
    caption = " ".join(alerts(at.sidebar, "caption"))
    assert "harbor_manual.md:" in caption and "from the index, nothing embedded" in caption
    assert "as stored (LlamaIndex storage)" in caption
    assert "The index keeps no copy of the file: rebuilt from its chunks" in caption
    assert "Opening an index made by 'python -m scar_viz index' needs" in caption
    assert at.get("plotly_chart"), "the Explorer drew nothing"
    assert next(m.value for m in at.metric if m.label == "Retrieved") == "3"
    # the question (and one probe of the model's dimension, once), never the chunks
    assert QUESTION in embedded and len(embedded) <= 2


def test_a_langchain_dump_opens_as_its_corpus(root):
    _langchain_dump(root / "kb.json")
    assert store_open.stores_under(root) == ["kb.json"]
    at = open_index("kb.json")
    caption = " ".join(alerts(at.sidebar, "caption"))
    assert "corpus: 6 files" in caption and "as stored (LangChain dump)" in caption
    assert not alerts(at, "error")


def test_an_index_that_names_another_model_is_named(root):
    _langchain_dump(root / "kb64.json", model="hash:64", named=True)
    at = open_index("kb64.json")
    (message,) = set(alerts(at, "error"))
    assert "made with hash:64" in message and "Hashing bag-of-words (256-d" in message


def test_an_index_of_another_dimension_is_one_message(root):
    sentence_splitter_storage(root / "s64", model="hash:64")
    at = open_index("s64")
    (message,) = set(alerts(at, "error"))
    assert "holds 64-dimensional vectors" in message and "makes 256-dimensional" in message


def test_a_file_that_is_no_index_is_one_message(root):
    (root / "notes.json").write_text('{"a": 1}', encoding="utf-8")
    at = open_index("notes.json")
    assert store_open.stores_under(root) == []
    assert len(set(alerts(at, "error"))) == 1


def test_a_stored_chunking_is_never_cut_again_under_its_label(hash_model):
    """The Model transfer page embeds an opened index's own chunks with the second model; any
    other cut with the index's chunking is its chunker's, labelled as such."""

    def script():
        import streamlit as st

        from scar_viz.chunking.config import ChunkingConfig
        from scar_viz.documents import samples
        from scar_viz.embeddings import HashEmbedder
        from ui.loading import prepare

        doc = samples.load_sample()
        stored = ChunkingConfig(stored="LlamaIndex storage")
        first = prepare("k", doc, ChunkingConfig(size=300, overlap=0), HashEmbedder(), False)
        kept = prepare("k", doc, stored, HashEmbedder(64), False, chunks=first.chunks[:5])
        recut = prepare("k", doc, stored, HashEmbedder(64), False)
        st.text(f"{len(kept.chunks)} | {kept.config.label} | {kept.unit.shape[1]}")
        st.text(f"{kept.chunks[4].end} | {first.chunks[4].end}")
        st.text(f"{len(recut.chunks)} | {recut.config.label}")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    kept, ends, recut = (t.value for t in at.text)
    assert kept == "5 | as stored (LlamaIndex storage) | 64"  # the chunks given, embedded
    end_kept, end_first = ends.split(" | ")
    assert end_kept == end_first
    n, label = recut.split(" | ")
    assert label == "recursive 600/60" and int(n) > 20  # cut by its chunker, named so


def test_the_chunking_lab_says_who_cut_a_stored_chunking():
    from scar_viz.chunking.config import ChunkingConfig
    from scar_viz.views.chunking_lab import summarise

    stored = summarise("A", "ab", ChunkingConfig(stored="LangChain dump"), [(0, 2)], [])
    assert stored.title == "A: as stored (LangChain dump)"
    assert stored.about == "Chunks as stored (LangChain dump): cut by that tool, not by scar-viz."
    assert summarise("B", "ab", ChunkingConfig(), [(0, 2)], []).about.startswith("Recursive")
