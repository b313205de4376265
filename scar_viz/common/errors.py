"""The one base class for errors a user should read, and the one way to turn them into text."""

from __future__ import annotations

import re


class UserError(Exception):
    """An error whose message is a plain sentence meant for the user (no traceback)."""


def user_message(exc: BaseException) -> str:
    """One line for the user: the exception's message with whitespace collapsed."""
    return " ".join(str(exc).split()) or type(exc).__name__


class SettingsError(UserError, ValueError):
    """A setting, option or input out of range (also a ValueError, for older ``except`` sites)."""


MIN_SECRET_CHARS = 8
"""Shorter keys (``ollama``, ``x``) are not searched for: they would match ordinary words."""


def scrub_secret(message: str, secret: str | None) -> str:
    """``message`` with ``secret`` and anything shaped like an API key replaced by ``***``."""
    if secret and len(secret) >= MIN_SECRET_CHARS:
        message = message.replace(secret, "***")
    return re.sub(r"(sk-|Bearer\s+)[A-Za-z0-9_\-]{6,}", r"\1***", message)
