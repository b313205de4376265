"""scar_viz.views.explorer: the Explorer's computing (selection by policy, cost summary, contexts,
evidence look-up, the learned why? table, the answer check's rows)."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.common.edges import one_file
from scar_viz.common.errors import UserError
from scar_viz.documents import samples
from scar_viz.embeddings import make_embedder
from scar_viz.llm.client import ChatModel, Usage
from scar_viz.pipeline import embed_query, prepare_document
from scar_viz.policies.context import context_cost
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.learned import default_gate, learned_select
from scar_viz.scoring.lexical import question_lex
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import select_from_sims, window
from scar_viz.views.explorer import (
    AnsweredContext,
    DimensionError,
    answer_question,
    answer_rows,
    chunk_span,
    contexts,
    gold_chunks,
    known_evidence,
    labelled_query,
    policy_selection,
    query_sims,
    summarise,
    why_table,
)


@pytest.fixture(scope="module")
def prep():
    return prepare_document(samples.load_sample(), make_embedder("hash"), ChunkingConfig())


@pytest.fixture(scope="module")
def sims(prep):
    qvec = embed_query(make_embedder("hash"), "What happens if the last crossing is cancelled?")
    return query_sims(prep.unit, qvec)


def test_query_sims_refuses_a_vector_of_another_dimension(prep):
    with pytest.raises(DimensionError, match="different dimensions"):
        query_sims(prep.unit, np.ones(prep.unit.shape[1] + 1))


def test_policy_selection_is_scar_or_the_learned_gate(prep, sims):
    params = GateParams(4, 0.3, 0.2, 2)
    scar = policy_selection("SCAR", sims, prep.unit, params, doc_of=one_file(len(prep.unit)))
    assert (
        scar.selected
        == select_from_sims(sims, prep.unit, params, doc_of=one_file(len(prep.unit))).selected
    )
    words = question_lex([c.text for c in prep.chunks], "Who decides the budget?")
    learned = policy_selection(
        "learned",
        sims,
        prep.unit,
        params,
        one_file(len(prep.unit)),
        None,
        0.2,
        lexical=words,
    )
    expected = learned_select(
        sims, prep.unit, 4, default_gate(), 0.2, 2, lexical=words, doc_of=one_file(len(prep.unit))
    )
    assert learned.selected == expected.selected and learned.p == 0.2
    with pytest.raises(UserError):
        policy_selection("window", sims, prep.unit, params, doc_of=one_file(len(prep.unit)))


def test_summary_costs_and_deltas(prep, sims):
    sel = policy_selection(
        "SCAR", sims, prep.unit, GateParams(3, 0.5, 0.1, 1), doc_of=one_file(len(prep.unit))
    )
    summary = summarise(prep.chunks, sel, doc_of=one_file(len(prep.chunks)))
    assert list(summary.costs) == ["top-k", "window ±1", "SCAR"]
    win = window(sel.retrieved, len(prep.chunks), 1, doc_of=one_file(len(prep.chunks)))
    assert summary.base == context_cost(prep.chunks, win)
    assert summary.ours.chunks == len(sel.selected)
    delta = summary.delta("chunks")
    assert delta.endswith(" vs window") and not delta.startswith("-")
    assert summary.delta_style("chunks") == (
        ("down", "green") if summary.ours.chunks < summary.base.chunks else ("off", "gray")
    )
    rows = summary.rows()
    assert [r["policy"] for r in rows] == list(summary.costs)
    assert rows[1]["tokens vs window"] == "0%"  # the window against itself: never "-0%"
    assert "None" not in summary.sentence()


@pytest.mark.parametrize(("lam", "tau"), [(0.0, 0.0), (0.5, 0.1), (5.0, 1.0)])
def test_summary_sentence_writes_changes_as_changes(prep, sims, lam, tau):
    """Never "sends −30% of the window's tokens" (nor "0% of" when it sends all of them)."""
    sel = policy_selection(
        "SCAR", sims, prep.unit, GateParams(3, lam, tau, 1), doc_of=one_file(len(prep.unit))
    )
    summary = summarise(prep.chunks, sel, doc_of=one_file(len(prep.chunks)))
    text = summary.sentence()
    ours, base = summary.ours.tokens, summary.base.tokens
    assert "% of" not in text and "−" not in text
    if ours == base:
        assert "SCAR sends the same tokens as window ±1" in text
    else:
        word = "fewer" if ours < base else "more"
        assert f"% {word} tokens than window ±1" in text
    assert "top-k." in text


def test_an_equal_context_has_no_arrow_and_zero_change(prep, sims):
    sel = policy_selection(
        "SCAR", sims, prep.unit, GateParams(3, 0.0, 0.0, 1), doc_of=one_file(len(prep.unit))
    )
    summary = summarise(prep.chunks, sel, doc_of=one_file(len(prep.chunks)))
    if summary.ours.chunks == summary.base.chunks:
        assert summary.delta_style("chunks") == ("off", "gray")
        assert summary.delta("chunks", short=True) == "0%"


def test_contexts_follow_the_policies(prep, sims):
    sel = policy_selection(
        "SCAR", sims, prep.unit, GateParams(3, 0.5, 0.1, 1), doc_of=one_file(len(prep.unit))
    )
    texts = contexts(prep.chunks, sel, "SCAR", doc_of=one_file(len(prep.chunks)))
    assert list(texts) == ["top-k", "window ±1", "SCAR"]
    assert all(prep.chunks[i].text in texts["SCAR"] for i in sel.selected)
    assert len(texts["top-k"]) <= len(texts["SCAR"]) <= len(texts["window ±1"])


def test_chunk_span_and_known_evidence(prep):
    assert chunk_span(prep.chunks, [3, 1]) == (prep.chunks[1].start, prep.chunks[3].end)
    with pytest.raises(UserError):
        chunk_span(prep.chunks, [])
    doc = samples.load_sample()
    queries = parse_queries(samples.sample_queries_text(), doc).queries
    first = queries[0]
    found = known_evidence(queries, "  " + first.query.upper() + " ")
    assert found == tuple(e.text for e in first.evidence) and found
    assert known_evidence(queries, "a question nobody labelled") == ()


def test_why_table_adds_up_to_the_score(prep, sims):
    words = question_lex([c.text for c in prep.chunks], "Who decides the budget?")
    sel = policy_selection(
        "learned",
        sims,
        prep.unit,
        GateParams(3, 0, 0, 1),
        lexical=words,
        doc_of=one_file(len(prep.unit)),
    )
    decision = sel.decisions[0]
    rows = why_table(decision)
    assert {"lex_qn", "lex_qc", "lex_new"} <= {r["term"] for r in rows}  # the shipped gate's
    assert [r["term"] for r in rows[-2:]] == ["intercept", "score"]
    assert rows[-2]["value"] == "—"
    total = sum(r["contribution"] for r in rows[:-1])
    assert total == pytest.approx(decision.score, abs=1e-3)
    assert all(isinstance(r["value"], str) for r in rows)  # one column type for the table


def test_answer_rows_compare_with_the_policy():
    answers = [
        AnsweredContext("top-k", "a", 100, Usage(120, 10, 1, 0), {}),
        AnsweredContext("window ±1", "b", 300, Usage(320, 12, 1, 0), {}),
        AnsweredContext("SCAR", "c", 150, Usage(170, 11, 1, 0), {"faithfulness": 1.0}),
    ]
    rows = answer_rows(answers, "SCAR")
    assert [r["vs SCAR"] for r in rows] == ["−33%", "+100%", "—"]
    assert [r["tokens spent"] for r in rows] == [130, 332, 181]
    assert rows[2]["faithfulness"] == 1.0


def test_answer_question_unscored_and_scored(llm_server, prep, sims):
    chat = ChatModel("fake", base_url=llm_server.base_url, api_key="k", timeout=5)
    sel = policy_selection(
        "SCAR", sims, prep.unit, GateParams(3, 0.5, 0.1, 1), doc_of=one_file(len(prep.unit))
    )
    texts = contexts(prep.chunks, sel, "SCAR", doc_of=one_file(len(prep.chunks)))
    plain = answer_question(chat, "Who decides?", texts)
    assert [a.policy for a in plain] == list(texts) and all(not a.scores for a in plain)
    assert all(a.spent.total_tokens > 0 or a.spent.cached for a in plain)
    emb = make_embedder("hash")
    scored = answer_question(
        chat,
        "Who decides?",
        texts,
        embed=lambda t: np.vstack([embed_query(emb, x) for x in t]),
        evidence=(prep.chunks[sel.retrieved[0]].text[:200],),
    )
    assert all("faithfulness" in a.scores and "context_recall" in a.scores for a in scored)


def test_gold_chunks_of_a_labelled_question_cover_its_evidence(prep):
    doc = samples.load_sample()
    queries = parse_queries(samples.sample_queries_text(), doc).queries
    first = labelled_query(queries, "  " + queries[0].query.lower() + "\n")
    assert first is queries[0]
    assert labelled_query(queries, "a question nobody labelled") is None
    gold = gold_chunks(first, doc, prep.chunks)
    assert gold and list(gold) == sorted(gold)
    for ev in first.evidence:  # every evidence character lies in a gold chunk
        held = [c for c in gold if prep.chunks[c].start <= ev.start < prep.chunks[c].end]
        assert held, (ev.start, gold)
        assert any(prep.chunks[c].start < ev.end <= prep.chunks[c].end for c in gold)
    # and no gold chunk misses the evidence
    for c in gold:
        assert any(
            prep.chunks[c].start < ev.end and ev.start < prep.chunks[c].end for ev in first.evidence
        )
    assert gold_chunks(None, doc, prep.chunks) == ()
