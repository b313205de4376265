"""What a user is told while an action runs and when it fails: messages that quote untrusted
text (a file name, a line of a query file, an endpoint's answer), shown escaped so nothing in
them is ever interpreted; a progress bar that counts; one way to turn an error into a message.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from scar_viz.common.errors import UserError, user_message

T = TypeVar("T")

_ALERT_STYLE = {
    "error": ("#fdecea", "#7d1f1a", "#e0a39e"),
    "warning": ("#fff6e0", "#6b4e00", "#e8cf8c"),
    "info": ("#e8f1fb", "#0f3d6e", "#a9c8ea"),
    "caption": ("transparent", "#555", "transparent"),
}


def alert(text: str, kind: str = "error", where=None) -> None:
    """Show ``text`` HTML-escaped inside ``st.html`` (in ``where``, default the page), so no
    markdown, directive, link or markup in it is ever interpreted.

    Args:
        text: The message; may quote untrusted text.
        kind: ``error``, ``warning``, ``info`` or ``caption``.
        where: A container or ``st.sidebar``; the main area when None.
    """
    bg, fg, border = _ALERT_STYLE[kind]
    size = "0.85rem" if kind == "caption" else "0.95rem"
    pad = "0" if kind == "caption" else "10px 14px"
    (where or st).html(
        f'<div data-testid="sv-alert-{kind}" style="background:{bg};color:{fg};'
        f"border:1px solid {border};border-radius:8px;padding:{pad};"
        f'font-size:{size};white-space:pre-wrap;overflow-wrap:anywhere">{html.escape(str(text))}</div>'
    )


def attempt(
    action: Callable[[], T], failed: str = "", kept: str = "", kind: str = "error"
) -> T | None:
    """``action()``; when it raises an error a user should read, None and one message:
    ``failed`` (what went wrong), the error's sentence, ``kept`` (what was not lost)."""
    try:
        return action()
    except (UserError, ValueError) as exc:
        alert(" ".join(part for part in (failed, user_message(exc), kept) if part), kind)
        return None


def or_stop(action: Callable[[], T], failed: str = "") -> T:
    """``action()``; when it raises an error a user should read, its message (after
    ``failed``) and the page stops there, as every page does when it cannot go on."""
    try:
        return action()
    except UserError as exc:
        alert(" ".join(part for part in (failed, user_message(exc)) if part))
        st.stop()
        raise  # not reached: st.stop() ends the script run


def time_left(done: int, total: int, elapsed: float) -> str:
    """', about 12 s left' at the pace of the ``done`` steps of ``total`` so far ('' before
    the first step, at the end, or under a second)."""
    if done <= 0 or done >= total:
        return ""
    left = elapsed / done * (total - done)
    if left < 1:
        return ""
    return f", about {duration(left)} left"


def duration(seconds: float) -> str:
    """'52 s' under 90 s, else '3 min': how the app says a time to come."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


HIDE_STALE = "<style>[data-testid=stElementContainer][data-stale=true]{display:none}</style>"
"""Shown with a long step's bar: the previous run's elements further down (Streamlit greys them
until this run redraws them or ends) are hidden while the bar shows, so the bar is not read
beside old results. Streamlit marks them with ``data-stale``; the rule goes with the bar."""


def progress_bar(text: str, holder=None):
    """(placeholder, bar): a progress bar with :data:`HIDE_STALE` in ``holder`` (an ``st.empty``
    placeholder; default a new one on the page); ``placeholder.empty()`` takes both away."""
    holder = holder if holder is not None else st.empty()
    box = holder.container()
    box.markdown(HIDE_STALE, unsafe_allow_html=True)  # a constant rule, no user text
    return holder, box.progress(0.0, text=text)


def with_progress(text: str, action: Callable[[Callable[[int, int], None]], T]) -> T:
    """``action(update)`` under a progress bar that ``update(done, total)`` moves, with the
    time left estimated from the pace so far, and that goes when the action ends, whatever
    the outcome (the previous run's leftovers below stay hidden meanwhile: :data:`HIDE_STALE`)."""
    holder, bar = progress_bar(text)
    t0 = time.perf_counter()

    def update(done: int, total: int) -> None:
        bar.progress(
            min(1.0, done / max(total, 1)),
            text=f"{text} {done}/{total}{time_left(done, total, time.perf_counter() - t0)}",
        )

    try:
        return action(update)
    finally:
        holder.empty()
