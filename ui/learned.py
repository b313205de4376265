"""The session's learned gate and its probability bar p, shared by the pages.

"Fit a gate" keeps the gate it fitted (or the one the user uploaded, or the verdict's after
*Apply*) in ``st.session_state`` as JSON text, on the server's shelf and, by its content hash,
in the address (:mod:`scar_viz.views.gate_link`); Compare and the Explorer read it back with
:func:`active_gate` when "learned" is picked — from a link, the gate it names or a sentence
that the server does not hold it — and fall back on the gate shipped with the package only
when nothing names a gate.
"""

from __future__ import annotations

import streamlit as st

from scar_viz.common.errors import user_message
from scar_viz.scoring.learned import (
    DEFAULT_P,
    GateFileError,
    LearnedGate,
    default_gate,
    fitted_k,
    k_note,
    rank_changes,
)
from scar_viz.views.gate_link import GateShelf, gate_digest, resolve_link
from ui import keys
from ui.alerts import alert
from ui.state import URL, default, limits, set_widget

P_MIN, P_MAX = limits(keys.P)


@st.cache_resource
def gate_shelf() -> GateShelf:
    """The gates this server's sessions used, by content hash, for links opened elsewhere."""
    return GateShelf()


def _held_gate() -> LearnedGate | None:
    text = st.session_state.get(keys.GATE_JSON)
    if text:
        try:
            return LearnedGate.from_json(text)
        except GateFileError:
            st.session_state.pop(keys.GATE_JSON, None)
    return None


def active_gate() -> LearnedGate:
    """The gate the address names (:data:`keys.GATE_LINK`, resolved by content hash: this
    session's, else the server's copy), else the gate fitted or uploaded in this session, else
    the default gate. A gate the address names that nobody holds is said, and the page stops:
    no other gate runs in its place."""
    held = _held_gate()
    linked = st.query_params.get(keys.GATE_LINK)
    if linked:
        found = resolve_link(str(linked), held, gate_shelf())
        if found.gate is None:
            alert(found.message, "error")
            st.stop()
        assert found.gate is not None
        if found.gate is not held:
            keep_gate(found.gate)
        return found.gate
    if held is not None:
        # the browser keeps only the widget-bound parameters of the address across a page
        # change (Streamlit's front end drops the others), and no widget holds the gate: each
        # page that runs it names it again, so a link copied there runs this gate elsewhere
        st.query_params[keys.GATE_LINK] = gate_shelf().put(held)
        return held
    return default_gate()


def has_session_gate() -> bool:
    """Whether this session holds its own gate (fitted or uploaded), or its address names one."""
    return bool(st.session_state.get(keys.GATE_JSON) or st.query_params.get(keys.GATE_LINK))


def keep_gate(gate: LearnedGate) -> None:
    """Make ``gate`` the session's gate (Compare and the Explorer use it), kept on the server
    and named in the address by its content hash."""
    st.session_state[keys.GATE_JSON] = gate.to_json()
    st.query_params[keys.GATE_LINK] = gate_shelf().put(gate)


def forget_gate() -> None:
    """Go back to the default gate."""
    st.session_state.pop(keys.GATE_JSON, None)
    if keys.GATE_LINK in st.query_params:
        del st.query_params[keys.GATE_LINK]


def gate_name(gate: LearnedGate) -> str:
    """The one name every page gives the learned gate in use: "the verdict's learned gate
    71c11e90d823cda6 (8 features)" after *Apply*, "this session's learned gate …" for a gate
    fitted, uploaded or restored here, "the default learned gate …" otherwise."""
    digest = gate_digest(gate)
    if digest == st.session_state.get(keys.GATE_APPLIED):
        whose = "the verdict's"
    elif has_session_gate():
        whose = "this session's"
    else:
        whose = "the default"
    return f"{whose} learned gate {digest} ({len(gate.feature_names)} features)"


def current_p() -> float:
    """The p chosen last in this session (any page), else the address's (a link from a page
    with no p slider: the Evaluation lab after *Apply*; checked against its range by
    ``check_address``), else :data:`DEFAULT_P`."""
    linked = st.query_params.get(keys.P)
    fallback = float(linked) if linked is not None else DEFAULT_P
    return float(st.session_state.get(keys.P, st.session_state.get(keys.P_KEPT, fallback)))


def _remember_p() -> None:
    st.session_state[keys.P_KEPT] = float(st.session_state[keys.P])


def p_slider(where=st) -> float:
    """The learned gate's probability bar: a slider keyed ``p``, bound to the URL, with its
    real default (so the address carries any other p); the p chosen last on another page
    comes back through the session."""
    kept = st.session_state.get(keys.P_KEPT)
    if kept is not None:  # the p chosen last, maybe on another page's slider
        st.session_state[keys.P] = float(kept)
    p = where.slider(
        "learned: p (admit a neighbour when its probability > p)",
        P_MIN,
        P_MAX,
        default(keys.P, DEFAULT_P),
        step=0.001,
        format="%.3f",
        key=keys.P,
        bind=URL,
        on_change=_remember_p,
    )
    st.session_state[keys.P_KEPT] = float(p)
    return float(p)


def upload_gate() -> None:
    """on_change of the gate uploader (key ``gate_file``): keep a valid gate, else the error."""
    upload = st.session_state.get(keys.GATE_FILE)
    st.session_state[keys.GATE_FILE_ERROR] = ""
    if upload is None:
        return
    try:
        keep_gate(LearnedGate.from_json(upload.getvalue()))
    except GateFileError as exc:
        st.session_state[keys.GATE_FILE_ERROR] = f"'{upload.name}' is not a gate file: " + (
            user_message(exc)
        )


def _use_k(k: int) -> None:
    set_widget(keys.K, int(k))


def k_mismatch(gate: LearnedGate, k: int, features, p: float, where=st) -> bool:
    """The note on a k the gate was not fitted at, only when it changes one of the decisions
    on ``features`` (the candidate rows this page judges, :func:`~scar_viz.scoring.learned.
    rank_changes`), with a button that sets k to the gate's own; True when shown."""
    note = k_note(gate, k, rank_changes(gate, features, p))
    k_fit = fitted_k(gate)
    if not note or k_fit is None:
        return False
    with where.container():
        alert(f"Learned policy: {note}", "warning")
        st.button(
            f"Use k = {k_fit}, the gate's own",
            key=keys.K_FIX,
            icon=":material/build:",
            on_click=_use_k,
            args=(k_fit,),
            help="Sets k (the sidebar's and every page's) to the k the gate was fitted at.",
        )
    return True
