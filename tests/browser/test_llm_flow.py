"""Generate → evaluate → answer check on the sample, in a browser, against the loopback fake
chat server (started here; the app server reaches it over 127.0.0.1 through the real
``openai`` client). The key is in the server's environment only and must appear nowhere:
page source, URL, server log, downloads, and the typed endpoint's requests (the operator
allowed none). The fake's replies follow string rules: nothing
here reads answer quality."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from scripts.browser_actions import alerts, click_button, download_text, go, use_endpoint
from scripts.live_app import settle, wait_for_app_run
from tests.browser.conftest import running_hash_app

KEY = "sk-llm-flow-SECRET-0123456789abcdef"
N = 6


@pytest.fixture(scope="module")
def llm_app(tmp_path_factory):
    yield from running_hash_app(tmp_path_factory, OPENAI_API_KEY=KEY)


def metric(page, label: str) -> int:
    box = page.get_by_test_id("stMetric").filter(has_text=label).first
    return int(box.get_by_test_id("stMetricValue").inner_text().replace(",", ""))


def assert_nowhere(page, app, *texts: str) -> None:
    for text in (page.content(), page.url, app.log(), *texts):
        assert KEY not in text


def test_generate_evaluate_answer_check(llm_app, llm_server, page):
    page.goto(f"{llm_app.url}/answers?llm_url={quote(llm_server.base_url, safe='')}&gen_n={N}")
    wait_for_app_run(page)
    settle(page)
    assert not alerts(page)
    use_endpoint(page)  # the link's chat URL is a proposal until the visitor takes it
    click_button(page, "Generate")
    kept = metric(page, "Kept")
    assert 0 < kept <= N
    # the operator did not allow this typed URL: the server's key stays home
    assert {r["headers"]["authorization"] for r in llm_server.requests} == {"Bearer no-key"}
    generated = download_text(page, "Download the set (JSON Lines)")
    rows = [json.loads(line) for line in generated.splitlines()]
    assert len(rows) == kept and all(r["evidence"] and r["answer"] for r in rows)
    click_button(page, "Use it in the Evaluation lab")
    page.get_by_text("Loaded: the Evaluation lab's pages use this set now").wait_for()
    assert page.get_by_role("radio", name="Generated with an LLM").is_checked()  # this page's
    assert metric(page, "Queries") == kept

    go(page, "Evaluation lab")  # the lab's pages now run on the generated set
    assert page.get_by_role("radio", name="Generated with an LLM").is_checked()
    assert metric(page, "Queries") == kept
    types = [r["type"] for r in rows]
    assert metric(page, "Fragmented") == types.count("fragmented")
    assert metric(page, "Atomic") == types.count("atomic")
    assert not alerts(page)

    go(page, "Answers (LLM)")
    assert metric(page, "Kept") == kept  # the generated set is still there
    calls = llm_server.calls
    click_button(page, "Run the answer check")
    assert llm_server.calls > calls
    assert not alerts(page)
    caption = " ".join(alerts(page, "caption"))
    assert f"{kept} queries on harbor_manual.md" in caption
    summary = page.get_by_test_id("stDataFrame").filter(has_text="LLM calls")
    summary.wait_for()
    report = json.loads(download_text(page, "Download the answer check (JSON)"))
    assert report["n_queries"] == kept
    assert set(report["policies"]) == {"topk", "window1", "scar"}
    assert llm_server.base_url.split("/v1")[0] in report["answer_model"]
    assert_nowhere(page, llm_app, generated, json.dumps(report))
    assert "llm_key" not in page.url and "llm_url" in page.url
