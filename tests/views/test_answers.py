"""The Answers page's table shapes, from real runs against the loopback fake chat server.

The fake's replies follow string rules: these tests check the tables' shapes and sums, never
answer quality.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.common.fmt import EMPTY_CELL
from scar_viz.documents import samples
from scar_viz.embeddings import HashEmbedder, embed_cached
from scar_viz.evaluation.by_file import query_file
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.llm.check import check_answers
from scar_viz.llm.client import ChatModel, Usage
from scar_viz.llm.querygen import generate_queries
from scar_viz.pipeline import prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.params import GateParams
from scar_viz.views.answers import (
    DIFF_COLUMN,
    QueryAnswers,
    calls_per_query,
    check_caption,
    check_view,
    claim_rows,
    comparison_rows,
    context_difference,
    drop_detail_rows,
    drop_rows,
    file_score_rows,
    generated_view,
    kept_rows,
    planned_calls,
    policy_errors,
    query_choices,
    side_by_side,
    summary_rows,
    unparseable_rows,
    usage_line,
)

POLICIES = ("topk", "window1", "scar")


def without_answers(text: str) -> str:
    """The sample's query file without its reference answers."""
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    return "".join(json.dumps({k: v for k, v in x.items() if k != "answer"}) + "\n" for x in lines)


@pytest.fixture(scope="module")
def setting():
    doc = samples.load_sample()
    embedder = HashEmbedder()
    prep = prepare_document(doc, embedder, ChunkingConfig())

    def embed(texts):
        return embed_cached(embedder, texts, None).vectors

    return prep, embed


def chat(server) -> ChatModel:
    return ChatModel("fake", base_url=server.base_url, api_key="sk-x", timeout=5)


def check(server, setting, text: str, n: int = 4):
    prep, embed = setting
    qset = parse_queries(text, prep.document)
    labelled = label_queries(qset.queries[:n], prep.document, prep.chunks)
    vecs = embed([q.query.query for q in labelled])
    return check_answers(
        LabelledRun(prep, labelled, vecs),
        chat(server),
        embed,
        policies=POLICIES,
        params=GateParams(k=2),
        references=qset.references,
        n_boot=200,
    )


def test_generated_set_tables_add_up(llm_server, setting):
    prep, _ = setting
    llm_server.mode = "bad-evidence"
    gs = generate_queries(prep.document, prep.chunks, chat(llm_server), n=6, seed=1)
    summary = drop_rows(gs)
    kept = sum(r["queries"] for r in summary if str(r["outcome"]).startswith("kept"))
    dropped = sum(r["queries"] for r in summary if str(r["outcome"]).startswith("dropped"))
    assert kept == len(gs.queries) == len(kept_rows(gs))
    assert dropped == len(gs.drops) == len(drop_detail_rows(gs)) > 0
    reasons = {r["reason"] for r in drop_detail_rows(gs)}
    assert "evidence not in document" in reasons
    assert all(r["meaning"] for r in summary)
    assert {r["type"] for r in kept_rows(gs)} <= {"fragmented", "atomic", "scattered"}


def test_generated_view_is_the_whole_set_in_one_call(llm_server, setting):
    prep, _ = setting
    llm_server.mode = "bad-evidence"
    gs = generate_queries(prep.document, prep.chunks, chat(llm_server), n=6, seed=1)
    view = generated_view(gs)
    assert (view.kept, view.dropped) == (len(gs.queries), len(gs.drops))
    assert view.dropped > 0
    assert view.fragmented + view.atomic <= view.kept
    assert view.fragmented == sum(r["type"] == "fragmented" for r in view.kept_rows)
    assert view.usage == usage_line(gs.usage) and view.notes == gs.notes
    assert (view.outcomes, view.kept_rows, view.drop_rows) == (
        drop_rows(gs),
        kept_rows(gs),
        drop_detail_rows(gs),
    )


def test_check_view_holds_every_query_side_by_side(llm_server, setting):
    ch = check(llm_server, setting, samples.sample_queries_text())
    view = check_view(ch)
    assert view.caption == check_caption(ch)
    assert view.summary == summary_rows(ch) and view.comparisons == comparison_rows(ch)
    assert view.errors == tuple(policy_errors(ch)) and view.unparseable == []
    assert view.by_file == [] and view.usage == usage_line(ch.usage)
    assert list(view.choices) == list(view.queries) == [q.id for q in ch.queries]
    for qid, shown in view.queries.items():
        assert shown == QueryAnswers(side_by_side(ch, qid), claim_rows(ch, qid))
        assert [r["policy"] for r in shown.side] == list(POLICIES)
    answers = {qid: shown.side[0]["answer"] for qid, shown in view.queries.items()}
    assert len(set(answers.values())) > 1  # each query's own answers, not one query's


def test_calls_per_query_and_plan():
    assert calls_per_query(3) == 12
    assert calls_per_query(3, evidence=False) == 9
    assert calls_per_query(3, reference=True) == 15
    assert calls_per_query(1, evidence=True, reference=True) == 5


def test_summary_one_row_per_policy_and_tokens_sum(llm_server, setting):
    ch = check(llm_server, setting, without_answers(samples.sample_queries_text()))
    rows = summary_rows(ch)
    assert [r["policy"] for r in rows] == list(POLICIES)
    assert "answer correctness" not in rows[0]  # no reference answers in this file
    for r in rows:
        pa = ch.policies[r["policy"]]
        assert r["answer tokens"] == pa.answer_usage.total_tokens
        assert r["LLM calls"] + r["cached"] == 4 * ch.n_queries  # 1 answer + 3 judge calls
        assert r["faithfulness"] == round(pa.mean("faithfulness"), 3)
        assert r["scored"] == ch.n_queries
    assert sum(r["LLM calls"] for r in rows) == ch.usage.calls
    labelled = ch.queries
    assert planned_calls(labelled, len(POLICIES), {}) == 4 * len(POLICIES) * ch.n_queries
    comps = comparison_rows(ch)
    assert {r["vs"] for r in comps} == {"topk", "window1"}
    assert "context tokens" in {r["score"] for r in comps}
    assert unparseable_rows(ch) == []


def test_reference_answers_add_the_correctness_column(llm_server, setting):
    prep, _ = setting
    gs = generate_queries(prep.document, prep.chunks, chat(llm_server), n=4, seed=2)
    ch = check(llm_server, setting, gs.jsonl())
    assert ch.has_references
    rows = summary_rows(ch)
    assert all("answer correctness" in r for r in rows)
    assert sum(r["LLM calls"] + r["cached"] for r in rows) == 5 * 3 * ch.n_queries
    refs = parse_queries(gs.jsonl(), prep.document).references
    assert planned_calls(ch.queries, 3, refs) == 5 * 3 * ch.n_queries
    qid = next(iter(query_choices(ch)))
    assert all("answer correctness" in r for r in side_by_side(ch, qid))


def test_side_by_side_and_the_difference_in_context(llm_server, setting):
    ch = check(llm_server, setting, samples.sample_queries_text())
    choices = query_choices(ch)
    assert list(choices) == [q.id for q in ch.queries]
    qid = next(iter(choices))
    rows = side_by_side(ch, qid)
    assert [r["policy"] for r in rows] == list(POLICIES)
    by = {r["policy"]: r for r in rows}
    assert by["scar"][DIFF_COLUMN] == "the base the others are compared with"
    top = ch.policies["topk"].rows[0]
    scar = ch.policies["scar"].rows[0]
    assert by["topk"]["answer"] == top.answer
    left = set(scar.chunk_ids) - set(top.chunk_ids)
    if left:
        assert "leaves out" in by["topk"][DIFF_COLUMN]
    else:
        assert by["topk"][DIFF_COLUMN].startswith("same chunks")
    kinds = {r["kind"] for r in claim_rows(ch, qid)}
    assert kinds == {"claim", "question written from the answer"}
    assert {r["supported"] for r in claim_rows(ch, qid)} <= {"yes", "no", EMPTY_CELL}


def test_context_difference_words():
    from dataclasses import replace

    from scar_viz.llm.judge import AnswerRow

    base = AnswerRow(
        *("q", "scar", "?", "", 100, (3, 4, 5), ""),
        *(None, None, None, None, (), (), (), Usage(), Usage()),
    )
    wider = replace(base, policy="window1", context_tokens=160, chunk_ids=(2, 3, 4, 5, 6))
    narrower = replace(base, policy="topk", context_tokens=40, chunk_ids=(4,))
    spans = replace(base, policy="qasc", chunk_ids=None, context_tokens=100)
    assert context_difference(wider, base) == "adds chunks 2 and 6; +60 tokens"
    assert context_difference(narrower, base) == "leaves out chunks 3 and 5; −60 tokens"
    assert context_difference(spans, base) == "±0 tokens (spans, not whole chunks)"
    assert context_difference(base, base) == "the base the others are compared with"


def test_unparseable_replies_are_listed(llm_server, setting):
    llm_server.mode = "garbage"
    ch = check(llm_server, setting, samples.sample_queries_text(), n=2)
    rows = unparseable_rows(ch)
    assert len(rows) == len(ch.unparseable) > 0
    assert {r["policy"] for r in rows} == set(POLICIES)
    assert sum(r["unparseable"] for r in summary_rows(ch)) == len(rows)
    assert all(r["faithfulness"] == EMPTY_CELL for r in summary_rows(ch))


def test_usage_line():
    assert usage_line(Usage(1200, 60, 12, 3)) == (
        "12 calls (3 from the cache), 1,200 prompt + 60 completion tokens"
    )
    assert usage_line(Usage(calls=1)).startswith("1 call (")


def test_scores_by_file_on_a_corpus_and_none_on_one_document(llm_server, setting):
    assert file_score_rows(check(llm_server, setting, samples.sample_queries_text(), n=2)) == []
    corpus = samples.load_sample("kestrel")
    embedder = HashEmbedder()
    prep = prepare_document(corpus, embedder, ChunkingConfig())

    def embed(texts):
        return embed_cached(embedder, texts, None).vectors

    gold = label_queries(
        parse_queries(samples.sample_queries_text("kestrel"), corpus), corpus, prep.chunks
    )
    picked = gold[::3]  # a few queries from several files
    result = check_answers(
        LabelledRun(prep, picked, embed([q.query.query for q in picked])), chat(llm_server), embed,
        policies=POLICIES, params=GateParams(k=2), n_boot=0,
    )  # fmt: skip
    rows = file_score_rows(result)
    files = {r["file"] for r in rows}
    assert len(files) >= 2 and len(rows) == len(files) * len(POLICIES)
    assert [r["policy"] for r in rows[: len(POLICIES)]] == list(POLICIES)
    assert sum(r["queries"] for r in rows if r["policy"] == "scar") == len(picked)
    for row in rows:  # each file's mean is its queries' mean
        pa = result.policies[row["policy"]]
        mine = [
            r for r, q in zip(pa.rows, picked, strict=True)
            if query_file(q.gold_refs) == row["file"]
        ]  # fmt: skip
        assert row["context tokens"] == pytest.approx(np.mean([r.context_tokens for r in mine]))
        scored = [r.faithfulness for r in mine if r.faithfulness is not None]
        if scored:
            assert row["faithfulness"] == pytest.approx(np.mean(scored))
        else:
            assert np.isnan(row["faithfulness"])
