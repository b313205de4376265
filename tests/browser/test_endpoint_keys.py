"""The operator's key goes only where the operator allows, in a browser against live servers.

Each app below holds a marker as ``OPENAI_API_KEY`` in its environment. Loopback fakes of a
chat endpoint and an embeddings endpoint record every request's headers; a visitor types their
addresses into the sidebar (through the URL, as a shared link would). Without the operator's
allow-list the fakes must never see the marker; with it they must; with the only-allowed switch
a URL off the list gets one message and no request at all.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from scripts.browser_actions import alerts, click_button, go, use_endpoint
from scripts.live_app import settle, wait_for_app_run
from tests.browser.conftest import running_hash_app
from tests.fake_llm import ChatServer
from tests.fakes import EmbeddingsServer

MARKER = "sk-operator-MARKER-0123456789abcdef"
N = 3


@pytest.fixture(scope="module")
def chat_fake():
    with ChatServer() as server:
        yield server


@pytest.fixture(scope="module")
def embed_fake():
    with EmbeddingsServer(dim=16) as server:
        yield server


@pytest.fixture(scope="module")
def open_app(tmp_path_factory):
    """An operator who allowed nothing: visitors may type any URL, the key stays home."""
    yield from running_hash_app(tmp_path_factory, OPENAI_API_KEY=MARKER)


@pytest.fixture(scope="module")
def allowing_app(tmp_path_factory, chat_fake, embed_fake):
    """An operator who allowed both fakes to receive the server's key."""
    allowed = f"{chat_fake.base_url}, {embed_fake.base_url}"
    yield from running_hash_app(
        tmp_path_factory, OPENAI_API_KEY=MARKER, SCAR_VIZ_ALLOWED_BASE_URLS=allowed
    )


@pytest.fixture(scope="module")
def held_app(tmp_path_factory):
    """An operator who holds visitors to a list that names neither fake."""
    yield from running_hash_app(
        tmp_path_factory,
        OPENAI_API_KEY=MARKER,
        SCAR_VIZ_ALLOWED_BASE_URLS="http://127.0.0.1:9/v1",
        SCAR_VIZ_ONLY_ALLOWED_BASE_URLS="1",
    )


def captions(page) -> str:
    return " ".join(alerts(page, "caption")) + " " + page.get_by_test_id("stSidebar").inner_text()


def generate_and_check(page, app, chat_fake) -> list[dict]:
    """Generate N queries with the typed chat URL, use them, run the answer check; the
    requests the fake received meanwhile."""
    before = chat_fake.calls
    page.goto(f"{app.url}/answers?llm_url={quote(chat_fake.base_url, safe='')}&gen_n={N}")
    wait_for_app_run(page)
    settle(page)
    assert not alerts(page)
    assert chat_fake.calls == before  # the link's URL waits for the visitor's answer
    use_endpoint(page)
    click_button(page, "Generate")
    click_button(page, "Use it in the Evaluation lab")
    page.get_by_text("Loaded: the Evaluation lab's pages use this set now").wait_for()
    click_button(page, "Run the answer check")
    assert not alerts(page)
    page.get_by_test_id("stDataFrame").filter(has_text="LLM calls").wait_for()
    sent = chat_fake.requests[before:]
    assert len(sent) > N  # generation and the answer check both reached the fake
    return sent


def embed_with(page, app, embed_fake) -> list[dict]:
    """Open the Explorer on the typed embeddings endpoint; the requests it received."""
    before = len(embed_fake.requests)
    page.goto(f"{app.url}/?model=openai&base_url={quote(embed_fake.base_url, safe='')}")
    wait_for_app_run(page)
    assert len(embed_fake.requests) == before  # the link's endpoint waits for an answer
    use_endpoint(page)
    page.get_by_test_id("stMetric").first.wait_for(timeout=60_000)
    sent = embed_fake.requests[before:]
    assert sent
    return sent


def test_a_typed_chat_url_never_receives_the_servers_key(open_app, chat_fake, page):
    sent = generate_and_check(page, open_app, chat_fake)
    assert all(MARKER not in r["headers"].get("authorization", "") for r in sent)
    go(page, "Answers (LLM)")
    assert "requests carry no key" in captions(page)
    assert MARKER not in page.content() and MARKER not in open_app.log()


def test_an_allowed_chat_url_receives_the_servers_key(allowing_app, chat_fake, page):
    sent = generate_and_check(page, allowing_app, chat_fake)
    assert {r["headers"]["authorization"] for r in sent} == {f"Bearer {MARKER}"}
    assert "requests carry the server's key" in captions(page)
    assert MARKER not in page.content() and MARKER not in allowing_app.log()


def test_a_typed_embeddings_url_never_receives_the_servers_key(open_app, embed_fake, page):
    sent = embed_with(page, open_app, embed_fake)
    assert all(MARKER not in r["headers"].get("authorization", "") for r in sent)
    assert "carry no key" in captions(page)


def test_an_allowed_embeddings_url_receives_the_servers_key(allowing_app, embed_fake, page):
    sent = embed_with(page, allowing_app, embed_fake)
    assert {r["headers"]["authorization"] for r in sent} == {f"Bearer {MARKER}"}
    assert "carry the server's key" in captions(page)


def test_held_visitors_get_one_message_and_the_server_sends_nothing(
    held_app, chat_fake, embed_fake, page
):
    chats, embeds = chat_fake.calls, len(embed_fake.requests)
    page.goto(f"{held_app.url}/answers?llm_url={quote(chat_fake.base_url, safe='')}")
    wait_for_app_run(page)
    settle(page)
    refused = [a for a in alerts(page) if "operator allowed" in a]
    assert len(refused) == 1 and chat_fake.base_url.split("/v1")[0] in refused[0]
    assert page.get_by_role("button", name="Generate").is_disabled()
    assert page.get_by_role("button", name="Run the answer check").is_disabled()

    page.goto(f"{held_app.url}/?model=openai&base_url={quote(embed_fake.base_url, safe='')}")
    wait_for_app_run(page)
    settle(page)
    refused = [a for a in alerts(page) if "operator allowed" in a]
    assert len(refused) == 1
    assert chat_fake.calls == chats and len(embed_fake.requests) == embeds
    assert MARKER not in page.content() and MARKER not in held_app.log()
