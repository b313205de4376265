"""Two sessions on one server, the same document, different query files under the same ids:
each session's Evaluation lab shows its own gold chunks and results (the memos are keyed on
the queries' content, not their ids)."""

from __future__ import annotations

import json

from scar_viz.chunking.config import chunk_document
from scar_viz.documents import samples
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scripts.browser_actions import download_text, go
from scripts.live_app import wait_for_app_run

QUERY_UPLOADER = "Labelled queries (JSON Lines"
"""The label of the page's query-set uploader (the sidebar's document uploader, drawn first
once a document is uploaded, takes .jsonl files too)."""


def query_files() -> tuple[str, str]:
    """Two files with ids q1, q2: same ids, different questions and evidence."""
    rows = {q["id"]: q for q in map(json.loads, samples.sample_queries_text().splitlines())}

    def file(*picks: tuple[str, str]) -> str:
        return "\n".join(
            json.dumps({"id": qid, "query": rows[src]["query"], "evidence": rows[src]["evidence"]})
            for qid, src in picks
        )

    return (
        file(("q1", "harbor-a-01"), ("q2", "harbor-a-08")),
        file(("q1", "harbor-f-01"), ("q2", "harbor-a-03")),
    )


def expected_gold(data: str) -> dict[str, list[int]]:
    doc = samples.load_sample()
    labelled = label_queries(parse_queries(data, doc), doc, chunk_document(doc))
    return {q.id: list(q.gold) for q in labelled}


def upload_queries(page, name: str, data: str) -> None:
    box = page.get_by_test_id("stFileUploader").filter(has_text=QUERY_UPLOADER)
    box.locator("input[type='file']").set_input_files(
        files=[{"name": name, "mimeType": "application/jsonl", "buffer": data.encode()}]
    )
    page.get_by_test_id("stFileUploader").filter(has_text=name).first.wait_for(timeout=10_000)
    wait_for_app_run(page)


def evaluation(page) -> dict:
    return json.loads(download_text(page, "Download as JSON"))


def test_same_ids_in_two_sessions_stay_apart(hash_app, chromium):
    files = query_files()
    contexts = [  # two visitors: two browsers of their own
        chromium.new_context(viewport={"width": 1400, "height": 1600}, private=True) for _ in files
    ]
    pages = [c.new_page() for c in contexts]
    try:
        for page in pages:
            page.goto(hash_app.url + "/evaluate")
            wait_for_app_run(page)
        for i, (page, data) in enumerate(zip(pages, files, strict=True)):
            upload_queries(page, f"set-{i}.jsonl", data)
        for _ in range(2):  # and again, after the other session has run
            for page, data in zip(pages, files, strict=True):
                out = evaluation(page)
                got = {q["id"]: q["gold"] for q in out["queries"]}
                assert got == expected_gold(data)
                assert "Traceback" not in page.content()
        assert expected_gold(files[0]) != expected_gold(files[1])
    finally:
        for c in contexts:
            c.close()


def metric_value(page, label: str) -> str:
    box = page.get_by_test_id("stMetric").filter(has_text=label).first
    return box.get_by_test_id("stMetricValue").inner_text().strip()


def test_an_uploaded_set_follows_through_the_evaluation_lab(hash_app, page):
    """Upload on the first page of the section; the sweep and the transfer page use it too
    (navigation section "Evaluation lab", one query set per document and session)."""
    data = query_files()[0]
    page.goto(hash_app.url + "/evaluate")
    wait_for_app_run(page)
    nav = page.get_by_test_id("stSidebarNav").inner_text()
    assert nav.index("Explore") < nav.index("Evaluation lab") < nav.index("Learn")
    assert page.get_by_role("heading", name="Evaluation lab").count() >= 1
    n_sample = metric_value(page, "Queries")
    upload_queries(page, "mine.jsonl", data)
    assert metric_value(page, "Queries") == "2" != n_sample
    for title in ("λ×τ sweep", "Model transfer", "Evaluation lab"):
        go(page, title)
        assert metric_value(page, "Queries") == "2", title
        assert page.get_by_text("An uploaded file (mine.jsonl)").count() == 1, title
        assert "Traceback" not in page.content()
    page.screenshot(path="artifacts/browser-evaluation-lab.png", full_page=True)
