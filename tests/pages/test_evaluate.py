"""AppTest of the evaluation lab on the built-in sample with the hashing embedder."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz import samples
from scar_viz.chunking import ChunkingConfig, chunk_document
from scar_viz.queries import label_queries, parse_queries, type_counts
from tests.pages.helpers import alerts

APP = "../../app.py"
TIMEOUT = 90


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def table(at: AppTest, column: str):
    """The first table that has ``column``."""
    return next(df.value for df in at.dataframe if column in df.value.columns)


@pytest.fixture
def at(hash_model) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.run()
    app.switch_page("pages/evaluate.py")
    app.run()
    assert not app.exception, app.exception
    return app


def n_sample_queries() -> int:
    return len([x for x in samples.sample_queries_text().splitlines() if x.strip()])


def test_runs_on_the_sample_with_its_own_queries(at):
    assert at.title[0].value == "Evaluate"
    assert int(metric(at, "Queries")) == n_sample_queries()
    assert int(metric(at, "Fragmented")) + int(metric(at, "Atomic")) == n_sample_queries()
    metrics = at.dataframe[0].value
    assert {"topk", "window1", "window2", "scar"} <= set(metrics["policy"])
    assert (
        metrics[(metrics.policy == "topk") & (metrics.subset == "all")]["mean chunks"].iloc[0]
        == at.slider(key="k").value
    )
    assert len(at.get("plotly_chart")) >= 4  # three heatmaps and the Pareto chart


def test_sliders_change_scar_and_the_frontier_sets_them(at):
    def scar_chunks():
        m = at.dataframe[0].value
        return m[(m.policy == "scar") & (m.subset == "all")]["mean chunks"].iloc[0]

    at.slider(key="lam").set_value(0.0)
    at.slider(key="tau").set_value(0.0).run()
    loose = scar_chunks()
    at.slider(key="lam").set_value(2.0)
    at.slider(key="tau").set_value(1.5).run()
    strict = scar_chunks()
    assert loose > strict == at.slider(key="k").value
    front = at.selectbox(key="front")
    assert len(front.options) >= 2
    i = len(front.options) // 2
    label = front.options[i]
    front.select_index(i).run()
    assert not at.exception
    lam, tau = at.slider(key="lam").value, at.slider(key="tau").value
    assert (lam, tau) != (2.0, 1.5)
    assert f"λ = {lam:.2f}, τ = {tau:.2f}" in label


def test_uploaded_query_set_with_errors_and_relocation(hash_model):
    lines = samples.sample_queries_text().splitlines()
    first = json.loads(lines[0])
    first["evidence"][0]["start"] = 0  # stale, the text occurs once
    first["evidence"][0]["end"] = 5
    data = "\n".join([json.dumps(first), "{broken", lines[1], lines[2]]).encode()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/evaluate.py")
    at.session_state["qs_data"] = ("mine.jsonl", data)
    at.run()
    assert not at.exception
    assert int(metric(at, "Queries")) == 3
    assert any("1 line(s) of 'mine.jsonl' are invalid" in e for e in alerts(at, "error"))
    assert any("relocated" in i for i in alerts(at, "info"))


def test_two_sets_and_model_transfer(at):
    assert any("Gap to the check set" in m.label for m in at.metric)
    at.text_input(key="m2").set_value("hash:64").run()
    assert not at.exception
    side = table(at, "recall · 1")
    assert {"recall · 1", "recall · 2"} <= set(side.columns)
    bars = table(at, "bar")
    assert len(bars) == 4 and bars["bar"].str.startswith("absolute").sum() == 2
    assert len(at.get("plotly_chart")) == 7  # 3 heatmaps, Pareto, check heatmap, scales, θ


def test_bad_second_model_shows_an_error(at):
    at.text_input(key="m2").set_value("nonsense-model").run()
    assert not at.exception
    assert any("Unknown model" in e for e in alerts(at, "error"))


def test_two_chunkers_on_the_same_queries(hash_model):
    at = AppTest.from_file("../../app.py", default_timeout=120)
    at.query_params["ev_chunker2"] = "section"
    at.run()
    at.switch_page("pages/evaluate.py").run()
    assert not at.exception, at.exception
    (tab,) = [t for t in at.tabs if t.label == "Two chunkers"]
    table = tab.dataframe[0].value
    assert list(table["chunking"]) == ["recursive 600/60", "section 600/60"]
    sample = samples.load_sample()
    qset = parse_queries(samples.sample_queries_text(), sample.text)
    for row, config in enumerate((ChunkingConfig(), ChunkingConfig("section", 600, 60))):
        counts = type_counts(label_queries(qset, sample.text, chunk_document(sample, config)))
        assert table["fragmented queries"].iloc[row] == counts["fragmented"]
        assert table["scattered queries"].iloc[row] == counts["scattered"]
    assert table["chunks in document"].iloc[0] != table["chunks in document"].iloc[1]
    assert "SCAR recall gain over top-k" in table.columns


def _sample_rows() -> dict[str, dict]:
    return {q["id"]: q for q in map(json.loads, samples.sample_queries_text().splitlines())}


def _evaluate_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/evaluate.py")
    return at


def _gold_by_id(at: AppTest) -> dict[str, str]:
    per_query = table(at, "missed → why")
    return dict(zip(per_query["id"], per_query["gold"], strict=True))


def test_same_ids_with_other_evidence_get_their_own_results(hash_model):
    """Two files with the same ids and different evidence: the per-query gold, the query text
    and the metrics follow the file, not a memo keyed on ids."""
    rows = _sample_rows()
    first = [rows["harbor-a-01"], rows["harbor-a-08"]]
    second = [
        {**rows["harbor-f-01"], "id": "harbor-a-01"},
        {**rows["harbor-a-08"], "evidence": rows["harbor-a-03"]["evidence"], "query": "Other?"},
    ]
    at = _evaluate_page()
    at.session_state["qs_data"] = ("mine.jsonl", "\n".join(map(json.dumps, first)).encode())
    at.run()
    assert not at.exception, at.exception
    gold_1 = _gold_by_id(at)
    at.session_state["qs_data"] = ("mine.jsonl", "\n".join(map(json.dumps, second)).encode())
    at.run()
    assert not at.exception, at.exception
    gold_2 = _gold_by_id(at)
    sample = samples.load_sample()
    chunks = chunk_document(sample)
    for data, seen in ((first, gold_1), (second, gold_2)):
        expected = label_queries(
            parse_queries("\n".join(map(json.dumps, data)), sample.text), sample.text, chunks
        )
        assert seen == {q.id: ", ".join(map(str, q.gold)) for q in expected}
    assert gold_1 != gold_2
    assert int(metric(at, "Fragmented")) == 1
    per_query = table(at, "missed → why")
    assert "Other?" in set(per_query["query"])
    assert set(per_query["type"]) == {"fragmented", "atomic"}


def test_scattered_queries_are_a_third_subset(hash_model):
    rows = _sample_rows()
    far = {
        "id": "far",
        "query": "Two distant rules?",
        "evidence": rows["harbor-a-01"]["evidence"] + rows["harbor-a-08"]["evidence"],
    }
    data = [rows["harbor-f-01"], rows["harbor-a-02"], far]
    at = _evaluate_page()
    at.session_state["qs_data"] = ("far.jsonl", "\n".join(map(json.dumps, data)).encode())
    at.run()
    assert not at.exception, at.exception
    assert [metric(at, k) for k in ("Fragmented", "Atomic", "Scattered")] == ["1", "1", "1"]
    metrics = at.dataframe[0].value
    scattered = metrics[(metrics.policy == "scar") & (metrics.subset == "scattered")]
    assert len(scattered) == 1 and scattered["n"].iloc[0] == 1
    per_query = table(at, "missed → why")
    assert per_query.set_index("id").loc["far", "type"] == "scattered"


def test_no_scattered_row_without_scattered_queries(at):
    assert metric(at, "Scattered") == "0"
    assert "scattered" not in set(at.dataframe[0].value["subset"])
