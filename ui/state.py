"""Session state and settings shared by the pages: the URL binding, widget defaults, and the
settings the sidebar's widgets hold (embedding model, LLM, API keys), and which key a request
to a typed endpoint carries under the operator's rules (:mod:`scar_viz.runtime.endpoints`).

Nothing user-specific lives at module level: several users share one process, so every value
here is read from ``st.session_state`` (this session) at call time.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any

import streamlit as st

from scar_viz.embeddings import DEFAULT_MODEL, OPENAI_DEFAULT_MODEL, sidebar_models
from scar_viz.retrieval import DEFAULT_K_RRF, DEFAULT_RETRIEVER, DENSE, RETRIEVERS, Retriever
from scar_viz.runtime.endpoints import (
    EMBEDDING_KEY_NAMES,
    EndpointError,
    KeyChoice,
    policy_from,
    public_url,
    same_endpoint,
    server_key,
)
from scar_viz.views.ranges import RANGES, Range
from ui import keys

URL = "query-params"
"""``bind=URL`` on a widget keeps its value in the address, so a copied link restores it."""


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


def put_in_address(key: str, value: str | None) -> None:
    """Write ``key=value`` into the address for a widget this page does not draw, or take
    ``key`` out (None: its widget's default, which an address leaves out). A bound widget
    keeps its own parameter: Streamlit refuses a write to it, so it is left alone."""
    with contextlib.suppress(st.errors.StreamlitAPIException):  # bound: the widget writes it
        if value is not None:
            st.query_params[key] = value
        elif key in st.query_params:
            del st.query_params[key]


def set_by_code(key: str) -> bool:
    """Whether :func:`set_widget` set ``key`` and its widget has not been drawn since."""
    return key in (st.session_state.get(keys.SET_BY_CODE) or set())


def default(key: str, value: Any) -> Any:
    """A widget's default, ``value``, always; marks a value :func:`set_widget` set as drawn.

    The widget keeps its real default even on the run right after code set its value: a bound
    widget's address leaves out a value equal to the default, so a widget drawn once without
    it (a slider's default then falls to its minimum) lost k = 1 or λ = 0 from the address
    after the verdict's *Apply*. Streamlit would log that such a widget "was created with a
    default value but also had its value set via the Session State API"; setting values from
    callbacks is this app's way, so ``.streamlit/config.toml`` turns that warning off
    (``global.disableWidgetStateDuplicationWarning``).
    """
    pending = st.session_state.get(keys.SET_BY_CODE)
    if pending and key in pending:
        st.session_state[keys.SET_BY_CODE] = pending - {key}
    return value


def default_model() -> str:
    """The model picked on first load; ``SCAR_VIZ_DEFAULT_MODEL`` overrides (used by tests)."""
    choice = os.environ.get("SCAR_VIZ_DEFAULT_MODEL", DEFAULT_MODEL)
    return choice if choice in sidebar_models() else DEFAULT_MODEL


@dataclass(frozen=True)
class EndpointChoice:
    """Where a visitor's request goes and which key it carries (the key itself is never
    shown): ``problem`` is one sentence when this server may not send requests there;
    ``pending`` one when the endpoint is a link's or a session file's proposal that this
    visitor has not confirmed (``ui.consent``): nothing is sent then."""

    base_url: str
    key: KeyChoice
    problem: str = ""
    pending: str = ""

    @property
    def note(self) -> str:
        """What the sidebar says about it: the endpoint and "the server's key" / "your key" /
        "no key", or the problem, or that nothing is sent before the visitor answers."""
        if self.problem:
            return "This endpoint is not allowed on this server."
        if self.pending:
            return (
                f"Nothing is sent to {public_url(self.base_url or None)} until you answer "
                "the question above."
            )
        return f"Requests to {public_url(self.base_url or None)} carry {self.key.words}."


def _secrets() -> dict[str, object]:
    """``st.secrets`` as a plain mapping; empty without a secrets file."""
    try:
        return dict(st.secrets)
    except Exception:  # no secrets.toml, or a malformed one (Streamlit raises its own types)
        return {}


KEY_URL_FIELD = {keys.API_KEY_INPUT: keys.BASE_URL, keys.LLM_KEY_INPUT: keys.LLM_URL}
"""Each key field and the base-URL field of the endpoint the visitor types that key for."""


def endpoint_choice(
    base_url: str, key_field: str, key_names: tuple[str, ...] = EMBEDDING_KEY_NAMES
) -> EndpointChoice:
    """The operator's rules (:mod:`scar_viz.runtime.endpoints`) applied to a URL the visitor typed:
    the visitor's own key from ``key_field`` when ``base_url`` is the endpoint that key was
    typed for (:data:`KEY_URL_FIELD`: the URL field beside it), else the server's key
    (``key_names`` in ``st.secrets`` or the environment) when the operator allowed
    ``base_url``, else none. A key typed for one endpoint never goes to another."""
    secrets = _secrets()
    visitor = str(st.session_state.get(key_field) or "")
    own_url = str(st.session_state.get(KEY_URL_FIELD.get(key_field, ""), "") or "")
    if not same_endpoint(base_url, own_url):
        visitor = ""
    try:
        policy = policy_from(os.environ, secrets)
        policy.check(base_url)
    except EndpointError as exc:
        return EndpointChoice(base_url, KeyChoice("", "none"), str(exc))
    held = server_key(key_names, os.environ, secrets)
    return EndpointChoice(base_url, policy.choose_key(base_url, visitor, held))


def typed_prompts() -> tuple[str | None, str | None]:
    """(query prompt, document prompt) typed in the sidebar; None where blank (the model's
    own prompts then apply)."""
    return tuple(  # type: ignore[return-value]
        st.session_state.get(k) or None for k in (keys.QUERY_PROMPT, keys.DOC_PROMPT)
    )


def model_spec() -> tuple[str, str]:
    """(spec for ``make_embedder``, base_url) from the sidebar's model widgets."""
    choice = st.session_state.get(keys.MODEL, default_model())
    if choice == "sentence-transformers":
        name = (st.session_state.get(keys.ST_MODEL) or "").strip()
        return (f"st:{name}" if name else "default"), ""
    if choice == "openai":
        model = (st.session_state.get(keys.OPENAI_MODEL) or "").strip() or OPENAI_DEFAULT_MODEL
        return f"openai:{model}", (st.session_state.get(keys.BASE_URL) or "").strip()
    return choice, ""


ADDRESS_RANGES: dict[str, Range] = {
    key: RANGES[key]
    for key in (keys.K, keys.R, keys.LAM, keys.TAU, keys.MU, keys.P, keys.SIZE, keys.OVERLAP)
    + (keys.RRF_K,)
}
"""The numeric URL parameters and their ranges (:data:`scar_viz.views.ranges.RANGES`, which
session files are held to as well); their widgets take these limits (:func:`limits`), so the
address check and the widgets cannot disagree."""


def limits(key: str) -> tuple[float, float]:
    """(lowest, highest) of the numeric widget ``key``, typed as the widget is (int or float)."""
    return ADDRESS_RANGES[key].bounds


def check_address() -> str:
    """Drop the numeric URL parameters that are not a number in their widget's range (before
    any widget reads them) and say which, once: "" when every value was fine.

    A slider given ``?lam=5`` or ``?lam=abc`` would otherwise fall back on its default without
    a word; this names each one and its range, and the page shows it as one notice.
    """
    reset = []
    for key, bound in ADDRESS_RANGES.items():
        raw = st.query_params.get(key)
        if raw is None or bound.holds(str(raw)):
            continue
        reset.append(bound.describe(raw))
        del st.query_params[key]
    if not reset:
        return ""
    return (
        "The address held values out of range, reset to their defaults: " + "; ".join(reset) + "."
    )


def current_retriever() -> Retriever:
    """The sidebar's retriever (dense when unset or unknown)."""
    name = st.session_state.get(keys.RETRIEVER, DEFAULT_RETRIEVER)
    if name not in RETRIEVERS:
        return DENSE
    return Retriever(str(name), float(st.session_state.get(keys.RRF_K, DEFAULT_K_RRF)))
