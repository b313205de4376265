"""Compare: evidence held by each policy's context, and spans counted as a reader sees them."""

from __future__ import annotations

import pytest

from scar_viz.chunking.config import chunk_document
from scar_viz.common.fmt import EMPTY_CELL
from scar_viz.common.spans import merge_spans
from scar_viz.documents import samples
from scar_viz.policies.base import PolicyResult, spans_of_chunks
from scar_viz.views.coverage import (
    EvidenceCover,
    coverage_cells,
    display_rows,
    evidence_coverage,
    span_count,
    text_runs,
)

TEXT = "alpha beta\n\ngamma delta\n\nepsilon zeta"
#       0    5   10  12   17   23  25      33 37


def test_text_runs_merge_across_whitespace_only():
    spans = [(0, 10), (12, 23), (25, 37)]
    assert merge_spans(spans) == tuple(spans)  # unchanged semantics: three ranges
    assert text_runs(spans, TEXT) == ((0, 37),)
    assert span_count([(0, 10), (25, 37)], TEXT) == 2  # "gamma delta" lies between
    assert text_runs([(12, 23), (0, 5), (3, 10)], TEXT) == ((0, 23),)
    assert text_runs([], TEXT) == () and text_runs([(4, 4)], TEXT) == ()


def test_seven_sample_chunks_in_three_runs_are_three_spans():
    doc = samples.load_sample()
    chunks = chunk_document(doc)
    # chunks 1-3 are separated by blank lines only; 14-17 likewise; 40 stands alone
    ids = [1, 2, 3, 14, 15, 16, 40]
    spans = spans_of_chunks(chunks, ids)
    assert len(spans) > 3  # what the cost table counted before
    assert span_count(spans, doc.text) == 3


def test_evidence_coverage_full_partial_none():
    evidence = [(12, 23)]  # "gamma delta": 10 non-whitespace characters
    assert evidence_coverage([(0, 37)], evidence, TEXT).status == "full"
    half = evidence_coverage([(12, 17)], evidence, TEXT)  # "gamma"
    assert (half.covered, half.total, half.status, half.label) == (
        5,
        10,
        "partial",
        "partial (50%)",
    )
    assert evidence_coverage([(0, 10), (25, 37)], evidence, TEXT).label == "none"
    # whitespace in the evidence is not needed: "gamma" + "delta" without the space is full
    assert evidence_coverage([(12, 17), (18, 23)], evidence, TEXT).status == "full"
    # several evidence spans: one held, one not
    both = evidence_coverage([(0, 10)], [(0, 5), (25, 32)], TEXT)
    assert both.status == "partial" and both.share == pytest.approx(5 / 12)


def test_partial_never_shows_100_or_0():
    assert EvidenceCover(999, 1000).label == "partial (99%)"
    assert EvidenceCover(1, 1000).label == "partial (<1%)"
    assert EvidenceCover(0, 0).status == "none"


def test_coverage_cells_and_display_rows_never_show_none():
    ok = PolicyResult("scar", ((0, 37),), (0, 1, 2), TEXT, 37, 8, 0.001)
    cells = coverage_cells({"scar": ok, "rerank": "could not load"}, [(12, 23)], TEXT)
    assert cells == {"scar": "full", "rerank": EMPTY_CELL}
    rows = display_rows([{"policy": "rerank", "spans": None, "jaccard": 0.123456}])
    assert rows == [{"policy": "rerank", "spans": EMPTY_CELL, "jaccard": 0.123}]
    assert "None" not in str(rows)
