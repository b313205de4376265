"""What the operator set for this server: a value from the environment, else from
``st.secrets`` (``.streamlit/secrets.toml``), never from a visitor."""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st


def operator_folder(env: str, secret: str) -> Path | None:
    """The folder named by the environment variable ``env``, else by ``secret`` in
    ``st.secrets``; None when neither names one."""
    value = os.environ.get(env, "").strip()
    if not value:
        try:
            value = str(st.secrets.get(secret, "") or "").strip()
        except Exception:  # no secrets.toml, or a malformed one (Streamlit raises its own types)
            value = ""
    return Path(value) if value else None
