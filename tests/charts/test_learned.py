"""The learned gate's charts: the p-curve, the weights, a decision's contributions."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.scoring.learned import build_table, fit_gate, learned_select, p_curve
from tests.scoring.learned.synthetic import drifting_doc, random_queries


def test_charts_for_the_pages():
    import plotly.graph_objects as go

    from scar_viz.charts.learned import add_p_curve, contributions_chart, gate_weights_chart

    rng = np.random.default_rng(50)
    unit = drifting_doc(rng)
    sims, golds = random_queries(rng, unit, 20)
    table = build_table(sims, unit, golds, 4, doc_of=one_file(len(unit)))
    gate = fit_gate(table)
    curve = p_curve(table, gate, [0.01, 0.05, 0.2])
    fig = add_p_curve(go.Figure(), curve, current_p=0.05)
    line, star = fig.data
    assert sorted(line.customdata[:, 0]) == [0.01, 0.05, 0.2]
    assert list(line.x) == sorted(curve.mean_chunks)
    assert star.x[0] == curve.mean_chunks[1] and star.y[0] == curve.recall[1]
    bars = gate_weights_chart(gate).data[0]
    assert list(bars.x) == list(gate.weights) and list(bars.y) == list(gate.feature_names)
    decision = learned_select(sims[0], unit, 4, gate, p=0.05, doc_of=one_file(len(unit))).decisions[
        0
    ]
    water = contributions_chart(decision).data[0]
    assert list(water.x) == [*gate.feature_names, "intercept", "score"]
    assert water.y[-1] == pytest.approx(sum(water.y[:-1]))
    top = np.argsort(-sims[0])[:2]
    sims[0][top[0] + 1 if top[0] + 1 < len(unit) else top[0] - 1] = 2.0  # a retrieved neighbour
    both = [
        d
        for d in learned_select(sims[0], unit, 4, gate, 0.05, doc_of=one_file(len(unit))).decisions
        if d.outcome == "retrieved"
    ]
    assert both
    title = contributions_chart(both[0]).layout.title.text
    assert "already retrieved" in title and "admitted" not in title


def test_the_in_sample_curve_never_takes_a_click_from_the_headline_curve():
    import plotly.graph_objects as go

    from scar_viz.charts.learned import add_in_sample_curve, add_p_curve

    rng = np.random.default_rng(51)
    unit = drifting_doc(rng)
    sims, golds = random_queries(rng, unit, 20)
    table = build_table(sims, unit, golds, 4, doc_of=one_file(len(unit)))
    curve = p_curve(table, fit_gate(table), [0.01, 0.05, 0.2])
    fig = add_in_sample_curve(add_p_curve(go.Figure(), curve), curve)
    headline, in_sample = fig.data
    assert headline.customdata is not None and headline.hoverinfo != "skip"
    # the same points drawn twice: only the headline's can be hovered or picked
    assert in_sample.hoverinfo == "skip" and in_sample.customdata is None
    assert "in sample" in in_sample.name
