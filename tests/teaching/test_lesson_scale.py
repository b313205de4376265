"""Learn step 4: a change of spread moves the absolute bar's decisions, never the relative's."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.documents import samples
from scar_viz.embeddings import HashEmbedder
from scar_viz.pipeline import prepare_document
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import scar_select
from scar_viz.teaching.lesson import (
    SCALE_ALPHA,
    SCALE_BETA,
    SCALE_INTRO,
    pooled_decisions,
    scale_caption,
    scale_demo,
    tune_absolute_bar,
)

Q = np.array([1.0, 0.0])
CHUNKS = np.array([[0.0, 1.0], [0.6, 0.8], [1.0, 0.0], [0.8, 0.6], [-1.0, 0.0]])


@pytest.fixture(scope="module")
def sample_decisions():
    doc = samples.load_sample()
    emb = HashEmbedder()
    prep = prepare_document(doc, emb)
    vecs = emb.embed([q["query"] for q in samples.sample_questions()])
    return pooled_decisions(prep.unit, vecs)


def test_step_defaults_change_the_absolute_bar_and_not_the_relative(sample_decisions):
    assert len(sample_decisions) > 20
    demo = scale_demo(sample_decisions, SCALE_ALPHA, SCALE_BETA)
    assert demo.changed_abs, "the absolute bar keeps every decision at the step's defaults"
    assert demo.keep_abs < 1.0
    assert demo.changed_rel == () and demo.keep_rel == 1.0
    # θ reproduces model 1 on model 1 (β = 1) as well as one number can
    same = scale_demo(sample_decisions, 0.0, 1.0, demo.theta)
    assert same.keep_rel == 1.0 and same.keep_abs >= 0.9


@pytest.mark.parametrize("beta", [0.2, 0.5, 0.8, 1.5, 3.0])
def test_relative_bar_is_invariant_to_spread(sample_decisions, beta):
    assert scale_demo(sample_decisions, 0.0, beta).keep_rel == 1.0


def test_an_offset_moves_the_relative_bar_too_as_the_docstring_says(sample_decisions):
    demo = scale_demo(sample_decisions, 0.4, 0.5)
    assert demo.changed_rel  # margin' = β·margin + α·(1 − τ): admits the near misses
    assert all(r.relative2 and not r.model1 for r in demo.changed_rel)


def test_rescaled_numbers_by_hand():
    sel = scar_select(Q, CHUNKS, GateParams(k=1, lam=0.5, tau=0.3))
    d = next(x for x in sel.decisions if x.neighbour == 1)  # cos_qn .6, cos_qc 1, b .4 → S .4
    row = next(r for r in scale_demo(sel.decisions, 0.1, 0.5, theta=0.25).rows if r.neighbour == 1)
    assert row.score2 == pytest.approx(0.1 + 0.5 * d.score)  # α + β·S = 0.3
    assert row.bar2 == pytest.approx(0.3 * (0.1 + 0.5 * 1.0))  # τ·(α + β·cos(q,c)) = 0.18
    assert row.relative2 and row.absolute2  # 0.3 > 0.18 and 0.3 > 0.25
    with pytest.raises(ValueError):
        scale_demo(sel.decisions, 0.0, 0.0)


def test_tune_absolute_bar_separates_when_it_can():
    sel = scar_select(
        Q, CHUNKS, GateParams(k=1, lam=0.5, tau=0.3)
    )  # S: .4 (n=1) and .7 (n=3), both pass
    theta = tune_absolute_bar(sel.decisions)
    assert theta < 0.4
    assert tune_absolute_bar(()) == 0.0


@pytest.mark.parametrize("beta", [0.3, 0.5, 1.5])
def test_pure_spread_keeps_every_relative_decision_and_not_every_absolute(sample_decisions, beta):
    demo = scale_demo(sample_decisions, 0.0, beta)
    assert demo.keep_rel == 1.0 and demo.keep_abs < 1.0
    caption = scale_caption(demo)
    assert "At α = 0 (spread only) the relative bar keeps 100%" in caption
    assert f"the absolute {round(100 * demo.keep_abs)}%" in caption


@pytest.mark.parametrize("alpha", [-0.2, 0.2, 0.4])
def test_pure_offset_moves_both_bars_as_the_caption_says(sample_decisions, alpha):
    demo = scale_demo(sample_decisions, alpha, 1.0)
    assert demo.keep_rel < 1.0 and demo.keep_abs < 1.0
    caption = scale_caption(demo)
    assert f"At α = {alpha:g} (an offset) neither bar is invariant" in caption
    assert f"relative bar keeps {round(100 * demo.keep_rel)}%" in caption


def test_intro_names_spread_and_offset_and_why():
    for word in ("spread β", "offset α", "temperature", "anisotropy"):
        assert word in SCALE_INTRO
