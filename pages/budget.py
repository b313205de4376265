"""Equal budget: recall against context tokens for every policy as k runs 1 … 10, with the
Pareto front, over the active labelled query set."""

from __future__ import annotations

import streamlit as st

from scar_viz.charts import budget_chart
from scar_viz.common.fmt import mu_note
from scar_viz.evaluation import available_policies
from scar_viz.evaluation.budget import (
    BUDGET_KS,
    BUDGET_QUESTIONS,
    budget_csv,
    budget_rows,
    equal_budget,
    spread_sample,
)
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.pipeline import embed_function
from scar_viz.policies.rerank import DEFAULT_RERANKER, reranker_status
from scar_viz.scoring.params import PRESETS, GateParams
from scar_viz.views.coverage import display_rows
from ui import keys
from ui.alerts import alert, or_stop, with_progress
from ui.by_file import by_file_table
from ui.cache import cached, disk_cache
from ui.cancel import stop_check
from ui.evaluation_lab import Labelled, labelled_setup
from ui.gate_controls import current_gate
from ui.learned import active_gate, current_p, gate_name
from ui.queryset import content_key
from ui.sentences import SENTENCE_POLICIES, prepare_sentences, sentence_toggle
from ui.share import chart_config, download
from ui.state import URL, current_retriever
from ui.tables import show_table

st.title("Equal budget")
st.caption(
    "A policy that sends fewer chunks is not better if it also finds less, and one that finds "
    f"more is not better if it sends the whole document. Each policy runs at k = {BUDGET_KS[0]} "
    f"… {BUDGET_KS[-1]} over the labelled queries; each point is (mean context tokens, "
    "Recall@K). The ringed points form the Pareto front: no other point has fewer tokens and "
    "higher recall."
)

lab = labelled_setup()
prep, embedder, active, vecs = lab.prep, lab.embedder, lab.active, lab.vecs
n_all = len(active.labelled)
every = n_all <= BUDGET_QUESTIONS or st.toggle(
    f"Every question ({n_all})",
    False,
    key=keys.BUD_EVERY,
    help=f"Off: {BUDGET_QUESTIONS} of the {n_all} questions, spread evenly through the set "
    "(the cost grows with the questions: each runs every policy at 10 values of k).",
)
picked = list(range(n_all)) if every else spread_sample(n_all, BUDGET_QUESTIONS)
labelled, picked_vecs = tuple(active.labelled[i] for i in picked), vecs[picked]
if not every:
    st.caption(
        f"On {len(picked)} of the {n_all} questions, spread evenly through the set; the "
        "switch above runs every one."
    )

st.subheader("Policies")
status = reranker_status(DEFAULT_RERANKER)
offered = available_policies(DEFAULT_RERANKER)
c1, c2 = st.columns([2.4, 1.6])  # room for "the sliders (λ = …, τ = …, μ = …)"
policies = c1.multiselect("Policies", offered, default=list(offered), key=keys.BUD_POLS)
if not sentence_toggle(keys.BUD_SENTENCES, prep.document, embedder):
    policies = [n for n in policies if n not in SENTENCE_POLICIES]
current = current_gate()
CURRENT = "current"
preset = c2.selectbox(
    "SCAR's λ and τ",
    [CURRENT, *PRESETS],
    format_func=lambda n: (
        f"the sliders (λ = {current.lam:g}, τ = {current.tau:g}" + mu_note(current.mu) + ")"
        if n == CURRENT
        else f"preset {n} (λ = {PRESETS[n]['lam']}, τ = {PRESETS[n]['tau']})"
    ),
    key=keys.BUD_PRESET,
    bind=URL,
    help="The sliders hold the setting of the other pages (and the verdict's, once applied); "
    "a preset is the paper's gate (μ = 0).",
)
if not status.available:
    st.caption(f"Rerank is left out: {status.message} {status.hint}")
gate, p = active_gate(), current_p()
st.caption(f"learned: {gate_name(gate)}, p = {p:g}.")
if not policies:
    st.info("Pick at least one policy.")
    st.stop()
if any(n in SENTENCE_POLICIES for n in policies) and not prepare_sentences(prep.document, embedder):
    policies = [n for n in policies if n not in SENTENCE_POLICIES]  # the warning says why

params = current if preset == CURRENT else GateParams.preset(preset, radius=current.radius)
knobs = {"learned": {"gate": gate, "p": p}}
key = (
    *content_key(prep, active, "budget"),
    tuple(policies),
    params,
    gate.to_json(),
    p,
    tuple(picked),
)


def compute(lab: Labelled, labelled, qvecs, policies: list[str], params, knobs, update):
    """Every policy at every k of :data:`BUDGET_KS` on ``labelled`` (rows of ``qvecs``), with
    ``update`` drawing the progress."""
    return equal_budget(
        LabelledRun(lab.prep, labelled, qvecs, current_retriever()),
        policies,
        BUDGET_KS,
        params,
        embed=embed_function(lab.embedder, disk_cache()),
        knobs=knobs,
        progress=update,
        should_stop=stop_check(),
    )


counts = f"{len(policies)} policies × {len(BUDGET_KS)} values of k × {len(labelled)} queries"
result = or_stop(
    lambda: cached(
        key,
        lambda: with_progress(
            counts,
            lambda update: compute(lab, labelled, picked_vecs, policies, params, knobs, update),
        ),
    )
)
for name, message in result.errors.items():
    alert(f"Policy '{name}' could not run: {message}", "warning")

st.subheader("Recall against context tokens")
log_x = st.toggle("Logarithmic token axis", True, key=keys.BUD_LOG, bind=URL)
st.plotly_chart(
    budget_chart(result, log_x=log_x), key=keys.BUDGET_CHART, config=chart_config("budget-1")
)
front = result.on_front()
st.caption(
    f"{len(result.points)} points, {len(front)} on the front: "
    + ", ".join(f"{q.policy} k={q.k}" for q in front)
    + ". Span policies (QASC, sentence windows) count recall as character coverage of the "
    "gold chunks; RSE does not use k."
)

st.subheader("The points")
show_table(display_rows(budget_rows(result)), hide_index=True, key=keys.BUDGET_TABLE)
download(
    "Download the points (CSV)",
    budget_csv(result),
    "equal-budget.csv",
    key=keys.BUDGET_CSV,
)

if result.by_file:  # a corpus: each policy's recall and chunks on each file's queries
    ks = sorted(result.by_file)
    by_k = st.columns([1, 3])[0].selectbox(
        "k for the breakdown by file",
        ks,
        index=ks.index(current.k) if current.k in ks else len(ks) - 1,
        key=keys.BUD_BY_FILE_K,
        help="Default: the sidebar's k.",
    )
    by_file_table(
        result.by_file[by_k],
        keys.BUD_BY_FILE,
        f"Each policy at k = {by_k}: mean recall and mean chunks over each file's queries.",
    )
