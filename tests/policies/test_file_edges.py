"""In a corpus no policy reaches past the edge of a retrieved chunk's file.

A hand-built corpus of two short files whose vectors make the last chunk of ``a.md`` and the
first chunk of ``b.md`` look alike and relevant. On the same text concatenated into one
document every neighbour policy admits text of the other file (so each test can fail); on the
corpus it does not.
"""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz import policies
from scar_viz.chunking.config import ChunkingConfig, chunk_doc_of, chunk_document
from scar_viz.common.spans import Span
from scar_viz.documents.corpus import join_documents, part_document
from scar_viz.documents.reading import Document, Part, document_from_text
from scar_viz.policies.parent import SECTION, section_span
from scar_viz.scoring.params import GateParams
from tests.conftest import ROOT

A_TEXT = (
    "# Alpha\n\nThe harbour gate opens at dawn. Boats wait in line.\n\n"
    "## Tides\n\nTides rise twice a day here. The pilot reads the tables.\n\n"
    "# Quay\n\nShips moor at the north quay. The crane lifts the crates."
)
B_TEXT = (
    "Crates go to the store at noon. Clerks count every box.\n\n"
    "# Beta\n\nThe store closes at night. Guards walk the yard.\n\n"
    "Keys hang by the door. The last guard locks it."
)
CONFIG = ChunkingConfig("recursive", 60, 0)
LAST_A, FIRST_B = 4, 5
"""The last chunk of a.md and the first of b.md (test_the_corpus_is_what_the_tests_assume)."""

HIT = "The crane lifts the crates."
NEXT = "Crates go to the store at noon."
"""The best sentence (a.md's last) and the first sentence of b.md, scored just below it."""


def _corpus() -> Document:
    return join_documents([document_from_text("a.md", A_TEXT), document_from_text("b.md", B_TEXT)])


def _flat() -> Document:
    """The same text as one document: what concatenating the files gives."""
    return document_from_text("concatenated.md", _corpus().text)


def _sentence_embed(texts: list[str]) -> np.ndarray:
    """2-d sentence vectors: cos with the query (1, 0) is 1 for HIT, 0.9 for NEXT, and small,
    distinct values for every other sentence."""
    out = []
    for t in texts:
        s = 1.0 if t == HIT else 0.9 if t == NEXT else 0.1 + (sum(map(ord, t)) % 97) / 400
        out.append([s, np.sqrt(1 - s * s)])
    return np.array(out)


def _inputs(doc: Document, best: list[int], k: int = 1) -> policies.QueryInputs:
    """The corpus' chunks on ``doc``: the chunks in ``best`` get the highest cosines, in that
    order, and LAST_A and FIRST_B share one vector (nothing separates them but the file edge)."""
    chunks = chunk_document(_corpus(), CONFIG)
    n = len(chunks)
    unit = np.eye(n)
    unit[FIRST_B] = unit[LAST_A]
    sims = np.linspace(0.1, 0.0, n)
    for rank, c in enumerate(best):
        sims[c] = 0.9 - 0.02 * rank
    params = GateParams(k=k, lam=0.5, tau=0.5, radius=1)
    query = np.array([1.0, 0.0])
    doc_of = chunk_doc_of(doc, chunks)
    return policies.QueryInputs(
        doc, chunks, unit, "q", query, sims, params, _sentence_embed, doc_of=doc_of
    )


def _part_of(corpus: Document, span: Span) -> int | None:
    """The file wholly holding ``span``, or None when it crosses a file edge."""
    for i, p in enumerate(corpus.parts):
        if p.start <= span[0] and span[1] <= p.end:
            return i
    return None


def _files(res: policies.PolicyResult) -> list[int | None]:
    return [_part_of(_corpus(), s) for s in res.spans]


def _chunk_files(inputs: policies.QueryInputs, res: policies.PolicyResult) -> set[int]:
    corpus = _corpus()
    return {corpus.part_index_at(inputs.chunks[i].start) for i in res.chunk_ids}


def test_the_corpus_is_what_the_tests_assume():
    corpus = _corpus()
    chunks = chunk_document(corpus, CONFIG)
    assert len(corpus.parts) == 2 and len(chunks) == 8
    ends = [corpus.part_index_at(c.start) for c in chunks]
    assert ends == [0, 0, 0, 0, 0, 1, 1, 1]
    assert chunks[LAST_A].text.endswith(HIT) and chunks[FIRST_B].text.startswith(NEXT)
    # concatenated, b.md's opening paragraph belongs to a.md's last section
    flat = _flat()
    assert flat.section_at(chunks[FIRST_B].start).title == "Quay"
    # in the corpus it opens b.md's own front matter, which its label names by the file
    assert corpus.section_at(chunks[FIRST_B].start).path == ()
    assert chunks[FIRST_B].section == ("b.md",)


FIVE_FEATURE_GATE = ROOT / "tests" / "scoring" / "learned" / "data" / "five_feature_gate.json"


@pytest.mark.parametrize("name", ["window", "scar", "learned"])
@pytest.mark.parametrize(("hit", "other"), [(LAST_A, FIRST_B), (FIRST_B, LAST_A)])
def test_neighbour_policies_stop_at_the_file_edge(name, hit, other):
    # the learned policy with the five-feature gate, which admits across the seam when the
    # files are concatenated (the words of these tiny files say nothing)
    knobs = {"gate": FIVE_FEATURE_GATE} if name == "learned" else {}
    flat = policies.run_policy(name, _inputs(_flat(), [hit, other]), **knobs)
    assert other in flat.chunk_ids  # concatenated: the other file's chunk is admitted
    inputs = _inputs(_corpus(), [hit, other])
    res = policies.run_policy(name, inputs, **knobs)
    assert hit in res.chunk_ids and other not in res.chunk_ids
    own = _corpus().part_index_at(inputs.chunks[hit].start)
    assert _chunk_files(inputs, res) == {own} and set(_files(res)) == {own}


def test_window_still_widens_inside_the_file():
    inputs = _inputs(_corpus(), [LAST_A])
    assert policies.run_policy("window", inputs).chunk_ids == (LAST_A - 1, LAST_A)
    assert policies.run_policy("window", _inputs(_corpus(), [FIRST_B])).chunk_ids == (
        FIRST_B,
        FIRST_B + 1,
    )


def test_parent_stops_at_the_file_edge():
    flat = policies.run_policy("parent", _inputs(_flat(), [LAST_A]))
    assert None in _files(flat)  # concatenated: the section runs on into b.md's opening
    res = policies.run_policy("parent", _inputs(_corpus(), [LAST_A]))
    assert _files(res) == [0]
    (part,) = res.detail
    assert part.how == SECTION and part.end == _corpus().parts[0].end


def test_parent_levels_mean_in_a_corpus_what_they_mean_in_one_file():
    corpus = _corpus()
    alone = part_document(corpus, 0)
    tides = 2  # chunk 2 lies under "# Alpha > ## Tides"
    assert corpus.section_at(_inputs(corpus, [tides]).chunks[tides].start).path == (
        "Alpha",
        "Tides",
    )
    for level in (0, 1, 2):
        res = policies.run_policy("parent", _inputs(corpus, [tides]), level=level)
        chunks = chunk_document(alone, CONFIG)
        sims = np.linspace(0.1, 0.0, len(chunks))
        sims[tides] = 0.9
        own = policies.QueryInputs(
            *(alone, chunks, np.eye(len(chunks)), "q", np.ones(1), sims, GateParams(k=1)),
            doc_of=chunk_doc_of(alone, chunks),
        )
        ref = policies.run_policy("parent", own, level=level)
        assert res.spans == ref.spans, level
    # level 1 is the "# Alpha" section, not the whole of a.md
    top = policies.run_policy("parent", _inputs(corpus, [tides]), level=1)
    assert top.spans[0][1] < corpus.parts[0].end


def test_parent_window_under_the_cap_stays_in_the_file():
    res = policies.run_policy("parent", _inputs(_corpus(), [FIRST_B]), huge_chars=120)
    assert set(_files(res)) == {1}
    flat = policies.run_policy("parent", _inputs(_flat(), [FIRST_B]), huge_chars=120)
    assert None in _files(flat) or 0 in _files(flat)


def test_rse_segments_lie_inside_one_file():
    flat = policies.run_policy("rse", _inputs(_flat(), [LAST_A, FIRST_B]))
    assert any(s.start <= LAST_A and s.end > FIRST_B for s in flat.detail.segments)
    res = policies.run_policy("rse", _inputs(_corpus(), [LAST_A, FIRST_B]))
    assert not any(s.start <= LAST_A and s.end > FIRST_B for s in res.detail.segments)
    assert None not in _files(res) and {LAST_A, FIRST_B} <= set(res.chunk_ids)


def test_automerge_fills_no_gap_across_files():
    # retrieved: a.md's last chunk and b.md's second; concatenated, b.md's first fills the gap
    flat = policies.run_policy("automerge", _inputs(_flat(), [LAST_A, FIRST_B + 1], k=2))
    assert FIRST_B in flat.chunk_ids and None in _files(flat)
    res = policies.run_policy("automerge", _inputs(_corpus(), [LAST_A, FIRST_B + 1], k=2))
    assert FIRST_B not in res.chunk_ids and res.detail.filled == ()
    assert None not in _files(res)  # a.md's merged "Quay" section stops at the file's end


def _sentence_text(doc: Document, res: policies.PolicyResult) -> str:
    return " ".join(doc.text[s:e] for s, e in res.spans)


def test_sentence_window_stops_at_the_file_edge():
    flat = policies.run_policy("sentence-window", _inputs(_flat(), [LAST_A]), w=1)
    assert NEXT in _sentence_text(_flat(), flat) and None in _files(flat)
    res = policies.run_policy("sentence-window", _inputs(_corpus(), [LAST_A]), w=1)
    assert _files(res) == [0] and HIT in _sentence_text(_corpus(), res)
    assert res.detail == ((7, 8),)  # "Ships moor …" and HIT, not b.md's first sentence


QASC_KNOBS = {"percentile": 99.0, "window_m": 1, "keep_ratio": 0.0, "decay": 0.0}


@pytest.mark.parametrize("name", ["qasc", "qasc-hybrid"])
def test_qasc_windows_stop_at_the_file_edge(name):
    flat = policies.run_policy(name, _inputs(_flat(), [LAST_A]), **QASC_KNOBS)
    assert NEXT in _sentence_text(_flat(), flat) and None in _files(flat)
    res = policies.run_policy(name, _inputs(_corpus(), [LAST_A]), **QASC_KNOBS)
    assert _files(res) == [0] and HIT in _sentence_text(_corpus(), res)
    assert NEXT not in _sentence_text(_corpus(), res)


def test_a_one_file_corpus_is_the_document():
    doc = document_from_text("a.md", A_TEXT)
    one = join_documents([doc])
    assert one == doc and not one.several_files and one.parts == (Part("a.md", 0, len(A_TEXT)),)
    chunks = chunk_document(doc, CONFIG)
    assert chunk_document(one, CONFIG) == chunks
    n = len(chunks)
    sims = np.linspace(0.9, 0.1, n)
    for name in ("window", "scar", "parent", "rse", "automerge", "sentence-window", "qasc"):
        got = [
            policies.run_policy(
                name,
                policies.QueryInputs(
                    *(d, chunks, np.eye(n), "q", np.array([1.0, 0.0]), sims),
                    embed=_sentence_embed,
                    doc_of=chunk_doc_of(d, chunks),
                ),
            )
            for d in (doc, one)
        ]
        assert got[0].spans == got[1].spans and got[0].context == got[1].context, name


def test_an_ancestor_stops_at_its_file_when_the_next_file_has_the_same_heading():
    # section paths hold the headings inside a file only: the file is the part, so two files
    # with the same top heading must not join into one ancestor
    a = document_from_text("a.md", "# Guide\n\nAlpha intro.\n\n## One\n\nAlpha one.\n")
    b = document_from_text("b.md", "# Guide\n\nBeta intro.\n\n## Two\n\nBeta two.\n")
    corpus = join_documents([a, b])
    assert [s.path for s in corpus.sections] == [
        ("Guide",),
        ("Guide", "One"),
        ("Guide",),
        ("Guide", "Two"),
    ]
    one, two = 1, 3
    assert section_span(corpus, one, 1) == (0, corpus.parts[1].start)
    assert section_span(corpus, two, 1) == (corpus.parts[1].start, len(corpus.text))
    assert section_span(corpus, two, 0) == (corpus.sections[two].start, len(corpus.text))
