"""A tiny Streamlit script for the tests of ``scripts/live_app.py``: every run counts itself;
the button's run sleeps before writing the count, so a wait that returns early sees the old one;
the select's run is quick (the page may never draw its ``running`` state)."""

from __future__ import annotations

import time

import streamlit as st

st.session_state["runs"] = st.session_state.get("runs", 0) + 1
if st.button("Slow run", key="slow"):
    time.sleep(1.5)
st.selectbox("Pick", ["a", "b", "c"], key="pick")
st.text(f"runs: {st.session_state['runs']}")
