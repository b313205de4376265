"""A tiny Streamlit script for tests/browser/test_long_step.py: the button's run draws a long
step under ui.alerts.with_progress (8 steps of 0.4 s) above the text the previous run drew; the
other runs hold its place with an empty placeholder, as the app's pages do."""

from __future__ import annotations

import time

import streamlit as st

from ui.alerts import with_progress

st.session_state["runs"] = st.session_state.get("runs", 0) + 1
if st.button("Long step", key="long"):

    def work(update):
        for i in range(8):
            time.sleep(0.4)
            update(i + 1, 8)

    with_progress("Working", work)
else:
    st.empty()
st.text(f"result of run {st.session_state['runs']}")
