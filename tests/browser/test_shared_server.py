"""A shared server a visitor can trust, in a browser against live servers and loopback
recorders standing in for a stranger's endpoints:

- a link's chat URL or embeddings URL receives nothing (no key, no document text) until the
  visitor confirms it; then it gets the requests, with the visitor's key, and the page names it;
- a model a link names never makes the server contact the model hub, however it was started
  (``scripts/serve.py`` or a bare ``streamlit run app.py``), and every refusal reads the same;
- a visitor who closes the tab stops the server's work for them: no request after the close.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import quote, urlsplit

import pytest

from scar_viz.runtime.models_root import refusal
from scripts.browser_actions import (
    ON_THE_UPLOADER,
    alerts,
    caption_shows,
    click_button,
    open_llm_settings,
    upload,
    use_endpoint,
)
from scripts.live_app import LiveApp, settle, wait_for_app_run
from tests.browser.conftest import running_hash_app
from tests.fake_http import POLL_S, _QuietServer
from tests.fake_llm import ChatServer
from tests.fakes import EmbeddingsServer

KEY = "sk-visitor-OWN-0123456789abcdef"
NOTES = "# Ferry notes\n\n" + "\n\n".join(
    f"Note {i}. Crossing {i} waits for the tide; the master logs each delay of {i} minutes."
    for i in range(20)
)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    yield from running_hash_app(tmp_path_factory)


@pytest.fixture
def chat():
    with ChatServer() as server:
        yield server


def host(url: str) -> str:
    return urlsplit(url).netloc


def test_a_linked_chat_url_gets_nothing_until_the_visitor_confirms(app, chat, page):
    page.goto(f"{app.url}/answers?llm_url={quote(chat.base_url, safe='')}&gen_n=3")
    wait_for_app_run(page)
    settle(page)
    asked = [a for a in alerts(page, "warning") if "asks to send requests" in a]
    assert len(asked) == 1 and f"requests to {host(chat.base_url)}" in asked[0]
    open_llm_settings(page)
    field = page.get_by_label("Chat API key (yours, optional)")
    field.fill(KEY)
    field.press("Enter")
    wait_for_app_run(page)
    assert page.get_by_role("button", name="Generate").is_disabled()
    assert any(host(chat.base_url) in a for a in alerts(page, "info") if "Nothing was sent" in a)
    assert chat.calls == 0

    use_endpoint(page)
    click_button(page, "Generate")
    assert chat.calls > 0
    assert {r["headers"]["authorization"] for r in chat.requests} == {f"Bearer {KEY}"}
    said = " ".join(alerts(page, "caption"))
    assert f"at {chat.base_url}; requests carry your key." in said
    assert KEY not in page.url and KEY not in app.log()  # (the field itself holds it)
    assert all(KEY not in a for kind in ("caption", "info", "warning") for a in alerts(page, kind))


def test_an_upload_on_a_linked_embeddings_url_waits_for_the_visitor(app, page):
    with EmbeddingsServer(dim=16) as fake:
        url = quote(fake.base_url, safe="")
        page.goto(f"{app.url}/?{ON_THE_UPLOADER}&model=openai&base_url={url}")
        wait_for_app_run(page)
        upload(page, "ferry.md", NOTES.encode())
        assert fake.requests == []  # the document's text stayed on the server
        asked = [a for a in alerts(page, "warning") if "asks to send requests" in a]
        assert asked and host(fake.base_url) in asked[0] and "document's text" in asked[0]
        use_endpoint(page)
        assert caption_shows(page, "ferry.md: ")
        assert fake.requests and any("Ferry notes" in str(r["body"]) for r in fake.requests)


# --- the model hub ---------------------------------------------------------------------------


class HubRecorder:
    """Any HTTP request on 127.0.0.1 recorded and answered 404: the model hub's stand-in."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _any(self):
                recorder.requests.append(f"{self.command} {self.path}")
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_HEAD = do_POST = _any  # noqa: N815

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True
        ).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def hub():
    recorder = HubRecorder()
    yield recorder
    recorder.close()


@pytest.mark.parametrize("started", ["serve.py", "streamlit run app.py"])
def test_a_model_a_link_names_never_reaches_the_hub(tmp_path_factory, hub, chromium, started):
    cache = tmp_path_factory.mktemp("live-cache")
    server = LiveApp(
        env={
            "SCAR_VIZ_CACHE_DIR": str(cache),
            "SCAR_VIZ_LOG": str(cache / "server.log"),
            "SCAR_VIZ_DEFAULT_MODEL": "hash",
            "SCAR_VIZ_MODELS_ROOT": str(tmp_path_factory.mktemp("models")),
            "HF_ENDPOINT": hub.url,  # where the hub libraries would go
        }
    )
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        server.env.pop(name, None)  # the operator set no switch: the app must
    server.script = None if started == "serve.py" else "app.py"
    server.start()
    context = chromium.new_context(viewport={"width": 1400, "height": 1800})
    page = context.new_page()
    try:
        before = len(hub.requests)
        shown = {}
        for typed in ("someorg/some-model", "/etc", "/no/such/folder"):
            page.goto(f"{server.url}/?model=sentence-transformers&st_model={quote(typed)}")
            wait_for_app_run(page)
            page.get_by_text(refusal(typed)).first.wait_for()
            said = [a for a in alerts(page) if "cannot be loaded" in a]
            assert said == [refusal(typed)], said
            shown[typed] = said[0].replace(typed, "X")
        assert len(set(shown.values())) == 1  # an existing folder reads as a missing one
        page.goto(f"{server.url}/compare?rr={quote('someorg/some-reranker')}")
        wait_for_app_run(page)
        page.get_by_text("Rerank is left out").first.wait_for()
        assert hub.requests[before:] == []
        assert "Traceback" not in page.content()
    finally:
        context.close()
        server.stop()


# --- a closed session ------------------------------------------------------------------------


def test_a_closed_tab_stops_the_servers_work_for_it(app, chromium):
    with ChatServer() as slow:
        slow.delay = 0.5  # each call takes half a second: the check would run for minutes
        context = chromium.new_context(viewport={"width": 1400, "height": 1800})
        page = context.new_page()
        page.goto(f"{app.url}/answers?llm_url={quote(slow.base_url, safe='')}")
        wait_for_app_run(page)
        use_endpoint(page)
        page.get_by_role("button", name="Run the answer check").click()
        deadline = time.monotonic() + 60
        while slow.calls < 6 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert slow.calls >= 6, "the check never started"
        context.close()  # the visitor closes the tab mid-check
        time.sleep(3)  # a stop poll, the calls in flight (0.5 s each)
        settled = slow.calls
        time.sleep(3)
        assert slow.calls == settled < 40  # 24 queries × 3 policies were due, and their judging
        assert "Traceback" not in app.log()
