"""Small multiples of a corpus (scar_viz.charts.corpus) and the overview of one of its files."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio

from scar_viz.charts.corpus import corpus_chart, drawn_files, row_label
from scar_viz.charts.overview import clicked_chunk, overview_chart
from scar_viz.documents.reading import Document, Part
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import normalize, select_from_sims
from scar_viz.views.corpus import LENGTH_MEASURE, corpus_view, loaded_view

HOSTILE = '<img src=x onerror="alert(1)">.md'


def _view(counts, k: int = 3, seed: int = 0, paths=None):
    rng = np.random.default_rng(seed)
    doc_of = np.repeat(np.arange(len(counts)), counts)
    n = len(doc_of)
    unit = normalize(np.cumsum(rng.normal(size=(n, 12)), axis=0))
    sims = unit @ normalize(rng.normal(size=12))
    sel = select_from_sims(sims, unit, GateParams(k=k, lam=0.5, tau=0.9, radius=2), doc_of)
    paths = paths or [f"docs/file{d:03d}.md" for d in range(len(counts))]
    parts, pos = [], 0
    for path, c in zip(paths, counts, strict=True):
        parts.append(Part(path, pos, pos + 100 * c + 1))
        pos += 100 * c + 3
    corpus = Document("corpus", "x" * pos, (), "", parts=tuple(parts))
    return corpus_view(corpus, doc_of, sims, sel), sel, doc_of


def _named(fig, name):
    return [t for t in fig.data if t.name == name]


def test_one_row_per_file_hits_first_and_every_mark_clickable():
    view, sel, doc_of = _view([12, 30, 8, 20], k=4)
    fig = corpus_chart(view, min_width=50_000)  # wide: one mark per chunk
    assert fig.layout.meta["files"] == [int(d) for d in view.order]
    assert fig.layout.meta["hidden"] == 0
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert len(heat) == 4 and all(t.coloraxis == "coloraxis" for t in heat)
    assert fig.layout.coloraxis.cmax == view.scale[1]  # one scale for every row
    # the top row (largest y) is the table's first file, which holds a hit
    top = max(heat, key=lambda t: t.y0)
    assert top.name == row_label(view.paths[int(view.order[0])])
    # every retrieved chunk is a mark whose customdata is its corpus index
    picked = sorted(int(c[0]) for t in _named(fig, "retrieved") for c in t.customdata)
    assert picked == sorted(sel.retrieved)
    admitted = sorted(int(c[0]) for t in _named(fig, "admitted") for c in t.customdata)
    assert admitted == sel.admitted
    for t in _named(fig, "retrieved"):  # a mark sits at its chunk's place in its file
        for x, c in zip(t.x, t.customdata, strict=True):
            assert x == int(c[0]) - int(view.first[view.file_of(int(c[0]))])
    # a click on the cell of chunk c gives c
    clicks = [t for t in fig.data if t.type == "scatter" and t.mode == "markers"]
    chunk = int(np.flatnonzero(doc_of == 2)[5])
    point = {"customdata": [chunk, 0.1], "x": 5}
    assert clicked_chunk({"points": [point]}) == chunk
    every = sorted(int(c[0]) for t in clicks if t.name not in ("retrieved",) for c in t.customdata)
    assert set(range(len(doc_of))) <= set(every)
    json.loads(pio.to_json(fig))  # serialisable


def test_rows_are_capped_and_the_focused_file_is_kept():
    view, sel, doc_of = _view([5] * 60, k=3)
    fig = corpus_chart(view, max_rows=10)
    assert len([t for t in fig.data if t.type == "heatmap"]) == 10
    assert fig.layout.meta["hidden"] == 50
    last = int(view.order[-1])
    focus = int(view.first[last]) + 2
    files = drawn_files(view, 10, focus)
    assert len(files) == 10 and files[-1] == last
    fig = corpus_chart(view, focus=focus, max_rows=10)
    (shape,) = fig.layout.shapes
    assert shape.x0 == 1.5 and shape.x1 == 2.5  # the focused chunk's place in its file


def test_file_paths_are_escaped():
    view, _, _ = _view([6, 6], paths=[HOSTILE, "b.md"])
    fig = corpus_chart(view)
    text = pio.to_json(fig)
    assert "<img" not in text
    assert "&lt;img" in text
    long = "a/" * 40 + "end.md"
    assert row_label(long).startswith("a/a/") and row_label(long).endswith("/end.md")
    assert "…" in row_label(long) and len(row_label(long)) == 34  # cut in the middle
    assert row_label("<b>/" * 20 + "x.md").count("&lt;b&gt;") >= 2  # cut, then escaped
    fig = corpus_chart(_view([6, 6], paths=[long, "b.md"])[0])
    assert long in {t.name for t in fig.data}  # the whole path in the row's hover


def test_overview_of_one_file_names_corpus_chunks():
    view, sel, doc_of = _view([10, 25, 10], k=3)
    d = int(view.order[0])
    first = int(view.first[d])
    fig = overview_chart(
        view.file_overview(d), focus=first + 1, first=first, file=HOSTILE, min_width=50_000
    )
    assert list(fig.layout.xaxis.range) == [first - 0.5, first + view.counts[d] - 0.5]
    assert "&lt;img" in fig.layout.xaxis.title.text and "<img" not in fig.layout.xaxis.title.text
    retrieved = _named(fig, "retrieved")[0]
    in_file = [c for c in sel.retrieved if doc_of[c] == d]
    assert sorted(retrieved.x) == sorted(in_file)
    assert sorted(int(c[0]) for c in retrieved.customdata) == sorted(in_file)
    (shape,) = fig.layout.shapes
    assert shape.x0 == first + 0.5


def test_each_kind_of_mark_is_in_the_legend_once():
    view, sel, _ = _view([12, 30, 8, 20], k=4)
    fig = corpus_chart(view)
    shown = [t.name for t in fig.data if t.showlegend]
    kinds = {"retrieved"} | ({"admitted"} if sel.admitted else set())
    kinds |= {"rejected"} if sel.rejected else set()
    assert sorted(shown) == sorted(kinds)


def test_before_a_question_rows_are_coloured_by_chunk_length():
    files = {"docs/a.md": [100, 250, 40], "docs/deep/b.md": [300, 10]}
    parts, chunks, pos = [], [], 0
    for path, lengths in files.items():
        start = pos
        for n in lengths:
            chunks.append(Part(path, pos, pos + n))  # anything with start and end
            pos += n
        parts.append(Part(path, start, pos))
    corpus = Document("corpus", "x" * pos, (), "", parts=tuple(parts))
    doc_of = np.array([0, 0, 0, 1, 1])
    view = loaded_view(corpus, doc_of, chunks)
    fig = corpus_chart(view, min_width=50_000)
    heat = {t.name: list(t.z[0]) for t in fig.data if t.type == "heatmap"}
    assert heat["docs/a.md"][:3] == [100, 250, 40]
    assert heat["docs/deep/b.md"][:2] == [300, 10]
    assert fig.layout.coloraxis.colorbar.title.text == LENGTH_MEASURE
    assert fig.layout.coloraxis.cmax == 300
    assert not [t for t in fig.data if t.name in ("retrieved", "admitted")]
    hover = {t.hovertemplate for t in fig.data if t.type == "scatter"}
    assert hover and all("characters = " in h and "cos(q,c)" not in h for h in hover)
    asked, _, _ = _view([6, 6])
    assert corpus_chart(asked).layout.coloraxis.colorbar.title.text == "cos(q,c)"


def test_chunk_positions_are_ticked_in_whole_steps():
    for counts in ([4, 3, 2], [60, 5], [900, 40]):
        view, _, _ = _view(counts)
        fig = corpus_chart(view)
        axis = fig.layout.xaxis
        width = max(counts)
        assert axis.tickformat == "d"
        assert axis.dtick >= 1 and float(axis.dtick).is_integer()
        assert 2 <= width / axis.dtick <= 12 or width < 8, (width, axis.dtick)
