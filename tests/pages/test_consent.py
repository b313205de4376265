"""AppTest: an endpoint a link or a session file fills in is a proposal naming its host; nothing
(no key, no document text, no question) reaches it until the visitor confirms it or types it
themselves. A visitor who types a URL is never asked."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest
from streamlit.testing.v1 import AppTest

from tests.fakes import EmbeddingsServer
from tests.pages.helpers import APP, alerts, use_endpoint

TIMEOUT = 120
KEY = "sk-visitor-OWN-0123456789abcdef"
NOTES = "# Ferry notes\n\n" + "\n\n".join(
    f"Note {i}. Crossing {i} waits for the tide; the master logs each delay of {i} minutes."
    for i in range(20)
)


@pytest.fixture(autouse=True)
def no_server_key(monkeypatch):
    for name in ("OPENAI_API_KEY", "SCAR_VIZ_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def host(url: str) -> str:
    return urlsplit(url).netloc


def everything(at: AppTest) -> str:
    return " ".join(alerts(at) + alerts(at.sidebar) + [i.value for i in at.info])


def answers_page(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update(params)
    at.switch_page("pages/answers.py")  # opened on the page, as a link to /answers is
    at.run()
    assert not at.exception, at.exception
    return at


def generate(at: AppTest) -> None:
    at.number_input(key="gen_n").set_value(3)
    at.button(key="gen_run").click().run()
    assert not at.exception, at.exception


def test_a_linked_chat_url_gets_nothing_until_the_visitor_confirms(hash_model, llm_server):
    at = answers_page(llm_url=llm_server.base_url, llm_model="fake-model")
    question = [a for a in alerts(at, "warning") if "asks to send requests" in a]
    assert question and question[0].startswith(
        f"This link asks to send requests to {host(llm_server.base_url)} (model fake-model)"
    )
    waiting = [a for a in alerts(at, "info") if a.startswith("Nothing was sent")]
    assert waiting and host(llm_server.base_url) in waiting[0]
    at.text_input(key="llm_key_input").set_value(KEY).run()  # the visitor types their key
    assert at.button(key="gen_run").disabled and at.button(key="ans_run").disabled
    assert llm_server.calls == 0 and "Requests to" not in everything(at)

    use_endpoint(at)
    assert not [a for a in alerts(at, "warning") if "asks to send requests" in a]
    said = " ".join(alerts(at, "caption"))
    assert f"Chat model: fake-model at {llm_server.base_url}; requests carry your key." in said
    generate(at)
    assert llm_server.calls > 0
    assert {r["headers"]["authorization"] for r in llm_server.requests} == {f"Bearer {KEY}"}


def test_a_visitor_who_types_the_url_is_never_asked(hash_model, llm_server):
    at = answers_page()
    at.text_input(key="llm_url").set_value(llm_server.base_url)
    at.text_input(key="llm_model").set_value("fake-model").run()
    assert not [a for a in alerts(at, "warning") if "asks to send" in a]
    generate(at)
    assert llm_server.calls > 0


def test_dont_use_it_puts_the_defaults_back(hash_model, llm_server):
    at = answers_page(llm_url=llm_server.base_url)
    at.button(key="endpoint_chat_sidebar_drop").click().run()
    assert not at.exception, at.exception
    assert at.text_input(key="llm_url").value == ""
    assert "llm_url" not in at.query_params
    assert not [a for a in alerts(at, "warning") if "asks to send" in a]
    assert llm_server.calls == 0


def test_a_link_that_changes_a_typed_url_asks_again(hash_model, llm_server):
    at = answers_page()
    at.text_input(key="llm_url").set_value("http://127.0.0.1:9/v1").run()
    assert not [a for a in alerts(at, "warning") if "asks to send" in a]
    at.query_params["llm_url"] = llm_server.base_url  # a link opened in the same session
    at.session_state["llm_url"] = llm_server.base_url  # as history navigation seeds it
    at.run()
    assert [a for a in alerts(at, "warning") if "asks to send requests" in a]


def test_a_session_files_endpoint_is_its_proposal(hash_model, llm_server):
    at = answers_page()
    saved = {
        "format": "scar-viz-session",
        "version": 1,
        "settings": {"llm_url": llm_server.base_url, "llm_model": "fake-model"},
    }
    at.file_uploader(key="session_file").set_value(
        ("s.json", json.dumps(saved).encode(), "application/json")
    ).run()
    assert not at.exception, at.exception
    asked = [a for a in alerts(at, "warning") if "asks to send requests" in a]
    assert asked and asked[0].startswith(
        f"This session file asks to send requests to {host(llm_server.base_url)}"
    )
    assert at.button(key="gen_run").disabled and llm_server.calls == 0


def test_a_linked_embeddings_endpoint_gets_no_document_until_confirmed(hash_model):
    with EmbeddingsServer(dim=16) as fake:
        at = AppTest.from_file(APP, default_timeout=TIMEOUT)
        at.query_params.update({"doc": "upload", "model": "openai", "base_url": fake.base_url})
        at.run()
        at.file_uploader(key="upload_file").set_value(
            ("ferry.md", NOTES.encode(), "text/markdown")
        ).run()
        assert not at.exception, at.exception
        assert fake.requests == []
        asked = [a for a in alerts(at.sidebar, "warning") if "asks to send requests" in a]
        assert asked and host(fake.base_url) in asked[0] and "document's text" in asked[0]
        assert any("Nothing was sent" in a for a in alerts(at, "info"))
        use_endpoint(at, "embeddings")
        assert fake.requests, "confirmed: the document is embedded there"
        assert any(c.startswith("ferry.md: ") for c in alerts(at.sidebar, "caption"))


def test_a_linked_second_model_gets_no_key_the_visitor_typed_for_another_endpoint(hash_model):
    with EmbeddingsServer(dim=16) as fake:
        at = AppTest.from_file(APP, default_timeout=TIMEOUT)
        at.query_params.update({"m2": "openai:linked", "m2url": fake.base_url})
        at.session_state["api_key_input"] = KEY  # typed in the sidebar, for its own endpoint
        at.switch_page("pages/transfer.py")
        at.run()
        assert not at.exception, at.exception
        asked = [a for a in alerts(at, "warning") if "asks to send requests" in a]
        # the question names everything that would leave: the text, and which key (none)
        assert asked and "this document's text would go there, with no key" in asked[0]
        assert fake.requests == []
        use_endpoint(at, "second-model", "page")
        assert fake.requests, "confirmed: the document is embedded there"
        sent = {r["headers"].get("authorization") for r in fake.requests}
        assert sent and not any(KEY in (s or "") for s in sent)
