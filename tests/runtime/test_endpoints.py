"""The operator's rules for endpoints: which URL matches an allowed one, which key goes where."""

from __future__ import annotations

import pytest

from scar_viz.runtime.endpoints import (
    EndpointError,
    EndpointPolicy,
    normal_path,
    parse_endpoint,
    policy_from,
    same_endpoint,
    server_key,
)

LOCAL = "http://127.0.0.1:8000/v1"


def policy(*urls: str, only: bool = False) -> EndpointPolicy:
    env = {"SCAR_VIZ_ALLOWED_BASE_URLS": ",".join(urls)}
    if only:
        env["SCAR_VIZ_ONLY_ALLOWED_BASE_URLS"] = "1"
    return policy_from(env, {})


@pytest.mark.parametrize(
    "url,allowed",
    [
        (LOCAL, True),
        ("http://127.0.0.1:8000/v1/", True),  # a trailing slash is the same path
        ("http://127.0.0.1:8000/v1/embeddings", True),  # under the prefix
        ("HTTP://127.0.0.1:8000/v1", True),  # the scheme is case-insensitive
        ("http://127.0.0.1:8000/v10", False),  # a prefix only on a "/" boundary
        ("http://127.0.0.1:8000", False),  # above the prefix
        ("http://127.0.0.1:8001/v1", False),  # another port
        ("https://127.0.0.1:8000/v1", False),  # another scheme
        ("http://localhost:8000/v1", False),  # another host name, even for the same machine
        ("http://127.0.0.1:8000@evil.example/v1", False),  # credentials trick: the host is evil
        ("http://169.254.169.254/latest", False),
        ("ftp://127.0.0.1:8000/v1", False),
        ("not a url", False),
        ("", True),  # blank: the provider's default endpoint
        ("https://api.openai.com/v1", True),  # the provider's default endpoint, typed
        ("https://api.openai.com:443/v1/", True),
        ("https://API.OpenAI.com/v1", True),
        ("http://api.openai.com/v1", False),  # the default endpoint is https only
        (LOCAL + "/../../private/v1", False),  # dot segments resolved: /private/v1
        (LOCAL + "/%2e%2e/%2E%2E/private/v1", False),  # encoded dots too
        (LOCAL + "/..", False),  # climbs out of the prefix
        (LOCAL + "/./embeddings", True),
        (LOCAL + "/x/../embeddings", True),  # stays under /v1
        ("http://127.0.0.1:8000/private/../v1", True),  # resolves into /v1
    ],
)
def test_allowed_urls_match_scheme_host_port_and_path_prefix(url, allowed):
    assert policy(LOCAL).is_allowed(url) is allowed


def test_default_ports_are_filled_in():
    assert parse_endpoint("https://example.org/v1") == parse_endpoint("https://example.org:443/v1")
    assert policy("http://example.org/v1").is_allowed("http://example.org:80/v1/x")
    assert not policy("http://example.org/v1").is_allowed("http://example.org:8080/v1")


def test_nothing_listed_allows_only_the_default():
    empty = policy()
    assert empty.is_allowed(None) and empty.is_allowed("https://api.openai.com/v1")
    assert not empty.is_allowed(LOCAL)


@pytest.mark.parametrize(
    "url,visitor,server,source,key",
    [
        (LOCAL, "", "sk-server", "server", "sk-server"),  # allowed: the operator's key
        ("http://127.0.0.1:9999/v1", "", "sk-server", "none", ""),  # typed, not allowed
        ("http://127.0.0.1:9999/v1", "sk-mine", "sk-server", "visitor", "sk-mine"),
        (LOCAL, "sk-mine", "sk-server", "visitor", "sk-mine"),  # the visitor's own wins
        (None, "", "sk-server", "server", "sk-server"),  # the provider's default
        (LOCAL, "", "", "none", ""),
    ],
)
def test_the_key_a_request_carries(url, visitor, server, source, key):
    choice = policy(LOCAL).choose_key(url, visitor, server)
    assert (choice.source, choice.key) == (source, key)
    assert (
        choice.words
        == {"server": "the server's key", "visitor": "your key", "none": "no key"}[source]
    )
    for shown in (str(choice), repr(choice), f"{choice}"):
        assert not key or key not in shown


def test_only_allowed_refuses_other_urls_with_one_sentence():
    held = policy(LOCAL, only=True)
    held.check(LOCAL)
    held.check(None)
    held.check("https://api.openai.com/v1")
    with pytest.raises(EndpointError, match="only to the endpoints its operator allowed") as info:
        held.check("http://169.254.169.254/latest/meta-data")
    assert "\n" not in str(info.value) and "127.0.0.1:8000/v1" in str(info.value)
    policy(LOCAL).check("http://169.254.169.254/latest")  # not held: any URL may be typed


@pytest.mark.parametrize("url", ["ftp://host/v1", "localhost:11434", "http://user:pw@host/v1"])
def test_check_refuses_what_is_not_an_http_url(url):
    with pytest.raises(EndpointError) as info:
        policy().check(url)
    assert "pw" not in str(info.value)


def test_policy_from_reads_the_environment_and_the_secrets():
    got = policy_from(
        {"SCAR_VIZ_ALLOWED_BASE_URLS": "http://a.example/v1 http://b.example:81"},
        {"allowed_base_urls": ["http://c.example/v1"], "only_allowed_base_urls": True},
    )
    assert [str(e) for e in got.allowed] == [
        "http://a.example/v1",
        "http://b.example:81",
        "http://c.example/v1",
    ]
    assert got.only_allowed
    assert not policy_from({"SCAR_VIZ_ONLY_ALLOWED_BASE_URLS": "0"}, {}).only_allowed
    assert policy_from({"SCAR_VIZ_ONLY_ALLOWED_BASE_URLS": "yes"}, {}).only_allowed
    with pytest.raises(EndpointError, match="SCAR_VIZ_ALLOWED_BASE_URLS"):
        policy_from({"SCAR_VIZ_ALLOWED_BASE_URLS": "localhost:8000"}, {})


def test_server_key_prefers_the_secrets_then_the_environment_in_order():
    names = ("SCAR_VIZ_LLM_API_KEY", "OPENAI_API_KEY")
    env = {"OPENAI_API_KEY": "sk-env-openai", "SCAR_VIZ_LLM_API_KEY": "sk-env-llm"}
    assert server_key(names, env, {}) == "sk-env-llm"
    assert server_key(names, env, {"OPENAI_API_KEY": "sk-secret"}) == "sk-secret"
    assert server_key(names, {}, {}) == ""


@pytest.mark.parametrize(
    "path,normal",
    [
        ("/v1/../../private/v1", "/private/v1"),
        ("/v1/%2E%2e/x", "/x"),
        ("//v1//./embeddings/", "/v1/embeddings"),
        ("/../../..", ""),
        ("", ""),
    ],
)
def test_paths_are_compared_as_the_server_resolves_them(path, normal):
    assert normal_path(path) == normal


def test_a_dotted_path_out_of_the_allowed_one_is_refused_and_gets_no_server_key():
    only = policy(LOCAL, only=True)
    with pytest.raises(EndpointError, match="127.0.0.1:8000/private/v1 is not one of them"):
        only.check(LOCAL + "/../../private/v1")
    assert policy(LOCAL).choose_key(LOCAL + "/../../private/v1", "", "sk-server").source == "none"


@pytest.mark.parametrize(
    "a,b,same",
    [
        ("", "https://api.openai.com/v1/", True),
        (LOCAL, "http://127.0.0.1:8000/v1/x/..", True),
        (LOCAL, "http://127.0.0.1:8001/v1", False),
        (LOCAL, "", False),
        ("not a url", "not a url", False),
    ],
)
def test_same_endpoint_after_normalisation(a, b, same):
    assert same_endpoint(a, b) is same
