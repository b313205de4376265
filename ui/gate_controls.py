"""The query box and the SCAR gate's sliders (k, r, λ, τ, μ) with presets A and B.

A built-in sample opens on its first example question and offers its example list; any other
document (an upload) starts with an empty question, a prompt to ask one, and up to five
starting questions drawn from its headings (:func:`scar_viz.documents.starters.starter_questions`).
"""

from __future__ import annotations

import streamlit as st

from scar_viz.documents import samples
from scar_viz.documents.reading import Document
from scar_viz.documents.starters import starter_questions
from scar_viz.pipeline import PreparedDoc
from scar_viz.scoring.params import DEFAULT_PARAMS, DEFAULT_RADIUS, PRESETS, GateParams
from scar_viz.views.focus import gate_payload
from ui import keys
from ui.cache import cached
from ui.gate_panel import gate_panel, payload_id, released_values
from ui.state import URL, default, limits, set_by_code, set_widget

MAX_QUERY_CHARS = 2000


def _apply_preset(name: str) -> None:
    preset = GateParams.preset(name)
    set_widget(keys.LAM, preset.lam)
    set_widget(keys.TAU, preset.tau)
    set_widget(keys.R, preset.radius)


def _use_example(key: str = keys.EXAMPLE) -> None:
    picked = st.session_state.get(key)
    if picked:
        set_widget(keys.Q, picked)


def _follow_document(doc_key: str, doc_choice: str | None) -> None:
    """A new document gets its own question: the sample's first example, or none.

    Runs before the question box is drawn; a question restored with the document (a session
    file sets both in one callback) is kept.
    """
    last = st.session_state.get(keys.Q_DOC)
    st.session_state[keys.Q_DOC] = doc_key
    if last is None or last == doc_key:
        return
    if set_by_code(keys.Q):
        return
    set_widget(keys.Q, default_query(doc_choice) if doc_choice in samples.SAMPLES else "")
    st.session_state.pop(keys.STARTER, None)
    st.session_state.pop(keys.EXAMPLE, None)


def default_query(doc_choice: str | None = None) -> str:
    """The first example question of a built-in sample (the default sample when None)."""
    questions = samples.sample_questions(doc_choice or samples.DEFAULT_SAMPLE)
    return questions[0]["query"] if questions else ""


def query_box(
    doc_choice: str | None, document: Document | None = None, doc_key: str = ""
) -> str | None:
    """The question input, with a sample's example questions or a document's starting
    questions beside it. None (with a prompt shown) when there is no usable question.

    Args:
        doc_choice: the sidebar's document id (a sample's key or ``upload``).
        document: the active document (its headings give the starting questions).
        doc_key: its content digest; a change of document resets the question.
    """
    sample = doc_choice in samples.SAMPLES
    if doc_key:
        _follow_document(doc_key, doc_choice)
    if sample:
        options, key = [q["query"] for q in samples.sample_questions(doc_choice)], "example"
        label, hint = "…or pick an example question", "Example questions on this sample"
    else:
        options = list(starter_questions(document)) if document is not None else []
        key, label = "starter", "…or start with a question from its headings"
        hint = "Starting questions from the document's headings"
    cols = st.columns([3, 2]) if options else [st.container()]
    query = cols[0].text_input(
        "Question",
        default(keys.Q, default_query(doc_choice) if sample else ""),
        key=keys.Q,
        bind=URL,
        placeholder="Type a question about the document",
    )
    if options:
        cols[1].selectbox(
            label,
            options,
            index=None,
            key=key,
            on_change=_use_example,
            args=(key,),
            placeholder=hint,
        )
    query = (query or "").strip()
    if not query:
        prompt = "type a question to see which chunks the retriever finds and what SCAR adds"
        if sample:
            st.info(prompt[0].upper() + prompt[1:] + ".")
        else:
            more = ", or pick a starting question drawn from its headings" if options else ""
            st.info(f"A new document: {prompt}{more}.")
        return None
    if len(query) > MAX_QUERY_CHARS:
        st.warning(
            f"The question is {len(query):,} characters; only the first "
            f"{MAX_QUERY_CHARS:,} are used (embedding models read a few hundred tokens)."
        )
        query = query[:MAX_QUERY_CHARS]
    return query


PRESET_SOURCES = {"A": "the longer description", "B": "the English summary"}


def release_to_sliders(panel_key: str = keys.GATE_PANEL) -> None:
    """The gate panel's ``on_release``: its λ and τ into the page's (URL-bound) sliders.

    Like :func:`ui.gate_panel.copy_release_to`, through :func:`ui.state.set_widget`, so the
    sliders are drawn without a default on that run (no Session State warning in the log).
    """
    values = released_values(panel_key)
    if values is not None:
        set_widget(keys.LAM, values[0])
        set_widget(keys.TAU, values[1])
        st.session_state[keys.PANEL_SHOWS] = values


def panel_setting(params: GateParams, payload_id: str) -> tuple[float, float, int]:
    """(λ, τ, seq) to send to the gate panel: the page's λ and τ with a new ``seq`` when the
    panel does not show them yet (a slider, a preset, a new payload), else exactly what was
    sent last, so the rerun after a release sends unchanged data (no payload re-sent)."""
    want = (params.lam, params.tau)
    sent = st.session_state.get(keys.PANEL_SENT)  # (λ, τ, seq, payload id)
    if (
        sent is not None
        and sent[3] == payload_id
        and st.session_state.get(keys.PANEL_SHOWS) == want
    ):
        return sent[0], sent[1], sent[2]
    seq = (sent[2] + 1) if sent is not None else 0
    st.session_state[keys.PANEL_SENT] = (*want, seq, payload_id)
    st.session_state[keys.PANEL_SHOWS] = want
    return want[0], want[1], seq


def live_panel(
    prep: PreparedDoc,
    doc_key: tuple,
    query: str,
    sims,
    params: GateParams,
    focus: int | None,
    big: bool,
    lex,
    rank=None,
) -> None:
    """The live gate panel for one question (its payload memoised per question, k, r and
    focus; ``lex`` (N,) the question's lex(q, ·), so the panel decides at the page's μ too;
    ``rank`` (N,) the retriever's scores its top-k follows, None for dense)."""

    def build() -> tuple[dict, str]:
        payload = gate_payload(
            prep.chunks,
            sims,
            prep.unit,
            params,
            focus=focus,
            doc_of=prep.doc_of,
            rank=rank,
            lex=lex,
        )
        return payload, payload_id(payload)

    payload, digest = cached(
        ("gate-payload", *doc_key, query, params.k, params.radius, focus), build
    )
    lam, tau, seq = panel_setting(params, f"{digest}-{big}")
    gate_panel(
        payload,
        lam=lam,
        tau=tau,
        mu=params.mu,
        seq=seq,
        key=keys.GATE_PANEL,
        big=big,
        on_release=release_to_sliders,
        digest=digest,
    )


def current_gate() -> GateParams:
    """The gate setting this session's sliders hold (the defaults before they are drawn)."""
    d = DEFAULT_PARAMS
    return GateParams(
        k=int(st.session_state.get(keys.K, d.k)),
        lam=float(st.session_state.get(keys.LAM, d.lam)),
        tau=float(st.session_state.get(keys.TAU, d.tau)),
        radius=int(st.session_state.get(keys.R, d.radius)),
        mu=float(st.session_state.get(keys.MU, d.mu)),
    )


LEARNED_NOTE = "The learned gate does not use λ, τ and μ (nor the presets); k and r still apply."
TERMS = (
    ("Chunk", "a piece of the document as the chunker in the sidebar cut it."),
    (
        "Retriever",
        "ranks every chunk against your question and returns the k best, c (cos(q,c), the "
        "cosine of their embeddings).",
    ),
    (
        "Boundary penalty",
        "b(c,n) = 1 − cos(c,n): how far a neighbour n of a retrieved chunk c drifts from it; "
        "λ weighs it.",
    ),
    (
        "The bar",
        "τ·cos(q,c): the gate admits n iff its score S = cos(q,n) − λ·b(c,n) is above it "
        "(S − bar > 0).",
    ),
)
"""(word, definition) under "How the gate decides", in the order the page uses them."""
MU_NOTE = "μ: this project's extension, the question's words found in n; 0 is the paper's gate."
"""Beside μ, under the four main knobs."""
MU_HELP = (
    "Weight of the question's words: SCAR admits n iff cos(q,n) − λ·b(c,n) + μ·lex(q,n) > "
    "τ·cos(q,c), lex(q,n) the idf-weighted share of the question's content words found in n. "
    "This project's extension, not the paper's (docs/method.md §8); 0 is the paper's gate."
)


def gate_sliders(n_chunks: int, learned: bool = False) -> GateParams:
    """Sliders for k, r, λ, τ and the preset buttons on one row; the formulas and μ (this
    project's extension) under "How the gate decides" below them, open when μ is set
    (defaults from ``scar_viz.scoring.params``); the presets leave μ as it is.

    ``learned``: the learned gate is picked; λ, τ, μ and the presets are disabled, with a note.
    """
    d = DEFAULT_PARAMS
    c1, c2, c3, c4, c5 = st.columns([1, 1, 1.3, 1.3, 1.1])  # the four main knobs
    k = c1.slider("k (retrieved)", *limits(keys.K), default(keys.K, d.k), key=keys.K, bind=URL)
    r = c2.slider("r (radius)", *limits(keys.R), default(keys.R, d.radius), key=keys.R, bind=URL)
    lam = c3.slider(
        "λ (penalty weight)",
        *limits(keys.LAM),
        default(keys.LAM, d.lam),
        0.01,
        key=keys.LAM,
        bind=URL,
        disabled=learned,
    )
    tau = c4.slider(
        "τ (relative bar)",
        *limits(keys.TAU),
        default(keys.TAU, d.tau),
        0.01,
        key=keys.TAU,
        bind=URL,
        disabled=learned,
    )
    with c5:
        st.caption("Presets")
        for col, (name, p) in zip(st.columns(len(PRESETS)), PRESETS.items(), strict=True):
            col.button(
                name,
                key=keys.preset(name),
                on_click=_apply_preset,
                args=(name,),
                disabled=learned,
                help=f"λ = {p['lam']:g}, τ = {p['tau']:g}, r = {DEFAULT_RADIUS} "
                f"({PRESET_SOURCES.get(name, 'preset')})",
            )
    mu_set = float(st.session_state.get(keys.MU) or st.query_params.get(keys.MU) or 0) != 0
    with st.expander("How the gate decides", expanded=mu_set):  # the formulas, and μ
        st.caption("  \n".join(f"**{word}**: {text}" for word, text in TERMS))
        m1, m2 = st.columns([1.3, 4.4], vertical_alignment="center")
        mu = m1.slider(
            "μ (word weight)",
            *limits(keys.MU),
            default(keys.MU, d.mu),
            0.05,
            key=keys.MU,
            bind=URL,
            disabled=learned,
            help=MU_HELP,
        )
        m2.caption(MU_NOTE)
    if learned:
        st.caption(LEARNED_NOTE)
    if k > n_chunks:
        st.caption(f"k is larger than the document's {n_chunks} chunks; all are retrieved.")
    return GateParams(k=int(k), lam=float(lam), tau=float(tau), radius=int(r), mu=float(mu))
