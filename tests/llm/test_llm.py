"""ChatModel against the loopback fake server, through the real openai client over HTTP."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from scar_viz.llm.client import ChatModel, LLMCache, LLMError
from scar_viz.llm.replies import parse_json_object
from scar_viz.runtime.cancel import Cancelled
from scar_viz.runtime.endpoints import public_url
from tests.fake_llm import HTML_ANSWER

SECRET = "sk-test-SECRET0123456789abcdef"
ASK = [
    {"role": "system", "content": "Task: atomic-query. Make a question."},
    {"role": "user", "content": "PASSAGE:\nThe ferry leaves at dawn when the tide is high."},
]


def chat(server, **kw) -> ChatModel:
    kw.setdefault("api_key", SECRET)
    kw.setdefault("timeout", 5)
    return ChatModel("fake-model", base_url=server.base_url, **kw)


def test_happy_path_json_usage_and_key_only_in_header(llm_server):
    model = chat(llm_server)
    reply = model.complete(ASK)
    assert reply.ok and not reply.cached
    assert reply.data["evidence"] == ["The ferry leaves at dawn when the tide is high."]
    body = llm_server.requests[0]["body"]
    assert body["temperature"] == 0
    assert body["response_format"] == {"type": "json_object"}
    assert llm_server.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    assert model.usage.as_dict() == {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
        "calls": 1,
        "cached": 0,
    }
    for shown in (model.model_id, model.label, repr(model)):
        assert SECRET not in shown


def test_second_identical_call_is_served_from_disk(llm_server):
    first = chat(llm_server).complete(ASK)
    again = chat(llm_server)  # a new instance: only the disk cache can answer
    second = again.complete(ASK)
    assert llm_server.calls == 1
    assert second.cached and second.data == first.data
    assert again.usage.calls == 0 and again.usage.cached == 1
    other = [*ASK[:1], {"role": "user", "content": "PASSAGE:\nAnother passage about the tide."}]
    again.complete(other)
    assert llm_server.calls == 2  # different messages, different key


def test_cache_key_ignores_the_api_key_but_not_model_or_url(llm_server):
    a = chat(llm_server, api_key="sk-one-aaaaaaaaaaaa")
    b = chat(llm_server, api_key="sk-two-bbbbbbbbbbbb")
    assert a.cache_key(ASK, True) == b.cache_key(ASK, True)
    c = ChatModel("other-model", base_url=llm_server.base_url, api_key=SECRET)
    assert c.cache_key(ASK, True) != a.cache_key(ASK, True)
    assert a.cache_key(ASK, True) != a.cache_key(ASK, False)


def test_401_is_one_sentence_without_the_key(llm_server):
    llm_server.mode = "401"
    with pytest.raises(LLMError, match="refused the API key") as info:
        chat(llm_server).complete(ASK)
    assert SECRET not in str(info.value)
    assert llm_server.calls == 1  # no retry on 401


def test_429_then_success_retries_with_backoff(llm_server):
    llm_server.mode, llm_server.fail_times = "429", 2
    reply = chat(llm_server, max_retries=3).complete(ASK)
    assert reply.ok and llm_server.calls == 3


def test_429_beyond_the_retries_fails_clearly(llm_server):
    llm_server.mode, llm_server.fail_times = "429", 99
    with pytest.raises(LLMError, match=r"rate-limiting requests \(429\) after 3 attempt"):
        chat(llm_server, max_retries=2).complete(ASK)
    assert llm_server.calls == 3


def test_500_is_retried_then_reported(llm_server):
    llm_server.mode = "500"
    with pytest.raises(LLMError, match="failed with HTTP 500 after 2 attempt"):
        chat(llm_server, max_retries=1).complete(ASK)
    assert llm_server.calls == 2
    assert LLMCache().count() == 0  # failures are never cached


def test_timeout(llm_server):
    llm_server.mode = "slow"
    with pytest.raises(LLMError, match="did not answer within 0.5 s"):
        chat(llm_server, timeout=0.5, max_retries=1).complete(ASK)
    assert llm_server.calls == 2  # the openai client retries a timeout


def test_a_stop_between_retries_sends_nothing_more(llm_server):
    llm_server.mode, llm_server.fail_times = "429", 99
    model = chat(llm_server, max_retries=3, should_stop=lambda: llm_server.calls >= 1)
    with pytest.raises(Cancelled):
        model.complete(ASK)
    time.sleep(1.0)
    assert llm_server.calls == 1  # the client's own retries ask should_stop before each send


def test_connection_refused_names_the_url_without_credentials():
    model = ChatModel(
        "m",
        base_url=f"http://user:{SECRET}@127.0.0.1:9/v1?key={SECRET}",
        api_key=SECRET,
        max_retries=0,
    )
    with pytest.raises(LLMError, match=r"Could not connect .* http://127.0.0.1:9/v1;") as info:
        model.complete(ASK)
    assert SECRET not in str(info.value) and SECRET not in model.label


def test_malformed_http_body(llm_server):
    llm_server.mode = "malformed"
    with pytest.raises(LLMError, match="not a valid chat completion"):
        chat(llm_server).complete(ASK)


def test_garbage_content_is_flagged_not_raised(llm_server):
    llm_server.mode = "garbage"
    reply = chat(llm_server).complete(ASK)
    assert reply.data is None and not reply.ok
    assert "no JSON object" in reply.parse_error
    assert reply.text.startswith("Sorry")


def test_fenced_json_is_read(llm_server):
    llm_server.mode = "fenced"
    reply = chat(llm_server).complete(ASK)
    assert reply.ok and reply.data["question"].startswith("What is said about")


def test_server_rejecting_response_format_gets_asked_without_it(llm_server):
    llm_server.mode = "no-format"
    model = chat(llm_server)
    assert model.complete(ASK).ok
    bodies = [r["body"] for r in llm_server.requests]
    assert "response_format" in bodies[0] and "response_format" not in bodies[1]
    model.complete([*ASK[:1], {"role": "user", "content": "PASSAGE:\nA second passage here."}])
    assert "response_format" not in llm_server.requests[-1]["body"]  # remembered
    assert llm_server.calls == 3


def test_a_400_that_is_not_about_the_format_is_reported(llm_server):
    llm_server.mode = "400"
    model = chat(llm_server)
    with pytest.raises(LLMError, match=r"rejected the request \(HTTP 400\)"):
        model.complete(ASK)
    assert [("response_format" in r["body"]) for r in llm_server.requests] == [True, False]
    llm_server.mode = "ok"
    model.complete(ASK)
    assert "response_format" in llm_server.requests[-1]["body"]  # JSON mode kept


def test_html_answer_comes_back_verbatim(llm_server):
    llm_server.mode = "html"
    ask = [
        {"role": "system", "content": "Task: answer. Answer from the context."},
        {"role": "user", "content": "CONTEXT:\nThe ferry leaves at dawn.\n\nQUESTION: When?"},
    ]
    reply = chat(llm_server).complete(ask, json_reply=False)
    assert reply.text.startswith(HTML_ANSWER)  # the core never escapes: views must


def test_batch_in_order_with_progress_and_stops_on_error(llm_server):
    asks = [
        [ASK[0], {"role": "user", "content": f"PASSAGE:\nPassage number {i} about the tide."}]
        for i in range(7)
    ]
    seen = []
    replies = chat(llm_server, concurrency=3).complete_many(
        asks, progress=lambda d, t: seen.append((d, t))
    )
    assert [r.data["evidence"][0] for r in replies] == [
        f"Passage number {i} about the tide." for i in range(7)
    ]
    assert seen[0] == (0, 7) and seen[-1] == (7, 7)
    llm_server.mode = "500"
    more = [
        [ASK[0], {"role": "user", "content": f"PASSAGE:\nOther passage {i}."}] for i in range(5)
    ]
    with pytest.raises(LLMError, match="HTTP 500"):
        chat(llm_server, concurrency=2, max_retries=0).complete_many(more)


def test_identical_requests_in_a_batch_are_sent_once(llm_server):
    a = [ASK[0], {"role": "user", "content": "PASSAGE:\nThe same passage every time."}]
    b = [ASK[0], {"role": "user", "content": "PASSAGE:\nA different passage this time."}]
    model = chat(llm_server)
    replies = model.complete_many([a, b, a, a, b])
    assert llm_server.calls == 2
    assert [r.cached for r in replies] == [False, False, True, True, True]
    assert replies[2].data == replies[0].data and replies[4].data == replies[1].data
    assert model.usage.calls == 2 and model.usage.cached == 3


def test_a_given_key_is_in_no_cache_file_or_error(llm_server):
    model = ChatModel("fake-model", base_url=llm_server.base_url, api_key=SECRET, timeout=5)
    model.complete(ASK)
    assert llm_server.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    for path in LLMCache().path.parent.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes()
    llm_server.mode = "401"
    with pytest.raises(LLMError) as info:
        ChatModel("fake-model", base_url=llm_server.base_url, api_key=SECRET, timeout=5).complete(
            [ASK[0], {"role": "user", "content": "PASSAGE:\nUncached text here."}]
        )
    assert SECRET not in str(info.value) and SECRET not in repr(info.value)


def test_the_environment_key_is_never_read_by_the_client(llm_server, monkeypatch):
    for name in ("OPENAI_API_KEY", "SCAR_VIZ_LLM_API_KEY"):
        monkeypatch.setenv(name, SECRET)
    ChatModel("fake-model", base_url=llm_server.base_url, timeout=5, cache=False).complete(ASK)
    sent = llm_server.requests[0]["headers"]["authorization"]
    assert SECRET not in sent and sent == "Bearer no-key"


def test_concurrent_requests_each_fall_back_when_the_format_is_refused(llm_server):
    """Sixteen requests at once against a server that refuses response_format (and two
    prompts it refuses whatever the format): each normal request is answered once without the
    format and parsed; each refused prompt fails with its own message; no request is sent
    with the format twice, however the threads interleave."""
    llm_server.mode = "no-format"
    llm_server.delay = 0.05
    texts = [f"Passage number {i} about the tide and the ferry." for i in range(16)]
    texts[5] = "TOO-LONG passage that no model could read in one go."
    texts[11] = "Another TOO-LONG passage, just as unreadable."
    model = chat(llm_server, cache=False, concurrency=8)

    def ask(text: str):
        try:
            return model.complete([ASK[0], {"role": "user", "content": f"PASSAGE:\n{text}"}])
        except LLMError as exc:
            return exc

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(ask, texts))
    for text, result in zip(texts, results, strict=True):
        if "TOO-LONG" in text:
            assert isinstance(result, LLMError) and "rejected the request" in str(result)
        else:
            assert not isinstance(result, Exception), result
            assert result.ok and result.data["evidence"] == [text]
    for text in texts:
        sent = [r for r in llm_server.requests if text in r["body"]["messages"][1]["content"]]
        assert sum("response_format" in r["body"] for r in sent) <= 1
        if "TOO-LONG" not in text:
            assert sum("response_format" not in r["body"] for r in sent) == 1


def test_a_short_local_key_does_not_mangle_replies(llm_server):
    model = chat(llm_server, api_key="x")
    reply = model.complete([ASK[0], {"role": "user", "content": "PASSAGE:\nexact text, xx."}])
    assert reply.data["evidence"] == ["exact text, xx."]


def test_no_key_for_openai_itself(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMError, match="No API key"):
        ChatModel("gpt-4o-mini", cache=False).complete(ASK)


@pytest.mark.parametrize(
    "text,expected",
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure!\n```json\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
        ('The result is {"a": "b"} as asked.', {"a": "b"}),
        ('[1, 2] then {"x": {"y": 2}}', {"x": {"y": 2}}),
    ],
)
def test_parse_json_object(text, expected):
    assert parse_json_object(text) == expected


@pytest.mark.parametrize("text", ["", "no json", "[1, 2]", '{"a": '])
def test_parse_json_object_rejects(text):
    with pytest.raises(ValueError):
        parse_json_object(text)


def test_public_url():
    assert public_url(None) == "https://api.openai.com/v1"
    assert public_url("http://u:p@localhost:11434/v1/?k=1") == "http://localhost:11434/v1"
    json.dumps(public_url("http://h/v1"))
