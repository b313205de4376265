"""A chat model behind any OpenAI-compatible ``/chat/completions`` endpoint.

One class, :class:`ChatModel`, over the ``openai`` client with a base URL: OpenAI, Azure,
Ollama (``http://localhost:11434/v1``), vLLM, llama.cpp's server, LM Studio. Every call is
made at temperature 0 and asks for a JSON object when the caller wants JSON (falling back to a
fenced block or the first ``{...}`` when a server ignores or rejects ``response_format``).

Timeouts and retries are the ``openai`` client's own (``timeout`` per request, ``max_retries``):
it retries a 408, 409, 429 or 5xx answer, a timeout and a lost connection, waiting 0.5 s
doubled each time up to 8 s (less up to a quarter, at random), or what a ``Retry-After`` header
asks up to 2 minutes (a longer one is not retried). Before every request it sends, retries
included, the client asks ``should_stop`` (an ``httpx`` request hook), so a stopped run sends
nothing more. No hand-written retry loop is left: the only loop here asks once more without
``response_format`` when a server refuses it. What that costs, measured against the loopback
fake server (``tests/fake_llm.py``) with 3 retries: a refused connection is reported after
3.2 s instead of 0.2 s, a 5xx after 3.7 s instead of 0.15 s (every attempt made either way),
and two 429s with ``Retry-After: 0`` cost 1.8 s instead of 0.2 s (the client honours only a
positive ``Retry-After``); none of it was reason enough to keep a loop of our own.

Every reply is cached on disk (SQLite under ``$SCAR_VIZ_CACHE_DIR``), keyed by a digest of the
base URL, model, messages and parameters, never the key, so a rerun never calls again. Token
usage (from the response's ``usage``) is accumulated per model; :meth:`ChatModel.complete_many`
runs a batch on a small thread pool with a progress callback.

The API key comes from the caller only: this module never reads the environment, so a key the
server holds reaches an endpoint only when the caller chose to send it there (the app follows
the operator's rules in :mod:`scar_viz.runtime.endpoints`; the command line passes its user's key).
It is sent only in the request header and is never part of ``model_id``, ``label``, ``repr``, the
cache or an error message.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import replace

from scar_viz.common.errors import UserError, scrub_secret
from scar_viz.llm.cache import LLMCache
from scar_viz.llm.replies import Reply, Usage, make_reply
from scar_viz.runtime.cancel import ShouldStop, check
from scar_viz.runtime.endpoints import LLM_KEY_NAMES, openai_client, public_url

DEFAULT_LLM_MODEL = "gpt-4o-mini"
DEFAULT_TIMEOUT = 60.0
"""Seconds per request (each retry gets as long again)."""
DEFAULT_RETRIES = 3
"""Retries the ``openai`` client makes after a failed request (module docstring)."""
DEFAULT_CONCURRENCY = 4
STOP_POLL = 0.25
"""Seconds between two looks at ``should_stop`` while a batch waits on its calls."""
KEY_ENV = LLM_KEY_NAMES
"""Where the command line reads the key: a key for the LLM alone, else OpenAI's."""

Message = dict[str, str]
Progress = Callable[[int, int], None]
"""Called as progress(done, total) during batch work."""


class LLMError(UserError, RuntimeError):
    """A chat call failed; the message is one plain sentence and never holds the key."""


# --- the model -----------------------------------------------------------------------------


class ChatModel:
    """Chat completions at temperature 0 from an OpenAI-compatible endpoint.

    Args:
        model: the model name the endpoint knows (``gpt-4o-mini``, ``llama3.1:8b``, …).
        base_url: the endpoint (None: OpenAI). Credentials in it are never shown or stored.
        api_key: the key to send (None or "": none; a local server needs none). The
            environment is never read here.
        timeout: seconds per request (the ``openai`` client's).
        max_retries: the ``openai`` client's retries after a 429, 5xx, timeout or lost
            connection (then the call fails).
        concurrency: parallel requests in :meth:`complete_many`.
        cache: an :class:`LLMCache` (default: the one under ``$SCAR_VIZ_CACHE_DIR``), or
            ``False`` for none.
        max_tokens: the completion limit sent with every request (None: the server's).
        should_stop: asked before every request and, in :meth:`complete_many`, while the
            batch runs (:mod:`scar_viz.runtime.cancel`): when it says so, no new request is sent,
            the pending ones are dropped and :class:`~scar_viz.runtime.cancel.Cancelled` is raised.
    """

    def __init__(
        self,
        model: str = DEFAULT_LLM_MODEL,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_RETRIES,
        concurrency: int = DEFAULT_CONCURRENCY,
        cache: LLMCache | None | bool = None,
        max_tokens: int | None = None,
        should_stop: ShouldStop | None = None,
    ) -> None:
        model = (model or "").strip()
        if not model:
            raise LLMError("Give the name of a chat model (e.g. gpt-4o-mini or llama3.1:8b).")
        if timeout <= 0 or max_retries < 0 or concurrency < 1:
            raise LLMError("The timeout must be positive, retries 0 or more, concurrency ≥ 1.")
        self.model = model
        self.base_url = (base_url or "").strip() or None
        self._api_key = api_key or ""
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.concurrency = int(concurrency)
        self.max_tokens = max_tokens
        self.should_stop = should_stop
        self.cache = LLMCache() if cache is None or cache is True else (cache or None)
        self.host = public_url(self.base_url)
        self.model_id = f"{self.host}|{model}"
        self.label = f"{model} @ {self.host}"
        self._json_mode = True  # cleared when the server rejects response_format
        self._client = None
        self._lock = threading.Lock()  # guards the client, the usage and the JSON mode
        self._usage = Usage()
        self._sent = threading.local()  # requests sent for this thread's call, retries included

    def __repr__(self) -> str:
        return f"ChatModel(model={self.model!r}, base_url={self.host!r})"

    @property
    def usage(self) -> Usage:
        """Tokens and calls so far (cache hits count in ``cached``, their tokens not at all)."""
        with self._lock:
            return self._usage

    def _add_usage(self, usage: Usage) -> None:
        with self._lock:
            self._usage = self._usage + usage

    # -- the client --------------------------------------------------------------------------

    def _openai(self):
        with self._lock:
            if self._client is None:
                _, self._client = openai_client(
                    self._api_key,
                    self.base_url,
                    self.timeout,
                    self.max_retries,
                    LLMError,
                    before_send=self._before_send,
                )
            return self._client

    def _before_send(self) -> None:
        """Called by the client before each request it sends (its retries too): stop when
        ``should_stop`` says so, else count the attempt for this thread's call."""
        check(self.should_stop)
        self._sent.count = getattr(self._sent, "count", 0) + 1

    def _asks_format(self) -> bool:
        """Whether requests for JSON still send ``response_format`` (the server took it, or
        has not refused it yet)."""
        with self._lock:
            return self._json_mode

    def _set_format(self, on: bool) -> None:
        """Record whether the server takes ``response_format``; requests running on other
        threads read it under the same lock. A request that was refused with the format
        retries once without it whatever the others find, so each falls back on its own."""
        with self._lock:
            self._json_mode = on

    def _error(self, message: str) -> LLMError:
        return LLMError(scrub_secret(message, self._api_key))

    def _request(self, messages: list[Message], json_reply: bool):
        import openai

        client = self._openai()
        kwargs: dict[str, object] = {"model": self.model, "messages": messages, "temperature": 0}
        if self.max_tokens:
            kwargs["max_tokens"] = self.max_tokens
        dropped_format = False
        while True:  # twice at most: once more without response_format when it is refused
            use_format = json_reply and not dropped_format and self._asks_format()
            self._sent.count = 0
            try:
                if use_format:
                    return client.chat.completions.create(
                        **kwargs, response_format={"type": "json_object"}
                    )
                return client.chat.completions.create(**kwargs)
            except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
                if use_format:  # perhaps the server does not take response_format: ask without
                    self._set_format(False)
                    dropped_format = True
                    continue
                if dropped_format:  # the format was not the cause: keep asking for it
                    self._set_format(True)
                raise self._error(
                    f"The LLM endpoint rejected the request (HTTP {exc.status_code}); the "
                    "prompt may be longer than the model accepts, or a setting unsupported."
                ) from exc
            except (openai.RateLimitError, openai.InternalServerError) as exc:
                what = (
                    "is rate-limiting requests (429)"
                    if isinstance(exc, openai.RateLimitError)
                    else f"failed with HTTP {exc.status_code}"
                )
                raise self._error(
                    f"The LLM endpoint {what} after {self._sent.count} attempt(s); wait and "
                    "try again."
                ) from exc
            except (openai.APIError, ValueError, TypeError, KeyError) as exc:
                message = self._failure(exc)
                if message is None:
                    raise
                raise self._error(message) from exc

    def _failure(self, exc: Exception) -> str | None:
        """The message for a request that failed for good (no retry); None for an error this
        client does not expect."""
        import openai

        messages = (
            (
                openai.AuthenticationError,
                "The LLM endpoint refused the API key (401 Unauthorized).",
            ),
            (
                openai.PermissionDeniedError,
                f"The LLM endpoint denied access to the model '{self.model}' (403).",
            ),
            (
                openai.NotFoundError,
                f"The LLM endpoint at {self.host} has no model '{self.model}' or no chat "
                "completions (404); check the model name and the base URL.",
            ),
            (openai.APITimeoutError, f"The LLM endpoint did not answer within {self.timeout:g} s."),
            (
                openai.APIConnectionError,
                f"Could not connect to the LLM endpoint at {self.host}; check the base URL "
                "and that the server is running.",
            ),
            (
                openai.APIStatusError,
                f"The LLM endpoint answered HTTP {getattr(exc, 'status_code', '')}.",
            ),
            (
                (openai.APIResponseValidationError, ValueError, TypeError, KeyError),
                "The LLM endpoint's answer is not a valid chat completion.",
            ),
        )
        return next((text for kind, text in messages if isinstance(exc, kind)), None)

    def cache_key(self, messages: Sequence[Message], json_reply: bool) -> str:
        """Digest of base URL, model, messages and parameters (never the key)."""
        payload = {
            "base_url": self.host,
            "model": self.model,
            "messages": list(messages),
            "temperature": 0,
            "json": bool(json_reply),
            "max_tokens": self.max_tokens,
        }
        raw = json.dumps(payload, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def complete(self, messages: Sequence[Message], *, json_reply: bool = True) -> Reply:
        """One chat call (or its cached reply).

        Raises:
            LLMError: for any failure of the endpoint, in one sentence without the key.
        """
        messages = [{"role": m["role"], "content": m["content"]} for m in messages]
        key = self.cache_key(messages, json_reply)
        hit = self.cache.get(key) if self.cache else None
        if hit is not None:
            text, prompt, completion = hit
            self._add_usage(Usage(cached=1))
            return make_reply(text, prompt, completion, json_reply, cached=True)
        response = self._request(messages, json_reply)
        try:
            text = response.choices[0].message.content or ""
        except (AttributeError, IndexError, TypeError) as exc:
            raise self._error("The LLM endpoint's answer holds no message.") from exc
        if not isinstance(text, str):
            raise self._error("The LLM endpoint's answer is not a valid chat completion.")
        text = scrub_secret(text, self._api_key)
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        self._add_usage(Usage(prompt, completion, calls=1))
        if self.cache:
            self.cache.put(key, self.model_id, text, prompt, completion)
        return make_reply(text, prompt, completion, json_reply, cached=False)

    def complete_many(
        self,
        batch: Sequence[Sequence[Message]],
        *,
        json_reply: bool = True,
        progress: Progress | None = None,
    ) -> list[Reply]:
        """:meth:`complete` for every message list, ``concurrency`` at a time, in order.

        Identical requests in one batch are sent once; the repeats count as cache hits.

        Raises:
            LLMError: the first failure; the calls still pending are cancelled, and every
                reply already received stays in the cache, so a rerun resumes.
            Cancelled: ``should_stop`` said so; the calls not yet sent are dropped.
        """
        total = len(batch)
        first: dict[str, int] = {}
        owner = [first.setdefault(self.cache_key(m, json_reply), i) for i, m in enumerate(batch)]
        unique = sorted(first.values())
        out: dict[int, Reply] = {}
        done = 0
        if progress:
            progress(0, total)
        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        try:
            futures = {
                pool.submit(self.complete, batch[i], json_reply=json_reply): i for i in unique
            }
            pending = set(futures)
            while pending:
                check(self.should_stop)
                finished, pending = wait(pending, STOP_POLL, return_when=FIRST_COMPLETED)
                for f in finished:
                    exc = f.exception()
                    if exc is not None:
                        raise exc
                    out[futures[f]] = f.result()
                    done += owner.count(futures[f])
                if progress and finished:
                    progress(done, total)
        except BaseException:
            # whatever ends the batch early (a failure, a stop, a progress callback that
            # raised) drops the calls not yet sent; those in flight end on their own
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        repeats = total - len(unique)
        if repeats:
            self._add_usage(Usage(cached=repeats))
        return [
            out[i] if owner[i] == i else replace(out[owner[i]], cached=True) for i in range(total)
        ]
