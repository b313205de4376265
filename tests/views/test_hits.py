"""The hits list (scar_viz.views.hits)."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.base import Chunk
from scar_viz.documents.sections import FRONT_MATTER
from scar_viz.views.hits import hits


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
