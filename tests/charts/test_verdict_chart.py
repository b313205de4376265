"""The verdict's chart: one front per retriever, the budget, the reference, and the verdict and
runner-up drawn differently when they cannot be told apart."""

from __future__ import annotations

import numpy as np

from scar_viz.charts.verdict import UNDECIDED, front_of, verdict_chart
from tests.evaluation.verdict_corpora import made_up, made_up_verdict

OPTIONS = [
    ("dense", "window1", 3),
    ("dense", "topk", 5),
    ("bm25", "topk", 2),
    ("bm25", "scar", 3),
    ("hybrid", "topk", 4),
]


def _cands(recalls):
    return made_up(recalls, [1000, 1100, 400, 600, 700], OPTIONS)


def _traces(fig) -> dict[str, object]:
    return {t.name: t for t in fig.data}


def test_decided_verdict_is_a_gold_star_and_fronts_are_per_retriever():
    rng = np.random.default_rng(0)
    low = (rng.random(300) < 0.3).astype(float)
    high = np.maximum(low, (rng.random(300) < 0.6).astype(float))
    v = made_up_verdict(_cands([low, low, low, high, low]), 900)
    assert v.decided and v.chosen.retriever == "bm25"
    traces = _traces(verdict_chart(v))
    assert {"dense: front", "bm25: front", "hybrid: front"} <= set(traces)
    bm25 = traces["bm25: front"]
    assert list(bm25.customdata) == [2, 3]  # both bm25 points are on its front
    star = next(t for n, t in traces.items() if n.startswith("verdict: "))
    assert star.marker.symbol == "star" and star.marker.color == "gold"
    assert (star.x[0], star.y[0]) == (600, high.mean())
    assert "cannot tell apart" not in traces
    ref = next(t for n, t in traces.items() if n.startswith("reference: window ±1, k = 3, dense"))
    assert ref.marker.symbol == "square-open"
    fig = verdict_chart(v)
    assert any(s.type == "line" and s.x0 == 900 for s in fig.layout.shapes)  # the budget


def test_an_undecided_verdict_is_drawn_as_a_pair_that_cannot_be_told_apart():
    same = (np.arange(40) % 2).astype(float)
    v = made_up_verdict(_cands([same, same, same, same, same]), 900)
    assert not v.decided
    fig = verdict_chart(v)
    traces = _traces(fig)
    star = next(t for n, t in traces.items() if n.startswith("verdict (undecided): "))
    assert star.marker.symbol == "star-open" and star.marker.color == UNDECIDED
    runner = next(t for n, t in traces.items() if n.startswith("runner-up: "))
    assert runner.marker.symbol == "diamond-open"
    pair = traces["cannot tell apart"]
    assert list(pair.x) == [v.chosen.mean_tokens, v.rival.mean_tokens]
    assert any("cannot tell apart" in a.text for a in fig.layout.annotations)


def test_front_of_keeps_the_non_dominated():
    r = [np.full(4, x) for x in (0.5, 0.7, 0.6, 0.9, 0.4)]
    cands = made_up(r, [100, 200, 300, 400, 50], OPTIONS)
    assert front_of(list(cands)) == [4, 0, 1, 3]
