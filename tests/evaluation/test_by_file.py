"""The per-file breakdown of a corpus evaluation (scar_viz.evaluation.by_file)."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.documents import samples
from scar_viz.embeddings import make_embedder
from scar_viz.evaluation.by_file import SEVERAL_FILES, file_rows, query_file
from scar_viz.evaluation.queries import label_queries, parse_queries
from scar_viz.evaluation.run import evaluate
from scar_viz.pipeline import embed_query, prepare_document


def test_query_file():
    assert query_file((("a.md", 3), ("a.md", 4))) == "a.md"
    assert query_file((("a.md", 3), ("b.md", 0))) == SEVERAL_FILES


@pytest.fixture(scope="module")
def corpus_eval():
    corpus = samples.load_sample("kestrel")
    embedder = make_embedder("hash")
    prep = prepare_document(corpus, embedder)
    qset = parse_queries(samples.sample_queries_text("kestrel"), corpus)
    gold = label_queries(qset, corpus, prep.chunks)
    vecs = np.stack([embed_query(embedder, g.query.query) for g in gold])
    return evaluate(prep, gold, vecs, ["topk", "window1", "scar"])


def test_rows_average_each_files_queries(corpus_eval):
    rows = file_rows(corpus_eval)
    assert sum(r["queries"] for r in rows) == corpus_eval.n_queries
    assert rows[-1]["file"] == SEVERAL_FILES  # the sample corpus has evidence across files
    files = [r["file"] for r in rows[:-1]]
    assert files == sorted(files)
    for row in rows:
        idx = [
            i for i, g in enumerate(corpus_eval.queries) if query_file(g.gold_refs) == row["file"]
        ]
        for name in ("topk", "window1", "scar"):
            outcomes = corpus_eval.policies[name].outcomes
            assert row[f"{name} recall"] == pytest.approx(
                np.mean([outcomes[i].recall for i in idx])
            )
            assert row[f"{name} chunks"] == pytest.approx(
                np.mean([outcomes[i].chunks for i in idx])
            )


def test_a_single_document_has_no_breakdown():
    doc = samples.load_sample()
    embedder = make_embedder("hash")
    prep = prepare_document(doc, embedder)
    gold = label_queries(parse_queries(samples.sample_queries_text(), doc), doc, prep.chunks)[:4]
    vecs = np.stack([embed_query(embedder, g.query.query) for g in gold])
    assert file_rows(evaluate(prep, gold, vecs, ["topk"])) == []
