"""The live gate panel: λ and τ move in the browser, the gate is decided there, release reports.

A Streamlit components v2 element (inline HTML, CSS and JS from ``gate_panel.css`` and
``gate_panel.js`` next to this file; no build step). Python sends
:func:`scar_viz.views.focus.gate_payload` once per query; every ``input`` event of the λ or τ range
redraws the focus rows, the whole-document minimap and the decision plane in the browser with
the same rule and the same float64 values as :func:`scar_viz.scoring.scar.select_from_sims` (at
the page's μ, with the payload's lex(q, ·), when μ > 0: docs/method.md §8). On
release (the range's ``change`` event) the panel sends ``{"lam": λ, "tau": τ}`` back as the
trigger value ``release``: the page reruns once and its tables and context follow. While the
ranges stand elsewhere than the page's λ and τ, a banner (``data-testid=sv-stale``) says the
page's numbers are those of the last release; it goes when the release's rerun has ended.

Document text reaches the browser as JSON strings and is put into the page with
``textContent`` only, never parsed as HTML (so it is not HTML-escaped in Python: that would
show entities; the only HTML Python sends is the static root ``<div>``).

Mounting it in a page (sketch; ``sims = prep.unit @ qvec``, ``params`` the page's GateParams,
the λ/τ sliders keyed ``lam``/``tau``)::

    focus = st.session_state.get("focus")
    payload = cached(("gate-payload", *prepared_key(prep), query, params.k, params.radius, focus),
                   lambda: gate_payload(chunks, sims, prep.unit, params, focus=focus))
    gate_panel(payload, lam=params.lam, tau=params.tau, key="gate_panel", big=presenting(),
               on_release=copy_release_to("gate_panel", "lam", "tau"))
    sel = select_from_sims(sims, prep.unit, params)
    st.plotly_chart(overview_chart(overview_data(sims, sel)), key="overview",
                    on_select=remember_overview_click("overview", "focus"),
                    selection_mode="points")

(The browser rebuilds only when the payload changes; a new λ or τ only moves the ranges.)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from ui import keys

_HERE = Path(__file__).resolve().parent
COMPONENT_NAME = "scar_viz.gate_panel"

_component = st.components.v2.component(
    COMPONENT_NAME,
    html='<div class="sv-gate" data-testid="sv-gate-panel"></div>',
    css=(_HERE / "gate_panel.css").read_text(encoding="utf-8"),
    js=(_HERE / "gate_panel.js").read_text(encoding="utf-8"),
)


def payload_id(payload: dict) -> str:
    """A digest of everything in ``payload`` but the initial λ and τ.

    The browser rebuilds the panel only when this changes; a new λ or τ from Python (after a
    release, or the page's own sliders) just moves the ranges. A page that memoises its
    payload memoises this with it and passes it to :func:`gate_panel` (hashing the payload
    costs about 1 ms on RFC 9293, on every λ release).
    """
    rest = {key: value for key, value in payload.items() if key not in ("lam", "tau")}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode()).hexdigest()[:16]


def _ignore() -> None:
    """The release callback when the page passes none (components v2 needs one to report)."""


def gate_panel(
    payload: dict,
    *,
    lam: float | None = None,
    tau: float | None = None,
    key: str = keys.GATE_PANEL,
    big: bool = False,
    on_release: Callable[[], None] | None = None,
    seq: int | None = None,
    mu: float = 0.0,
    digest: str | None = None,
) -> tuple[float, float] | None:
    """Mount the panel; returns (λ, τ) on the rerun a release caused, else None.

    Args:
        payload: :func:`scar_viz.views.focus.gate_payload` for this query (its ``k`` and
            ``radius`` are the rows shown; memoise it per query, k, r and focus).
        lam, tau: where the ranges stand now (the page's current λ and τ); default: the
            payload's. Pass them so a payload memoised across λ/τ changes stays right.
        key: the element's key; the released values are also in
            ``st.session_state[key]["release"]`` (inside ``on_release`` too).
        big: presenter mode (larger type).
        on_release: called before the rerun a release causes, like a widget's ``on_change``:
            the place to copy the values into the page's own λ and τ widgets
            (:func:`copy_release_to`).
        seq: when given, the ranges move to ``lam``/``tau`` only when ``seq`` changes, so a
            page can send the same data on the rerun after a release (the panel already
            shows those values) and Streamlit need not re-send the payload (its message
            cache keeps identical large messages); see ``ui.gate_controls.panel_setting``.
        mu: the page's μ (no range in the panel): with μ > 0 the panel adds μ·lex(q,n) from
            the payload's ``lex`` (:func:`scar_viz.views.focus.gate_payload` given ``lex``).
        digest: ``payload_id(payload)`` when the page has it memoised; computed otherwise.

    Raises:
        ValueError: for μ > 0 with a payload that carries no ``lex``.
    """
    if mu and "lex" not in payload:
        raise ValueError("μ > 0 needs a gate payload built with lex(q, ·).")
    result = _component(
        key=key,
        data={
            "payload": payload,
            "id": digest or payload_id(payload),
            "lam": float(payload["lam"] if lam is None else lam),
            "tau": float(payload["tau"] if tau is None else tau),
            "big": bool(big),
            "seq": seq,
            "mu": float(mu),
        },
        on_release_change=on_release or _ignore,
    )
    released = result.get("release")
    if not released:
        return None
    return float(released["lam"]), float(released["tau"])


def released_values(key: str = keys.GATE_PANEL) -> tuple[float, float] | None:
    """(λ, τ) the panel ``key`` just released, read from session state (for callbacks)."""
    held = st.session_state.get(key)
    released = held.get("release") if held is not None else None
    if not released:
        return None
    return float(released["lam"]), float(released["tau"])


def copy_release_to(
    key: str = keys.GATE_PANEL, lam_key: str = keys.LAM, tau_key: str = keys.TAU
) -> Callable[[], None]:
    """An ``on_release`` callback that writes the released λ and τ into two widget keys.

    Callbacks run before the script, so the page's sliders (and their URL binding) show the
    panel's values on the very rerun the release causes.
    """

    def copy() -> None:
        values = released_values(key)
        if values is not None:
            st.session_state[lam_key], st.session_state[tau_key] = values

    return copy


def remember_overview_click(
    chart_key: str = keys.OVERVIEW, focus_key: str = keys.FOCUS
) -> Callable[[], None]:
    """An ``on_select`` callback for the overview chart that keeps the clicked chunk.

    Mount the chart as ``st.plotly_chart(fig, on_select=remember_overview_click(),
    selection_mode="points", key="overview")`` and read ``st.session_state.get("focus")``.
    Streamlit clears a chart's selection whenever its figure changes (a new mark after a
    release, the focus outline), so the click is copied into ``focus_key`` and an empty
    selection leaves it as it was.
    """

    def remember() -> None:
        from scar_viz.charts.overview import clicked_chunk

        held = st.session_state.get(chart_key) or {}
        chunk = clicked_chunk(held.get("selection"))
        if chunk is not None:
            st.session_state[focus_key] = chunk

    return remember
