"""AppTest of the Evaluation lab's first page on the built-in sample with the hashing embedder:
query sets (sample, upload, session, same ids with other evidence), metrics, per query,
significance, the policy list."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.chunking.config import chunk_document
from scar_viz.documents import samples
from scar_viz.documents.reading import document_from_text
from scar_viz.evaluation import available_policies
from scar_viz.policies.rerank import RERANK_HINT, reranker_status
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from tests.pages import helpers
from tests.pages.helpers import alerts, stash_queries

APP = "../../app.py"
TIMEOUT = 90
PAGE = "pages/evaluate.py"


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


COLUMNS = {
    "metrics_table": "mean tokens",
    "per_query_table": "missed → why",
    "sig_table": "SCAR vs",
}


def table(at: AppTest, key: str):
    """The table drawn with ``key`` (found by a column only it has)."""
    if key == "miss_reasons":  # policy, then one column per reason that occurs
        return next(
            df.value
            for df in at.dataframe
            if list(df.value.columns[:1]) == ["policy"]
            and not {"subset", "k"} & set(df.value.columns)  # not the metrics, not the verdict
        )
    return next(df.value for df in at.dataframe if COLUMNS[key] in df.value.columns)


def open_page(page: str = PAGE) -> AppTest:
    """A new session whose first run is ``page``'s (not yet run)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page(page)
    return at


@pytest.fixture
def at(hash_model) -> AppTest:
    app = open_page()
    app.run()
    assert not app.exception, app.exception
    return app


def n_sample_queries() -> int:
    return len([x for x in samples.sample_queries_text().splitlines() if x.strip()])


def sample_rows() -> dict[str, dict]:
    return {q["id"]: q for q in map(json.loads, samples.sample_queries_text().splitlines())}


def jsonl(rows) -> str:
    return "\n".join(map(json.dumps, rows))


def expected_gold(data: str) -> dict[str, str]:
    sample = samples.load_sample()
    labelled = label_queries(parse_queries(data, sample), sample, chunk_document(sample))
    return {q.id: ", ".join(map(str, q.gold)) for q in labelled}


def source_radio(at: AppTest):
    """The query set's source radio (its key follows the active source)."""
    return next(r for r in at.radio if r.label == "Use")


def scar_chunks(at: AppTest) -> float:
    m = table(at, "metrics_table")
    return m[(m.policy == "scar") & (m.subset == "all")]["mean chunks"].iloc[0]


def test_runs_on_the_sample_with_its_own_queries(at):
    assert at.title[0].value == "Evaluation lab"
    assert int(metric(at, "Queries")) == n_sample_queries()
    assert int(metric(at, "Fragmented")) + int(metric(at, "Atomic")) == n_sample_queries()
    assert source_radio(at).value == "sample"
    metrics = table(at, "metrics_table")
    assert {"topk", "window1", "window2", "scar"} <= set(metrics["policy"])
    topk = metrics[(metrics.policy == "topk") & (metrics.subset == "all")]
    assert topk["mean chunks"].iloc[0] == at.slider(key="k").value
    assert any("window ±1**" in m.value and "recall" in m.value for m in at.markdown)
    assert not any("-0%" in m.value for m in at.markdown)


def test_policy_list_has_every_available_policy_and_the_rerank_hint(at):
    options = at.multiselect(key="pol").options
    assert options == list(available_policies())
    assert {"qasc", "rse", "automerge", "sentence-window"} <= set(options)
    hinted = any(RERANK_HINT in c.value for c in at.caption)
    assert ("rerank" in options) == reranker_status().available
    assert hinted == (not reranker_status().available)


def test_sliders_change_scar(at):
    at.slider(key="lam").set_value(0.0)
    at.slider(key="tau").set_value(0.0).run()
    loose = scar_chunks(at)
    at.slider(key="lam").set_value(2.0)
    at.slider(key="tau").set_value(1.5).run()
    assert loose > scar_chunks(at) == at.slider(key="k").value


def test_per_query_policy_pick_changes_the_rows(at):
    scar = table(at, "per_query_table")
    at.selectbox(key="pq_pol").set_value("topk").run()
    topk = table(at, "per_query_table")
    assert list(scar["id"]) == list(topk["id"])
    assert (topk["chunks"] == at.slider(key="k").value).all()
    assert (scar["chunks"] >= topk["chunks"]).all() and (scar["chunks"] > topk["chunks"]).any()
    reasons = table(at, "miss_reasons")
    assert set(reasons["policy"]) <= set(at.multiselect(key="pol").value)


def test_significance_follows_the_policies(at):
    sig = table(at, "sig_table")
    assert set(sig["SCAR vs"]) == {"topk", "window1", "window2"} | (
        {"parent"} if "parent" in at.multiselect(key="pol").value else set()
    )
    at.multiselect(key="pol").set_value(["topk", "scar"]).run()
    sig = table(at, "sig_table")
    assert set(sig["SCAR vs"]) == {"topk"} and len(sig) == 3
    low, high = sig["95% CI low"], sig["95% CI high"]
    assert ((low <= sig["mean diff"]) & (sig["mean diff"] <= high)).all()


def test_uploaded_query_set_with_errors_and_relocation(hash_model):
    lines = samples.sample_queries_text().splitlines()
    first = json.loads(lines[0])
    first["evidence"][0]["start"] = 0  # stale, the text occurs once
    first["evidence"][0]["end"] = 5
    data = "\n".join([json.dumps(first), "{broken", lines[1], lines[2]]).encode()
    at = open_page()
    stash_queries(at, samples.load_sample().text, "mine.jsonl", data)
    at.run()
    assert not at.exception, at.exception
    assert source_radio(at).value == "upload"
    assert int(metric(at, "Queries")) == 3
    assert any("1 line(s) of 'mine.jsonl' are invalid" in e for e in alerts(at, "error"))
    assert any("relocated" in i for i in alerts(at, "info"))
    source_radio(at).set_value("sample").run()  # back to the sample's own set
    assert int(metric(at, "Queries")) == n_sample_queries()


def test_session_set_is_offered_and_used(hash_model):
    rows = sample_rows()
    data = jsonl([rows["harbor-f-01"], rows["harbor-a-02"]])
    at = open_page()
    stash_queries(at, samples.load_sample().text, "labelled in this session", data, "session")
    at.run()
    assert not at.exception, at.exception
    source = source_radio(at)
    assert source.value == "session" and len(source.options) == 2
    assert "Labelled in this session" in source.options[1]
    assert int(metric(at, "Queries")) == 2
    per_query = table(at, "per_query_table")
    assert dict(zip(per_query["id"], per_query["gold"], strict=True)) == expected_gold(data)


def test_uploaded_document_without_queries_offers_the_format(hash_model):
    text = "# Rules\n\n" + "\n\n".join(f"Rule {i}: the crew checks the tide." for i in range(40))
    doc = document_from_text("rules.md", text)
    at = helpers.open_page(PAGE, TIMEOUT, upload=doc)
    assert not at.exception, at.exception
    assert any("no labelled queries yet" in i.value for i in at.info)
    assert not at.radio and not at.metric
    labels = {b.label for b in at.get("download_button")}
    assert {"Template (JSON Lines)", "Worked example on the sample"} <= labels
    stash_queries(at, text, "labelled in this session", jsonl([rule_query(text)]), "session")
    at.run()
    assert int(metric(at, "Queries")) == 1
    assert source_radio(at).value == "session"


def rule_query(text: str) -> dict:
    start = text.index("Rule 7:")
    end = text.index("\n\n", start)
    return {
        "id": "r7",
        "query": "What is rule 7?",
        "evidence": [{"text": text[start:end], "start": start, "end": end}],
    }


def test_same_ids_with_other_evidence_get_their_own_results(hash_model):
    """Two files with the same ids and different evidence: the per-query gold, the query text
    and the metrics follow the file, not a memo keyed on ids."""
    rows = sample_rows()
    first = jsonl([rows["harbor-a-01"], rows["harbor-a-08"]])
    second = jsonl(
        [
            {**rows["harbor-f-01"], "id": "harbor-a-01"},
            {**rows["harbor-a-08"], "evidence": rows["harbor-a-03"]["evidence"], "query": "Other?"},
        ]
    )
    at = open_page()
    text = samples.load_sample().text
    seen = []
    for data in (first, second):
        stash_queries(at, text, "mine.jsonl", data.encode())
        at.run()
        assert not at.exception, at.exception
        per_query = table(at, "per_query_table")
        seen.append(dict(zip(per_query["id"], per_query["gold"], strict=True)))
        assert seen[-1] == expected_gold(data)
    assert seen[0] != seen[1]
    assert int(metric(at, "Fragmented")) == 1
    per_query = table(at, "per_query_table")
    assert "Other?" in set(per_query["query"])
    assert set(per_query["type"]) == {"fragmented", "atomic"}


def test_scattered_queries_are_a_third_subset(hash_model):
    rows = sample_rows()
    far = {
        "id": "far",
        "query": "Two distant rules?",
        "evidence": rows["harbor-a-01"]["evidence"] + rows["harbor-a-08"]["evidence"],
    }
    at = open_page()
    data = jsonl([rows["harbor-f-01"], rows["harbor-a-02"], far])
    stash_queries(at, samples.load_sample().text, "far.jsonl", data.encode())
    at.run()
    assert not at.exception, at.exception
    assert [metric(at, k) for k in ("Fragmented", "Atomic", "Scattered")] == ["1", "1", "1"]
    metrics = table(at, "metrics_table")
    scattered = metrics[(metrics.policy == "scar") & (metrics.subset == "scattered")]
    assert len(scattered) == 1 and scattered["n"].iloc[0] == 1
    assert table(at, "per_query_table").set_index("id").loc["far", "type"] == "scattered"


def test_no_scattered_row_without_scattered_queries(at):
    assert metric(at, "Scattered") == "0"
    assert "scattered" not in set(table(at, "metrics_table")["subset"])


def test_the_sample_corpus_is_evaluated_inside_each_file(hash_model):
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.query_params["doc"] = "kestrel"
    app.switch_page(PAGE)
    app.run()
    assert not app.exception, app.exception
    # every labelled query of the corpus is read against its own file: no line is skipped
    assert not [a for a in alerts(app, "error")], alerts(app, "error")
    per_query = table(app, "per_query_table")
    corpus = samples.load_sample("kestrel")
    qset = parse_queries(samples.sample_queries_text("kestrel"), corpus)
    assert not qset.errors and len(qset.queries) >= 16
    assert len(per_query) == len(qset.queries)
    gold = label_queries(qset, corpus, chunk_document(corpus))
    assert any(g.type == "scattered" for g in gold)  # evidence in two files
    by_file = next(df.value for df in app.dataframe if "file" in df.value.columns)
    assert set(by_file["file"]) >= {p.path for p in corpus.parts if p.path.startswith("docs/")}
    assert by_file["queries"].sum() == len(qset.queries)
    assert "scar recall" in by_file.columns and "window1 chunks" in by_file.columns


def test_the_sentence_policies_can_be_left_out(at):
    at.multiselect(key="pol").set_value(["topk", "scar", "qasc", "sentence-window"]).run()
    assert not at.exception, at.exception
    assert {"qasc", "sentence-window"} <= set(table(at, "metrics_table")["policy"])
    at.toggle(key="pol_sent").set_value(False).run()
    assert not at.exception, at.exception
    assert set(table(at, "metrics_table")["policy"]) == {"topk", "scar"}
