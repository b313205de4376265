"""Compare's strips on a corpus: one panel per file, each on its own axis."""

from __future__ import annotations

from scar_viz.charts.policy_strips import file_strips
from scar_viz.documents.sections import Section

TEXT = "a" * 1000 + "b" * 300 + "c" * 5000  # three files: 0–1000, 1000–1300, 1300–6300
FILES = [("one.md", 0, 1000), ("two.md", 1000, 1300)]


def _axes(fig, name: str) -> list:
    return [fig.layout[k] for k in sorted(fig.layout.to_plotly_json()) if k.startswith(name)]


def test_each_file_is_drawn_on_its_own_axis_from_0_to_its_length():
    rows = [("topk", [(100, 200), (1050, 1100)]), ("window ±1", [(50, 1200)]), ("rse", None)]
    fig = file_strips(TEXT, rows, FILES, [Section(0, 6300, ("Intro",), 1)])
    ranges = [list(ax.range) for ax in _axes(fig, "xaxis")]
    assert ranges == [[0, 1000], [0, 300]]  # not the corpus' 0–6300
    titles = [a.text for a in fig.layout.annotations if a.text in {"one.md", "two.md"}]
    assert titles == ["one.md", "two.md"]
    topk = [t for t in fig.data if t.name == "topk"]
    assert [list(t.base) for t in topk] == [[100], [50]]  # each file's own positions
    assert [list(t.x) for t in topk] == [[100], [50]]
    window = [t for t in fig.data if t.name == "window ±1"]
    assert [(list(t.base), list(t.x)) for t in window] == [([50], [950]), ([0], [200])]


def test_a_path_is_escaped_in_its_panel_title():
    fig = file_strips(TEXT, [("topk", [(10, 20)])], [("<b>x</b>.md", 0, 1000)])
    assert any(a.text == "&lt;b&gt;x&lt;/b&gt;.md" for a in fig.layout.annotations)
