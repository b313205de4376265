"""AppTest of the Model transfer page: a second embedder, the relative vs absolute bar, and
the same queries under a second chunker."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.documents import samples
from scar_viz.queries.gold import label_queries, type_counts
from scar_viz.queries.reading import parse_queries
from tests.pages.helpers import APP, alerts, assert_corpus_files, by_file, open_corpus, open_page

TIMEOUT = 120
PAGE = "pages/transfer.py"


def table(at: AppTest, column: str):
    return next(df.value for df in at.dataframe if column in df.value.columns)


@pytest.fixture
def at(hash_model) -> AppTest:
    return open_page(PAGE, TIMEOUT)


def test_without_a_second_model_it_says_what_to_do(at):
    assert at.title[0].value == "Model transfer"
    assert any("Name a second embedding model" in i.value for i in at.info)
    assert not any("recall · 1" in d.value.columns for d in at.dataframe)


def test_a_second_model_fills_the_transfer_tables(at):
    at.text_input(key="m2").set_value("hash:64").run()
    assert not at.exception, at.exception
    side = table(at, "recall · 1")
    assert {"topk", "window1", "scar"} <= set(side["policy"])
    topk = side.set_index("policy").loc["topk"]
    assert topk["chunks · 1"] == topk["chunks · 2"] == at.slider(key="k").value
    bars = table(at, "bar")
    assert len(bars) == 4 and bars["bar"].str.startswith("absolute").sum() == 2
    assert len(at.get("plotly_chart")) == 2  # similarity histograms and the θ chart
    first = side.copy()
    at.text_input(key="m2").set_value("hash:32").run()
    assert not at.exception, at.exception
    second = table(at, "recall · 1")
    assert list(first["recall · 1"]) == list(second["recall · 1"])  # model 1 unchanged
    assert list(first["recall · 2"]) != list(second["recall · 2"]) or list(
        first["chunks · 2"]
    ) != list(second["chunks · 2"])


def test_bad_second_model_shows_an_error(at):
    at.text_input(key="m2").set_value("nonsense-model").run()
    assert not at.exception
    # in the app an unknown name is a hub name not in this machine's cache: the one refusal
    assert any("'nonsense-model' cannot be loaded on this server" in e for e in alerts(at))


def test_two_chunkers_on_the_same_queries(hash_model):
    at = open_page(PAGE, TIMEOUT)
    at.selectbox(key="ev_chunker2").set_value("section").run()
    table_ = table(at, "chunks in document")
    assert list(table_["chunking"]) == ["recursive 600/60", "section 600/60"]
    sample = samples.load_sample()
    qset = parse_queries(samples.sample_queries_text(), sample)
    for row, config in enumerate((ChunkingConfig(), ChunkingConfig("section", 600, 60))):
        counts = type_counts(label_queries(qset, sample, chunk_document(sample, config)))
        assert table_["fragmented queries"].iloc[row] == counts["fragmented"]
        assert table_["scattered queries"].iloc[row] == counts["scattered"]
    assert table_["chunks in document"].iloc[0] != table_["chunks in document"].iloc[1]
    assert "SCAR recall gain over top-k" in table_.columns
    at.selectbox(key="ev_chunker2").set_value("fixed").run()
    assert list(table(at, "chunks in document")["chunking"])[1].startswith("fixed")


def test_the_second_chunker_runs_only_once_picked(hash_model):
    at = open_page(PAGE, TIMEOUT)
    assert at.selectbox(key="ev_chunker2").value is None
    assert not [d for d in at.dataframe if "chunks in document" in d.value.columns]
    assert any("Pick a second chunker" in i.value for i in at.info)


def test_on_the_sample_corpus_both_tabs_break_down_by_file(hash_model):
    app = open_corpus(PAGE, TIMEOUT)
    assert by_file(app) is None  # nothing to set side by side yet
    app.text_input(key="m2").set_value("hash:64").run()
    assert not app.exception, app.exception
    frame = by_file(app)
    assert_corpus_files(frame)
    assert {"recall · 1", "recall · 2", "chunks · 1", "chunks · 2"} <= set(frame)
    assert {"topk", "scar"} <= set(frame["policy"])
    app.selectbox(key="ev_chunker2").set_value("section").run()
    assert not app.exception, app.exception
    frames = [df.value for df in app.dataframe if "file" in df.value.columns]
    assert len(frames) == 2
    assert {"recall · recursive 600/60", "chunks · section 600/60"} <= set(frames[1])
    assert_corpus_files(frames[1])


def test_one_document_has_no_breakdown_by_file(at):
    at.text_input(key="m2").set_value("hash:64").run()
    at.selectbox(key="ev_chunker2").set_value("section").run()
    assert not at.exception, at.exception
    assert by_file(at) is None


@pytest.mark.parametrize("spec", ["hash:0", "hash:2000000"])
def test_a_linked_hash_model_out_of_range_is_one_message(hash_model, spec):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"m2": spec})
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, at.exception
    said = [e for e in alerts(at) if "hash embedder" in e]
    assert said == [
        f"'{spec}': the hash embedder takes a whole number of dimensions from 1 to 4,096."
    ]
    assert not any("recall · 2" in d.value.columns for d in at.dataframe)
