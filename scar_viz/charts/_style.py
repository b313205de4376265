"""Colours and text helpers shared by the chart builders."""

from __future__ import annotations

import html

RETRIEVED = "#1f3b73"
ADMITTED = "#1a9850"
REJECTED = "#d73027"
WINDOW = "#9e9e9e"
SIM_SCALE = "Blues"
PENALTY_SCALE = "Oranges"

PRESENTER = {"font_size": 20, "marker_scale": 1.6}


def hover_snippet(text: str, words: int = 12) -> str:
    """The first ``words`` words of ``text``, HTML-escaped for plotly's hover labels."""
    parts = text.split()
    snippet = " ".join(parts[:words]) + (" …" if len(parts) > words else "")
    return html.escape(snippet, quote=True)
