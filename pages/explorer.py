"""Explorer: where does the document fragment, and what does the SCAR gate admit?"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from scar_viz.charts import chunk_strip, decision_plane
from scar_viz.charts.strip import strip_hover
from scar_viz.context import context_cost, context_html, saving
from scar_viz.explain import edge_notes, explain_decision
from scar_viz.scoring import select_from_sims, window
from scar_viz.tokens import TOKENIZER_NAME
from ui.cache import cached, prepared_key
from ui.gate_controls import gate_sliders, query_box
from ui.loading import query_vector
from ui.presenter import presenting
from ui.share import chart_config
from ui.sidebar import sidebar_setup

STRIP_MAX = 400
NUMBER_COLUMNS = ("cos(q,n)", "b(c,n)", "S", "bar τ·cos(q,c)", "margin")

st.title("Explorer")
st.caption(
    "Type a question, then move λ and τ: the SCAR gate admits a neighbour n of a "
    "retrieved chunk c iff cos(q,n) − λ·(1 − cos(c,n)) > τ·cos(q,c)."
)

setup = sidebar_setup()
if setup is None:
    st.stop()
prep, embedder = setup
chunks = prep.chunks
big = presenting()
font = 20 if big else 12

query = query_box(st.session_state.get("doc"))
params = gate_sliders(len(chunks))
if query is None:
    st.stop()
qvec = query_vector(embedder, query)
if qvec is None:
    st.stop()
if qvec.shape[0] != prep.unit.shape[1]:
    st.error("The query and the chunks were embedded with different dimensions; re-embed.")
    st.stop()

sims = prep.unit @ qvec
sel = select_from_sims(sims, prep.unit, params)
static = window(sel.retrieved, len(chunks), params.radius)
win_label = f"window ±{params.radius}"
costs = {
    "top-k": context_cost(chunks, sel.retrieved),
    "SCAR": context_cost(chunks, sel.selected),
    win_label: context_cost(chunks, static),
}
scar, win = costs["SCAR"], costs[win_label]


def metrics() -> None:
    m = st.columns(5)
    m[0].metric("Retrieved", len(sel.retrieved))
    m[1].metric("Admitted neighbours", len(sel.admitted))
    m[2].metric("Rejected neighbours", len(sel.rejected))
    m[3].metric(
        "SCAR chunks",
        scar.chunks,
        f"{-saving(scar.chunks, win.chunks):+.0f}% vs window",
        delta_color="inverse",
    )
    m[4].metric(
        "SCAR tokens",
        scar.tokens,
        f"{-saving(scar.tokens, win.tokens):+.0f}% vs window",
        delta_color="inverse",
    )
    for level, note in edge_notes(sel, len(chunks)):
        (st.warning if level == "warning" else st.caption)(note)


def strip() -> None:
    st.subheader("Chunk strip")
    view = None
    if len(chunks) > STRIP_MAX:
        top = sel.retrieved[0]
        lo0 = max(0, min(top - STRIP_MAX // 2, len(chunks) - STRIP_MAX))
        view = st.slider(
            "Region of the document (chunk indices)",
            0,
            len(chunks) - 1,
            (lo0, lo0 + STRIP_MAX - 1),
            key="strip_view",
        )
    hover = cached(
        ("hover", *prepared_key(prep), query, view),
        lambda: strip_hover(chunks, sims, prep.penalties, view),
    )
    fig = chunk_strip(
        chunks,
        sims,
        prep.penalties,
        sel.retrieved,
        sel.admitted,
        sel.rejected,
        view,
        height=420 if big else 300,
        font_size=font,
        hover=hover,
    )
    st.plotly_chart(fig, key="strip_chart", config=chart_config("strip"))


def plane() -> None:
    st.subheader("Decision plane")
    fig = decision_plane(
        sel.decisions,
        params.lam,
        height=560 if big else 380,
        font_size=font,
        marker_size=18 if big else 11,
    )
    st.plotly_chart(fig, key="plane_chart", config=chart_config("decision-plane"))
    st.caption(
        "Each point is one candidate neighbour; the gate admits points above the line "
        "y = λ·x. Moving τ shifts points vertically, moving λ tilts the line."
    )


def summary_and_why() -> None:
    st.subheader("Summary")
    table = pd.DataFrame(
        [
            {"policy": name, "chunks": c.chunks, "tokens": c.tokens, "characters": c.chars}
            for name, c in costs.items()
        ]
    )
    st.dataframe(table, hide_index=True, key="summary_table")
    st.caption(
        f"Tokens: {TOKENIZER_NAME} over the chunks joined in document order. SCAR saves "
        f"{saving(scar.tokens, win.tokens):.1f}% of the window's tokens and adds "
        f"{-saving(scar.tokens, costs['top-k'].tokens):.1f}% to top-k's."
    )
    if not sel.decisions:
        return
    # options are the stable (c, n) pairs; the outcome is shown below, never in a stale label
    pairs = [f"{d.chunk} → {d.neighbour} ({d.side}, d={d.distance})" for d in sel.decisions]
    picked = st.selectbox("Why this decision?", pairs, key="why_pick")
    why = explain_decision(sel.decisions[pairs.index(picked)])
    st.latex(why.latex)
    st.write(why.sentence)


def decisions() -> None:
    st.subheader("Decisions")
    if not sel.decisions:
        st.caption("No candidates: radius 0 or a one-chunk document.")
        return
    frame = pd.DataFrame([d.as_row() for d in sel.decisions])
    st.dataframe(
        frame,
        hide_index=True,
        key="decision_table",
        column_config={c: st.column_config.NumberColumn(format="%.3f") for c in NUMBER_COLUMNS},
    )
    st.download_button(
        "Download decisions (CSV)",
        data=lambda: frame.to_csv(index=False),
        file_name="scar-decisions.csv",
        mime="text/csv",
        key="dl_decisions",
        on_click="ignore",
    )


def context() -> None:
    st.subheader("Context sent to the language model")
    st.caption(
        "Blue: retrieved (with rank); green: admitted by the gate; yellow: text repeated "
        "from the previous chunk by the splitter's overlap. Document order."
    )
    st.html(context_html(chunks, sel.retrieved, sel.admitted, font_px=20 if big else 14))


if big:
    strip()
    plane()
    metrics()
else:
    metrics()
    strip()
    left, right = st.columns([1, 1])
    with left:
        plane()
    with right:
        summary_and_why()
decisions()
context()
if big:
    summary_and_why()
