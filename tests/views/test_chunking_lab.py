"""The chunking lab's numbers and tables, by hand."""

from __future__ import annotations

import numpy as np

from scar_viz.chunking.config import ChunkingConfig, chunk_spans
from scar_viz.documents import samples
from scar_viz.queries.reading import parse_queries
from scar_viz.views import chunking_lab as lab

TEXT = "aaaa bbbb. cccc dddd. eeee ffff."  # 32 characters
UNITS = [(0, 10), (11, 21), (22, 32)]


def test_summary_counts_cuts_and_lengths():
    s = lab.summarise("A", TEXT, ChunkingConfig("fixed", 15, 0), [(0, 15), (15, 32)], UNITS)
    assert (s.n_chunks, s.n_cut, s.mean_chars) == (2, 1, 16.0)  # unit 2 spans 11..21
    assert s.cut.tolist() == [False, True, False]
    assert s.rate == 1 / 3 and s.title == "A: " + ChunkingConfig("fixed", 15, 0).label
    labels = [m[0] for m in lab.summary_metrics(s, "sentence")]
    assert labels == ["A chunks", "A mean chars", "A units cut"]
    _, value, why = lab.summary_metrics(s, "sentence")[2]
    assert value == "33.3%" and why == "1 of 3 sentences of the document"
    empty = lab.summarise("B", TEXT, ChunkingConfig(), [(0, 32)], [])
    assert empty.rate == 0.0 and lab.summary_metrics(empty, "sentence")[2][1] == "0.0%"


def test_chunker_row_uses_names_and_rounds():
    s = lab.summarise("x", TEXT, ChunkingConfig("fixed", 15, 0), [(0, 15), (15, 32)], UNITS)
    row = lab.chunker_row("fixed", s)
    assert row == {
        "chunker": "Fixed characters",
        "setting": s.config.label,
        "chunks": 2,
        "mean chars": 16,
        "units cut": 1,
        "% cut": 33.3,
    }


def test_shortest_chunks_put_a_heading_alone_first():
    text = "## 1.\n\nBody text of the first part.\n\n## 2. Next\n\nMore body."
    two = text.index("## 2")
    spans = [(0, 5), (7, two - 2), (two, len(text))]
    rows = lab.shortest_chunks(text, spans, n=2)
    assert [r["chunk"] for r in rows] == [0, 2]
    assert rows[0] == {"chunk": 0, "start": 0, "end": 5, "chars": 5, "text": "## 1."}
    assert rows[1]["text"] == "## 2. Next More body."


def test_jumps_and_window():
    cut = np.array([False, True, True])
    options = lab.cut_unit_options(TEXT, UNITS, cut, limit=1)
    assert options == {11: "at 11: cccc dddd. eeee ffff."}
    assert lab.cut_units(UNITS, cut) == UNITS[1:]
    assert lab.jump_position(1000) == 1000 - lab.JUMP_BEFORE and lab.jump_position(5) == 0
    assert lab.passage_window(10, 32, size=8) == (10, 18)
    assert lab.passage_window(99, 32, size=8) == (31, 32)
    assert lab.last_position("") == 0 and lab.last_position(TEXT) == 31
    assert lab.unit_kinds(True)[0] == "evidence" and "evidence" not in lab.unit_kinds(False)


def test_type_rows_on_the_sample():
    doc = samples.load_sample()
    qset = parse_queries(samples.sample_queries_text(), doc)
    summaries = [
        lab.summarise(label, doc.text, cfg, chunk_spans(doc, cfg), [])
        for label, cfg in (("A", ChunkingConfig()), ("B", ChunkingConfig("sentence", 600, 60)))
    ]
    rows, problems = lab.type_rows(qset, doc, summaries)
    assert problems == [] and [r["chunking"] for r in rows] == [s.title for s in summaries]
    for row in rows:
        assert row["fragmented"] + row["atomic"] + row["scattered"] == len(qset.queries)
    assert lab.type_rows(qset, doc, [lab.summarise("C", "", ChunkingConfig(), [], [])])[1][
        0
    ].startswith("C: the evidence cannot be mapped")


def test_curves_name_chunkers_not_ids():
    from scar_viz.charts import fragmentation_curves
    from scar_viz.chunking.fragmentation import FragmentationGrid

    def grid(chunker: str, scale: float) -> FragmentationGrid:
        rates = np.array([[0.5, 0.4], [0.2, 0.1]])
        return FragmentationGrid(
            chunker, "sentence", 10, (300, 600), (0, 60), scale, rates, rates * 10, rates * 100
        )

    fig = fragmentation_curves([grid("recursive", 1.0), grid("tokens", 4.5)], 60)
    names = [t.name for t in fig.data if t.showlegend is not False]
    assert names == ["Recursive (langchain)", "Fixed tokens (≈4.5 ch/tok)"]


def test_metric_rows_split_for_presenter_mode():
    s = lab.summarise("A", TEXT, ChunkingConfig(), [(0, 32)], UNITS)
    b = lab.summarise("B", TEXT, ChunkingConfig(), [(0, 15), (15, 32)], UNITS)
    assert [len(r) for r in lab.metric_rows([s, b], "sentence")] == [6]
    rows = lab.metric_rows([s, b], "sentence", per_row=3)
    assert [[m[0] for m in r] for r in rows] == [
        ["A chunks", "A mean chars", "A units cut"],
        ["B chunks", "B mean chars", "B units cut"],
    ]


def test_file_view_keeps_one_files_spans_units_and_cuts_in_its_own_positions():
    text = "x" * 100 + "y" * 50
    view = lab.file_view(
        text,
        (100, 150),
        {"A": [(0, 60), (50, 100), (100, 130), (120, 150)]},
        [(10, 20), (105, 110), (125, 140)],
        {"A": np.array([True, False, True])},
    )
    assert view.text == "y" * 50
    assert view.spans == {"A": [(0, 30), (20, 50)]}
    assert view.units == [(5, 10), (25, 40)]
    assert view.cuts["A"].tolist() == [False, True]
