"""File edges in a chunk sequence (scar_viz.edges)."""

from __future__ import annotations

import numpy as np

from scar_viz.edges import bounds, doc_of_starts, file_edges, reach, same_file


def test_doc_of_from_starts():
    doc_of = doc_of_starts(np.array([0, 100, 250]), np.array([0, 40, 100, 120, 260, 300]))
    assert doc_of.tolist() == [0, 0, 1, 1, 2, 2]


def test_bounds_and_reach_agree_and_match_a_loop():
    doc_of = np.array([0, 0, 0, 1, 2, 2, 3, 3, 3, 3])
    lo, hi = bounds(doc_of, len(doc_of))
    for c in range(len(doc_of)):
        members = [j for j in range(len(doc_of)) if doc_of[j] == doc_of[c]]
        assert (lo[c], hi[c]) == (members[0], members[-1] + 1) == reach(doc_of, len(doc_of), c)


def test_one_file_reaches_everything():
    lo, hi = bounds(None, 5)
    assert lo.tolist() == [0] * 5 and hi.tolist() == [5] * 5
    assert reach(None, 5, 3) == (0, 5) and same_file(None, 0, 4)
    assert not file_edges(None, 5).any()


def test_file_edges_mark_changes():
    assert file_edges(np.array([0, 0, 1, 1, 1, 2]), 6).tolist() == [
        False,
        True,
        False,
        False,
        True,
    ]
    assert not same_file(np.array([0, 1]), 0, 1)
