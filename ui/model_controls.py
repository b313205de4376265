"""The sidebar's models: the embedding model (with its name, folder or endpoint) and the chat
model's OpenAI-compatible endpoint. Model names and base URLs travel in the address; API keys
never do.
"""

from __future__ import annotations

import streamlit as st

from scar_viz.embeddings import EMBEDDERS, OPENAI_DEFAULT_MODEL, sidebar_models
from scar_viz.embeddings.static import static_model_summary
from ui import keys
from ui.alerts import alert
from ui.chat import llm_settings
from ui.consent import CHAT, EMBEDDINGS, proposal, proposal_box, typed
from ui.models import models_help
from ui.named_select import named_select
from ui.state import (
    LLM_DEFAULT_MODEL,
    URL,
    default,
    default_model,
    endpoint_choice,
    model_spec,
)


def sidebar_model() -> tuple[str, str]:
    """The embedding model's widgets; returns (spec, base_url)."""
    st.sidebar.subheader("Embedding model")
    choice = named_select(
        st.sidebar,
        "Model",
        sidebar_models(),
        keys.MODEL,
        default_model(),
        on_change=typed,
        args=(keys.MODEL,),
    )
    extra = st.sidebar.container()  # always present, so later widgets keep their places
    extra.caption(EMBEDDERS[choice].label)
    if choice == "static":
        extra.caption(static_model_summary())
    elif choice == "sentence-transformers":
        extra.text_input(
            "Model name or folder",
            key=keys.ST_MODEL,
            bind=URL,
            placeholder="a folder under the models root, or BAAI/bge-small-en-v1.5",
            help=models_help(),
        )
    elif choice == "openai":
        endpoint_inputs(
            extra,
            ("Model", "Base URL", "API key"),
            (keys.OPENAI_MODEL, keys.BASE_URL, keys.API_KEY_INPUT),
            OPENAI_DEFAULT_MODEL,
        )
        if proposal_box(EMBEDDINGS, extra) is None:
            alert(endpoint_choice(model_spec()[1], keys.API_KEY_INPUT).note, "caption", extra)
    prompt_inputs()
    return model_spec()


def prompt_inputs() -> None:
    """The query and document prompts (E5's "query: " and "passage: "), in the address; blank
    keeps the model's own (a sentence-transformers config's ``prompts``)."""
    typed = any(st.session_state.get(k) for k in (keys.QUERY_PROMPT, keys.DOC_PROMPT))
    with st.sidebar.expander("Query and document prompts", expanded=typed):
        st.text_input("Query prompt", key=keys.QUERY_PROMPT, bind=URL, placeholder="e.g. query: ")
        st.text_input(
            "Document prompt", key=keys.DOC_PROMPT, bind=URL, placeholder="e.g. passage: "
        )
        st.caption(
            "Put before each question and each chunk, for models trained with them (E5, BGE, "
            "GTE, nomic). Blank: the model's own prompts, if its config has them."
        )


def endpoint_inputs(
    box, labels: tuple[str, str, str], widget_keys: tuple[str, str, str], default_model: str
) -> None:
    """An OpenAI-compatible endpoint's model, base URL and API key inputs in ``box``, with
    these ``labels`` and ``widget_keys``; model and URL travel in the address, the key never.
    What the visitor types in model and URL is theirs (``ui.consent.typed``); what a link put
    there is a proposal until they confirm it."""
    model_label, url_label, key_label = labels
    model_key, url_key, key_key = widget_keys
    box.text_input(
        model_label,
        default(model_key, default_model),
        key=model_key,
        bind=URL,
        on_change=typed,
        args=(model_key,),
    )
    box.text_input(
        f"{url_label} (blank = OpenAI)",
        key=url_key,
        bind=URL,
        placeholder="http://localhost:11434/v1",
        on_change=typed,
        args=(url_key,),
    )
    box.text_input(f"{key_label} (yours, optional)", type="password", key=key_key)


def sidebar_llm() -> None:
    """The chat model for answers and query generation; read with ``ui.chat.llm_settings``.
    Model and base URL travel in the address; the key never does."""
    waiting = proposal(CHAT) is not None  # open, so the visitor sees the question
    with st.sidebar.expander("LLM (answers and query generation)", expanded=waiting):
        endpoint_inputs(
            st,
            ("Chat model", "Chat base URL", "Chat API key"),
            (keys.LLM_MODEL, keys.LLM_URL, keys.LLM_KEY_INPUT),
            LLM_DEFAULT_MODEL,
        )
        proposal_box(CHAT)
        alert(
            f"Any OpenAI-compatible chat endpoint. {llm_settings().endpoint.note} A key you "
            "type stays in this session only.",
            "caption",
        )
