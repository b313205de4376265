"""Mark and label placement (scar_viz.charts.marks): no two boxes intersect, nothing is lost."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.charts.marks import (
    count_tail,
    count_text,
    group_marks,
    place_labels,
    text_width,
    to_px,
)

FONT = 12
MARK = 16.0


def _mark_boxes(marks, n, width, tail):
    boxes = []
    for m in marks:
        centre = to_px(m.x, n, width)
        extra = tail(m.count) if m.count > 1 else 0.0
        boxes.append((centre - MARK / 2, centre + MARK / 2 + extra))
    return boxes


def _disjoint(boxes) -> bool:
    """No two intervals overlap by more than a rounding error (touching is allowed)."""
    ordered = sorted(boxes)
    return all(b[0] >= a[1] - 1e-9 for a, b in zip(ordered, ordered[1:], strict=False))


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("width", [300.0, 720.0, 1500.0])
def test_random_marks_never_overlap_and_keep_every_chunk(seed, width):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12_000))
    k = int(rng.integers(1, min(n, 60) + 1))
    positions = rng.choice(n, size=k, replace=False)
    tail = count_tail(FONT, 9.0)
    marks = group_marks(positions, n, width, MARK, tail)
    assert sorted(c for m in marks for c in m.members) == sorted(positions.tolist())
    assert sum(m.count for m in marks) == k
    assert all(m.x == m.members[0] == min(m.members) for m in marks)
    assert _disjoint(_mark_boxes(marks, n, width, tail))
    # a wider plot spreads the same placement: still no overlap
    assert _disjoint(_mark_boxes(marks, n, width * 1.7, tail))


@pytest.mark.parametrize("seed", range(40))
def test_random_labels_never_overlap_and_best_rank_is_always_shown(seed):
    rng = np.random.default_rng(seed)
    n, width = int(rng.integers(20, 5000)), 720.0
    positions = rng.choice(n, size=int(rng.integers(1, 21)), replace=False)
    marks = group_marks(positions, n, width, MARK)
    texts = [str(int(rng.integers(1, 200))) for _ in marks]
    order = list(rng.permutation(len(marks)))
    labels = place_labels(marks, texts, order, n, width, FONT, rows=2, gap_px=2.0)
    assert labels and labels[0].mark == order[0]  # the most important label always fits
    assert len({lab.mark for lab in labels}) == len(labels)
    for scale in (1.0, 1.4):
        for row in (0, 1):
            boxes = [
                (
                    to_px(lab.x, n, width * scale) - text_width(lab.text, FONT) / 2,
                    to_px(lab.x, n, width * scale) + text_width(lab.text, FONT) / 2,
                )
                for lab in labels
                if lab.row == row
            ]
            assert _disjoint(boxes)
            assert all(a >= 0 and b <= width * scale + 1e-9 for a, b in boxes)


def test_close_chunks_share_a_mark_far_ones_do_not():
    # 1000 chunks on 1000 px: one px a chunk; a 16 px mark
    marks = group_marks([100, 105, 116, 500], 1000, 1000.0, MARK)
    assert [m.members for m in marks] == [(100, 105), (116,), (500,)]  # 116 touches
    assert count_text(marks[0].count) == "×2" and count_text(1) == ""


def test_a_crowded_label_is_dropped_not_drawn_over():
    marks = group_marks([100, 125, 150], 1000, 1000.0, MARK)
    assert len(marks) == 3
    wide = ["1,2,…"] * 3
    labels = place_labels(marks, wide, [0, 1, 2], 1000, 1000.0, FONT, rows=1)
    assert [lab.mark for lab in labels] == [0, 2]  # the middle one has no room left
    two_rows = place_labels(marks, wide, [0, 1, 2], 1000, 1000.0, FONT, rows=2)
    assert sorted((lab.mark, lab.row) for lab in two_rows) == [(0, 0), (1, 1), (2, 0)]


def test_labels_at_the_edges_move_inside_the_plot():
    marks = group_marks([0, 999], 1000, 500.0, MARK)
    labels = place_labels(marks, ["12345", "12345"], [0, 1], 1000, 500.0, FONT)
    half = text_width("12345", FONT) / 2 + 2.0
    assert to_px(labels[0].x, 1000, 500.0) == pytest.approx(half)
    assert to_px(labels[1].x, 1000, 500.0) == pytest.approx(500.0 - half)
