"""The query box and the SCAR gate's sliders (k, r, λ, τ) with presets A and B."""

from __future__ import annotations

import streamlit as st

from scar_viz import samples
from scar_viz.gate import DEFAULT_PARAMS, DEFAULT_RADIUS, PRESETS, GateParams
from ui.state import URL, default, set_widget

MAX_QUERY_CHARS = 2000


def _apply_preset(name: str) -> None:
    preset = GateParams.preset(name)
    set_widget("lam", preset.lam)
    set_widget("tau", preset.tau)
    set_widget("r", preset.radius)


def _use_example() -> None:
    picked = st.session_state.get("example")
    if picked:
        set_widget("q", picked)


def _preset_help(name: str, source: str) -> str:
    p = PRESETS[name]
    return f"λ = {p['lam']}, τ = {p['tau']}, r = {DEFAULT_RADIUS} ({source})"


def default_query() -> str:
    questions = samples.sample_questions()
    return questions[0]["query"] if questions else ""


def query_box(doc_choice: str | None) -> str | None:
    """The question input (with example questions on a built-in sample). None if unusable."""
    examples = []
    if doc_choice in samples.SAMPLES:
        examples = [q["query"] for q in samples.sample_questions(doc_choice)]
    cols = st.columns([3, 2]) if examples else [st.container()]
    query = cols[0].text_input(
        "Question",
        default("q", default_query()),
        key="q",
        bind=URL,
        placeholder="Type a question about the document",
    )
    if examples:
        cols[1].selectbox(
            "…or pick an example question",
            examples,
            index=None,
            key="example",
            on_change=_use_example,
            placeholder="Example questions on this sample",
        )
    query = (query or "").strip()
    if not query:
        st.info("Type a question to see which chunks the retriever finds and what SCAR adds.")
        return None
    if len(query) > MAX_QUERY_CHARS:
        st.warning(
            f"The question is {len(query):,} characters; only the first "
            f"{MAX_QUERY_CHARS:,} are used (embedding models read a few hundred tokens)."
        )
        query = query[:MAX_QUERY_CHARS]
    return query


PRESET_SOURCES = {"A": "the longer description", "B": "the English summary"}


def gate_sliders(n_chunks: int) -> GateParams:
    """Sliders for k, r, λ, τ and the preset buttons (defaults from ``scar_viz.gate``)."""
    d = DEFAULT_PARAMS
    c1, c2, c3, c4, c5 = st.columns([1, 1, 1.3, 1.3, 1.1])
    k = c1.slider("k (retrieved)", 1, 20, default("k", d.k), key="k", bind=URL)
    r = c2.slider("r (radius)", 1, 3, default("r", d.radius), key="r", bind=URL)
    lam = c3.slider(
        "λ (penalty weight)", 0.0, 2.0, default("lam", d.lam), 0.01, key="lam", bind=URL
    )
    tau = c4.slider("τ (relative bar)", 0.0, 1.5, default("tau", d.tau), 0.01, key="tau", bind=URL)
    with c5:
        st.caption("Presets")
        for col, (name, p) in zip(st.columns(len(PRESETS)), PRESETS.items(), strict=True):
            col.button(
                name,
                key=f"preset_{name.lower()}",
                on_click=_apply_preset,
                args=(name,),
                help=f"λ = {p['lam']:g}, τ = {p['tau']:g}, r = {DEFAULT_RADIUS} "
                f"({PRESET_SOURCES.get(name, 'preset')})",
            )
    if k > n_chunks:
        st.caption(f"k is larger than the document's {n_chunks} chunks; all are retrieved.")
    return GateParams(k=int(k), lam=float(lam), tau=float(tau), radius=int(r))
