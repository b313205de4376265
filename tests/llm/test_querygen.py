"""Query-set generation against the loopback fake chat server (real openai client, HTTP)."""

from __future__ import annotations

import pytest

from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.documents import samples
from scar_viz.documents.reading import document_from_text
from scar_viz.llm.client import ChatModel
from scar_viz.llm.querygen import (
    _Normalised,
    copy_overlap,
    cut_boundaries,
    generate_queries,
    locate,
)
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from tests.fake_llm import NOT_IN_DOCUMENT

SECRET = "sk-test-SECRET0123456789abcdef"
CONFIG = ChunkingConfig("recursive", 300, 30)


@pytest.fixture(scope="module")
def sample():
    doc = samples.load_sample()
    return doc, chunk_document(doc, CONFIG)


def model(server) -> ChatModel:
    return ChatModel("fake", base_url=server.base_url, api_key=SECRET, timeout=5)


def test_cut_boundaries_cut_a_paragraph_or_sentence(sample):
    doc, chunks = sample
    cuts = cut_boundaries(doc.text, chunks)
    assert cuts
    for i in cuts:
        a, b = chunks[i], chunks[i + 1]
        # the text around the cut is no paragraph break: the boundary falls inside prose
        assert "\n\n" not in doc.text[b.start : a.end] or a.end > b.start


def test_generates_valid_typed_queries_in_the_corpus_format(llm_server, sample):
    doc, chunks = sample
    out = generate_queries(doc, chunks, model(llm_server), n=6, fragmented_share=0.5, seed=3)
    assert len(out.queries) == 6 and not out.drops
    assert out.n_requested == 6 and out.usage.calls == 6
    for q in out.queries:
        for ev in q.query.evidence:
            assert doc.text[ev.start : ev.end] == ev.text
        (gq,) = label_queries([q.query], doc, chunks)
        assert q.type == gq.type
    assert {q.source.kind for q in out.queries} == {"fragmented", "atomic"}
    assert out.type_counts.get("fragmented", 0) >= 1
    # the project's own loader accepts the file as written, with no relocation or error
    parsed = parse_queries(out.jsonl(), doc)
    assert len(parsed.queries) == 6 and not parsed.issues
    assert "kept 6 of 6 generated" in out.report()


def test_same_seed_same_requests_and_a_rerun_makes_no_http_call(llm_server, sample):
    doc, chunks = sample
    a = generate_queries(doc, chunks, model(llm_server), n=4, seed=1)
    calls = llm_server.calls
    b = generate_queries(doc, chunks, model(llm_server), n=4, seed=1)
    assert llm_server.calls == calls  # every reply came from the disk cache
    assert a.jsonl() == b.jsonl() and b.usage.calls == 0 and b.usage.cached == 4
    c = generate_queries(doc, chunks, model(llm_server), n=4, seed=2)
    assert [q.source for q in c.queries] != [q.source for q in a.queries]


def test_evidence_not_in_the_document_is_dropped_with_a_reason(llm_server, sample):
    doc, chunks = sample
    llm_server.mode = "bad-evidence"
    out = generate_queries(doc, chunks, model(llm_server), n=4, fragmented_share=1.0, seed=0)
    assert not out.queries
    assert out.drop_counts == {"evidence not in document": out.n_requested}
    assert out.n_requested == 12  # 4 asked, replaced twice (MAX_ROUNDS = 3)
    assert NOT_IN_DOCUMENT.split()[0] in out.drops[0].detail
    assert "12 evidence not in document" in out.report()


def test_questions_copying_their_evidence_are_dropped(llm_server, sample):
    doc, chunks = sample
    llm_server.mode = "copy"
    out = generate_queries(doc, chunks, model(llm_server), n=2, fragmented_share=1.0, seed=0)
    assert not out.queries and set(out.drop_counts) == {"copies its evidence"}


def test_a_boundary_query_that_does_not_cross_it_is_dropped(llm_server, sample):
    doc, chunks = sample
    llm_server.mode = "one-side"
    out = generate_queries(doc, chunks, model(llm_server), n=4, fragmented_share=0.5, seed=0)
    assert out.type_counts == {"atomic": 2}
    assert out.drop_counts == {"does not cross the boundary": 6}  # 2 asked, 3 rounds
    assert all(d.source.kind == "fragmented" for d in out.drops)


def test_unparseable_replies_are_counted(llm_server, sample):
    doc, chunks = sample
    llm_server.mode = "garbage"
    out = generate_queries(doc, chunks, model(llm_server), n=3, seed=0)
    assert out.drop_counts == {"unparseable": 9}
    assert out.drops[0].detail.startswith("Sorry")


def test_duplicates_are_dropped(llm_server):
    para = "The harbour gate closes when the wind exceeds forty knots at the pier head."
    doc = document_from_text("dup.txt", "\n\n".join([para] * 6))
    chunks = chunk_document(doc, ChunkingConfig("recursive", 80, 0))
    out = generate_queries(doc, chunks, model(llm_server), n=3, fragmented_share=0.0, seed=0)
    assert len(out.queries) == 1
    assert out.drop_counts == {"duplicate": 5}  # the one kept + 5 more chunks, all the same


def test_locate_exact_and_after_whitespace_normalisation():
    text = "Alpha beta.\n   Gamma   delta\nepsilon.  Alpha beta."
    norm = _Normalised(text)
    assert locate(text, norm, "Gamma delta epsilon.", 0) == (15, 37)
    assert text[15:37] == "Gamma   delta\nepsilon."
    assert locate(text, norm, "Alpha beta.", 40) == (39, 50)  # the occurrence nearest 40
    assert locate(text, norm, "Alpha  beta.", 0) == (0, 11)
    assert locate(text, norm, "zeta", 0) is None


def test_copy_overlap():
    ev = ["The gate closes when the wind exceeds forty knots."]
    assert copy_overlap("The gate closes when the wind exceeds forty knots?", ev) == 1.0
    assert copy_overlap("When is access to the pier refused?", ev) < 0.3


@pytest.mark.parametrize("kw", [{"n": 0}, {"fragmented_share": 1.5}])
def test_bad_settings(llm_server, sample, kw):
    doc, chunks = sample
    with pytest.raises(ValueError):
        generate_queries(doc, chunks, model(llm_server), **kw)
