"""Explorer: where does the document fragment, and what does the gate admit?

The whole document in one overview (click a chunk to focus it), the live gate panel (λ and τ
decided in the browser while dragging; a release reruns only the gate view, an
``st.fragment``), then the tables, the context, labelling and the answer check.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from scar_viz.charts import decision_plane
from scar_viz.charts.overview import overview_spec, split_spec
from scar_viz.pipeline import PreparedDoc
from scar_viz.scoring.explain import edge_notes, explain_decision
from scar_viz.scoring.learned import resolve_gate
from scar_viz.scoring.learned.select import decision_features
from scar_viz.scoring.scar import Selection
from scar_viz.views.explorer import contexts, policy_selection, query_sims, summarise
from scar_viz.views.flips import next_flips
from scar_viz.views.hits import hits
from scar_viz.views.language import language_notice, model_tokens
from ui import keys, state
from ui.alerts import alert, or_stop
from ui.cache import cached
from ui.corpus_view import corpus_data, loaded_section, overview_source
from ui.explore_tools import (
    active_gate,
    answer_box,
    context_view,
    gold_for,
    gold_note,
    known_evidence_for,
    label_box,
    learned_why,
    policy_choice,
)
from ui.gate_controls import gate_sliders, live_panel, query_box
from ui.gate_panel import remember_overview_click
from ui.hits import hits_list, retrieval_scores
from ui.intro import intro
from ui.learned import k_mismatch
from ui.loading import query_vector, usual_cosine_for
from ui.presenter import presenting
from ui.setup import Setup, sidebar_setup
from ui.share import chart_config, download, pickable_chart
from ui.state import limits
from ui.tables import grid_table, show_table

NUMBER_COLUMNS = ("cos(q,n)", "b(c,n)", "lex(q,n)", "μ·lex(q,n)", "S", "bar τ·cos(q,c)", "margin")
NUMBER_COLUMNS += ("score", "probability")
PRESENTER_PLANE_WIDTH = 760  # fits the main area at 1280 px in presenter mode
LABELS = {  # metric labels: full, and short enough for presenter mode's large type
    False: ("Retrieved", "Admitted neighbours", "Rejected neighbours", "chunks", "tokens"),
    True: ("Retrieved", "Admitted", "Rejected", "chunks", "tokens"),
}

st.title("Explorer")
setup = sidebar_setup()
if setup is None:
    st.stop()
intro(setup)  # what fragmentation is, on the sample's own cut; the way to Learn
prep, embedder = setup.prepared, setup.embedder
query = query_box(setup.name, setup.source, setup.doc_key)
if query is None:  # no question yet: on a corpus, what was loaded
    loaded_section(setup, presenting())
    st.stop()
qvec = query_vector(embedder, query)
sims = or_stop(lambda: cached(("sims", *setup.key, query), lambda: query_sims(prep.unit, qvec)))
lexical, rank, words = retrieval_scores(setup, query, sims)
gold = gold_for(prep, setup.name, query)  # a labelled question's evidence chunks, or ()
usual = usual_cosine_for(setup.key, prep, embedder)  # once per document and model
notice = cached(  # once per document, model and question: ~20 ms of script counting
    ("language", *setup.key, query),
    lambda: language_notice(
        query,
        setup.source.text,
        tokens=model_tokens(getattr(embedder, "name_or_path", None), query),
        best_cos=float(sims.max()) if len(sims) else None,
        usual=usual,
    ),
)
if notice:
    alert(notice.message, "warning")


def metrics(sel, summary, prep: PreparedDoc, big: bool) -> None:
    n_chunks = len(prep.chunks)
    names = LABELS[big]
    m = st.columns(5)
    m[0].metric(names[0], len(sel.retrieved))
    m[1].metric(names[1], len(sel.admitted))
    m[2].metric(names[2], len(sel.rejected))
    for col, field, name in ((m[3], "chunks", names[3]), (m[4], "tokens", names[4])):
        arrow, colour = summary.delta_style(field)
        col.metric(
            f"{summary.policy} {name}",
            getattr(summary.ours, field),
            summary.delta(field, short=big),
            delta_color=colour,
            delta_arrow=arrow,
            help=f"{summary.policy}'s context against {summary.window}'s",
        )
    for level, note in edge_notes(sel, n_chunks, prep.doc_of):
        (st.warning if level == "warning" else st.caption)(note)


def overview(setup: Setup, sims, sel, focus: int | None, big: bool) -> None:
    """Marks above the similarity row (only the small marks figure changes with λ and τ), then
    the hits list. In a corpus: the table and small multiples first, then the focused file."""
    data, first, path = overview_source(corpus_data(setup, sims, sel), sims, sel, focus, big)
    size = (240, 18) if big else (190, 12)
    whole = overview_spec(data, focus, size[0], size[1], first=first, file=path, gold=gold)
    figs = split_spec(whole)
    for fig, key, bar in zip(
        figs, (keys.OVERVIEW_MARKS, keys.OVERVIEW), (True, False), strict=True
    ):
        pickable_chart(
            fig, key, remember_overview_click(key, keys.FOCUS), "overview", displayModeBar=bar
        )
    gold_note(gold)
    hits_list(hits(setup.prepared.chunks, sims, sel.retrieved, lexical, gold if gold else None))


def plane_toggle(big: bool) -> bool:
    """The decision plane's heading and switch; whether to draw the chart."""
    st.subheader("Decision plane")
    shown = st.toggle(
        "Draw it as a chart (hover, PNG/SVG download)",
        big,
        key=keys.PLANE_CHART_ON,
        help="The live panel above draws the plane while you drag; this chart redraws after "
        "each release.",
    )
    if not shown:
        st.caption("The live panel above shows the decision plane.")
    return shown


def plane(sel, lam: float, big: bool) -> None:
    """The plane at its fixed width (its labels are placed for it), on a row of its own."""
    fig = decision_plane(
        sel.decisions,
        lam,
        height=560 if big else 380,
        font_size=20 if big else 12,
        marker_size=18 if big else 11,
        width=PRESENTER_PLANE_WIDTH if big else None,
    )
    st.plotly_chart(
        fig, key=keys.PLANE_CHART, config=chart_config("decision-plane"), width="content"
    )


def summary_and_why(sel, summary) -> None:
    st.subheader("Summary")
    show_table(grid_table(summary.rows()), hide_index=True, key=keys.SUMMARY_TABLE)
    st.caption(summary.sentence())
    if not sel.decisions or summary.policy != "SCAR":
        return
    # options are the stable (c, n) pairs; the outcome is shown below, never in a stale label
    pairs = [f"{d.chunk} → {d.neighbour} ({d.side}, d={d.distance})" for d in sel.decisions]
    picked = st.selectbox(
        "Why this decision?", range(len(pairs)), format_func=pairs.__getitem__, key=keys.WHY_PICK
    )
    why = explain_decision(sel.decisions[picked])
    st.latex(why.latex)
    st.write(why.sentence)


def decisions(sel) -> None:
    st.subheader("Decisions")
    if not sel.decisions:
        st.caption("No candidates: radius 0 or a one-chunk document.")
        return
    rows = [d.as_row() for d in sel.decisions]
    table = grid_table(rows)
    show_table(
        table,
        hide_index=True,
        key=keys.DECISION_TABLE,
        column_config={
            c: st.column_config.NumberColumn(format="%.3f") for c in NUMBER_COLUMNS if c in rows[0]
        },
    )
    download(
        "Download decisions (CSV)",
        lambda: pd.DataFrame(rows).to_csv(index=False),
        "scar-decisions.csv",
        key=keys.DL_DECISIONS,
    )


@st.fragment
def gate_view(setup: Setup, query: str, sims) -> tuple[Selection, str]:
    """Everything that depends on the gate: a release or a slider move reruns only this."""
    prep = setup.prepared
    big = presenting()
    knobs, charts = st.container(), st.container()
    if big:  # presenting: the charts come first, on the first screen
        knobs, charts = charts, knobs
    with knobs:
        policy, p = policy_choice()
        params = gate_sliders(len(prep.chunks), learned=policy == "learned")
        gate, source = active_gate() if policy == "learned" else (None, "")
        sel = policy_selection(policy, sims, prep.unit, params, prep.doc_of, gate, p, words, rank)
        if policy == "SCAR":  # how far a slider must move for something to change
            lam_range, tau_range = limits(keys.LAM), limits(keys.TAU)
            st.caption(
                next_flips(sel.decisions, params.lam, params.tau, lam_range, tau_range).sentence()
            )
        if policy == "learned":
            k_mismatch(resolve_gate(gate), params.k, decision_features(sel.decisions), p)
    summary = summarise(prep.chunks, sel, policy, doc_of=prep.doc_of)
    focus = state.get(keys.FOCUS)
    with charts:  # the overview on the first screen, its counts under it
        overview(setup, sims, sel, focus, big)
        if not big:
            metrics(sel, summary, prep, big)
    if policy == "SCAR":
        live_panel(prep, setup.key, query, sims, params, focus, big, words.share, rank)
    if big:
        metrics(sel, summary, prep, big)
    left, right = (st.container(), None) if big else st.columns([1, 1])
    drawn = False
    with left:
        if policy == "SCAR":
            drawn = plane_toggle(big)
        else:
            learned_why(sel, source)
    if right is not None:
        with right:
            summary_and_why(sel, summary)
    if drawn:
        plane(sel, params.lam, big)
    decisions(sel)
    context_view(prep.chunks, sel, big, gold)
    if big:
        summary_and_why(sel, summary)
    return sel, policy


# outside the fragment: a release does not re-send them; their buttons rerun the whole page,
# so they always act on the gate's current setting
sel, policy = gate_view(setup, query, sims)
label_box(prep, query, range(len(prep.chunks)))
evidence = known_evidence_for(prep, setup.name, query)
answer_box(prep, embedder, query, contexts(prep.chunks, sel, policy, prep.doc_of), policy, evidence)
