"""What a chat call gives back: the reply (its JSON object read leniently) and token usage."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass


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


def parse_json_object(text: str) -> dict:
    """The JSON object in a reply: the whole text, a fenced ```json block, or the first {...}.

    Raises:
        ValueError: when no JSON object can be read from ``text``.
    """
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
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
