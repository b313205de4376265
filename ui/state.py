"""Session state and settings shared by the pages: the URL binding, widget defaults, and the
settings the sidebar's widgets hold (embedding model, LLM, API keys).

Nothing user-specific lives at module level: several users share one process, so every value
here is read from ``st.session_state`` (this session) at call time.
"""

from __future__ import annotations

import os
from typing import Any

import streamlit as st

from ui import keys

URL = "query-params"
"""``bind=URL`` on a widget keeps its value in the address, so a copied link restores it."""


MODEL_OPTIONS: dict[str, str] = {
    "default": "all-MiniLM-L6-v2 (embedded, offline, default)",
    "static": "Fast static model (model2vec, distilled locally from the default)",
    "hash": "Hashing bag-of-words (lexical, instant, no model)",
    "sentence-transformers": "Other sentence-transformers model (name or local path)",
    "openai": "OpenAI-compatible embeddings endpoint",
}
MODEL_NAMES: dict[str, str] = {
    "default": "all-MiniLM-L6-v2 (default)",
    "static": "Static (model2vec)",
    "hash": "Hashing (no model)",
    "sentence-transformers": "Sentence-transformers model",
    "openai": "OpenAI-compatible endpoint",
}
"""Model choice id -> the short name its select shows (:data:`MODEL_OPTIONS` describes it)."""
OPENAI_EMBEDDING_MODEL = "text-embedding-3-large"
LLM_DEFAULT_MODEL = "gpt-4o-mini"
"""The chat model for answers and query generation until the sidebar names another."""


def get(key: str, value: Any = None) -> Any:
    """This session's value under ``key`` (a name from :mod:`ui.keys`), else ``value``."""
    return st.session_state.get(key, value)


def put(key: str, value: Any) -> None:
    """Keep ``value`` under ``key`` (a name from :mod:`ui.keys`) for this session."""
    st.session_state[key] = value


def set_widget(key: str, value: Any) -> None:
    """Set the value of the widget ``key`` from code (a preset, a callback, a restored
    session); its widget is drawn without a default next time (see :func:`default`)."""
    st.session_state[key] = value
    pending = st.session_state.get(keys.SET_BY_CODE) or set()
    st.session_state[keys.SET_BY_CODE] = pending | {key}


def set_by_code(key: str) -> bool:
    """Whether :func:`set_widget` set ``key`` and its widget has not been drawn since."""
    return key in (st.session_state.get(keys.SET_BY_CODE) or set())


def default(key: str, value: Any, held: Any = None) -> Any:
    """A widget's default: ``value``, or ``held`` right after :func:`set_widget` set ``key``.

    Streamlit logs a warning when a widget is created with a default while its value was set
    through the Session State API in the same run; the widget then gets ``held`` (``None``:
    no default) once, and its real default again afterwards (which URL binding and history
    navigation fall back to).
    """
    pending = st.session_state.get(keys.SET_BY_CODE)
    if pending and key in pending:
        st.session_state[keys.SET_BY_CODE] = pending - {key}
        return held
    return value


def default_model() -> str:
    """The model picked on first load; ``SCAR_VIZ_DEFAULT_MODEL`` overrides (used by tests)."""
    choice = os.environ.get("SCAR_VIZ_DEFAULT_MODEL", "default")
    return choice if choice in MODEL_OPTIONS else "default"


def api_key(field: str = keys.API_KEY_INPUT) -> str:
    """The OpenAI key: this session's entry in ``field``, else ``st.secrets``, else the
    environment. Never shown, never bound to the URL, never saved in a session file."""
    entered = st.session_state.get(field) or ""
    if entered:
        return str(entered)
    try:
        secret = st.secrets.get("OPENAI_API_KEY", "")
    except (FileNotFoundError, KeyError, AttributeError):
        secret = ""
    except Exception:  # st.secrets raises its own error type when secrets.toml is malformed
        secret = ""
    return str(secret or os.environ.get("OPENAI_API_KEY", ""))


def model_spec() -> tuple[str, str]:
    """(spec for ``make_embedder``, base_url) from the sidebar's model widgets."""
    choice = st.session_state.get(keys.MODEL, default_model())
    if choice == "sentence-transformers":
        name = (st.session_state.get(keys.ST_MODEL) or "").strip()
        return (f"st:{name}" if name else "default"), ""
    if choice == "openai":
        model = (st.session_state.get(keys.OPENAI_MODEL) or "").strip() or OPENAI_EMBEDDING_MODEL
        return f"openai:{model}", (st.session_state.get(keys.BASE_URL) or "").strip()
    return choice, ""


def llm_settings() -> tuple[str, str, str]:
    """(model, base_url, api_key) for answers and query generation, from the sidebar's LLM
    expander. The key comes from its password field, ``st.secrets["OPENAI_API_KEY"]`` or the
    environment; a blank base URL means OpenAI's."""
    model = (st.session_state.get(keys.LLM_MODEL) or "").strip() or LLM_DEFAULT_MODEL
    base_url = (st.session_state.get(keys.LLM_URL) or "").strip()
    return model, base_url, api_key(keys.LLM_KEY_INPUT)
