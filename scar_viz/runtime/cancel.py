"""Stopping long work from outside: the caller passes a ``should_stop`` callable, and the loops
that can run for minutes (embedding a corpus, evaluating many queries, batches of chat calls)
ask it between steps and raise :class:`Cancelled` when it says yes.

The package never decides when to stop: the app hands in a check tied to the visitor's
session (it ends when the browser closes, or a newer run supersedes this one); the command line
hands in none.
"""

from __future__ import annotations

from collections.abc import Callable

ShouldStop = Callable[[], bool]
"""Asked between steps of long work, from any thread: True when the work should end now."""


class Cancelled(Exception):
    """Long work ended early because its ``should_stop`` said so. Not a failure to report:
    whoever asked for the stop knows why (it is no :class:`~scar_viz.common.errors.UserError`)."""


def check(should_stop: ShouldStop | None) -> None:
    """Raise :class:`Cancelled` when ``should_stop`` (None: never) says the work should end."""
    if should_stop is not None and should_stop():
        raise Cancelled("stopped: the work's caller asked it to end")
