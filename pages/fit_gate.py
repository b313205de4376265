"""Fit a gate: fit the learned neighbour gate on a labelled query set (or on the tune half, so
the check half stays honest), read its weights, and set p on its recall-vs-chunks curve beside
SCAR's λ×τ front."""

from __future__ import annotations

import streamlit as st

from scar_viz.charts import pareto_chart
from scar_viz.charts.learned import add_in_sample_curve, add_p_curve, gate_weights_chart
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.learned import judged_features
from scar_viz.scoring.learned import DEFAULT_L2, setting_notes
from scar_viz.scoring.params import DEFAULT_K, DEFAULT_RADIUS
from scar_viz.views.coverage import display_rows
from scar_viz.views.fit_report import (
    CROSSVAL,
    FEATURE_CHOICES,
    FIT_ON,
    curve_options,
    fit_report,
    half_rows,
    held_out_file_rows,
    picked_p,
    scar_front,
)
from ui import keys, state
from ui.alerts import alert, or_stop, with_progress
from ui.by_file import by_file_table
from ui.cache import cached
from ui.evaluation_lab import labelled_setup
from ui.learned import (
    active_gate,
    forget_gate,
    gate_name,
    k_mismatch,
    keep_gate,
    p_slider,
    upload_gate,
)
from ui.queryset import content_key
from ui.share import chart_config, download, pickable_chart
from ui.state import URL, current_retriever, default, set_widget
from ui.tables import show_table


def _set_p(p: float | None) -> None:
    if p is not None:
        set_widget(keys.P, round(float(p), 3))
        state.put(keys.P_KEPT, round(float(p), 3))


def _pick_from_chart() -> None:
    _set_p(picked_p(state.get(keys.FG_CHART), state.get(keys.FG_TRACE, -1)))


def _pick_from_list() -> None:
    picked = state.get(keys.FG_POINT)
    _set_p(picked[0] if picked else None)


st.title("Fit a gate")
st.caption(
    "The learned gate admits a neighbour n of a retrieved chunk c when σ(w·z + b) > p, where z "
    "are standardised features (cos(q,n), cos(q,c), cos(c,n), the rank of c, the side of n; "
    "optionally the question's words in n and c). Fit w and b on labelled queries, read the "
    "weights, and choose p on the curve: cross-validated, as the verdict is."
)

lab = labelled_setup()
prep, embedder, active, vecs = lab.prep, lab.embedder, lab.active, lab.vecs

st.subheader("Fit")
c1, c2, c3, c4 = st.columns([1, 1, 1, 2])
# the sidebar's k and r, shared with every page of the lab (one k everywhere)
k = c1.slider("k (retrieved)", 1, 20, default(keys.K, DEFAULT_K), key=keys.K, bind=URL)
radius = c2.slider("r (radius)", 1, 3, default(keys.R, DEFAULT_RADIUS), key=keys.R, bind=URL)
l2 = c3.number_input("L2 penalty", 0.0, 100.0, DEFAULT_L2, 0.5, key=keys.FG_L2, bind=URL)
on = c4.radio(
    "Fit on", list(FIT_ON), format_func=FIT_ON.get, horizontal=True, key=keys.FIT_ON, bind=URL
)
features = st.radio(
    "Features",
    list(FEATURE_CHOICES),
    format_func=FEATURE_CHOICES.get,
    horizontal=True,
    key=keys.FG_FEATURES,
    bind=URL,
    help="The question's words: lex(q,n) and lex(q,c), the idf-weighted share of the "
    "question's content words in n and in c, and new(q,c,n), those in n but not in c "
    "(docs/method.md §8; fit-gate --features lexical).",
)
key = (*content_key(prep, active, "fit-gate"), k, radius, float(l2), on, features)
checked = f", then cross-validating it ({CROSSVAL})" if on == "all" else ""
with st.spinner(f"Fitting the gate{checked} …"):
    report = or_stop(
        lambda: cached(
            key,
            lambda: fit_report(
                prep, active.labelled, vecs, k, radius, on, l2, current_retriever(), features
            ),
        ),
        "The gate cannot be fitted on this set:",
    )
gate = report.gate

st.plotly_chart(gate_weights_chart(gate), key=keys.FG_WEIGHTS, config=chart_config("fit-gate-1"))
show_table(display_rows(gate.describe()), hide_index=True, key=keys.FG_WEIGHTS_TABLE)
st.caption(
    "Weights act on standardised features (value − mean) / std: + pushes towards admitting, − "
    "towards rejecting. Fitted by L2-regularised logistic regression with balanced classes."
)
alert(
    "Fitted on: " + ", ".join(f"{name} {value}" for name, value in gate.fitted_on.items()),
    "caption",
)

st.subheader("Recall against chunks as p varies")
p = p_slider()
shown = report.shown
front_key = (*content_key(prep, active, "fit-gate-front"), k, radius, on)


front = cached(
    front_key,
    lambda: with_progress(
        f"SCAR's λ×τ sweep on {shown.label}",
        lambda update: scar_front(
            prep,
            shown.queries,
            shown.vecs,
            k,
            radius,
            progress=update,
            retriever=current_retriever(),
        ),
    ),
)
fig = pareto_chart(
    front.grid.mean_chunks,
    front.grid.recall,
    front.grid.lams,
    front.grid.bars,
    front.frontier,
    front.points,
)
label, curve = report.headline
state.put(keys.FG_TRACE, len(fig.data))
add_p_curve(fig, curve, p, name=label)
if report.in_sample is not None:
    add_in_sample_curve(fig, report.in_sample)
pickable_chart(fig, keys.FG_CHART, _pick_from_chart, "fit-gate-2")
if report.crossval_note:
    alert(report.crossval_note, "info")
st.selectbox(
    "…or set p from a point of the learned curve",
    curve_options(curve),
    index=None,
    format_func=lambda o: f"p = {o[0]:.3g}: recall {o[1]:.3f}, {o[2]:.2f} chunks",
    key=keys.FG_POINT,
    on_change=_pick_from_list,
    placeholder="Pick a point (or click one on the chart)",
)
st.caption(
    f"On {shown.label}: the {label} (purple, ★ at the current p), SCAR's λ×τ grid and its "
    "front, presets A and B, top-k and window ±1. Click a purple point to set p."
    + (
        " Dotted: the same gate read on the queries it was fitted on (in sample), above "
        "what it does on questions it has not seen."
        if report.in_sample is not None
        else ""
    )
)
show_table(display_rows(half_rows(report, p)), hide_index=True, key=keys.FG_HALVES)
if on == "tune":
    st.caption(
        "Fitted on the tune half only: the held-out check half is the honest estimate of how "
        "the gate does on new questions."
    )
by_file_table(
    held_out_file_rows(report, front, p),
    keys.FG_BY_FILE,
    f"On {shown.label}: window ±1 and the learned gate at p = {curve.ps[curve.nearest(p)]:.3g} "
    f"(the curve's point nearest the slider), k = {k}, r = {radius}.",
)

st.subheader("Use and share the gate")
c1, c2, c3 = st.columns(3)
c1.button(
    "Use this gate in Compare and the Explorer",
    key=keys.FG_USE,
    icon=":material/check:",
    on_click=keep_gate,
    args=(gate,),
)
download(
    "Download the weights (JSON)",
    gate.to_json(),
    "gate.json",
    key=keys.FG_DOWNLOAD,
    where=c2,
)
c3.button("Back to the default gate", key=keys.FG_DEFAULT, on_click=forget_gate)
st.file_uploader(
    "Upload a gate (JSON from this page or `fit-gate`)",
    type=["json"],
    key=keys.GATE_FILE,
    on_change=upload_gate,
)
if state.get(keys.GATE_FILE_ERROR):
    alert(state.get(keys.GATE_FILE_ERROR))
in_use = active_gate()
same = in_use.to_json() == gate.to_json()
st.caption(
    f"In use: {gate_name(in_use)}"
    + ("; the one fitted above" if same else "; not the one fitted above: its weights below")
    + f"; p = {p:g}."
)
if not same:
    show_table(display_rows(in_use.describe()), hide_index=True, key=keys.FG_IN_USE_TABLE)
for note in setting_notes(in_use, prep.embedder_id, prep.config.label):
    alert(note, "warning")
judged = cached(
    (*content_key(prep, active, "fit-gate-k"), in_use.to_json(), k, radius),
    lambda: judged_features(
        LabelledRun(prep, active.labelled, vecs, current_retriever()), in_use, k, radius
    ),
)
k_mismatch(in_use, k, judged, p)
