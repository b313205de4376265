"""Recall, chunk coverage, summaries, and miss reasons."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.base import Chunk
from scar_viz.common.edges import one_file
from scar_viz.evaluation.metrics import (
    NEVER_REACHED,
    QueryOutcome,
    chunk_coverage,
    chunk_equivalents,
    chunk_recall,
    coverage_misses,
    coverage_recall,
    miss_reasons,
    summarise,
    summarise_subsets,
)
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import scar_select


def outcome(recall, chunks, tokens=10, fragmented=False):
    kind = "fragmented" if fragmented else "atomic"
    return QueryOutcome("q", kind, (1,), (1,), recall, chunks, tokens, ())


def test_chunk_recall_hand_computed():
    assert chunk_recall([3, 4], [1, 2, 3]) == 0.5
    assert chunk_recall([3, 4], [3, 4, 5]) == 1.0
    assert chunk_recall([3], []) == 0.0
    with pytest.raises(ValueError, match="gold chunk"):
        chunk_recall([], [1])


def test_summary_efficiency_is_mean_recall_over_mean_chunks():
    s = summarise([outcome(1.0, 2), outcome(0.5, 6, 30)])
    assert s.n == 2
    assert s.recall == pytest.approx(0.75)
    assert s.mean_chunks == pytest.approx(4.0)
    assert s.efficiency == pytest.approx(0.75 / 4.0)
    assert s.mean_tokens == pytest.approx(20.0)
    assert summarise([]).n == 0 and summarise([]).recall == 0.0


def test_subsets_split_by_type():
    rows = [outcome(1.0, 2, fragmented=True), outcome(0.0, 4), outcome(0.5, 3)]
    subsets = summarise_subsets(rows)
    assert subsets["fragmented"].n == 1 and subsets["fragmented"].recall == 1.0
    assert subsets["atomic"].n == 2 and subsets["atomic"].recall == pytest.approx(0.25)
    assert subsets["all"].n == 3


def test_character_coverage_counts_non_whitespace_only():
    text = "abcd    efgh"
    chunk = Chunk(0, 0, 12, text)
    assert chunk_coverage(text, chunk, [(0, 4)]) == pytest.approx(0.5)
    assert chunk_coverage(text, chunk, [(4, 8)]) == 0.0  # only whitespace covered
    assert chunk_coverage(text, chunk, [(0, 2), (10, 12)]) == pytest.approx(0.5)
    chunks = [Chunk(0, 0, 4, "abcd"), Chunk(1, 8, 12, "efgh")]
    recall, per = coverage_recall(text, chunks, [0, 1], [(0, 4), (8, 10)])
    assert per == {0: 1.0, 1: 0.5}
    assert recall == pytest.approx(0.75)
    assert [m.reason for m in coverage_misses(per)] == ["partly covered"]
    assert chunk_equivalents(8, chunks) == pytest.approx(2.0)


def test_miss_reasons_never_reached_and_not_expanded():
    misses = miss_reasons(gold=[2, 9], selected=[1, 5], retrieved=[1, 5], doc_of=one_file(10))
    assert {m.chunk: m.reason for m in misses} == {2: "not expanded", 9: NEVER_REACHED}


def test_miss_reasons_in_a_corpus_look_only_inside_the_gold_chunks_file():
    # chunks 0-2 in one file, 3-5 in the next: retrieved 2 is next to gold 3 across the edge
    doc_of = np.array([0, 0, 0, 1, 1, 1])
    one = miss_reasons(gold=[3], selected=[2], retrieved=[2], doc_of=one_file(6))
    assert one[0].reason == "not expanded"
    (miss,) = miss_reasons(gold=[3], selected=[2], retrieved=[2], doc_of=doc_of)
    assert miss.reason == NEVER_REACHED


def test_miss_reasons_name_the_gate_term():
    # chunk 1 retrieved; chunk 0 is relevant but topically far (penalty), chunk 2 irrelevant
    chunks = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    query = [1.0, 0.9, 0.0]
    sel = scar_select(query, chunks, GateParams(k=1, lam=2.0, tau=0.5))
    assert sel.retrieved == [1]
    misses = {
        m.chunk: m
        for m in miss_reasons(
            [0, 1, 2, 3],
            sel.selected,
            sel.retrieved,
            sel.decisions,
            radius=1,
            expands=True,
            doc_of=one_file(len(chunks)),
        )
    }
    assert misses[0].reason == "blocked by penalty"
    assert misses[2].reason == "blocked by relevance"
    assert misses[3].reason == NEVER_REACHED
    assert "bar" in misses[0].detail


def test_not_examined_when_the_chain_stops_first():
    chunks = [[1.0, 0.0], [0.0, 1.0], [1.0, 0.05], [0.0, 1.0]]
    sel = scar_select([1.0, 0.0], chunks, GateParams(k=1, lam=0.0, tau=0.9, radius=2))
    assert sel.retrieved == [0]  # chunk 1 (cos 0) is rejected, so chunk 2 is never examined
    one = one_file(len(chunks))
    misses = miss_reasons(
        [2], sel.selected, sel.retrieved, sel.decisions, radius=2, expands=True, doc_of=one
    )
    assert misses[0].reason == "not examined"
    assert (
        miss_reasons(
            [2], sel.selected, sel.retrieved, sel.decisions, radius=1, expands=True, doc_of=one
        )[0].reason
        == NEVER_REACHED
    )


def test_dropped_when_retrieved_but_left_out():
    assert miss_reasons([4], [5], [4, 5], doc_of=one_file(6))[0].reason == "dropped"
