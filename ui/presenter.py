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


def _keep_choice() -> None:
    st.session_state[keys.PRESENT_KEPT] = bool(st.session_state.get(keys.PRESENT, False))


def presenter_toggle() -> bool:
    """The sidebar's presenter toggle; applies the presenter CSS when on.

    A value seeded from ``?present=true`` can be dropped by the first page switch (the new
    page's address starts empty), so the last choice is kept apart and put back; only the
    user turning the toggle off ends presenter mode. Set in session state, the bound toggle
    writes ``present=true`` back into the new page's address.
    """
    if st.session_state.get(keys.PRESENT_KEPT) and keys.PRESENT not in st.query_params:
        st.session_state[keys.PRESENT] = True
        st.query_params[keys.PRESENT] = "true"
    on = st.sidebar.toggle(
        "Presenter mode",
        False,
        key=keys.PRESENT,
        bind=URL,
        help="Large type and high-contrast colours for a projector; the strip "
        "and the decision plane come first. Shareable: ?present=true",
        on_change=_keep_choice,
    )
    if on:
        st.session_state[keys.PRESENT_KEPT] = True
        st.sidebar.html(PRESENTER_CSS)
    return bool(on)


def presenting() -> bool:
    """Whether this session is in presenter mode."""
    return bool(st.session_state.get(keys.PRESENT, False))
