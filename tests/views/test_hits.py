"""The hits list (scar_viz.views.hits)."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.base import Chunk
from scar_viz.documents.sections import FRONT_MATTER
from scar_viz.views.hits import GOLD_MARK, hits


def test_one_row_per_retrieved_chunk_in_rank_order():
    chunks = [
        Chunk(0, 0, 100, "a" * 100),
        Chunk(1, 100, 300, "b" * 200, ("Part 2",)),
        Chunk(2, 300, 400, "c" * 100, ("Part 2", "Clause 3")),
    ]
    sims = np.array([0.1, 0.5, 0.7])
    rows = [h.as_row() for h in hits(chunks, sims, [2, 0])]
    assert [r["rank"] for r in rows] == [1, 2]
    assert [r["chunk"] for r in rows] == [2, 0]
    assert rows[0]["position"] == pytest.approx(75.0)  # 300 of 400 characters before it
    assert rows[1]["position"] == 0.0
    assert rows[0]["section"] == "Clause 3"  # the innermost heading
    assert rows[1]["section"] == FRONT_MATTER
    assert rows[0]["cos(q,c)"] == pytest.approx(0.7)


def test_no_hits_no_rows():
    assert hits([], np.array([]), []) == []


def test_dense_and_bm25_ranks_among_all_chunks():
    chunks = [Chunk(i, 10 * i, 10 * i + 10, "x" * 10) for i in range(4)]
    sims = np.array([0.1, 0.5, 0.7, 0.5])
    bm25 = np.array([2.0, 0.0, 1.0, 2.0])
    rows = [h.as_row() for h in hits(chunks, sims, [2, 1], bm25)]
    assert [r["dense rank"] for r in rows] == [1, 2]  # 1 and 3 tie: the lower index first
    assert [r["BM25 rank"] for r in rows] == [3, 4]  # 0 and 3 tie at 2.0; 1 scores 0
    assert rows[0]["BM25"] == 1.0
    assert "dense rank" not in hits(chunks, sims, [2])[0].as_row()


def test_gold_hits_are_starred_only_when_the_question_is_labelled():
    chunks = [Chunk(i, 100 * i, 100 * (i + 1), "x" * 100) for i in range(5)]
    sims = np.array([0.1, 0.5, 0.7, 0.2, 0.3])
    rows = [h.as_row() for h in hits(chunks, sims, [2, 1, 4], gold=[1, 3])]
    assert [r["gold"] for r in rows] == ["", GOLD_MARK, ""]
    assert "gold" not in hits(chunks, sims, [2, 1])[0].as_row()  # not labelled: no column
