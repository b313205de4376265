"""Endpoints come from the visitor's own hands: where a request goes (a base URL, a model name,
the choice of an endpoint at all) is set by what this visitor typed or confirmed in this
session, never by a link or a session file alone.

A link (``?llm_url=http://HOST/v1``) or a session file can fill in an endpoint's fields, and
the server then sends the requests: without this rule a stranger's link chose where a
visitor's key, document text and questions went. So each field remembers the values its
visitor typed (the widget's change callback fires only for the visitor's own input, never for
a value the address or a session file put there) or confirmed. An endpoint whose fields hold a
value of neither kind, and not the app's default, is only a proposal naming its host ("This
link asks to send requests to HOST. Use it?"): nothing, no key, no text, no question, is sent
until the visitor answers *Use it* or types the value themselves (docs/deployment.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import streamlit as st

from scar_viz.embeddings import OPENAI_DEFAULT_MODEL
from scar_viz.runtime.endpoints import (
    EMBEDDING_KEY_NAMES,
    LLM_KEY_NAMES,
    OPENAI_BASE_URL,
    EndpointError,
    public_url,
)
from ui import keys
from ui.alerts import alert
from ui.state import (
    LLM_DEFAULT_MODEL,
    EndpointChoice,
    default_model,
    endpoint_choice,
    set_widget,
)


class ProposalPending(EndpointError):
    """A request would go to an endpoint that is still a proposal; the message says nothing
    was sent and where to answer."""


LINK = "link"
SESSION_FILE = "session file"


@dataclass(frozen=True)
class Slot:
    """An endpoint the app may send requests to: its ``name``, the widget keys whose values
    choose it (the base URL's among them, ``url``) and the value of each that needs no
    confirmation (the app's own default); ``what`` says what goes there."""

    name: str
    url: str
    fields: tuple[str, ...]
    what: str
    key_field: str = keys.API_KEY_INPUT
    key_names: tuple[str, ...] = EMBEDDING_KEY_NAMES

    def choice(self) -> EndpointChoice:
        """Where this endpoint's requests would go and the key they would carry."""
        return endpoint_choice(_value(self.url), self.key_field, self.key_names)

    def defaults(self) -> dict[str, str]:
        own = {
            keys.MODEL: default_model(),
            keys.OPENAI_MODEL: OPENAI_DEFAULT_MODEL,
            keys.LLM_MODEL: LLM_DEFAULT_MODEL,
        }
        return {field: own.get(field, "") for field in self.fields}

    def active(self) -> bool:
        """Whether requests would go to this endpoint now (an embedding model that is no
        endpoint sends nothing, whatever its URL field holds)."""
        if self.name == EMBEDDINGS.name:
            return _value(keys.MODEL) == "openai"
        if self.name == SECOND_MODEL.name:
            return _value(keys.MODEL_2).startswith("openai:")
        return True


CHAT = Slot(
    "chat",
    keys.LLM_URL,
    (keys.LLM_URL, keys.LLM_MODEL, keys.ANS_JUDGE),
    "questions and contexts",
    keys.LLM_KEY_INPUT,
    LLM_KEY_NAMES,
)
EMBEDDINGS = Slot(
    "embeddings",
    keys.BASE_URL,
    (keys.MODEL, keys.BASE_URL, keys.OPENAI_MODEL),
    "this document's text",
)
SECOND_MODEL = Slot(
    "second-model", keys.MODEL_2_URL, (keys.MODEL_2, keys.MODEL_2_URL), "this document's text"
)
SLOTS = {s.name: s for s in (CHAT, EMBEDDINGS, SECOND_MODEL)}
_FIELD_SLOT = {field: slot for slot in SLOTS.values() for field in slot.fields}


@dataclass(frozen=True)
class Proposal:
    """An endpoint a link or a session file filled in and this visitor has not confirmed."""

    slot: Slot
    host: str
    model: str
    origin: str
    key: str = "no key"

    @property
    def question(self) -> str:
        """ "This link asks to send requests to HOST (model M): TEXT would go there, with
        your key. Use it?": everything that would leave, the key included."""
        model = f" (model {self.model})" if self.model else ""
        return (
            f"This {self.origin} asks to send requests to {self.host}{model}: "
            f"{self.slot.what} would go there, with {self.key}. Use it?"
        )

    @property
    def waiting(self) -> str:
        """What a page says while the proposal stands: nothing was sent."""
        return (
            f"Nothing was sent: this {self.origin} asks to send requests to {self.host}, and "
            "that waits for your answer (Use it, in the sidebar)."
        )


def _value(field: str) -> str:
    """The field's value; before its widget is first drawn in a session, the address's (so
    the sidebar can open on a proposal in the very run a link starts)."""
    value = st.session_state.get(field)
    if value is None:
        value = st.query_params.get(field)
    return "" if value is None else str(value).strip()


def _own() -> dict[str, set[str]]:
    return st.session_state.setdefault(keys.OWN_ENDPOINTS, {})


def typed(field: str) -> None:
    """Change callback of an endpoint field: the visitor typed (or picked) this value."""
    _own().setdefault(field, set()).add(_value(field))


def came_from_file(fields: list[str]) -> None:
    """A session file set these fields: a proposal of theirs names the file, not a link."""
    origins = st.session_state.setdefault(keys.ENDPOINT_ORIGIN, {})
    for field in fields:
        if field in _FIELD_SLOT:
            origins[field] = SESSION_FILE


def confirm(slot_name: str) -> None:
    """*Use it*: every field of the endpoint as it stands is the visitor's own now."""
    for field in SLOTS[slot_name].fields:
        typed(field)


def decline(slot_name: str) -> None:
    """*Don't use it*: the endpoint's fields go back to the app's defaults."""
    for field, value in SLOTS[slot_name].defaults().items():
        set_widget(field, value)
        typed(field)


def _unconfirmed(slot: Slot) -> list[str]:
    own = _own()
    defaults = slot.defaults()
    return [f for f in slot.fields if _value(f) != defaults[f] and _value(f) not in own.get(f, ())]


def _host(url: str) -> str:
    shown = public_url(url or None)
    parts = urlsplit(shown)
    return parts.netloc or urlsplit(OPENAI_BASE_URL).netloc


def proposal(slot: Slot) -> Proposal | None:
    """The standing proposal of ``slot``, or None when its endpoint is the visitor's own (or
    the app's default, or sends nothing now, or is one the operator does not allow)."""
    choice = slot.choice()
    if not slot.active() or choice.problem:
        return None  # sends nothing now, or the operator refuses it (that is what is said)
    waiting = _unconfirmed(slot)
    if not waiting:
        return None
    origins = st.session_state.get(keys.ENDPOINT_ORIGIN) or {}
    origin = SESSION_FILE if any(origins.get(f) == SESSION_FILE for f in waiting) else LINK
    model_field = next((f for f in slot.fields if f not in (slot.url, keys.MODEL)), "")
    model = _value(model_field) if model_field else ""
    if slot is SECOND_MODEL:
        model = model.removeprefix("openai:")
    return Proposal(slot, _host(_value(slot.url)), model, origin, choice.key.words)


def proposal_box(slot: Slot, where=None, place: str = "sidebar") -> Proposal | None:
    """The proposal of ``slot`` with its two answers, drawn in ``where``; the proposal, or
    None when there is none. ``place`` tells the buttons of two boxes of one slot apart."""
    found = proposal(slot)
    if found is None:
        return None
    box = (where or st).container()
    alert(found.question, "warning", box)
    c1, c2 = box.columns(2)
    c1.button(
        "Use it",
        key=keys.endpoint_answer(slot.name, place, "use"),
        on_click=confirm,
        args=(slot.name,),
        type="primary",
    )
    c2.button(
        "Don't use it",
        key=keys.endpoint_answer(slot.name, place, "drop"),
        on_click=decline,
        args=(slot.name,),
    )
    return found
