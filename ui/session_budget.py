"""This visitor's budget of bytes held (:mod:`scar_viz.runtime.budget`), counted over their session:
the files their uploaders hold, the documents and query files kept in ``st.session_state``."""

from __future__ import annotations

import logging
import os

import streamlit as st

from scar_viz.common.errors import SettingsError
from scar_viz.common.memo import held_bytes
from scar_viz.runtime.budget import SESSION_MB_ENV, SessionBudget, budget_from, refusal

_SECRET = SESSION_MB_ENV.removeprefix("SCAR_VIZ_").lower()
"""The ``st.secrets`` entry that states the budget when the environment does not: session_mb."""
_LOG = logging.getLogger(__name__)


def session_budget() -> SessionBudget:
    """The operator's per-session budget (``SCAR_VIZ_SESSION_MB``, else ``session_mb`` in
    ``st.secrets``; 1 GiB when neither says); a value out of range is logged and the default
    holds."""
    value = os.environ.get(SESSION_MB_ENV, "").strip()
    if not value:
        try:
            value = str(st.secrets.get(_SECRET, "") or "").strip()
        except Exception:  # no secrets.toml, or a malformed one (Streamlit raises its own types)
            value = ""
    try:
        return budget_from(value)
    except SettingsError as exc:
        _LOG.warning("%s The default holds.", exc)
        return SessionBudget()


def _weight(value: object) -> int:
    """An uploader's files by their sizes (Streamlit holds their bytes for the session), any
    other value by :func:`scar_viz.common.memo.held_bytes`."""
    files = value if isinstance(value, list | tuple) else (value,)
    if files and all(
        hasattr(f, "getvalue") and isinstance(getattr(f, "size", None), int) for f in files
    ):
        return sum(int(f.size) for f in files)
    return held_bytes(value)


def session_held(skip: frozenset[str] = frozenset()) -> int:
    """About how many bytes this session holds, leaving out the entries named in ``skip``."""
    state = st.session_state
    return sum(_weight(state[key]) for key in list(state.keys()) if key not in skip)


def over_budget(adding: int, what: str, skip: frozenset[str] = frozenset()) -> str:
    """The one sentence refusing ``what`` when ``adding`` bytes beside what this session holds
    (less ``skip``) would pass its budget; empty when they fit."""
    return refusal(session_budget(), session_held(skip), adding, what)
