"""The chat model a visitor's actions use (answers, query generation, the answer check): the
sidebar's model and endpoint, held back while the endpoint is only a link's or a session file's
proposal (:mod:`ui.consent`)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from scar_viz.llm.client import ChatModel
from scar_viz.runtime.endpoints import LLM_KEY_NAMES, EndpointError
from ui import keys
from ui.cache import llm_cache
from ui.cancel import stop_check
from ui.consent import CHAT, proposal
from ui.state import LLM_DEFAULT_MODEL, EndpointChoice, endpoint_choice


@dataclass(frozen=True)
class LLMSettings:
    """The chat model for answers and query generation, from the sidebar's LLM expander."""

    model: str
    endpoint: EndpointChoice

    @property
    def base_url(self) -> str:
        return self.endpoint.base_url

    @property
    def configured(self) -> bool:
        """Whether a request could be made: a base URL typed, or a key to send."""
        return bool(self.base_url or self.endpoint.key.key)


def llm_settings() -> LLMSettings:
    """The sidebar's chat model and endpoint; a blank base URL means OpenAI's. An endpoint a
    link or a session file proposed is ``pending`` until the visitor confirms it."""
    model = (st.session_state.get(keys.LLM_MODEL) or "").strip() or LLM_DEFAULT_MODEL
    base_url = (st.session_state.get(keys.LLM_URL) or "").strip()
    choice = endpoint_choice(base_url, keys.LLM_KEY_INPUT, LLM_KEY_NAMES)
    waiting = proposal(CHAT)
    if waiting is not None and not choice.problem:
        choice = EndpointChoice(choice.base_url, choice.key, pending=waiting.waiting)
    return LLMSettings(model, choice)


def chat_model(settings: LLMSettings, name: str = "") -> ChatModel:
    """A client for one action (the key is never kept in the session); its calls stop when
    this run does (:func:`ui.cancel.stop_check`).

    Raises:
        EndpointError: this server may not send requests to the settings' base URL, or the
            visitor has not confirmed the endpoint a link or a session file proposed.
    """
    if settings.endpoint.problem or settings.endpoint.pending:
        raise EndpointError(settings.endpoint.problem or settings.endpoint.pending)
    return ChatModel(
        name or settings.model,
        base_url=settings.base_url or None,
        api_key=settings.endpoint.key.key or None,
        cache=llm_cache(),
        should_stop=stop_check(),
    )
