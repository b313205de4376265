"""Reading a store back: the same evaluation as the in-memory corpus, and clear refusals."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from scar_viz.cli.common import load_labelled
from scar_viz.documents.corpus import join_documents
from scar_viz.embeddings import HashEmbedder
from scar_viz.evaluation import evaluate
from scar_viz.evaluation.report import evaluation_json
from scar_viz.pipeline import embed_function, prepare_document
from scar_viz.store import StoreError, index_corpus, open_store, store_meta, store_version
from tests.store.corpus import CONFIG, CountingEmbedder, sample_files, write_queries

POLICIES = ("topk", "window1", "window2", "scar", "parent", "rse", "automerge")


def _eval_json(prep, queries) -> str:
    embedder = HashEmbedder()
    _, run = load_labelled(str(queries), prep, embedder, None)
    ev = evaluate(run, POLICIES, embed=embed_function(embedder))
    out = evaluation_json(ev)
    for name in out["policies"]:
        out["policies"][name].pop("seconds", None)
    return json.dumps(out, sort_keys=True, default=str)


def test_eval_from_the_store_equals_the_in_memory_corpus(tmp_path):
    docs = sample_files()
    queries = write_queries(tmp_path / "q.jsonl", docs)
    index_corpus(docs, str(tmp_path / "s"), CountingEmbedder(), CONFIG)
    memory = prepare_document(join_documents(docs), HashEmbedder(), CONFIG)
    stored = open_store(str(tmp_path / "s"), "hash:256", CONFIG)
    want, got = _eval_json(memory, queries), _eval_json(stored, queries)
    assert '"recall"' in want and want == got


def test_another_model_or_chunking_is_named(tmp_path):
    index_corpus(sample_files(2), str(tmp_path / "s"), CountingEmbedder(), CONFIG)
    with pytest.raises(StoreError, match=r"made with hash:256 · recursive 300/30, not hash:64"):
        open_store(str(tmp_path / "s"), "hash:64", CONFIG)
    with pytest.raises(StoreError, match=r"not hash:256 · recursive 400/30"):
        open_store(str(tmp_path / "s"), "hash:256", replace(CONFIG, size=400))
    with pytest.raises(StoreError, match="prepended"):
        open_store(str(tmp_path / "s"), "hash:256", CONFIG, prepend=True)
    assert store_meta(str(tmp_path / "s")).config == CONFIG


def test_no_store_is_one_message(tmp_path):
    with pytest.raises(StoreError, match="holds no store"):
        open_store(str(tmp_path / "nothing"), "hash:256", CONFIG)


def test_the_version_changes_with_a_write(tmp_path):
    docs = sample_files(2)
    store = str(tmp_path / "s")
    index_corpus(docs, store, CountingEmbedder(), CONFIG)
    first = store_version(store)
    assert store_version(store) == first  # reading writes nothing
    index_corpus(docs[:1], store, CountingEmbedder(), CONFIG)  # one file removed
    assert store_version(store) != first
    with pytest.raises(StoreError, match="holds no store"):
        store_version(str(tmp_path / "nothing"))
