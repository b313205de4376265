"""The one base class for errors a user should read, and the one way to turn them into text."""

from __future__ import annotations


class UserError(Exception):
    """An error whose message is a plain sentence meant for the user (no traceback)."""


def user_message(exc: BaseException) -> str:
    """One line for the user: the exception's message with whitespace collapsed."""
    return " ".join(str(exc).split()) or type(exc).__name__


class SettingsError(UserError, ValueError):
    """A setting, option or input out of range (also a ValueError, for older ``except`` sites)."""
