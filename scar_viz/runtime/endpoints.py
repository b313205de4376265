"""Where a request may go and which key it may carry: the operator's rules for endpoints.

The app may be shared. A key the server holds (its environment, ``st.secrets``, a config file)
belongs to the operator: it is sent only to base URLs the operator allowed, that is the
provider's default endpoint plus the URLs listed in one setting
(``SCAR_VIZ_ALLOWED_BASE_URLS``, or ``allowed_base_urls`` in the secrets). To any other URL a
visitor types, only a key the visitor typed in the same session is sent, or none. With
``SCAR_VIZ_ONLY_ALLOWED_BASE_URLS`` (or ``only_allowed_base_urls``) switched on, a visitor may
not point the server at any other URL at all, so the server cannot be made to send requests to
internal services or cloud metadata addresses.

A URL matches an allowed one when scheme, host and port are equal (the scheme's default port
filled in, the host compared case-insensitively) and the allowed path is a prefix of the URL's
path on a ``/`` boundary (``/v1`` allows ``/v1`` and ``/v1/x``, not ``/v10``). Both paths are
compared as the request would reach the server: percent-encoded dots decoded, repeated slashes
folded, and dot segments resolved (``/v1/../../private/v1`` is ``/private/v1``, as the HTTP
client sends it), so no spelling of a path leaves the allowed one. Credentials, queries and
fragments never match anything.

A key a visitor typed goes only to the endpoint it was typed for (:func:`same_endpoint`), never
to another URL of the same session.

The command line is run by its own user: it keeps reading the key from the environment for
any URL it is given, and takes no part in these rules.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from scar_viz.common.errors import UserError

OPENAI_BASE_URL = "https://api.openai.com/v1"
"""The provider's default endpoint (what a blank base URL means), for chat and embeddings."""
ALLOWED_ENV = "SCAR_VIZ_ALLOWED_BASE_URLS"
ONLY_ALLOWED_ENV = "SCAR_VIZ_ONLY_ALLOWED_BASE_URLS"
ALLOWED_SECRET = "allowed_base_urls"
ONLY_ALLOWED_SECRET = "only_allowed_base_urls"
LLM_KEY_NAMES = ("SCAR_VIZ_LLM_API_KEY", "OPENAI_API_KEY")
"""Where the server's chat key is read: a key for the LLM alone, else OpenAI's."""
EMBEDDING_KEY_NAMES = ("OPENAI_API_KEY",)
"""Where the server's embeddings key is read."""

KeySource = Literal["server", "visitor", "none"]
_KEY_WORDS: dict[str, str] = {"server": "the server's key", "visitor": "your key", "none": "no key"}
_DEFAULT_PORTS = {"http": 80, "https": 443}
_TRUE = {"1", "true", "yes", "on"}


class EndpointError(UserError, ValueError):
    """A base URL this server may not send requests to, or one that is not a URL."""


@dataclass(frozen=True)
class Endpoint:
    """A base URL reduced to what is compared: scheme, lower-case host, port, path."""

    scheme: str
    host: str
    port: int
    path: str

    def within(self, allowed: Endpoint) -> bool:
        """Whether this URL lies under ``allowed`` (same origin, path prefix on a ``/``)."""
        if (self.scheme, self.host, self.port) != (allowed.scheme, allowed.host, allowed.port):
            return False
        base = allowed.path
        return not base or self.path == base or self.path.startswith(base + "/")

    def __str__(self) -> str:
        default = _DEFAULT_PORTS.get(self.scheme)
        port = "" if self.port == default else f":{self.port}"
        return f"{self.scheme}://{self.host}{port}{self.path}"


def parse_endpoint(url: str) -> Endpoint:
    """The :class:`Endpoint` of an ``http(s)`` base URL.

    Raises:
        EndpointError: when ``url`` is not an http(s) URL with a host, or carries credentials.
    """
    text = (url or "").strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise EndpointError(f"'{_shown(text)}' is not a valid URL.") from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise EndpointError(
            f"'{_shown(text)}' is not an http(s) URL; give one like http://localhost:11434/v1."
        )
    if parts.username or parts.password:
        raise EndpointError("Give the base URL without a user name or password in it.")
    path = normal_path(parts.path)
    return Endpoint(scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme], path)


def normal_path(path: str) -> str:
    """A URL path as a server resolves it, without a trailing ``/``: ``%2e`` decoded, ``//``
    folded, ``.`` and ``..`` segments resolved (RFC 3986, 5.2.4; ``..`` never climbs above
    the root)."""
    path = re.sub(r"%2e", ".", path, flags=re.IGNORECASE).replace("\\", "/")
    out: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if out:
                out.pop()
            continue
        out.append(segment)
    return "".join("/" + s for s in out)


def same_endpoint(a: str | None, b: str | None) -> bool:
    """Whether two base URLs (blank: the provider's default) name the same endpoint after
    normalisation; a URL that does not parse is the same as nothing."""
    try:
        first = parse_endpoint(a or "") if (a or "").strip() else _PROVIDER
        second = parse_endpoint(b or "") if (b or "").strip() else _PROVIDER
    except EndpointError:
        return False
    return first == second


def _shown(text: str) -> str:
    """A URL as it may appear in a message: without anything before an ``@``, cut short."""
    tail = text.rsplit("@", 1)[-1]
    return tail if len(tail) <= 80 else tail[:77] + "…"


_PROVIDER = parse_endpoint(OPENAI_BASE_URL)
"""The provider's default endpoint, always allowed."""


def public_url(base_url: str | None) -> str:
    """``base_url`` without credentials, query or fragment (what may be shown and stored)."""
    if not base_url:
        return OPENAI_BASE_URL
    parts = urlsplit(base_url.strip())
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


@dataclass(frozen=True)
class EndpointPolicy:
    """The operator's rules: the allowed base URLs and whether visitors are held to them.

    The provider's default endpoint (:data:`OPENAI_BASE_URL`, what a blank URL means) is
    always allowed.
    """

    allowed: tuple[Endpoint, ...] = ()
    only_allowed: bool = False

    def is_allowed(self, base_url: str | None) -> bool:
        """Whether ``base_url`` (blank: the provider's default) is one the operator allowed."""
        if not (base_url or "").strip():
            return True
        try:
            endpoint = parse_endpoint(base_url or "")
        except EndpointError:
            return False
        return any(endpoint.within(a) for a in (_PROVIDER, *self.allowed))

    def check(self, base_url: str | None) -> None:
        """Pass when a request may go to ``base_url``.

        Raises:
            EndpointError: the URL is not an http(s) URL, or visitors are held to the allowed
                list and it is not on it.
        """
        if not (base_url or "").strip():
            return
        endpoint = parse_endpoint(base_url or "")
        if self.only_allowed and not self.is_allowed(base_url):
            listed = ", ".join(str(a) for a in self.allowed) or "none besides the default"
            raise EndpointError(
                f"This server sends requests only to the endpoints its operator allowed; "
                f"{endpoint} is not one of them (allowed: {OPENAI_BASE_URL}, {listed})."
            )

    def choose_key(self, base_url: str | None, visitor_key: str, server_key: str) -> KeyChoice:
        """The key a request to ``base_url`` carries: the visitor's own, else the server's
        when the operator allowed this URL, else none."""
        if visitor_key:
            return KeyChoice(visitor_key, "visitor")
        if server_key and self.is_allowed(base_url):
            return KeyChoice(server_key, "server")
        return KeyChoice("", "none")


@dataclass(frozen=True)
class KeyChoice:
    """The key a request will carry and where it came from; ``str()`` never shows the key."""

    key: str
    source: KeySource

    @property
    def words(self) -> str:
        """ "the server's key", "your key" or "no key": what the app may say about it."""
        return _KEY_WORDS[self.source]

    def __str__(self) -> str:
        return self.words

    def __repr__(self) -> str:
        return f"KeyChoice(source={self.source!r})"


def _urls(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [u for u in value.replace(",", " ").split() if u]
    if isinstance(value, Iterable):
        return [str(u).strip() for u in value if str(u).strip()]
    return [str(value)]


def _truthy(value: object) -> bool:
    return value is True or str(value).strip().lower() in _TRUE


def policy_from(
    env: Mapping[str, str] | None = None, secrets: Mapping[str, object] | None = None
) -> EndpointPolicy:
    """The operator's policy from the environment (default ``os.environ``) and the secrets;
    a URL listed in either is allowed, and either switch holds visitors to the list.

    Raises:
        EndpointError: a listed URL is not an http(s) URL (the operator's setting is wrong).
    """
    env = os.environ if env is None else env
    secrets = secrets or {}
    listed = _urls(env.get(ALLOWED_ENV)) + _urls(secrets.get(ALLOWED_SECRET))
    try:
        allowed = tuple(dict.fromkeys(parse_endpoint(u) for u in listed))
    except EndpointError as exc:
        raise EndpointError(f"{ALLOWED_ENV} / {ALLOWED_SECRET}: {exc}") from exc
    only = _truthy(env.get(ONLY_ALLOWED_ENV, "")) or _truthy(
        secrets.get(ONLY_ALLOWED_SECRET, False)
    )
    return EndpointPolicy(allowed, only)


def server_key(
    names: Iterable[str],
    env: Mapping[str, str] | None = None,
    secrets: Mapping[str, object] | None = None,
) -> str:
    """The first of ``names`` set in the secrets, else in the environment; "" when none is."""
    env = os.environ if env is None else env
    names = tuple(names)
    for source in (secrets or {}, env):
        for name in names:
            value = source.get(name)
            if value:
                return str(value)
    return ""


NO_KEY = "no-key"
"""Sent to a server when no key is given (Ollama, vLLM, TEI ignore it): the ``openai`` client
needs a value, and this one carries nothing."""


def openai_client(
    api_key: str,
    base_url: str | None,
    timeout: float,
    max_retries: int,
    error: type[Exception],
    before_send: Callable[[], None] | None = None,
):
    """``(openai module, openai.OpenAI client)`` for ``base_url`` (None: the provider's), with
    the client's own ``timeout`` per request and ``max_retries``.

    ``before_send`` is called before every request the client sends, its own retries
    included (an ``httpx`` request hook); what it raises ends the call unretried.

    Raises:
        error: the ``openai`` package is missing, or the provider's own endpoint is asked
            without a key.
    """
    try:
        import openai
    except ImportError as exc:
        raise error("The openai package is not installed.") from exc
    if not api_key and base_url is None:
        raise error(
            "No API key: set OPENAI_API_KEY in the environment or in .streamlit/secrets.toml, "
            "or give the base URL of a local server."
        )
    http_client = None
    if before_send is not None:
        http_client = openai.DefaultHttpxClient(
            event_hooks={"request": [lambda _request: before_send()]}
        )
    client = openai.OpenAI(
        api_key=api_key or NO_KEY,
        base_url=base_url,
        timeout=timeout,
        max_retries=max_retries,
        http_client=http_client,
    )
    return openai, client
