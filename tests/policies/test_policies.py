"""Every policy by hand on a small synthetic document; invariants on random vectors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scar_viz import policies
from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import chunk_doc_of
from scar_viz.chunking.qasc import QascParams, qasc_select, sentence_scores
from scar_viz.common.edges import one_file
from scar_viz.common.spans import intersect_spans, subtract_spans
from scar_viz.documents.reading import Document, Section, document_from_text, whole
from scar_viz.documents.sentences import paragraph_spans, sentence_spans
from scar_viz.embeddings import HashEmbedder
from scar_viz.policies.rerank import RerankerError, load_reranker
from scar_viz.scoring.params import GateParams
from scripts.tiny_models import tiny_cross_encoder

# --- a synthetic document: three sections, eight one-paragraph chunks -----------------------

SECTIONS = {"A": [0, 1, 2], "B": [3, 4, 5], "C": [6, 7]}
ANGLES = [80, 60, 10, 30, 85, 90, 5, 120]  # degrees from the query direction (angle 0)


def _synthetic() -> tuple[Document, list[Chunk]]:
    parts: list[str] = []
    spans: dict[int, tuple[int, int]] = {}
    pos = 0
    for title, ids in SECTIONS.items():
        heading = f"# Section {title}\n\n"
        parts.append(heading)
        pos += len(heading)
        for i in ids:
            para = f"Paragraph {i} of section {title} says something about topic {i}."
            spans[i] = (pos, pos + len(para))
            parts.append(para + "\n\n")
            pos += len(para) + 2
    doc = document_from_text("synthetic.md", "".join(parts))
    chunks = [
        Chunk(i, s, e, doc.text[s:e], doc.section_at(s).path) for i, (s, e) in sorted(spans.items())
    ]
    return doc, chunks


def _inputs(
    k: int = 2, lam: float = 0.5, tau: float = 0.1, radius: int = 1
) -> policies.QueryInputs:
    doc, chunks = _synthetic()
    rad = np.radians(ANGLES)
    unit = np.stack([np.cos(rad), np.sin(rad)], axis=1)
    q = np.array([1.0, 0.0])
    return policies.QueryInputs(
        *(doc, chunks, unit, "what about topic", q, unit @ q, GateParams(k, lam, tau, radius)),
        doc_of=chunk_doc_of(doc, chunks),
    )


def test_synthetic_document_is_what_the_tests_assume():
    doc, chunks = _synthetic()
    assert [s.title for s in doc.sections] == ["Section A", "Section B", "Section C"]
    assert all(doc.text[c.start : c.end] == c.text for c in chunks)


def test_topk_by_hand():
    # cos of 80,60,10,30,85,90,5,120 degrees: the two largest are chunk 6 (5°) and 2 (10°).
    res = policies.run_policy("topk", _inputs(k=2))
    assert res.chunk_ids == (2, 6)
    doc, chunks = _synthetic()
    assert res.spans == ((chunks[2].start, chunks[2].end), (chunks[6].start, chunks[6].end))
    assert res.context == chunks[2].text + "\n\n" + chunks[6].text
    assert res.chars == len(res.context) and res.tokens > 0 and res.seconds >= 0


@pytest.mark.parametrize(
    ("w", "expected"), [(1, (1, 2, 3, 5, 6, 7)), (2, (0, 1, 2, 3, 4, 5, 6, 7))]
)
def test_window_by_hand(w, expected):
    res = policies.run_policy("window", _inputs(k=2), w=w)
    assert res.chunk_ids == expected
    assert res.name == f"window{w}"


def test_scar_by_hand():
    # c = 2 (cos 10° = .985, bar .0985): n = 1: S = cos60 - .5(1 - cos50) = .5 - .179 > bar;
    # n = 3: S = cos30 - .5(1 - cos20) = .836 > bar. c = 6 (bar .0996): n = 5: S = cos90 -
    # .5(1 - cos85) = -.456, n = 7: S = cos120 - ... < 0: both rejected.
    res = policies.run_policy("scar", _inputs(k=2, lam=0.5, tau=0.1, radius=1))
    assert res.chunk_ids == (1, 2, 3, 6)
    assert res.detail.admitted == [1, 3]
    # r = 2: n = 0: cos80 - .5(1 - cos70) = -.155 and n = 4: cos85 - .5(1 - cos75) < 0: same.
    assert policies.run_policy("scar", _inputs(k=2, radius=2)).chunk_ids == (1, 2, 3, 6)


def test_parent_returns_whole_sections():
    inputs = _inputs(k=2)
    res = policies.run_policy("parent", inputs)
    a, c = inputs.document.sections[0], inputs.document.sections[2]
    assert res.spans == ((a.start, a.end), (c.start, c.end))
    assert res.chunk_ids == (0, 1, 2, 6, 7)
    assert res.context.startswith("# Section A")
    assert not res.notes


def test_parent_without_headings_is_the_whole_document():
    text = "One paragraph about ferries.\n\nAnother about tides.\n\nA third about cranes."
    doc = document_from_text("plain.txt", text)
    chunks = [Chunk(i, s, e, text[s:e]) for i, (s, e) in enumerate(paragraph_spans(text))]
    unit = np.eye(3)
    inputs = policies.QueryInputs(
        *(doc, chunks, unit, "q", unit[1], unit[1] @ unit.T, GateParams(k=1)),
        doc_of=chunk_doc_of(doc, chunks),
    )
    res = policies.run_policy("parent", inputs)
    assert res.spans == ((0, len(text)),)
    assert any("No headings" in n for n in res.notes)


def test_parent_takes_both_sections_of_a_chunk_crossing_a_heading():
    doc, _ = _synthetic()
    b = doc.sections[1]
    crossing = Chunk(0, b.start - 10, b.start + 12, doc.text[b.start - 10 : b.start + 12])
    inputs = policies.QueryInputs(
        *(doc, [crossing], np.ones((1, 1)), "q", np.ones(1), np.ones(1), GateParams(k=1)),
        doc_of=chunk_doc_of(doc, [crossing]),
    )
    res = policies.run_policy("parent", inputs)
    assert res.spans == ((doc.sections[0].start, doc.sections[1].end),)


def test_parent_level_climbs_to_the_ancestor():
    text = "# Top\n\nIntro.\n\n## One\n\nFirst part.\n\n## Two\n\nSecond part.\n\n# Next\n\nElse."
    doc = document_from_text("nested.md", text)
    start = text.index("First")
    chunk = Chunk(0, start, start + 11, text[start : start + 11])
    inputs = policies.QueryInputs(
        *(doc, [chunk], np.ones((1, 1)), "q", np.ones(1), np.ones(1), GateParams(k=1)),
        doc_of=chunk_doc_of(doc, [chunk]),
    )
    leaf = policies.run_policy("parent", inputs)
    top = policies.run_policy("parent", inputs, level=1)
    assert text[slice(*leaf.spans[0])].startswith("## One")
    assert top.spans == ((0, text.index("# Next")),)


# --- rerank with a tiny local cross-encoder ---------------------------------------------------


@pytest.fixture(scope="module")
def tiny_reranker(tmp_path_factory) -> str:
    return str(tiny_cross_encoder(tmp_path_factory.mktemp("tiny_ce")))


def test_rerank_keeps_the_k_best_by_the_cross_encoder(tiny_reranker):
    inputs = _inputs(k=2)
    res = policies.run_policy("rerank", inputs, n_candidates=4, reranker=tiny_reranker)
    cosine_top4 = [6, 2, 3, 1]  # cos 5°, 10°, 30°, 60°
    assert list(res.detail.candidates) == cosine_top4
    model = load_reranker(tiny_reranker)
    ref = model.predict([(inputs.query, inputs.chunks[i].text) for i in cosine_top4])
    best = [cosine_top4[j] for j in np.argsort(-np.asarray(ref), kind="stable")[:2]]
    assert list(res.detail.kept) == best
    assert res.chunk_ids == tuple(sorted(best))
    assert np.allclose(res.detail.scores, ref, atol=1e-5)


def test_rerank_defaults_to_four_k_candidates(tiny_reranker):
    res = policies.run_policy("rerank", _inputs(k=1), reranker=tiny_reranker)
    assert len(res.detail.candidates) == 4 and len(res.chunk_ids) == 1


def test_rerank_that_cannot_load_says_why_and_others_still_run(tmp_path):
    with pytest.raises(RerankerError, match="cannot be loaded offline"):
        load_reranker(str(tmp_path / "no-such-model"))
    inputs = _inputs(k=2)
    results = policies.run_all(
        inputs, {"topk": {}, "rerank": {"reranker": "no/such-reranker"}, "scar": {}}
    )
    assert isinstance(results["topk"], policies.PolicyResult) and isinstance(
        results["scar"], policies.PolicyResult
    )
    assert isinstance(results["rerank"], str) and "no/such-reranker" in results["rerank"]


# --- QASC through the policy interface -------------------------------------------------------

QASC_TEXT = (
    "# Tides\n\nThe tide table is printed weekly. Spring tides are higher than neap tides. "
    "The harbour master posts the tide table at the quay.\n\n"
    "# Cranes\n\nThe crane is inspected every month. A crane operator needs a licence. "
    "Cranes stop in high wind.\n\n"
    "# Food\n\nThe canteen opens at seven. Soup is served at noon. Coffee is free for crew."
)


def _hash_inputs(text: str, query: str) -> policies.QueryInputs:
    doc = document_from_text("qasc.md", text)
    chunks = [Chunk(i, s, e, text[s:e]) for i, (s, e) in enumerate(paragraph_spans(text))]
    emb = HashEmbedder(64)
    unit, q = emb.embed([c.text for c in chunks]), emb.embed([query])[0]
    return policies.QueryInputs(
        *(doc, chunks, unit, query, q, unit @ q, GateParams(k=1)),
        embed=emb.embed,
        doc_of=chunk_doc_of(doc, chunks),
    )


def test_qasc_policy_is_the_qasc_steps_on_the_documents_sentences():
    inputs = _hash_inputs(QASC_TEXT, "when is the crane inspected by the operator")
    res = policies.run_policy("qasc", inputs, percentile=90, window_m=0, snap_chars=0)
    sentences = sentence_spans(QASC_TEXT)
    scores = sentence_scores(inputs.embed([QASC_TEXT[s:e] for s, e in sentences]), inputs.query_vec)
    ref = qasc_select(
        sentences,
        scores,
        paragraph_spans(QASC_TEXT),
        QascParams(percentile=90, window_m=0, snap_chars=0, top_k=inputs.params.k),
        doc_of=one_file(len(sentences)),
    )
    assert res.spans == ref.spans
    every = policies.run_policy(
        "qasc", inputs, percentile=90, window_m=0, snap_chars=0, all_windows=True
    )
    literal = qasc_select(
        sentences,
        scores,
        paragraph_spans(QASC_TEXT),
        QascParams(percentile=90, window_m=0, snap_chars=0),
        doc_of=one_file(len(sentences)),
    )
    assert every.spans == literal.spans
    assert len(res.spans) == inputs.params.k < len(every.spans)  # top k of the QASC chunks
    assert res.chunk_ids is None
    inspected = QASC_TEXT.index("The crane is inspected")
    assert any(s <= inspected < e for s, e in res.spans)
    assert not any(s <= QASC_TEXT.index("Soup") < e for s, e in res.spans)
    assert "seeds" in res.notes[0]


def test_qasc_snapping_returns_whole_paragraphs():
    inputs = _hash_inputs(QASC_TEXT, "when is the crane inspected by the operator")
    res = policies.run_policy("qasc", inputs, percentile=90, window_m=0, snap_chars=10_000)
    para = next(
        p for p in paragraph_spans(QASC_TEXT) if "crane is inspected" in QASC_TEXT[slice(*p)]
    )
    assert para in res.spans


def test_qasc_says_so_when_it_keeps_nothing():
    inputs = _hash_inputs(QASC_TEXT, "?!")  # no words: a zero query vector, every s_i = 0
    res = policies.run_policy("qasc", inputs)
    assert res.spans == () and res.context == ""
    assert any("sends nothing" in n for n in res.notes)


def test_qasc_needs_the_embedding_model():
    doc, chunks = _synthetic()
    inputs = policies.QueryInputs(
        *(doc, chunks, np.eye(8, 2), "q", np.ones(2), np.ones(8), GateParams(k=1)),
        doc_of=chunk_doc_of(doc, chunks),
    )
    with pytest.raises(ValueError, match="embedding model"):
        policies.run_policy("qasc", inputs)


def test_run_policy_rejects_a_knob_the_policy_does_not_take():
    with pytest.raises(ValueError, match="does not take percentile"):
        policies.run_policy("scar", _inputs(), percentile=50)
    with pytest.raises(ValueError, match="Unknown policy"):
        policies.run_policy("nope", _inputs())


def test_every_policy_is_registered_and_listed_once():
    assert set(policies.ALL_ORDER) == set(policies.POLICIES) and len(policies.ALL_ORDER) == len(
        policies.POLICIES
    )
    assert policies.ALL_ORDER[: len(policies.ORDER)] == policies.ORDER
    assert list(policies.POLICIES) == list(policies.ALL_ORDER)


def test_each_policy_keeps_its_names_and_knobs():
    assert policies.ORDER == ("topk", "window", "parent", "rerank", "scar", "qasc")
    assert policies.ALTERNATIVES == (
        "qasc-hybrid",
        "rse",
        "automerge",
        "sentence-window",
        "learned",
    )
    assert policies.policy_knobs("window") == ("w",)
    assert policies.policy_knobs("learned") == ("gate", "p")
    qasc, hybrid = policies.policy_knobs("qasc"), policies.policy_knobs("qasc-hybrid")
    assert qasc[-3:] == ("max_seeds", "splitter", "all_windows")
    assert "max_seeds" not in hybrid and hybrid[-2:] == ("margin", "splitter")


# --- invariants on random vectors ---------------------------------------------------------------


@st.composite
def random_inputs(draw):
    n = draw(st.integers(1, 25))
    d = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    vecs = rng.normal(size=(n, d))
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    q = rng.normal(size=d)
    q /= np.linalg.norm(q)
    lengths = rng.integers(5, 40, size=n)
    overlap = draw(st.integers(0, 4))
    text = "".join(chr(97 + i % 26) * int(L) for i, L in enumerate(lengths))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    chunks = [
        Chunk(i, max(0, int(s) - overlap), int(s + L), text[max(0, int(s) - overlap) : int(s + L)])
        for i, (s, L) in enumerate(zip(starts, lengths, strict=True))
    ]
    cuts = sorted(set(rng.integers(1, len(text), size=draw(st.integers(0, 5))).tolist()))
    bounds = [0, *cuts, len(text)]
    sections = tuple(
        Section(a, b, (f"S{i}",), 1)
        for i, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False))
    )
    doc = Document("random.txt", text, sections, parts=whole("random.txt", text))
    k = draw(st.integers(1, n))
    radius = draw(st.integers(1, 3))
    lam = draw(st.floats(0, 2))
    tau = draw(st.floats(0, 1.5))
    return policies.QueryInputs(
        *(doc, chunks, vecs, "q", q, vecs @ q, GateParams(k, lam, tau, radius)),
        doc_of=chunk_doc_of(doc, chunks),
    )


def _covers(outer: policies.PolicyResult, inner: policies.PolicyResult) -> bool:
    return not subtract_spans(inner.spans, outer.spans)


@settings(max_examples=150, deadline=None)
@given(random_inputs())
def test_topk_within_scar_within_window(inputs):
    topk = policies.run_policy("topk", inputs)
    scar = policies.run_policy("scar", inputs)
    win = policies.run_policy("window", inputs, w=inputs.params.radius)
    assert set(topk.chunk_ids) <= set(scar.chunk_ids) <= set(win.chunk_ids)
    assert _covers(scar, topk) and _covers(win, scar)
    assert topk.chars <= scar.chars <= win.chars


@settings(max_examples=150, deadline=None)
@given(random_inputs())
def test_parent_covers_topk(inputs):
    topk = policies.run_policy("topk", inputs)
    parent = policies.run_policy("parent", inputs)
    assert _covers(parent, topk)
    assert set(topk.chunk_ids) <= set(parent.chunk_ids)


# --- the real default model, once ---------------------------------------------------------------


@pytest.mark.model
def test_five_offline_policies_with_the_default_model_on_the_sample():
    from scar_viz.documents import samples
    from scar_viz.embeddings import EmbeddingCache, default_embedder
    from scar_viz.pipeline import embed_query, prepare_document, query_inputs

    embedder, cache = default_embedder(), EmbeddingCache()
    prep = prepare_document(samples.load_sample(), embedder, cache=cache)
    question = samples.sample_questions()[0]
    qvec = embed_query(embedder, question["query"], cache)
    inputs = query_inputs(
        prep, question["query"], qvec, GateParams(k=3), embedder=embedder, cache=cache
    )
    results = policies.run_all(inputs, {name: {} for name in policies.ORDER if name != "rerank"})
    assert all(isinstance(r, policies.PolicyResult) for r in results.values()), results
    qasc = results["qasc"]
    sentences = sentence_spans(prep.document.text)
    best = sentences[int(np.argmax(qasc.detail.scores))]
    assert not subtract_spans([best], qasc.spans)  # the best sentence is a seed, its window kept
    evidence = [(e["start"], e["end"]) for e in question["evidence"]]
    assert intersect_spans(evidence, results["scar"].spans)
    assert intersect_spans(evidence, qasc.spans)


def test_inputs_top_is_top_k_and_sorts_once_per_query():
    """QueryInputs.top(k) equals scoring.scar.top_k on the ranking for every k (ties to the
    lower index), and keeps one sort in the memo that copies at other k share."""
    from dataclasses import replace

    import numpy as np

    from scar_viz.policies.base import QueryInputs
    from scar_viz.scoring.scar import top_k

    rng = np.random.default_rng(3)
    sims = np.round(rng.random(40), 1)  # many ties
    inputs = QueryInputs(None, [], np.zeros((40, 2)), "q", np.zeros(2), sims, doc_of=np.zeros(40))
    for k in (0, 1, 3, 10, 39, 40, 55):
        assert inputs.top(k) == top_k(sims, k), k
    assert len(inputs.memo) == 1
    ranked = replace(inputs, ranking=-sims, memo={})  # another ranking, its own memo
    assert ranked.top(5) == top_k(-sims, 5)
