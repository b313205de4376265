"""Presenter mode (``?present=true``): large type, high contrast, the charts first."""

from __future__ import annotations

import streamlit as st

from ui import keys
from ui.state import URL

PRESENTER_CSS = """<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 22px; }
[data-testid="stAppViewContainer"] { background: #ffffff; color: #000000; }
[data-testid="stHeader"], [data-testid="stToolbar"], footer { display: none; }
h1 { font-size: 2.6rem !important; } h2, h3 { font-size: 1.9rem !important; }
[data-testid="stMetricValue"] { font-size: 3rem !important; color: #000; }
[data-testid="stCaptionContainer"] { color: #111 !important; font-size: 1rem; }
.block-container { padding-top: 1rem !important; max-width: 100% !important; }
</style>"""


def presenter_toggle() -> bool:
    """The sidebar's presenter toggle; applies the presenter CSS when on."""
    on = st.sidebar.toggle(
        "Presenter mode",
        False,
        key=keys.PRESENT,
        bind=URL,
        help="Large type and high-contrast colours for a projector; the strip "
        "and the decision plane come first. Shareable: ?present=true",
    )
    if on:
        st.sidebar.html(PRESENTER_CSS)
    return bool(on)


def presenting() -> bool:
    """Whether this session is in presenter mode."""
    return bool(st.session_state.get(keys.PRESENT, False))
