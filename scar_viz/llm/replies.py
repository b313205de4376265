"""What a chat call gives back: the reply (its JSON object read leniently) and token usage."""

from __future__ import annotations

import re
from dataclasses import dataclass

from scar_viz.common.bounded_json import JsonInputError, read_json


@dataclass(frozen=True)
class Usage:
    """Tokens reported by the endpoint, and calls made over HTTP or answered by the cache."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    cached: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.calls + other.calls,
            self.cached + other.cached,
        )

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens - other.prompt_tokens,
            self.completion_tokens - other.completion_tokens,
            self.calls - other.calls,
            self.cached - other.cached,
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "calls": self.calls,
            "cached": self.cached,
        }


@dataclass(frozen=True)
class Reply:
    """One chat reply: the text, its JSON object when one was asked for and could be parsed
    (else ``data`` is None and ``parse_error`` says why), the usage of the call that made it
    (the stored usage when ``cached``)."""

    text: str
    data: dict | None
    parse_error: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool

    @property
    def ok(self) -> bool:
        return not self.parse_error


# --- JSON replies --------------------------------------------------------------------------

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
MAX_REPLY_BYTES = 2 * 1024 * 1024
"""A reply longer than this is not searched for JSON (no request of the package asks for one)."""
MAX_OBJECT_STARTS = 200
"""``{`` positions tried when the JSON object is neither the whole reply nor fenced."""


def parse_json_object(text: str) -> dict:
    """The JSON object in a reply: the whole text, a fenced ```json block, or the first {...}.
    Each candidate is read by :func:`~scar_viz.common.bounded_json.read_json` (size and nesting
    bounded); at most :data:`MAX_OBJECT_STARTS` ``{`` positions are tried.

    Raises:
        ValueError: when no JSON object can be read from ``text``.
    """
    if len(text) > MAX_REPLY_BYTES:
        raise ValueError("the reply is too long to hold the JSON object asked for")
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]
    for candidate in candidates:
        try:
            value = read_json(candidate, max_bytes=MAX_REPLY_BYTES)
        except JsonInputError:
            continue
        if isinstance(value, dict):
            return value
    for n, m in enumerate(re.finditer(r"\{", text)):
        if n >= MAX_OBJECT_STARTS:
            break
        try:
            value, _ = read_json(text, max_bytes=MAX_REPLY_BYTES, start=m.start())  # type: ignore[misc]
        except JsonInputError:
            continue
        if isinstance(value, dict):
            return value
    raise ValueError("the reply holds no JSON object")


def make_reply(text: str, prompt: int, completion: int, json_reply: bool, cached: bool) -> Reply:
    """The :class:`Reply` for ``text``, its JSON object parsed when one was asked for."""
    data, error = None, ""
    if json_reply:
        try:
            data = parse_json_object(text)
        except ValueError as exc:
            error = str(exc)
    return Reply(text, data, error, prompt, completion, cached)
