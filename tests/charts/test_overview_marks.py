"""The overview's mark rows and rank labels (scar_viz.charts.overview_marks), drawn through
the overview chart."""

from __future__ import annotations

import re

from scar_viz.charts.overview import overview_chart
from tests.charts.test_charts_overview import _overview, _trace


def test_close_marks_share_one_mark_that_names_them_all():
    ov, sel = _overview(3000, k=20, radius=3, seed=4)
    fig = overview_chart(ov)
    for name, chunks in (
        ("retrieved", sel.retrieved),
        ("admitted", sel.admitted),
        ("rejected", sel.rejected),
    ):
        t = _trace(fig, name)
        named = {int(c) for h in t.hovertext for c in re.findall(r"chunk (\d+)", h)}
        counts = [int(c) if c else 1 for c in (x.lstrip("×") for x in t.text)]
        assert sum(counts) == len(chunks), name
        assert named == set(chunks) if name == "retrieved" else named <= set(chunks)
    retrieved = _trace(fig, "retrieved")
    assert len(retrieved.x) < 20  # 20 hits in 3,000 chunks on 720 px: some share a mark
    # a shared retrieved mark focuses its best-ranked chunk
    rank = {c: r for r, c in enumerate(sel.retrieved, 1)}
    for h, custom in zip(retrieved.hovertext, retrieved.customdata, strict=True):
        members = [int(c) for c in re.findall(r"chunk (\d+)", h)]
        assert int(custom[0]) == min(members, key=rank.get)
    # the best rank's label is always drawn; no label is drawn twice
    ranks = _trace(fig, "ranks")
    assert ranks.text[0].split(",")[0] == "1"
    assert len(set(zip(ranks.x, ranks.y, strict=True))) == len(ranks.x)


def test_marks_rows_stack_by_kind_without_sharing_a_row():
    ov, _ = _overview(800, k=20, radius=3)
    fig = overview_chart(ov)
    rows = {name: set(_trace(fig, name).y) for name in ("rejected", "admitted", "retrieved")}
    assert all(len(ys) <= 1 for ys in rows.values())
    ys = [next(iter(rows[n])) for n in ("rejected", "admitted", "retrieved") if rows[n]]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)  # rejected below admitted below retrieved
    label_rows = set(_trace(fig, "ranks").y)
    assert min(label_rows) > max(ys)


def test_short_document_keeps_one_mark_per_chunk():
    # 52 chunks: a chunk is a little narrower than a marker; the markers shrink instead of merging
    ov, sel = _overview(52, k=20, radius=2)
    fig = overview_chart(ov)
    retrieved = _trace(fig, "retrieved")
    assert sorted(retrieved.x) == sorted(sel.retrieved) and set(retrieved.text) == {""}
    assert 0.75 * 13 <= retrieved.marker.size < 13  # 13: the default at font size 12
    # a long document: shrinking cannot keep neighbours apart, so markers keep their size
    long_ov, _ = _overview(1200, k=20, radius=2)
    assert _trace(overview_chart(long_ov), "retrieved").marker.size == 13
