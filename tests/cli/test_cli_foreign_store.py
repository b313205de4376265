"""``--store`` on another tool's index: a LlamaIndex storage made with the wrappers gives
exactly the figures ``eval``, ``select`` and ``recommend`` give on the files; one made by
LlamaIndex's own SentenceSplitter opens and evaluates; a LangChain dump selects as the files
do; a store of another model is one line."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from scar_viz.cli.main import main
from tests.integrations.helpers import (
    SAMPLE_CORPUS,
    SAMPLE_CORPUS_QUERIES,
    SAMPLE_DOC,
    SAMPLE_QUERIES,
    require,
    sentence_splitter_storage,
)

HASH = ["--model", "hash", "--no-cache"]
QUESTION = "What happens if the last crossing of the day is cancelled?"


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def _json(*argv: str) -> dict:
    rc, out, err = _run(*argv, "--json")
    assert rc == 0, err
    return json.loads(out)


def _storage(
    folder, source, model: str = "hash", with_files: bool = True, named: bool = False, **split
) -> str:
    """``source`` split by split_nodes (told the model when ``named``), embedded by
    ScarEmbedding(model), persisted (with the files in the docstore when ``with_files``)."""
    require("llama_index.core")
    from llama_index.core import VectorStoreIndex

    from scar_viz.integrations.llamaindex import ScarEmbedding, source_documents, split_nodes

    embedding = ScarEmbedding(model, cache=False)
    nodes = split_nodes(source, model=embedding if named else None, **split)
    index = VectorStoreIndex(nodes, embed_model=embedding)
    if with_files:
        index.docstore.add_documents(source_documents(source))
    index.storage_context.persist(str(folder))
    return str(folder)


def _without_chunking(out: dict) -> dict:
    assert out.pop("chunking").startswith(("recursive", "as stored (LlamaIndex storage)"))
    return out


@pytest.mark.parametrize(
    ("source", "queries"),
    [(SAMPLE_DOC, SAMPLE_QUERIES), (SAMPLE_CORPUS, SAMPLE_CORPUS_QUERIES)],
    ids=["sample", "sample corpus"],
)
def test_eval_from_a_llamaindex_storage_equals_eval_on_the_files(source, queries, tmp_path):
    store = _storage(tmp_path / "storage", source)
    opts = [*HASH, "--boot", "200"]
    want = _json("eval", str(source), str(queries), *opts)
    got = _json("eval", "--store", store, str(queries), *opts)
    assert want["n_queries"] > 10 and want["policies"]["scar"]["all"]["recall"] > 0
    assert _without_chunking(got) == _without_chunking(want)


def test_select_and_recommend_from_a_llamaindex_storage_equal_the_files(tmp_path):
    store = _storage(tmp_path / "storage", SAMPLE_DOC, size=400, overlap=40)
    opts = [*HASH, "--chunk-size", "400", "--overlap", "40", "--k", "4"]
    want = _json("select", str(SAMPLE_DOC), "--query", QUESTION, *opts)
    got = _json("select", "--store", store, "--query", QUESTION, *opts)
    assert got["selected"] == want["selected"] and got["decisions"] == want["decisions"]
    assert got["spans"] == want["spans"]
    small = ["--folds", "3", "--repeats", "1", "--boot", "100"]
    want = _json("recommend", str(SAMPLE_DOC), str(SAMPLE_QUERIES), *opts, *small)
    got = _json("recommend", "--store", store, str(SAMPLE_QUERIES), *opts, *small)
    assert got["verdict"] == want["verdict"] and got["candidates"] == want["candidates"]


def test_a_storage_of_llamaindexs_own_splitter_opens_and_evaluates(tmp_path):
    store = sentence_splitter_storage(tmp_path / "storage")
    chosen = _json("select", "--store", store, "--query", QUESTION, *HASH)
    assert chosen["document"] == "harbor_manual.md" and chosen["n_chunks"] > 20
    assert chosen["selected"] and chosen["decisions"]
    rc, out, err = _run("eval", "--store", store, str(SAMPLE_QUERIES), *HASH, "--boot", "0")
    assert rc == 0, err
    assert "as stored (LlamaIndex storage)" in out and "scar       all" in out


def test_a_langchain_dump_selects_as_the_files_do(tmp_path):
    require("langchain_core")
    from langchain_core.vectorstores import InMemoryVectorStore

    from scar_viz.integrations.langchain import ScarEmbeddings, split_document

    store = InMemoryVectorStore(ScarEmbeddings("hash", cache=False))
    store.add_documents(split_document(SAMPLE_CORPUS))
    store.dump(str(tmp_path / "kb.json"))
    question = "How do I restore a backup?"
    want = _json("select", str(SAMPLE_CORPUS), "--query", question, *HASH)
    got = _json("select", "--store", str(tmp_path / "kb.json"), "--query", question, *HASH)
    assert got["selected_chunks"] == want["selected_chunks"]
    assert got["decisions"] == want["decisions"]


def test_a_store_that_names_another_model_is_one_line(tmp_path):
    store = _storage(tmp_path / "s", SAMPLE_DOC, model="hash:64", with_files=False, named=True)
    rc, out, err = _run("select", "--store", store, "--query", QUESTION, *HASH)
    assert rc == 1 and out == "" and err.count("\n") == 1
    assert "was embedded with hash:64, not hash:256" in err
    assert _run("select", "--store", store, "--query", QUESTION, "--model", "hash:64")[0] == 0


def test_a_store_of_an_unknown_model_is_one_line(tmp_path):
    store = sentence_splitter_storage(tmp_path / "s", model="hash:64")
    rc, out, err = _run("eval", "--store", store, str(SAMPLE_QUERIES), *HASH)
    assert rc == 1 and out == "" and err.count("\n") == 1
    assert "holds 64-dimensional vectors" in err and "makes 256-dimensional" in err
    assert "it does not say which model" in err
