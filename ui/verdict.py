"""The verdict at the top of the Evaluation lab: SCAR or keep the window, at which k, λ, τ
(:mod:`scar_viz.evaluation.recommend`), with an *Apply* button that sets the sidebar's gate
sliders, so every page runs at the tuned setting."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from scar_viz.errors import UserError, user_message
from scar_viz.evaluation.recommend import Verdict, recommend, verdict_rows
from scar_viz.pipeline import embed_function
from scar_viz.scoring.params import DEFAULT_K, GateParams
from ui import keys
from ui.alerts import alert, with_progress
from ui.cache import cached, disk_cache
from ui.evaluation_lab import NUM0, NUM2, NUM3, Lab
from ui.learned import active_gate, current_p, has_session_gate
from ui.queryset import content_key
from ui.state import URL, default, set_widget
from ui.tables import show_table

PENALTY_OFF = "λ = 0: the boundary penalty is off, so SCAR reduces to a relative bar."


def apply_setting(params: GateParams) -> None:
    """The *Apply* button's callback: the tuned k, λ, τ and r into the sidebar's sliders, and
    μ = 0 (the verdict tunes the paper's gate)."""
    set_widget(keys.K, int(params.k))
    set_widget(keys.LAM, round(float(params.lam), 2))
    set_widget(keys.TAU, round(float(params.tau), 2))
    set_widget(keys.R, int(params.radius))
    set_widget(keys.MU, float(params.mu))


def compute_verdict(lab: Lab, reference_k: int) -> Verdict:
    """The verdict on the lab's active query set, once per content, reference k, r and gate."""
    gate = active_gate() if has_session_gate() else None
    knobs = {"learned": {"gate": gate, "p": current_p()}} if gate is not None else None
    key = (
        "verdict",
        *content_key(lab.prep, lab.active, "main"),
        int(reference_k),
        lab.params.radius,
        gate.to_json() if gate is not None else "",
        current_p() if gate is not None else None,
    )

    def run() -> Verdict:
        return with_progress(
            "Tuning k, λ, τ on half the queries, checking on the other half …",
            lambda _update: recommend(
                lab.prep,
                lab.labelled,
                lab.vecs,
                reference_k=reference_k,
                radius=max(1, lab.params.radius),
                knobs=knobs,
                embed=embed_function(lab.embedder, disk_cache()),
            ),
        )

    return cached(key, run)


def verdict_block(lab: Lab) -> Verdict | None:
    """The verdict's sentence, its small table and *Apply*; None (after a message) when the
    query set is too small."""
    st.subheader("Verdict: SCAR or keep the window?")
    ref_k = st.columns([1, 3])[0].number_input(
        "Keep window ±1's recall at k =",
        min_value=1,
        max_value=10,
        value=default(keys.VERDICT_REF_K, DEFAULT_K),
        step=1,
        key=keys.VERDICT_REF_K,
        bind=URL,
        help="The tuned setting (k over 1 … 10) must keep window ±1's recall at this k "
        "within a point on the tune half; a smaller k is picked only when it does.",
    )
    try:
        v = compute_verdict(lab, int(ref_k or DEFAULT_K))
    except UserError as exc:
        alert(f"No verdict: {user_message(exc)}", "info")
        return None
    alert(v.sentence(), "info")
    cols = st.columns([4, 1])
    with cols[0]:
        show_table(
            pd.DataFrame(verdict_rows(v)),
            hide_index=True,
            key=keys.VERDICT_TABLE,
            column_config={"recall": NUM3, "chunks": NUM2, "tokens": NUM0},
        )
    current = (lab.params.k, round(lab.params.lam, 2), round(lab.params.tau, 2), lab.params.mu)
    applied = current == (v.k, round(v.lam, 2), round(v.tau, 2), 0.0)
    cols[1].button(
        "Apply k, λ, τ" if not applied else "Applied",
        key=keys.VERDICT_APPLY,
        on_click=apply_setting,
        args=(v.params,),
        disabled=applied,
        type="primary",
        help=f"Set the sliders of every page to the tuned setting: {v.setting()}.",
    )
    beat = v.beaten_by
    budget = (
        "on the equal-budget front of the other policies"
        if beat is None
        else f"beaten at equal budget by {beat.policy} at k = {beat.k}"
    )
    learned = " The learned gate (fitted on *Fit a gate*) is beside it." if v.learned else ""
    st.caption(
        f"Tuned on {len(v.tune_ids)} queries, checked on the other {len(v.check_ids)} (the "
        "alternating split of the λ×τ sweep's *Two query sets*); SCAR and window ±1 at "
        f"k = {v.k}; recall change {v.recall_change.mean_diff:+.3f} (95 % CI "
        f"{v.recall_change.ci_low:+.3f} to {v.recall_change.ci_high:+.3f}); SCAR is {budget}."
        f"{learned}" + (f" {PENALTY_OFF}" if v.penalty_off else "")
    )
    return v
