"""A select that shows names and keeps the chosen id in the address (the sidebar's document,
chunker, retriever and model pickers).
"""

from __future__ import annotations

import streamlit as st

from ui import keys
from ui.state import default


def named_select(where, label: str, names: dict[str, str], key: str, initial: str, **kw) -> str:
    """A select that shows names and keeps the chosen id in the address (``?key=id``).

    ``bind`` would write the shown name into the address, so this one syncs by hand. A new
    widget (a new session, or a page switch, which resets unbound widgets) starts at this
    session's choice, else the address's, else ``initial``; every run writes the id back
    (none when it is ``initial``).
    """
    last = keys.last_choice(key)
    seen = (st.session_state.get(key), st.query_params.get(key), st.session_state.get(last))
    wanted = next((value for value in seen if value in names), initial)
    options = list(names)
    choice = where.selectbox(
        label,
        options,
        index=default(key, options.index(wanted)),
        format_func=names.get,
        key=key,
        **kw,
    )
    st.session_state[last] = choice
    if choice == initial:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get(key) != choice:
        st.query_params[key] = choice
    return choice
