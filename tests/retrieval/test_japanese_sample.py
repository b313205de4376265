"""Retrieval on the built-in Japanese sample (reitou_souko.md, 21 questions in Japanese): with
the tokeniser's character bigrams, BM25, hybrid and the hashing model find the evidence; with
the word tokeniser they did not (a clause is one token there).

Thresholds: 10 chunks at recursive 600/60, so top 3 by chance holds 0.30 of a question's gold
chunks; the tests ask for 0.75 (measured: BM25 0.95, hash model 0.86, hybrid on the hash model
0.95; ``benchmarks/cjk_tokens.py``), and for the top chunk to be a gold chunk for at least
three questions in four (measured: BM25 21 of 21).
"""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents import samples
from scar_viz.embeddings import HashEmbedder
from scar_viz.pipeline import embed_query, prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.retrieval import bm25_index
from scar_viz.retrieval.retriever import rank_scores

K = 3
CHANCE = K / 10
WELL_ABOVE_CHANCE = 0.75
MOST = 0.75


@pytest.fixture(scope="module")
def sample():
    doc = samples.load_sample("reitou")
    prep = prepare_document(doc, HashEmbedder(), ChunkingConfig())
    qset = parse_queries(samples.sample_queries_text("reitou"), doc)
    gold = label_queries(qset, doc, prep.chunks)
    return prep, gold


def scores(prep, query: str, retriever: str) -> np.ndarray:
    sims = prep.unit @ embed_query(HashEmbedder(), query)
    return rank_scores(retriever, sims, bm25_index([c.text for c in prep.chunks]), query)


def recall_at_k(prep, gold, retriever: str) -> float:
    hits = []
    for g in gold:
        top = np.argsort(-scores(prep, g.query.query, retriever), kind="stable")[:K]
        hits.append(len(set(g.gold) & set(top.tolist())) / len(g.gold))
    return float(np.mean(hits))


def test_the_sample_has_enough_chunks_and_questions_for_the_thresholds(sample):
    prep, gold = sample
    assert len(prep.chunks) == 10 and len(gold) == 21
    assert sum(g.type == "fragmented" for g in gold) >= 5
    assert all(g.query.query.endswith("？") for g in gold)  # asked in Japanese


@pytest.mark.parametrize("retriever", ["bm25", "dense", "hybrid"])
def test_bm25_and_the_hash_model_find_the_evidence_well_above_chance(sample, retriever):
    prep, gold = sample
    assert recall_at_k(prep, gold, retriever) >= WELL_ABOVE_CHANCE > CHANCE


def test_a_question_in_japanese_ranks_its_evidence_chunk_first_for_most_questions(sample):
    prep, gold = sample
    first = [int(np.argmax(scores(prep, g.query.query, "bm25"))) in g.gold for g in gold]
    assert sum(first) >= MOST * len(gold)


def test_each_question_shares_terms_with_its_evidence(sample):
    """What made BM25 blind before: a question shared no token with any chunk."""
    prep, gold = sample
    index = bm25_index([c.text for c in prep.chunks])
    for g in gold:
        assert index.scores(g.query.query)[list(g.gold)].max() > 0, g.query.id
