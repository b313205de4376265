"""Chart builders: the structure of each figure, checked without a browser.

``decision_plane`` and ``chunk_strip`` skip plotly's validation for speed
(``charts._style.fast_figure``), so these tests also rebuild each of them with validation on.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from scar_viz.charts import boundary_map, chunk_strip, decision_plane, sweep_heatmap
from scar_viz.charts.pareto import pareto_chart
from scar_viz.charts.policy_strips import policy_strips
from scar_viz.charts.strip import strip_hover
from scar_viz.chunking.base import Chunk
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import boundary_penalties, scar_select

HOSTILE = "<script>alert('x')</script> <b>bold</b> & <img src=x onerror=alert(1)>"


def random_selection(seed: int, lam: float, tau: float, radius: int = 2):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(1, 24))
    vecs = base + 0.8 * rng.normal(size=(30, 24))  # neighbours alike enough for both outcomes
    query = base[0] + 0.5 * rng.normal(size=24)
    return scar_select(query, vecs, GateParams(4, lam, tau, radius)), vecs


def validated(fig: go.Figure) -> go.Figure:
    """``fig``, after checking that plotly's validation accepts every property of it."""
    go.Figure(fig.to_dict())
    return fig


def mixed_selection(lam: float, tau: float):
    """The first seeded random selection whose decisions include both outcomes."""
    for seed in range(200):
        sel, vecs = random_selection(seed, lam, tau)
        if {"admitted", "rejected"} <= {d.outcome for d in sel.decisions}:
            return sel
    raise AssertionError("no seed gives both outcomes")


def by_name(fig: go.Figure, name: str):
    return next(t for t in fig.data if t.name == name)


# --- decision plane ----------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "lam", "tau"), [(0, 0.5, 0.1), (1, 0.1, 0.8), (2, 1.5, 0.3)])
def test_plane_gate_line_is_y_equals_lambda_x(seed, lam, tau):
    sel, _ = random_selection(seed, lam, tau)
    fig = validated(decision_plane(sel.decisions, lam))
    gate = fig.data[0]
    assert gate.name == f"gate y = {lam:.2f}·x"
    x, y = np.asarray(gate.x, float), np.asarray(gate.y, float)
    assert x[0] == 0.0 and x[-1] > 0
    assert np.allclose(y, lam * x)


@pytest.mark.parametrize(("lam", "tau"), [(0.5, 0.1), (0.1, 0.8), (1.0, 0.5)])
def test_plane_admitted_points_lie_above_the_line_and_rejected_on_or_below(lam, tau):
    sel = mixed_selection(lam, tau)
    fig = validated(decision_plane(sel.decisions, lam))
    for name, above in (("admitted", True), ("rejected", False)):
        trace = by_name(fig, name)
        x, y = np.asarray(trace.x, float), np.asarray(trace.y, float)
        assert len(x) == sum(d.outcome == name for d in sel.decisions)
        assert np.all(y > lam * x) if above else np.all(y <= lam * x + 1e-12)


def test_plane_points_are_at_penalty_and_relevance_minus_bar():
    sel = mixed_selection(0.5, 0.1)
    fig = decision_plane(sel.decisions, 0.5)
    for name in ("admitted", "rejected"):
        trace = by_name(fig, name)
        ds = [d for d in sel.decisions if d.outcome == name]
        assert np.allclose(trace.x, [d.penalty for d in ds])
        assert np.allclose(trace.y, [d.cos_qn - d.tau * d.cos_qc for d in ds])
    points = {f"{d.chunk}→{d.neighbour}": (d.penalty, d.cos_qn - d.bar) for d in sel.decisions}
    notes = fig.layout.annotations
    assert notes, "no label placed"
    for note in notes:  # each label sits at its own point
        assert (note.x, note.y) == pytest.approx(points[note.text])


@pytest.mark.parametrize("font_size", [12, 20])
def test_plane_labels_never_overlap_and_stay_inside_the_frame(font_size):
    """Crowded points (many near one another and at the top of the range) get
    labels that overlap no other label or marker and are not clipped at the top."""
    from scar_viz.charts.plane import NOMINAL_WIDTH, place_labels, plane_margin

    rng = np.random.default_rng(3)
    xs = np.concatenate([rng.uniform(0.1, 0.14, 12), rng.uniform(0, 0.6, 12), [0.3, 0.31]])
    ys = np.concatenate([rng.uniform(0.2, 0.22, 12), rng.uniform(-0.3, 0.3, 12), [0.3, 0.3]])
    texts = [f"{i}→{i + 1}" for i in range(len(xs))]
    margin = plane_margin(font_size)
    boxes = place_labels(xs, ys, texts, (0, 0.6), (-0.3, 0.3), 380, font_size, 11, margin=margin)
    assert len(boxes) >= 8  # most points keep a label
    for i, a in enumerate(boxes):
        assert a.y0 >= margin["t"] and a.y1 <= 380 - margin["b"]  # not clipped at the top
        assert a.x0 >= margin["l"] and a.x1 <= NOMINAL_WIDTH - margin["r"]
        assert not any(a.overlaps(b) for b in boxes[i + 1 :])
    # the two points at the very top of the range are labelled below or beside, not above
    top = [b for b in boxes if b.index in (24, 25)]
    assert all(b.yanchor != "bottom" for b in top)
    assert top or font_size > 12


def test_plane_figure_labels_match_their_placement():
    sel = mixed_selection(0.5, 0.1)
    fig = validated(decision_plane(sel.decisions, 0.5, font_size=20, marker_size=18))
    assert fig.layout.margin.t >= 40 and fig.layout.margin.autoexpand is False
    for note in fig.layout.annotations:
        if note.showarrow:  # moved off its point for want of room: a leader line joins them
            assert note.ax or note.ay
        else:
            assert note.yanchor in ("bottom", "top", "middle")


@pytest.mark.parametrize(("font_size", "lam"), [(12, 0.5), (18, 0.5), (18, 0.0), (20, 1.5)])
def test_plane_labels_keep_off_the_gate_line_and_none_goes_missing(font_size, lam):
    """A label never lies over the gate line y = λ·x; points crowded near the line all keep
    a label (farther out, with a leader line, when nothing beside them is free)."""
    from scar_viz.charts.plane import LabelBox, place_labels, plane_margin

    rng = np.random.default_rng(7)
    xs = rng.uniform(0.05, 0.55, 14)
    ys = lam * xs + rng.uniform(-0.03, 0.03, 14)  # all close to the line
    texts = [f"{20 + i}→{21 + i}" for i in range(len(xs))]
    margin = plane_margin(font_size)
    y_abs = 0.3 if lam < 0.5 else lam * 0.6 * 1.05
    boxes = place_labels(
        xs, ys, texts, (0, 0.6), (-y_abs, y_abs), 560, font_size, 18, margin=margin, lam=lam
    )
    assert sorted(b.index for b in boxes) == list(range(len(xs)))
    left, top = margin["l"], margin["t"]
    plot_w, plot_h = 520 - margin["r"] - left, 560 - margin["b"] - top

    def px(x, y):
        return left + x / 0.6 * plot_w, top + (y_abs - y) / (2 * y_abs) * plot_h

    line = (*px(0, 0), *px(0.6, lam * 0.6))
    for i, a in enumerate(boxes):
        assert not a.crosses(line), a
        assert not any(a.overlaps(b) for b in boxes[i + 1 :])
    # the crossing test itself: a box on the line crosses it, one beside it does not
    mid_x, mid_y = px(0.3, lam * 0.3)
    assert LabelBox(0, mid_x - 5, mid_x + 5, mid_y - 5, mid_y + 5, "", "").crosses(line)
    assert not LabelBox(0, mid_x - 5, mid_x + 5, mid_y - 60, mid_y - 50, "", "").crosses(line)


@pytest.mark.parametrize(("font_size", "marker", "width"), [(12, 11, None), (20, 18, 760)])
@pytest.mark.parametrize("seed", range(12))
def test_plane_figure_labels_keep_apart_at_the_width_it_is_drawn(seed, font_size, marker, width):
    """Read back from the figure itself: it is drawn at a fixed width, and at that width the
    boxes of its annotations (each label's text at the placement's character width, where
    the annotation puts it) keep :data:`LABEL_GAP_PX` apart and off every marker."""
    from scar_viz.charts.plane import LABEL_GAP_PX, NOMINAL_WIDTH, LabelBox

    rng = np.random.default_rng(seed)
    vecs = rng.normal(size=(60, 16)) + 0.6 * rng.normal(size=(1, 16))
    q = vecs[rng.integers(60)] + 0.4 * rng.normal(size=16)
    lam = float(rng.choice([0.2, 0.5, 1.0]))
    params = GateParams(int(rng.choice([3, 5, 8])), lam, float(rng.choice([0.1, 0.5])), 2)
    sel = scar_select(q, vecs, params)
    fig = decision_plane(sel.decisions, lam, font_size=font_size, marker_size=marker, width=width)
    layout = fig.layout
    assert layout.width == (width or NOMINAL_WIDTH)  # fixed: never stretched to a column
    m = layout.margin
    plot_w, plot_h = layout.width - m.l - m.r, layout.height - m.t - m.b
    (xa, xb), (ya, yb) = layout.xaxis.range, layout.yaxis.range

    def px(x, y):
        return m.l + (x - xa) / (xb - xa) * plot_w, m.t + (yb - y) / (yb - ya) * plot_h

    boxes, points = [], []
    for trace in fig.data:
        if trace.mode == "markers":
            points += [px(x, y) for x, y in zip(trace.x, trace.y, strict=True)]
    for note in layout.annotations:
        size = note.font.size
        w, h = 0.62 * size * len(note.text) + 4, 1.3 * size
        x, y = px(note.x, note.y)
        if note.showarrow:
            cx, cy = x + note.ax, y + note.ay
        else:
            cx = x + note.xshift + {"left": w / 2, "right": -w / 2, "center": 0}[note.xanchor]
            cy = y - note.yshift + {"bottom": -h / 2, "top": h / 2, "middle": 0}[note.yanchor]
        boxes.append(LabelBox(0, cx - w / 2, cx + w / 2, cy - h / 2, cy + h / 2, "", ""))
    assert boxes
    rad = marker / 2 + 1
    for i, a in enumerate(boxes):
        assert not any(a.overlaps(b, LABEL_GAP_PX - 0.01) for b in boxes[i + 1 :]), i
        for x, y in points:
            assert not a.overlaps(LabelBox(0, x - rad, x + rad, y - rad, y + rad, "", ""), 1.0)


def test_plane_without_decisions_still_draws_the_gate():
    fig = validated(decision_plane([], 0.7))
    assert [t.name for t in fig.data] == ["gate y = 0.70·x", "admit region"]


# --- chunk strip -----------------------------------------------------------------------------


def chunks_with(texts: list[str], section: tuple[str, ...] = ()) -> list[Chunk]:
    out, pos = [], 0
    for i, t in enumerate(texts):
        out.append(Chunk(i, pos, pos + len(t), t, section))
        pos += len(t) + 1
    return out


def strip_inputs(n: int = 12):
    sel, vecs = random_selection(6, 0.5, 0.1, radius=1)
    vecs = vecs[:n]
    chunks = chunks_with([f"chunk number {i} " + HOSTILE for i in range(n)], (HOSTILE,))
    unit = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    sims = unit @ (unit[3] + unit[7])
    return chunks, sims / np.abs(sims).max(), boundary_penalties(unit)


def test_strip_cells_rows_and_markers():
    chunks, sims, pen = strip_inputs()
    fig = validated(chunk_strip(chunks, sims, pen, [3, 7], [4], [2, 8]))
    cells = by_name(fig, "cos(q,c)")
    assert list(cells.x) == list(range(12)) and np.allclose(cells.z[0], sims)
    bounds = by_name(fig, "b(c,c+1)")
    assert np.allclose(bounds.x, np.arange(11) + 0.5) and np.allclose(bounds.z[0], pen)
    assert list(by_name(fig, "retrieved").x) == [3, 7]
    assert list(by_name(fig, "retrieved").text) == ["1", "2"]  # ranks
    assert list(by_name(fig, "admitted").x) == [4]
    assert list(by_name(fig, "rejected").x) == [2, 8]


def test_strip_view_sends_only_that_region():
    chunks, sims, pen = strip_inputs()
    fig = chunk_strip(chunks, sims, pen, [3, 7], [4], [2, 8], view=(4, 8))
    assert list(by_name(fig, "cos(q,c)").x) == [4, 5, 6, 7, 8]
    assert len(by_name(fig, "cos(q,c)").text[0]) == 5
    assert list(by_name(fig, "retrieved").x) == [7]
    assert list(by_name(fig, "rejected").x) == [8]


def test_strip_hover_text_is_escaped():
    chunks, sims, pen = strip_inputs()
    hover = strip_hover(chunks, sims, pen)
    assert len(hover) == len(chunks)
    for line in hover:
        assert "<script>" not in line and "<img" not in line and "<b>bold" not in line
        assert "&lt;script&gt;" in line and "&amp;" in line
        assert line.startswith("<b>chunk ")  # the builder's own markup stays
    fig = chunk_strip(chunks, sims, pen, [3], [], [])
    assert list(by_name(fig, "cos(q,c)").text[0]) == hover


# --- other figures -----------------------------------------------------------------------------


def test_boundary_map_and_policy_strips_escape_document_text():
    text = ("intro " + HOSTILE + " ") * 8
    spans = [(0, 120), (100, 260), (240, len(text))]
    fig = boundary_map(text, {"A": spans}, units=[(10, 150)], cut={"A": np.array([True])})
    strips = policy_strips(text, [("scar", spans[:2]), ("topk", None)])
    texts = [h for t in fig.data for h in (t.hovertext or ())]
    texts += [h for t in strips.data for h in (t.hovertext or ())]
    assert texts
    for h in texts:
        assert "<script>" not in h and "<img" not in h
    assert any("&lt;script&gt;" in h for h in texts)


def test_sweep_heatmap_axes_and_marks():
    lams, taus = np.linspace(0, 2, 5), np.linspace(0, 1.5, 4)
    z = np.arange(20, dtype=float).reshape(5, 4)
    fig = sweep_heatmap(lams, taus, z, "recall", (0.5, 0.1), {"best": (1.0, 0.5)})
    heat = fig.data[0]
    assert np.allclose(heat.y, lams) and np.allclose(heat.x, taus) and np.allclose(heat.z, z)
    mark, star = fig.data[1], fig.data[2]
    assert (mark.x[0], mark.y[0]) == (0.5, 1.0)  # τ across, λ up
    assert (star.x[0], star.y[0]) == (0.1, 0.5)


def test_pareto_frontier_points_carry_lambda_and_tau():
    lams, taus = np.array([0.0, 1.0]), np.array([0.1, 0.5, 0.9])
    chunks = np.array([[9.0, 7.0, 5.0], [8.0, 6.0, 4.0]])
    recall = np.array([[1.0, 0.9, 0.7], [0.95, 0.8, 0.6]])
    frontier = [0, 1, 2, 5]
    fig = validated(pareto_chart(chunks, recall, lams, taus, frontier, [("window1", 10.0, 1.0)]))
    front = fig.data[1]
    assert np.allclose(front.x, chunks.ravel()[frontier])
    assert np.allclose(front.y, recall.ravel()[frontier])
    picked = np.asarray(front.customdata, float)
    assert np.allclose(picked[:, 0], [0.0, 0.0, 0.0, 1.0])
    assert np.allclose(picked[:, 1], [0.1, 0.5, 0.9, 0.9])


def test_at_least_lifts_every_text_size_in_the_figure():
    """Presenter mode's floor: base font, ticks, axis titles, legend, title, annotations."""
    import plotly.graph_objects as go

    from scar_viz.charts import at_least

    fig = go.Figure(go.Bar(x=[1], y=["a"]))
    fig.update_layout(font={"size": 12}, title={"text": "t", "font": {"size": 30}})
    fig.update_yaxes(tickfont={"size": 9}, title={"text": "y"})
    fig.add_annotation(x=1, y="a", text="note", font={"size": 10})
    out = at_least(fig, 20).layout
    assert out.font.size == 20 and out.yaxis.tickfont.size == 20 and out.xaxis.tickfont.size == 20
    assert out.yaxis.title.font.size == 20 and out.legend.font.size == 20
    assert out.annotations[0].font.size == 20
    assert out.title.font.size == 30  # larger text stays as it was
