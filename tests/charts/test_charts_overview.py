"""The document overview chart (scar_viz.charts.overview)."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio

from scar_viz.charts.overview import MAX_POINTS, clicked_chunk, overview_chart
from scar_viz.common.edges import one_file
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import normalize, select_from_sims
from scar_viz.views.focus import overview_data


def _overview(n: int, k: int = 3, seed: int = 0, radius: int = 2):
    rng = np.random.default_rng(seed)
    unit = normalize(np.cumsum(rng.normal(size=(n, 12)), axis=0))
    sims = unit @ normalize(rng.normal(size=12))
    sel = select_from_sims(
        sims, unit, GateParams(k=k, lam=0.5, tau=0.95, radius=radius), doc_of=one_file(len(unit))
    )
    return overview_data(sims, sel), sel


def _trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_every_mark_is_drawn_and_clickable():
    ov, sel = _overview(120)
    assert sel.admitted and sel.rejected  # the data exercises every kind of mark
    # a plot wide enough that no two marks share a place: one mark a chunk
    fig = overview_chart(ov, focus=sel.retrieved[0], min_width=50_000)
    retrieved = _trace(fig, "retrieved")
    assert list(retrieved.x) == sorted(sel.retrieved)
    assert set(retrieved.text) == {""}  # no counts: every mark is one chunk
    ranks = _trace(fig, "ranks")
    by_chunk = dict(zip(retrieved.x, retrieved.customdata, strict=True))
    assert sorted(ranks.text) == ["1", "2", "3"]
    assert {int(by_chunk[c][0]) for c in sel.retrieved} == set(sel.retrieved)
    assert sorted(_trace(fig, "admitted").x) == sel.admitted
    assert sorted(_trace(fig, "rejected").x) == sel.rejected
    for name in ("retrieved", "admitted", "rejected", "chunks"):
        t = _trace(fig, name)
        assert [int(c[0]) for c in t.customdata] == [int(x) for x in t.x]
    assert len(_trace(fig, "chunks").x) == 120
    heat = _trace(fig, "cos(q,c)")
    assert np.allclose(heat.z[0], ov.sims)
    assert fig.layout.shapes[0].x0 == sel.retrieved[0] - 0.5


def test_ten_thousand_chunks_stay_light():
    ov, sel = _overview(10_000, k=20, radius=3)
    fig = overview_chart(ov)
    clickable = _trace(fig, "chunks")
    assert len(clickable.x) == MAX_POINTS
    # each clickable marker is its bin's most relevant chunk
    edges = np.linspace(0, 10_000, MAX_POINTS + 1).astype(int)
    assert int(clickable.x[7]) == edges[7] + int(np.argmax(ov.sims[edges[7] : edges[8]]))
    assert len(_trace(fig, "retrieved").x) <= 20
    assert _trace(fig, "chunks").text is None and _trace(fig, "cos(q,c)").text is None
    size = len(pio.to_json(fig, validate=False))
    assert size < 400_000, size  # numbers only: no per-chunk hover text
    assert len(json.loads(pio.to_json(fig, validate=False))["data"]) == 6


def test_clicked_chunk_reads_streamlit_selection():
    assert clicked_chunk(None) is None
    assert clicked_chunk({"points": []}) is None
    assert clicked_chunk({"points": [{"x": 5, "customdata": [17]}]}) == 17
    assert clicked_chunk({"points": [{"x": 9}]}) == 9


def test_empty_selection_marks_nothing():
    ov, _ = _overview(30, k=1, radius=0)
    fig = overview_chart(ov)
    assert len(_trace(fig, "admitted").x) == 0
    assert len(_trace(fig, "rejected").x) == 0
    assert fig.layout.shapes == ()


def test_split_overview_keeps_every_trace_and_aligns_the_axes():
    from scar_viz.charts.overview import SPLIT_MARGIN, split_overview

    rng = np.random.default_rng(0)
    unit = rng.normal(size=(300, 16))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    sims = unit @ unit[7]
    sel = select_from_sims(sims, unit, GateParams(3, 0.0, 0.0, 2), doc_of=one_file(len(unit)))
    ov = overview_data(sims, sel)
    whole = overview_chart(ov, focus=5)
    marks, base = split_overview(whole)
    assert sorted(t.name for t in marks.data + base.data) == sorted(t.name for t in whole.data)
    assert list(marks.layout.xaxis.range) == list(base.layout.xaxis.range) == [-0.5, 299.5]
    for fig in (marks, base):
        assert (fig.layout.margin.l, fig.layout.margin.r) == (SPLIT_MARGIN["l"], SPLIT_MARGIN["r"])
    # larger type: a wider right margin for the colour bar, still the same in both figures
    big_marks, big_base = split_overview(overview_chart(ov, focus=5, font_size=18))
    assert big_marks.layout.margin.r == big_base.layout.margin.r > SPLIT_MARGIN["r"]
    retrieved = next(t for t in marks.data if t.name == "retrieved")
    assert sorted(retrieved.x) == sorted(sel.retrieved)
    # the focus outline is drawn on the similarity row only, never across the marks' counts
    assert marks.layout.shapes == () and base.layout.shapes[0].x0 == 4.5
    # the marks' plot area is exactly as tall as their rows
    m = marks.layout
    assert m.height - m.margin.t - m.margin.b == whole.layout.meta["marks_height"]
    # the base depends on the similarities and the focus only, not on the gate's marks
    other = select_from_sims(sims, unit, GateParams(3, 2.0, 1.5, 2), doc_of=one_file(len(unit)))
    _, base2 = split_overview(overview_chart(overview_data(sims, other), focus=5))
    assert base2.to_json() == base.to_json()


def test_gold_chunks_get_a_band_in_the_similarity_row():
    from scar_viz.charts.overview import GOLD_COLOUR, split_overview

    ov, _ = _overview(60)
    fig = overview_chart(ov, focus=5, gold=[10, 11, 70])  # 70 is past the end: not drawn
    bands = [s for s in fig.layout.shapes if s.fillcolor == GOLD_COLOUR]
    assert [(b.x0, b.x1) for b in bands] == [(9.5, 10.5), (10.5, 11.5)]
    assert all(b.yref == "y domain" and b.y0 == 0 and b.y1 < 0.5 for b in bands)
    _, base = split_overview(fig)  # the band is drawn with the row, which λ and τ never redraw
    assert len([s for s in base.layout.shapes if s.fillcolor == GOLD_COLOUR]) == 2
    assert not [s for s in overview_chart(ov).layout.shapes if s.fillcolor == GOLD_COLOUR]
    # one file of a corpus: corpus indices
    part = overview_chart(ov, first=100, gold=[99, 130])
    assert [s.x0 for s in part.layout.shapes if s.fillcolor == GOLD_COLOUR] == [129.5]
