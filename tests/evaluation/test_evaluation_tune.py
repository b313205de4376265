"""scar_viz.evaluation.tune: grid settings, frontier, presets, the frugal best, tune/check."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.common.errors import SettingsError
from scar_viz.evaluation import candidates_for
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.tune import (
    best_caption,
    frontier_points,
    grid_settings,
    point_at,
    preset_points,
    sweep_marks,
    tune_check,
    words_line,
)
from scar_viz.scoring.params import PRESETS
from scar_viz.scoring.sweep import SweepResult, sweep
from tests.evaluation_sample import hash_sample


@pytest.fixture(scope="module")
def cands():
    prep, labelled, vecs, _, _ = hash_sample()
    return candidates_for(LabelledRun(prep, labelled, vecs), 3, 1)


@pytest.fixture(scope="module")
def grid(cands):
    return sweep(cands, np.linspace(0, 2, 9), np.linspace(0, 1.5, 11))


def hand_grid(recall, chunks) -> SweepResult:
    recall, chunks = np.asarray(recall, float), np.asarray(chunks, float)
    lams, bars = np.arange(recall.shape[0]) / 10, np.arange(recall.shape[1]) / 10
    eff = recall / chunks
    return SweepResult("relative", 3, 1, lams, bars, recall, chunks, eff, recall[..., None],
                       chunks[..., None])  # fmt: skip


def test_grid_settings_follow_ravel_order(grid, cands):
    lams, bars = grid_settings(grid)
    assert len(lams) == grid.recall.size
    for i in (0, 7, len(lams) - 1):
        one = sweep(cands, [lams[i]], [bars[i]])
        assert one.recall[0, 0] == pytest.approx(grid.recall.ravel()[i])
        assert one.mean_chunks[0, 0] == pytest.approx(grid.mean_chunks.ravel()[i])


def test_frontier_points_are_not_dominated(grid):
    points = frontier_points(grid)
    assert len(points) >= 2
    recall, chunks = grid.recall.ravel(), grid.mean_chunks.ravel()
    for p in points:
        better = (recall >= p.recall) & (chunks <= p.mean_chunks)
        strictly = (recall > p.recall) | (chunks < p.mean_chunks)
        assert not (better & strictly).any()
        assert f"λ = {p.lam:.2f}, τ = {p.tau:.2f}" in p.label()
    assert [p.mean_chunks for p in points] == sorted(p.mean_chunks for p in points)


def test_presets_and_the_exact_point(cands):
    points = preset_points(cands)
    assert [p[0] for p in points] == [f"preset {n}" for n in PRESETS]
    a = sweep(cands, [PRESETS["A"]["lam"]], [PRESETS["A"]["tau"]])
    assert points[0][1:] == (float(a.mean_chunks[0, 0]), float(a.recall[0, 0]))
    assert point_at(cands, 0.33, 0.27) != point_at(cands, 0.33, 0.9)


def test_best_mark_is_the_fewest_chunks_within_a_point_of_window(grid, cands):
    m = sweep_marks(grid, cands)
    assert set(m.marks) == {"A", "B", "best"} and m.tolerance == 0.01
    ok = grid.recall >= m.target - 0.01 - 1e-12
    assert grid.mean_chunks[m.best] == pytest.approx(grid.mean_chunks[ok].min())
    assert m.marks["best"] == (float(grid.lams[m.best[0]]), float(grid.bars[m.best[1]]))


def test_a_stated_floor_moves_the_best_or_removes_it(grid, cands):
    free = sweep_marks(grid, cands, floor=0.0)
    assert grid.mean_chunks[free.best] == pytest.approx(grid.mean_chunks.min())
    none = sweep_marks(grid, cands, floor=1.01)
    assert none.best is None and "best" not in none.marks and none.tolerance == 0.0


def test_tune_check_on_hand_grids():
    tune = hand_grid([[0.5, 0.9], [0.7, 0.6]], [[2, 6], [3, 3]])
    check = hand_grid([[0.4, 0.8], [0.5, 0.9]], [[2, 4], [5, 3]])
    tc = tune_check(tune, check, "recall", lam=0.1, tau=0.0)
    assert (tc.tuned.lam, tc.tuned.tau, tc.tuned.recall) == (0.0, 0.1, 0.9)
    assert tc.transferred.recall == 0.8 and tc.check_best.recall == 0.9
    assert tc.change == pytest.approx(-0.1) and tc.gap == pytest.approx(0.1)
    assert (tc.sliders_tune.recall, tc.sliders_check.recall) == (0.7, 0.5)
    assert tc.marks() == {"tuned on tune set": (0.0, 0.1), "check best": (0.1, 0.1)}
    same = tune_check(tune, tune, "efficiency", 0.0, 0.0)
    assert same.gap == 0 and same.change == 0


def test_tune_check_refuses_bad_input():
    g = hand_grid([[0.5]], [[2]])
    with pytest.raises(SettingsError, match="objective"):
        tune_check(g, g, "tokens", 0, 0)
    with pytest.raises(SettingsError, match="same"):
        tune_check(g, hand_grid([[0.5, 0.6]], [[2, 3]]), "recall", 0, 0)


def test_best_caption_names_the_target(grid, cands):
    m = sweep_marks(grid, cands)
    text = best_caption(grid, m, stated=False)
    lam, tau = m.marks["best"]
    assert f"λ = {lam:.2f}, τ = {tau:.2f}" in text and "within 1 point of window ±1" in text
    assert f"{grid.mean_chunks[m.best]:.2f}" in text
    floor = sweep_marks(grid, cands, floor=0.5)
    assert "recall ≥ 0.500" in best_caption(grid, floor, stated=True)
    none = sweep_marks(grid, cands, floor=1.01)
    assert "no best mark" in best_caption(grid, none, stated=True)


def test_best_at_lambda_zero_says_the_penalty_is_off():
    from scar_viz.evaluation.tune import PENALTY_OFF, SweepMarks, best_caption

    g = hand_grid([[0.5, 0.8], [0.6, 0.7]], [[2, 3], [2, 4]])
    at_zero = SweepMarks({"best": (0.0, 0.1)}, (0, 1), 0.8, 0.01, 5.0)
    assert PENALTY_OFF in best_caption(g, at_zero, stated=False)
    elsewhere = SweepMarks({"best": (0.1, 0.1)}, (1, 1), 0.7, 0.01, 5.0)
    assert PENALTY_OFF not in best_caption(g, elsewhere, stated=False)


def test_frugal_objective_is_the_cheapest_at_the_window_recall():
    tune = hand_grid([[0.6, 0.8], [0.79, 0.9]], [[2, 5], [3, 6]])
    tc = tune_check(tune, tune, "frugal", 0.0, 0.0, targets=(0.8, 0.8))
    assert (tc.tuned.recall, tc.tuned.mean_chunks) == (0.79, 3.0)  # within a point, fewest
    assert tc.metric == "mean_chunks" and tc.gap == 0.0
    efficient = tune_check(tune, tune, "efficiency", 0.0, 0.0)
    assert efficient.tuned.mean_chunks == 2.0  # plain top-k: what frugal avoids


def test_candidates_with_words_sweep_at_mu_and_the_words_line_compares_the_best():
    prep, labelled, vecs, _, _ = hash_sample()
    plain = candidates_for(LabelledRun(prep, labelled, vecs), 3, 1)
    words = candidates_for(LabelledRun(prep, labelled, vecs), 3, 1, lexical=True)
    assert plain.lex_qn is None and words.lex_qn is not None and words.lex_qn.max() > 0
    lams, taus = np.linspace(0, 2, 9), np.linspace(0, 1.5, 11)
    g0, g1 = sweep(plain, lams, taus), sweep(words, lams, taus, mu=0.5)
    assert np.array_equal(sweep(words, lams, taus).recall, g0.recall)  # μ = 0: the paper's gate
    assert not np.array_equal(g1.mean_chunks, g0.mean_chunks)
    assert point_at(words, 0.5, 0.1, 0.5) == (
        float(sweep(words, [0.5], [0.1], mu=0.5).mean_chunks[0, 0]),
        float(sweep(words, [0.5], [0.1], mu=0.5).recall[0, 0]),
    )
    assert point_at(words, 0.5, 0.1, 0.5) != point_at(words, 0.5, 0.1)
    m0, m1 = sweep_marks(g0, plain), sweep_marks(g1, words)
    line = words_line((g0, m0), (g1, m1))
    assert line.startswith("Words: the best at μ = 0.5 takes ")
    assert f"{g0.mean_chunks[m0.best]:.2f} chunks" in line and "at μ = 0, the paper's gate" in line
    saved = g0.mean_chunks[m0.best] - g1.mean_chunks[m1.best]
    assert (f"save {saved:.2f}" in line) == (saved > 0.005)
    none = sweep_marks(g1, words, floor=1.01)
    assert "no setting reaches the target" in words_line((g0, m0), (g1, none))
