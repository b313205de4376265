"""The sweep's best mark (fewest chunks at window ±1's recall) and its heatmap labels."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from scar_viz.charts.heatmap import _label_box, _overlaps, place_labels, sweep_heatmap
from scar_viz.common.edges import one_file
from scar_viz.evaluation.best_point import Baseline, frugal_best, window_baseline, window_per_query
from scar_viz.evaluation.metrics import chunk_recall
from scar_viz.scoring.scar import top_k, window
from scar_viz.scoring.sweep import SweepResult, build_candidates, sweep


def _result(recall, chunks):
    recall, chunks = np.asarray(recall, float), np.asarray(chunks, float)
    lams, bars = np.arange(recall.shape[0]) / 10, np.arange(recall.shape[1]) / 10
    eff = recall / chunks
    q = np.zeros((*recall.shape, 1))
    return SweepResult("relative", 3, 1, lams, bars, recall, chunks, eff, q, q)


def test_frugal_best_is_not_the_efficiency_peak():
    # row 0 admits nothing: 3 chunks, top-k's recall — the efficiency peak
    res = _result([[0.60, 0.80, 0.90], [0.895, 0.95, 0.95]], [[3.0, 5.0, 7.0], [6.0, 8.0, 9.0]])
    assert res.best("efficiency") == (0, 0)
    assert frugal_best(res, target_recall=0.90) == (1, 0)  # 0.895 ≥ 0.90 − 0.01, 6 chunks
    assert frugal_best(res, target_recall=0.90, tolerance=0.0) == (0, 2)  # 7 < 8 chunks
    assert frugal_best(res, target_recall=0.99, tolerance=0.0) is None


def test_frugal_best_ties_go_to_higher_recall():
    res = _result([[0.90, 0.95]], [[5.0, 5.0]])
    assert frugal_best(res, 0.9) == (0, 1)


def test_window_baseline_matches_a_direct_computation():
    rng = np.random.default_rng(3)
    unit = rng.normal(size=(30, 8))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    queries = rng.normal(size=(6, 8))
    sims = queries @ unit.T
    golds = [sorted(rng.choice(30, size=rng.integers(1, 4), replace=False)) for _ in range(6)]
    for radius in (1, 2):
        cands = build_candidates(sims, unit, golds, k=3, radius=radius, doc_of=one_file(len(unit)))
        got = window_baseline(cands)
        sel = [window(top_k(s, 3), 30, 1, doc_of=one_file(30)) for s in sims]
        want = Baseline(
            float(np.mean([chunk_recall(g, s) for g, s in zip(golds, sel, strict=True)])),
            float(np.mean([len(s) for s in sel])),
        )
        assert got.recall == pytest.approx(want.recall)
        assert got.mean_chunks == pytest.approx(want.mean_chunks)
    # and it is a point the sweep itself reaches (λ = 0, an absolute bar below every cosine)
    grid = sweep(
        build_candidates(sims, unit, golds, k=3, doc_of=one_file(len(unit))),
        [0.0],
        [-2.0],
        mode="absolute",
    )
    assert grid.recall[0, 0] == pytest.approx(window_baseline(cands).recall)


def _boxes(marks, offsets, x_range, y_range, plot=(300.0, 250.0), font=11):
    (x0, x1), (y0, y1) = x_range, y_range
    out = []
    for label, (x, y) in marks.items():
        px, py = (x - x0) / (x1 - x0) * plot[0], (y - y0) / (y1 - y0) * plot[1]
        dx, dy = offsets[label]
        out.append(_label_box(px + dx, py + dy, label, font))
    return out


@pytest.mark.parametrize(
    "marks",
    [
        {"A": (0.1, 0.5), "B": (0.8, 0.1), "best": (0.1, 0.5)},  # best on A
        {"A": (0.1, 0.5), "B": (0.12, 0.52), "best": (0.1, 0.5)},  # all three together
        {"A": (0.0, 0.0), "B": (0.0, 0.0), "best": (0.0, 0.0)},  # in a corner
    ],
)
def test_labels_never_overlap(marks):
    x_range, y_range = (0.0, 1.5), (0.0, 2.0)
    offsets = place_labels(marks, x_range, y_range, font_size=11)
    boxes = _boxes(marks, offsets, x_range, y_range)
    for a, b in itertools.combinations(boxes, 2):
        assert not _overlaps(a, b)
    # no label covers any mark either
    (x0, x1), (y0, y1) = x_range, y_range
    for x, y in marks.values():
        px, py = (x - x0) / (x1 - x0) * 300.0, (y - y0) / (y1 - y0) * 250.0
        assert not any(_overlaps((px - 5, py - 5, px + 5, py + 5), b) for b in boxes)


def test_far_apart_labels_keep_the_default_place():
    offsets = place_labels({"A": (0.1, 0.5), "B": (1.2, 1.8)}, (0.0, 1.5), (0.0, 2.0))
    assert offsets["A"] == offsets["B"] == (16.0, 16.0)


def test_heatmap_labels_are_dark_on_a_white_box():
    lams, taus = np.linspace(0, 2, 5), np.linspace(0, 1.5, 4)
    marks = {"A": (0.5, 0.1), "B": (0.1, 0.8), "best": (0.5, 0.1)}
    fig = sweep_heatmap(lams, taus, np.zeros((5, 4)), "recall", marks=marks)
    notes = {a.text: a for a in fig.layout.annotations}
    assert set(notes) == {"A", "B", "best"}
    assert all(
        a.font.color == "#111" and a.bgcolor.startswith("rgba(255,255,255") for a in notes.values()
    )
    assert (notes["A"].ax, notes["A"].ay) != (notes["best"].ax, notes["best"].ay)


def test_heatmap_labels_stay_apart_on_a_narrow_plot():
    """Three heatmaps side by side leave each plot ~160 px wide: B and best, 0.3 apart in τ,
    are then 30 px apart and must not touch (they did when the chart assumed 300 px)."""
    lams, taus = np.linspace(0, 2, 41), np.linspace(0, 1.5, 51)
    marks = {"A": (0.5, 0.1), "B": (0.1, 0.8), "best": (0.0, 0.51)}
    fig = sweep_heatmap(lams, taus, np.zeros((41, 51)), "recall", marks=marks, plot_width=160)
    offsets = {a.text: (a.ax, -a.ay) for a in fig.layout.annotations}
    flipped = {k: (tau, lam) for k, (lam, tau) in marks.items()}
    boxes = _boxes(flipped, offsets, (0.0, 1.5), (0.0, 2.0), plot=(160.0, 240.0))
    for a, b in itertools.combinations(boxes, 2):
        assert not _overlaps(a, b)


def test_window_per_query_is_what_the_baseline_averages():
    rng = np.random.default_rng(5)
    unit = rng.normal(size=(20, 8))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    sims = rng.normal(size=(4, 8)) @ unit.T
    golds = [[0, 1], [5], [10, 11, 12], [19]]
    cands = build_candidates(sims, unit, golds, k=2, radius=1, doc_of=one_file(len(unit)))
    chunks, recall = window_per_query(cands)
    for q, s in enumerate(sims):
        sel = window(top_k(s, 2), 20, 1, doc_of=one_file(20))
        assert chunks[q] == len(sel)
        assert recall[q] == pytest.approx(chunk_recall(golds[q], sel))
    base = window_baseline(cands)
    assert (base.mean_chunks, base.recall) == (float(np.mean(chunks)), float(np.mean(recall)))
