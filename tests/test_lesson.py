"""The lesson's pieces: the fragmented pair, the round scoring, the two-scale comparison."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking import Chunk
from scar_viz.gate import GateParams
from scar_viz.lesson import (
    ROUNDS,
    candidates,
    fragment_pair,
    rescale_decision,
    scale_comparison,
    score_predictions,
)
from scar_viz.scoring import PRESETS, scar_select

Q = np.array([1.0, 0.0])
CHUNKS = np.array([[0.0, 1.0], [0.6, 0.8], [1.0, 0.0], [0.8, 0.6], [-1.0, 0.0]])


def test_fragment_pair_finds_the_boundary_inside_the_evidence():
    chunks = [Chunk(0, 0, 10, "x" * 10), Chunk(1, 8, 20, "y" * 12), Chunk(2, 18, 30, "z" * 12)]
    pair = fragment_pair(chunks, 5, 15)
    assert (pair.left, pair.right, pair.cut) == (0, 1, 10)
    assert fragment_pair(chunks, 11, 17) is None  # inside chunk 1 only


def test_score_predictions_by_hand():
    sel = scar_select(Q, CHUNKS, GateParams(k=1, lam=0.5, tau=0.1))
    # retrieved chunk 2; neighbour 1 (cos .6, b .4 → S .4 > .1) and 3 (cos .8, b .2 → .7) pass
    assert sel.admitted == [1, 3] and candidates(sel) == [1, 3]
    perfect = score_predictions({1, 3}, sel)
    assert (perfect.correct, perfect.total, perfect.fraction) == (2, 2, 1.0)
    half = score_predictions({1, 4}, sel)  # 4 is not a candidate: ignored
    assert (half.correct, half.missed, half.false_admits) == (1, (3,), ())
    strict = scar_select(Q, CHUNKS, GateParams(k=1, lam=2.0, tau=0.9))
    wrong = score_predictions({1, 3}, strict)
    assert wrong.correct == 0 and wrong.false_admits == (1, 3)


def test_rounds_include_both_presets():
    settings = {(r.lam, r.tau) for r in ROUNDS}
    assert (PRESETS["A"]["lam"], PRESETS["A"]["tau"]) in settings
    assert (PRESETS["B"]["lam"], PRESETS["B"]["tau"]) in settings


def test_rescale_identity_keeps_every_decision():
    sel = scar_select(Q, CHUNKS, GateParams(k=1, lam=0.5, tau=0.3))
    d = sel.decisions[0]
    score, bar, cos_qc = rescale_decision(d, 0.0, 1.0)
    assert score == pytest.approx(d.score) and bar == pytest.approx(d.bar)
    rows, keep_rel, keep_abs = scale_comparison(sel.decisions, 0.0, 1.0)
    assert keep_rel == keep_abs == 1.0 and len(rows) == 2


def test_rescale_by_hand():
    sel = scar_select(Q, CHUNKS, GateParams(k=1, lam=0.5, tau=0.3))
    d = next(x for x in sel.decisions if x.neighbour == 1)  # cos_qn .6, cos_qc 1, b .4
    score, bar, cos_qc = rescale_decision(d, 0.4, 0.5)
    assert cos_qc == pytest.approx(0.9)
    assert score == pytest.approx((0.4 + 0.3) - 0.5 * (1 - (0.4 + 0.5 * 0.6)))
    assert bar == pytest.approx(0.3 * 0.9)
