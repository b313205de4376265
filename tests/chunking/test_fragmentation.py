"""Fragmentation statistics on a hand-built document, and against gold chunks on random data."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import ChunkingConfig
from scar_viz.chunking.fragmentation import (
    cut_mask,
    cut_stats,
    document_units,
    fragmentation_grid,
    in_characters,
    in_own_units,
    pieces,
)
from scar_viz.documents.reading import document_from_text
from scar_viz.queries.gold import covering_run
from scar_viz.queries.reading import evidence_units

# 0         1         2         3
# 0123456789012345678901234567890123456789
TEXT = "aaaa bbbb. cccc dddd. eeee ffff. gggg hh"
CHUNKS = [(0, 10), (8, 21), (22, 32), (33, 40)]


def test_hand_built_pieces():
    units = [
        (0, 10),  # inside chunk 0
        (11, 21),  # inside chunk 1
        (5, 15),  # chunks 0 and 1 (overlap 8-10 does not hold all of it)
        (8, 10),  # in the overlap: one chunk suffices
        (16, 36),  # chunks 1, 2, 3
        (21, 22),  # whitespace only: whole
        (20, 23),  # ". e" spans chunks 1 and 2 (the space between belongs to none)
    ]
    assert pieces(TEXT, CHUNKS, units).tolist() == [1, 1, 2, 1, 3, 1, 2]
    assert cut_mask(TEXT, CHUNKS, units).tolist() == [False, False, True, False, True, False, True]


def test_pieces_match_covering_run_on_random_chunkings():
    rng = np.random.default_rng(0)
    text = "".join(rng.choice(list("abc  \n"), size=2000))
    for _ in range(20):
        cuts = np.sort(rng.choice(np.arange(1, 2000), size=15, replace=False))
        bounds = [0, *cuts.tolist(), 2000]
        spans = []
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            earliest = spans[-1][0] + 1 if spans else 0  # starts stay increasing
            spans.append((max(earliest, a - int(rng.integers(0, 30))), b))  # random overlap
        chunks = [Chunk(i, s, e, text[s:e]) for i, (s, e) in enumerate(spans)]
        units = []
        for _ in range(50):
            s = int(rng.integers(0, 1990))
            units.append((s, int(rng.integers(s + 1, min(2000, s + 400)))))
        units = [u for u in units if text[u[0] : u[1]].strip()]
        expected = [b - a + 1 for a, b in (covering_run(text, chunks, s, e) for s, e in units)]
        assert pieces(text, spans, units).tolist() == expected


def _document():
    paragraphs = [
        "The first rule is short. It has two sentences.",
        "The second paragraph is longer and runs on for a while. " * 4,
        "Exceptions apply when the harbour master says so. Then the rule is void.",
    ]
    return document_from_text("hand.md", "\n\n".join(p.strip() for p in paragraphs))


def test_document_units_are_sentences_and_paragraphs():
    doc = _document()
    paragraphs = document_units(doc, "paragraph")
    sentences = document_units(doc, "sentence")
    assert len(paragraphs) == 3 and len(sentences) == 8
    assert doc.text[paragraphs[0][0] : paragraphs[0][1]].startswith("The first rule")
    with pytest.raises(ValueError, match="query set"):
        document_units(doc, "evidence")


def test_cut_stats_on_the_hand_built_document():
    doc = _document()
    paragraphs = document_units(doc, "paragraph")
    whole = cut_stats(doc, ChunkingConfig("section", 5000, 0), paragraphs)
    assert whole.n_chunks == 1 and whole.n_cut == 0 and whole.rate == 0.0
    tiny = cut_stats(doc, ChunkingConfig("fixed", 30, 0), paragraphs)
    assert tiny.n_cut == 3 and tiny.rate == 1.0
    by_sentence = cut_stats(doc, ChunkingConfig("sentence", 80, 0), document_units(doc, "sentence"))
    assert by_sentence.n_cut == 0  # sentence packing never cuts a sentence


def test_evidence_units_from_a_query_set():
    doc = _document()
    start = doc.text.index("Exceptions")
    end = doc.text.index("void.") + len("void.")
    rows = [
        {
            "id": "q1",
            "query": "When is the rule void?",
            "evidence": [{"text": doc.text[start:end], "start": start, "end": end}],
        },
        {
            "id": "q2",
            "query": "bad",
            "evidence": [{"text": "not in the document", "start": 0, "end": 3}],
        },
    ]
    units, issues = evidence_units("\n".join(json.dumps(r) for r in rows), doc)
    assert units == [(start, end)]
    assert len(issues) == 1 and "does not occur" in issues[0]


def test_grid_shape_invalid_cells_and_monotone_extremes():
    doc = _document()
    units = document_units(doc, "sentence")
    grid = fragmentation_grid(
        doc, "fixed", units, "sentence", sizes=(20, 60, 1000), overlaps=(0, 40)
    )
    assert grid.rates.shape == (3, 2)
    assert np.isnan(grid.rates[0, 1])  # overlap 40 >= size 20
    assert grid.rates[0, 0] == 1.0  # 20-character windows cut every sentence here
    assert grid.rates[2, 0] == 0.0  # one window holds the whole document


def test_token_sizes_are_converted():
    doc = _document()
    grid = fragmentation_grid(
        doc, "tokens", document_units(doc, "paragraph"), "paragraph", sizes=(400,), overlaps=(40,)
    )
    assert grid.scale > 1 and grid.sizes[0] == round(400 / grid.scale)
    cfg = in_own_units("tokens", 600, 60, 4.0)
    assert (cfg.size, cfg.overlap) == (150, 15)
    assert in_characters(cfg, 4.0) == (600, 60)
    assert in_characters(ChunkingConfig("fixed", 300, 30), 4.0) == (300, 30)


def test_a_corpus_sentence_units_and_the_sentence_chunker_split_each_file_once(monkeypatch):
    from scar_viz.chunking.config import chunk_spans
    from scar_viz.documents import sentences
    from scar_viz.documents.corpus import join_documents

    files = ["The first file. It has two sentences.", "The second file. It ends here."]
    corpus = join_documents([document_from_text(f"{i}.md", t) for i, t in enumerate(files)])
    calls: list[str] = []
    real = sentences._split
    monkeypatch.setattr(sentences, "_split", lambda t, *a: calls.append(t) or real(t, *a))
    sentences._memo.clear()
    units = document_units(corpus, "sentence")
    chunk_spans(corpus, ChunkingConfig("sentence", 200, 20))  # cuts file by file
    assert sorted(calls) == sorted(files)  # pysbd ran once on each file, never on the whole
    assert len(units) == 4
