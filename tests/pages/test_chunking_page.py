"""AppTest of the chunking lab: it renders, the chunkers change the view, settings reach pages."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.documents.reading import load_path
from tests.pages.helpers import alerts, open_page

APP = "../../app.py"
PAGE = "pages/chunking.py"
TIMEOUT = 90


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture
def at(hash_model) -> AppTest:
    return open_page(PAGE, TIMEOUT)


def test_renders_view_table_and_curves(at):
    assert at.title[0].value == "Chunking lab"
    assert at.radio(key="cu").value == "evidence"  # the sample brings its query set
    assert len(at.get("plotly_chart")) == 3  # boundary map, curves, heatmap
    table = next(df.value for df in at.dataframe if "% cut" in df.value.columns)
    assert len(table) == 6 and table["% cut"].between(0, 100).all()
    html = "".join(h.proto.body for h in at.get("html"))
    assert 'class="sv-b"' in html and "sv-c1" in html  # boundaries drawn, chunks told apart


def test_chunker_and_size_change_the_chunking(at):
    before = int(metric(at, "A chunks"))
    at.sidebar.selectbox(key="chunker").set_value("fixed").run()
    assert not at.exception
    at.sidebar.number_input(key="size").set_value(300).run()
    assert not at.exception
    after = int(metric(at, "A chunks"))
    assert after > before
    at.selectbox(key="cb").set_value("semantic").run()
    assert not at.exception
    assert not [s for s in at.sidebar.slider if s.key == "cpct"]  # the knob follows chunker A
    at.sidebar.selectbox(key="chunker").set_value("semantic").run()
    assert at.sidebar.slider(key="cpct").value == pytest.approx(10.0)


def test_units_switch_to_sentences(at):
    at.radio(key="cu").set_value("sentence").run()
    assert not at.exception
    assert any("sentences of the document" in c.value for c in at.caption)


def test_chosen_chunker_reaches_the_explorer(hash_model):
    def n_chunks(app: AppTest) -> int:
        caption = next(t for t in alerts(app.sidebar) if " chunks" in t)
        return int(re.search(r"(\d+) chunks", caption).group(1))

    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.run()
    recursive = n_chunks(app)
    app.sidebar.selectbox(key="chunker").set_value("section").run()
    assert not app.exception
    assert app.title[0].value == "Explorer"
    assert n_chunks(app) != recursive  # the explorer re-chunked with the chosen chunker
    app.sidebar.selectbox(key="chunker").set_value("semantic").run()
    assert not app.exception
    assert int(metric(app, "Retrieved")) >= 1


def test_fragmentation_on_the_corpus(hash_model, corpus_path):
    app = open_page(PAGE, TIMEOUT, upload=load_path(corpus_path))
    assert not app.exception, app.exception
    assert app.radio(key="cu").value == "sentence"  # no query set uploaded
    assert len(app.get("plotly_chart")) == 3
    assert int(metric(app, "A chunks")) == 587


def test_query_types_under_both_chunkings(at):
    """With the sample's query set, the lab counts fragmented / atomic / scattered queries
    under chunkings A and B by the shared rule (``scar_viz.queries.gold.query_type``)."""
    from scar_viz.chunking.config import ChunkingConfig, chunk_spans
    from scar_viz.chunking.fragmentation import chars_per_token, in_characters, in_own_units
    from scar_viz.documents import samples
    from scar_viz.queries.gold import label_queries, type_counts
    from scar_viz.queries.reading import parse_queries

    table = next(df.value for df in at.dataframe if "scattered" in df.value.columns)
    doc = samples.load_sample()
    qset = parse_queries(samples.sample_queries_text(), doc)
    config = ChunkingConfig()
    scale = chars_per_token(doc.text)
    size, overlap = in_characters(config, scale)
    config_b = in_own_units(at.selectbox(key="cb").value, size, overlap, scale, config.percentile)
    for row, cfg in enumerate((config, config_b)):
        counts = type_counts(label_queries(qset, doc, chunk_spans(doc, cfg)))
        assert table["chunking"].iloc[row].endswith(cfg.label)
        assert [int(table[k].iloc[row]) for k in ("fragmented", "atomic", "scattered")] == [
            counts["fragmented"],
            counts["atomic"],
            counts["scattered"],
        ]
    assert int(table["fragmented"].sum()) > 0


TOPICS = (
    ("Scope", "This agreement covers the supply of pumps. It names the parties and the goods."),
    ("Delivery", "Goods ship within ten days. The carrier is chosen by the seller alone."),
    ("Payment", "Invoices are due in thirty days. Late payment accrues interest monthly."),
    ("Warranty", "Pumps are warranted for two years. Wear parts are excluded from it."),
    ("Liability", "Liability is capped at the price paid. Indirect loss is never covered."),
    ("Governing law", "The law of Delaware governs. Disputes go to its state courts."),
    ("Termination", "Either party may end this on notice. Orders placed remain binding."),
    ("Notices", "Notices are written and signed. Email counts when acknowledged."),
)


def numbered_markdown() -> str:
    """A contract-like markdown document whose sections start with "## 1." style headings."""
    body = [
        f"## {i}. {title}\n\n{text} {text.lower()}\n"
        for i, (title, text) in enumerate(TOPICS, start=1)
    ]
    return "# Supply agreement\n\n" + "\n".join(body)


def is_heading_alone(text: str) -> bool:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return len(lines) == 1 and lines[0].lstrip().startswith("#")


@pytest.mark.parametrize("size", [600, 150])
def test_semantic_chunker_keeps_headings_with_their_text(hash_model, size):
    """Issue 17 item 10: the semantic chunker never leaves a heading ("## 1.") as a chunk of
    its own; the lab's "shortest chunks of A" table, which lists a heading-only chunk first,
    shows none."""
    from scar_viz.documents.reading import document_from_text

    doc = document_from_text("agreement.md", numbered_markdown())
    app = open_page(PAGE, TIMEOUT, upload=doc)
    app.sidebar.selectbox(key="chunker").set_value("semantic").run()
    app.sidebar.number_input(key="size").set_value(size).run()
    assert not app.exception, app.exception
    assert app.sidebar.selectbox(key="chunker").value == "semantic"
    short = next(df.value for df in app.dataframe if "text" in df.value.columns)
    assert len(short) == min(8, int(metric(app, "A chunks")))
    texts = [doc.text[int(s) : int(e)] for s, e in zip(short["start"], short["end"], strict=True)]
    assert texts and not [t for t in texts if is_heading_alone(t)], texts
    assert all(len(t.strip()) > 5 for t in texts)


def test_the_session_query_set_gives_the_evidence_units_without_a_second_upload(hash_model):
    from scar_viz.documents.reading import document_from_text
    from tests.pages.helpers import stash_queries

    text = "Intro.\n\nThe weir opens at dawn. The tide follows it.\n\nKestrels nest by the mill."
    doc = document_from_text("notes.md", text)
    start = text.index("The weir")
    evidence = {"text": "The weir opens at dawn.", "start": start, "end": start + 23}
    line = {"id": "q1", "query": "When does the weir open?", "evidence": [evidence]}
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    stash_queries(app, text, "mine.jsonl", json.dumps(line) + "\n")
    at = open_page(PAGE, TIMEOUT, app, upload=doc)
    assert at.radio(key="cu").value == "evidence"
    uploaders = [u.key for u in at.get("file_uploader")]
    assert "cqs" not in uploaders  # no second upload asked for
    assert any("the session's query set, mine.jsonl" in t for t in alerts(at, "caption"))


def test_on_a_corpus_the_document_view_shows_one_file_on_its_own_axis(hash_model):
    from scar_viz.documents import samples
    from tests.pages.helpers import open_corpus

    at = open_corpus(PAGE, TIMEOUT)
    corpus = samples.load_sample("kestrel")
    lengths = {p.path: p.end - p.start for p in corpus.parts}

    def map_range() -> list:
        return json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["xaxis"]["range"]

    files = at.selectbox(key="cfile")
    assert files.options == list(lengths)
    assert map_range() == [0, lengths[files.value]]
    other = files.options[-1]
    files.set_value(other).run()
    assert not at.exception, at.exception
    assert map_range() == [0, lengths[other]] and lengths[other] < len(corpus.text)
    spans = [
        (b["base"][i], b["base"][i] + b["x"][i])
        for b in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
        if b["type"] == "bar"
        for i in range(len(b["x"]))
    ]
    assert spans and all(0 <= s < e <= lengths[other] for s, e in spans)  # no cut spans files
