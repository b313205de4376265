"""An API key, configured or typed, never reaches the page source, the URL, logs, messages or
exports. The endpoint is a real local HTTP server speaking the embeddings API."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from scripts.browser_actions import alerts, download_text, open_llm_settings, use_endpoint
from scripts.live_app import wait_for_app_run
from tests.browser.conftest import running_hash_app
from tests.fakes import EmbeddingsServer

CONFIGURED = "sk-configured-SECRET-0123456789abcdef"
TYPED = "sk-typed-SECRET-fedcba9876543210"


@pytest.fixture(scope="module")
def endpoint():
    with EmbeddingsServer(dim=16) as server:
        yield server


@pytest.fixture(scope="module")
def keyed_app(tmp_path_factory, endpoint):
    """The server holds a key and its operator allowed the fake endpoint to receive it."""
    yield from running_hash_app(
        tmp_path_factory, OPENAI_API_KEY=CONFIGURED, SCAR_VIZ_ALLOWED_BASE_URLS=endpoint.base_url
    )


def assert_nowhere(page, app, *texts: str) -> None:
    page_source = page.content()
    for secret in texts:
        assert secret not in page_source
        assert secret not in page.url
        assert secret not in app.log()


def test_configured_key_is_used_but_never_shown(keyed_app, endpoint, page):
    endpoint.mode = "401"
    page.goto(f"{keyed_app.url}/?model=openai&base_url={quote(endpoint.base_url, safe='')}")
    wait_for_app_run(page)
    use_endpoint(page)  # the link's endpoint: sent to only once the visitor takes it
    assert any("refused the API key (401" in a for a in alerts(page))
    assert endpoint.requests[-1]["headers"]["authorization"] == f"Bearer {CONFIGURED}"
    assert_nowhere(page, keyed_app, CONFIGURED)

    endpoint.mode = "ok"
    page.reload()  # a new session: the link's endpoint is asked about again
    wait_for_app_run(page)
    use_endpoint(page)
    expect(page.get_by_test_id("stMetric")).to_have_count(5, timeout=60_000)  # vectors in use
    page.get_by_text("Share this view").click()
    session = download_text(page, "Save session file (JSON)")
    decisions = download_text(page, "Download decisions (CSV)")
    assert "openai" in session and endpoint.base_url in session
    for export in (session, decisions):
        assert CONFIGURED not in export
    assert_nowhere(page, keyed_app, CONFIGURED)


def test_typed_key_never_leaves_the_field(keyed_app, endpoint, page):
    endpoint.mode = "429"
    query = quote("A question never embedded before: who signs the log?")
    page.goto(
        f"{keyed_app.url}/?model=openai&q={query}&base_url={quote(endpoint.base_url, safe='')}"
    )
    wait_for_app_run(page)
    field = page.get_by_label("API key (yours, optional)", exact=True)
    field.fill(TYPED)
    field.press("Enter")
    wait_for_app_run(page)
    use_endpoint(page)
    assert endpoint.requests[-1]["headers"]["authorization"] == f"Bearer {TYPED}"
    assert any("rate-limiting" in a for a in alerts(page))
    assert TYPED not in page.url and TYPED not in keyed_app.log()
    assert all(TYPED not in a for a in alerts(page))
    page.get_by_text("Share this view").click()
    assert TYPED not in download_text(page, "Save session file (JSON)")


def test_typed_chat_key_never_leaves_the_field(keyed_app, page):
    page.goto(f"{keyed_app.url}/?llm_model=my-chat-model")
    wait_for_app_run(page)
    open_llm_settings(page)  # open already: the link's model name is a proposal
    field = page.get_by_label("Chat API key (yours, optional)")
    field.fill(TYPED)
    field.press("Enter")
    wait_for_app_run(page)
    assert page.get_by_label("Chat model").input_value() == "my-chat-model"
    assert TYPED not in page.url and TYPED not in keyed_app.log()
    page.get_by_text("Share this view").click()
    session = download_text(page, "Save session file (JSON)")
    assert "my-chat-model" in session and TYPED not in session
