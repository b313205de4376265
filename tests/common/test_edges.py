"""File edges in a chunk sequence (scar_viz.common.edges)."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.common.edges import (
    bounds,
    chunk_files,
    doc_of_starts,
    file_edges,
    one_file,
    reach,
    same_file,
)


def test_doc_of_from_starts():
    doc_of = doc_of_starts(np.array([0, 100, 250]), np.array([0, 40, 100, 120, 260, 300]))
    assert doc_of.tolist() == [0, 0, 1, 1, 2, 2]


def test_bounds_and_reach_agree_and_match_a_loop():
    doc_of = np.array([0, 0, 0, 1, 2, 2, 3, 3, 3, 3])
    lo, hi = bounds(doc_of, len(doc_of))
    for c in range(len(doc_of)):
        members = [j for j in range(len(doc_of)) if doc_of[j] == doc_of[c]]
        assert (lo[c], hi[c]) == (members[0], members[-1] + 1) == reach(doc_of, len(doc_of), c)


@pytest.mark.parametrize("doc_of", [one_file(5), np.zeros(5, dtype=np.int64)])
def test_one_file_reaches_everything(doc_of):
    # a document of one file has doc_of all zeros; a caller on bare arrays passes one_file
    lo, hi = bounds(doc_of, 5)
    assert lo.tolist() == [0] * 5 and hi.tolist() == [5] * 5
    assert reach(doc_of, 5, 3) == (0, 5) and same_file(doc_of, 0, 4)
    assert not file_edges(doc_of, 5).any() and len(file_edges(doc_of, 5)) == 4


def test_no_chunk_and_one_chunk():
    for doc_of in (one_file(0), np.zeros(0, dtype=np.int64)):
        lo, hi = bounds(doc_of, 0)
        assert lo.shape == hi.shape == (0,) and file_edges(doc_of, 0).shape == (0,)
    assert bounds(np.zeros(1, dtype=np.int64), 1)[1].tolist() == [1]
    assert file_edges(one_file(1), 1).shape == (0,)


def test_chunk_files_passes_an_array_through_and_one_file_is_file_0():
    doc_of = np.array([0, 0, 1])
    assert chunk_files(doc_of, 3).tolist() == [0, 0, 1]
    one = chunk_files(one_file(10**9), 10**9)  # a view of one zero: no billion-entry array
    assert one.shape == (10**9,) and one[123_456_789] == 0 and one.strides == (0,)


def test_chunk_files_refuses_a_doc_of_of_another_chunking():
    with pytest.raises(ValueError, match="holds 3 chunks where 4 were expected"):
        chunk_files(np.array([0, 0, 1]), 4)


def test_file_edges_mark_changes():
    assert file_edges(np.array([0, 0, 1, 1, 1, 2]), 6).tolist() == [
        False,
        True,
        False,
        False,
        True,
    ]
    assert not same_file(np.array([0, 1]), 0, 1)
