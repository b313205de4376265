"""Parent retrieval never sends a section over its cap: it cuts at sub-headings, else to a
window of chunks around the retrieved ones, and says which."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scar_viz import policies
from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import chunk_doc_of
from scar_viz.documents.reading import Document, document_from_text
from scar_viz.documents.sentences import paragraph_spans
from scar_viz.policies.parent import (
    MAX_PARENT_CHARS,
    SECTION,
    SUB_HEADING,
    WINDOW,
    ParentPart,
)
from scar_viz.scoring.params import GateParams
from tests.conftest import run_cli
from tests.policies.test_policies import _inputs

RECITAL = (
    "({n}) The processing of personal data should be designed to serve mankind, and the "
    "controller should be able to show that the data subject has consented to processing "
    "operation number {n}."
)
ARTICLE = (
    "Article {n}\nObligations of type {n}\n\n"
    "1. The controller shall keep a record of processing activity {n} under its "
    "responsibility.\n\n"
    "2. The record shall be in writing, including in electronic form, and made available to "
    "the supervisory authority on request, for obligation {n}.\n\n"
)


def long_regulation(recitals: int = 120, articles: int = 40) -> str:
    """A regulation from repeated hand-made parts: a long recitals block (one section, no
    sub-headings) and chapters of short articles."""
    head = "REGULATION OF THE HARBOUR COUNCIL\n\nWhereas:\n\n"
    body = "\n\n".join(RECITAL.format(n=n) for n in range(1, recitals + 1))
    parts = [head, body, "\n\nHAVE ADOPTED THIS REGULATION:\n\n"]
    for n in range(1, articles + 1):
        if n % 10 == 1:
            parts.append(f"CHAPTER {n // 10 + 1}\nGeneral rules {n // 10 + 1}\n\n")
        parts.append(ARTICLE.format(n=n))
    return "".join(parts)


def _paragraph_inputs(doc: Document, best: list[int], k: int) -> policies.QueryInputs:
    """One chunk a paragraph; the chunks in ``best`` get the highest cosines, in that order."""
    spans = paragraph_spans(doc.text)
    chunks = [
        Chunk(i, s, e, doc.text[s:e], doc.section_at(s).path) for i, (s, e) in enumerate(spans)
    ]
    sims = np.linspace(0.1, 0.0, len(chunks))
    for rank, c in enumerate(best):
        sims[c] = 0.9 - 0.01 * rank
    unit = np.eye(len(chunks))
    doc_of = chunk_doc_of(doc, chunks)
    return policies.QueryInputs(
        doc, chunks, unit, "q", unit[0], sims, GateParams(k=k), doc_of=doc_of
    )


def _per_section(doc: Document, spans) -> dict[int, int]:
    """Characters sent from each section of ``doc``."""
    out: dict[int, int] = {}
    for i, sec in enumerate(doc.sections):
        n = sum(max(0, min(e, sec.end) - max(s, sec.start)) for s, e in spans)
        if n:
            out[i] = n
    return out


def test_a_short_section_is_sent_whole():
    inputs = _inputs(k=2)
    res = policies.run_policy("parent", inputs)
    assert [p.how for p in res.detail] == [SECTION, SECTION]
    assert not res.notes


def test_a_section_over_the_cap_becomes_a_window_of_chunks():
    inputs = _inputs(k=1)  # the top chunk is 6, in section C (chunks 6 and 7)
    sec_c = inputs.document.sections[2]
    res = policies.run_policy("parent", inputs, huge_chars=80)
    (part,) = res.detail
    assert part == ParentPart(2, inputs.chunks[6].start, inputs.chunks[6].end, WINDOW)
    assert sec_c.end - sec_c.start > 80
    assert any("over the 80-character cap" in n and "window" in n for n in res.notes)
    assert res.chunk_ids == (6,)


def test_the_window_grows_around_the_chunk_up_to_the_cap():
    doc = document_from_text("r.txt", long_regulation(recitals=30, articles=1))
    recitals = next(i for i, s in enumerate(doc.sections) if s.title == "Recitals")
    inputs = _paragraph_inputs(doc, [15], k=1)
    res = policies.run_policy("parent", inputs, huge_chars=1000)
    (part,) = res.detail
    assert part.how == WINDOW and part.section == recitals
    assert part.end - part.start <= 1000
    assert part.start <= inputs.chunks[15].start and inputs.chunks[15].end <= part.end
    assert len(res.chunk_ids) >= 4  # ~180-character recitals: several fit
    assert part.end - part.start + 190 > 1000  # one more recital would not have fitted


def test_a_parent_level_is_cut_at_its_sub_headings():
    doc = document_from_text("r.txt", long_regulation(recitals=2, articles=12))
    article = next(i for i, s in enumerate(doc.sections) if s.title.startswith("Article 3 "))
    first = doc.sections[article].start
    chunk = next(i for i, (s, _) in enumerate(paragraph_spans(doc.text)) if s > first)
    inputs = _paragraph_inputs(doc, [chunk], k=1)
    whole = policies.run_policy("parent", inputs, level=1, huge_chars=10**6)
    assert whole.detail[0].how == SECTION and whole.chars > 2000  # the whole chapter
    res = policies.run_policy("parent", inputs, level=1, huge_chars=1000)
    (part,) = res.detail
    sec = doc.sections[article]
    assert part == ParentPart(article, sec.start, sec.end, SUB_HEADING)
    assert any("sent its sub-section" in n and "Article 3" in n for n in res.notes)


@pytest.mark.parametrize("best", [[5, 6, 7, 60, 61], [1, 40, 80, 118, 119], [130, 131, 150]])
def test_no_section_sends_more_than_the_cap(best):
    doc = document_from_text("r.txt", long_regulation())
    inputs = _paragraph_inputs(doc, best, k=len(best))
    res = policies.run_policy("parent", inputs)
    for i, sent in _per_section(doc, res.spans).items():
        assert sent <= MAX_PARENT_CHARS, (doc.sections[i].label, sent)
    for c in best:  # the retrieved chunks are always in the context
        assert any(s <= inputs.chunks[c].start and inputs.chunks[c].end <= e for s, e in res.spans)


def test_select_parent_on_a_long_regulation_stays_under_the_cap(tmp_path):
    text = long_regulation()
    path = tmp_path / "regulation.txt"
    path.write_text(text, encoding="utf-8")
    doc = document_from_text("regulation.txt", text)
    recitals = next(s for s in doc.sections if s.title == "Recitals")
    assert recitals.end - recitals.start > 5 * MAX_PARENT_CHARS
    question = "processing operation 60 consented by the data subject"
    proc = run_cli(
        "select",
        str(path),
        "--query",
        question,
        "--policy",
        "parent",
        "--model",
        "hash",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for i, sent in _per_section(doc, out["spans"]).items():
        assert sent <= MAX_PARENT_CHARS, (doc.sections[i].label, sent)
    assert any("cap" in n for n in out["notes"])


def test_chunks_inside_spans_by_bisection_matches_the_plain_scan():
    from scar_viz.chunking.base import Chunk
    from scar_viz.policies.parent import _chunks_inside

    chunks = [
        Chunk(i, s, e, "")
        for i, (s, e) in enumerate([(0, 5), (4, 9), (10, 20), (20, 21), (25, 40), (39, 41)])
    ]
    for spans in [
        ((0, 9),),
        ((3, 21), (25, 41)),
        ((10, 20),),
        (),
        ((0, 100),),
        ((5, 10), (20, 30)),
    ]:
        plain = [c.index for c in chunks if any(s <= c.start and c.end <= e for s, e in spans)]
        assert _chunks_inside(chunks, spans) == plain
