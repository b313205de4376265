"""Messages that quote untrusted text (a file name, a line of a query file, an endpoint's
answer), shown escaped so nothing in them is ever interpreted."""

from __future__ import annotations

import html

import streamlit as st

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
