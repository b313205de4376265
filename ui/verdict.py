"""The verdict at the top of the Evaluation lab: every retriever × expansion × k cross-validated
(:mod:`scar_viz.evaluation.recommend`), drawn as recall against tokens, said answer first (the
words of :mod:`scar_viz.views.verdict_words`, the command line's too), with *Apply*, which sets
the sidebar's retriever and every page's gate to the verdict's setting (the learned gate
refitted on all queries), the settings file to download, and the snippets that run that file in
your code (command line, LangChain, LlamaIndex)."""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from scar_viz.charts.verdict import verdict_chart
from scar_viz.common.errors import UserError, user_message
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.recommend import RECOMMEND_KS, Verdict, recommend
from scar_viz.evaluation.settings import ChosenSettings
from scar_viz.retrieval import RETRIEVERS
from scar_viz.scoring.params import DEFAULT_K
from scar_viz.views.gate_link import gate_digest
from scar_viz.views.snippets import SETTINGS_FILE, code_snippets, setting_words
from scar_viz.views.verdict_words import (
    candidate_label,
    verdict_notes,
    verdict_rows,
    verdict_settings,
    verdict_words,
)
from ui import keys
from ui.alerts import alert, duration, with_progress
from ui.cache import cached, is_cached, prepared_key
from ui.evaluation_lab import NUM0, NUM2, NUM3, Lab
from ui.learned import current_p, keep_gate
from ui.presenter import presenter_fonts
from ui.share import chart_config, download
from ui.state import URL, current_retriever, default, model_spec, put_in_address, set_widget
from ui.tables import show_table

NO_GATE = "top-k and window ±1 have no gate: Apply sets the retriever and k, the gate stays."
IN_SAMPLE = (
    "Applied: the rows below run this setting on every query (what `eval --settings` gives on "
    "the downloaded file), in sample — tuned or refitted on the very queries they score. The "
    "verdict's own figure is out of fold (each query scored by a setting chosen without it), "
    "so it is the one to expect on new questions, and the two can differ."
)
"""Said after *Apply*: why the lab's rows and the verdict's figure differ."""
AUTO_QUESTIONS = 80
"""A query set of at most this many questions gets its verdict as the lab opens; a larger one
waits for a click, so the page opens first (its cost grows with the questions: on 1,151
chunks the verdict on 250 questions took 20.7 s after its click on 2 quiet cores, the median of
three runs of benchmarks/page_times.py --corpus --cold --queries 250; 80 questions are about
7 s at that pace). A count, not a time, so the page does the same on every machine and run."""
STEPS = len(RETRIEVERS) * len(RECOMMEND_KS)
"""The verdict's (retriever, k) steps, each run on every question."""
PACE_SECONDS = 20.7 / (250 * STEPS)
"""Seconds a question and (retriever, k) step, for the button's estimate until this process
has timed a verdict of its own (the runs above: about 2.8 ms)."""
_PACE: list[float] = []
"""The pace of this process's last verdict (the estimate's source once there is one)."""


def apply_setting(chosen: ChosenSettings) -> None:
    """The *Apply* button's callback: the retriever (and k_rrf), k and r into the sidebar and
    the gate's sliders; for SCAR λ, τ, μ and the Explorer's gate SCAR; for the learned gate p,
    the gate itself (refitted on all queries) and the Explorer's gate learned. The policy joins
    the lab's policy list."""
    set_widget(keys.RETRIEVER, chosen.retriever)
    if chosen.retriever == "hybrid":
        set_widget(keys.RRF_K, float(chosen.k_rrf))
    set_widget(keys.K, int(chosen.k))
    set_widget(keys.R, int(chosen.radius))
    if chosen.policy == "scar":
        set_widget(keys.POLICY, "SCAR")
        set_widget(keys.LAM, round(float(chosen.lam), 2))
        set_widget(keys.TAU, round(float(chosen.tau), 2))
        set_widget(keys.MU, float(chosen.mu))
    elif chosen.policy == "learned":
        set_widget(keys.POLICY, "learned")
        keep_gate(chosen.gate)  # the address names it by its hash
        st.session_state[keys.GATE_APPLIED] = gate_digest(chosen.gate)
        set_widget(keys.P, float(chosen.p))
        st.session_state[keys.P_KEPT] = float(chosen.p)
        put_in_address(keys.P, f"{float(chosen.p):g}")
    if chosen.policy in ("scar", "learned"):  # a link from here opens the Explorer on it
        put_in_address(keys.POLICY, None if chosen.policy == "scar" else "learned")  # SCAR: default
    picked = list(st.session_state.get(keys.POLICIES) or [])
    if picked and chosen.policy not in picked:
        set_widget(keys.POLICIES, [*picked, chosen.policy])


def is_applied(chosen: ChosenSettings, lab: Lab) -> bool:
    """Whether the sidebar and the sliders hold ``chosen`` already."""
    here = current_retriever()
    same = (here.name, lab.params.k, lab.params.radius) == (
        chosen.retriever,
        chosen.k,
        chosen.radius,
    )
    if chosen.policy == "scar":
        return (
            same
            and st.session_state.get(keys.POLICY, "SCAR") == "SCAR"
            and (round(lab.params.lam, 2), round(lab.params.tau, 2), lab.params.mu)
            == (round(chosen.lam, 2), round(chosen.tau, 2), chosen.mu)
        )
    if chosen.policy == "learned":
        return (
            same
            and st.session_state.get(keys.POLICY) == "learned"
            and abs(current_p() - chosen.p) < 1e-9
            and st.session_state.get(keys.GATE_JSON) == chosen.gate.to_json()
        )
    return same


def code_box(chosen: ChosenSettings, lab: Lab) -> None:
    """ "Use it in your code": the command line's, LangChain's and LlamaIndex's snippets that
    run the downloaded settings file (:mod:`scar_viz.views.snippets`), one tab each."""
    prep = lab.prep
    with st.expander("Use it in your code: command line, LangChain, LlamaIndex"):
        st.caption(
            f"Save the settings download as {SETTINGS_FILE} beside your code: each snippet runs "
            f"exactly this setting ({setting_words(chosen)}) on your document, ranked and "
            "expanded by the same function as here (docs/integrations.md)."
            + (
                " Your chunks come from an index: build the store from that index's chunks."
                if prep.config.stored
                else ""
            )
        )
        snippets = code_snippets(
            chosen,
            document=prep.document.name,
            model=model_spec()[0],
            chunking=prep.config,
            prepend=prep.prepend,
        )
        for tab, snippet in zip(st.tabs([s.title for s in snippets]), snippets, strict=True):
            tab.code(snippet.code, language=snippet.language)


def compute_verdict(lab: Lab, reference_k: int, budget: float | None, key: tuple) -> Verdict:
    """The verdict on the lab's active query set, once per content and setting (``key``:
    :func:`verdict_key`)."""
    labelled = LabelledRun(lab.prep, lab.labelled, lab.vecs, current_retriever())
    mu = float(lab.params.mu)
    radius = max(1, lab.params.radius)

    def run() -> Verdict:
        t0 = time.perf_counter()
        verdict = with_progress(
            "Cross-validating every retriever × expansion × k …",
            lambda update: recommend(
                labelled,
                reference_k=reference_k,
                budget=budget,
                radius=radius,
                mu=mu,
                progress=update,
            ),
        )
        _PACE[:] = [(time.perf_counter() - t0) / max(1, len(lab.labelled) * STEPS)]
        return verdict

    return cached(key, run)


def verdict_key(lab: Lab, reference_k: int, budget: float | None) -> tuple:
    """The verdict's content key: the prepared document, the query set, the reference, the
    budget, r, μ and hybrid's RRF constant (the sidebar's retriever is not one: every retriever
    is a candidate)."""
    mu, radius = float(lab.params.mu), max(1, lab.params.radius)
    k_rrf = current_retriever().k_rrf
    return (
        "verdict",
        *prepared_key(lab.prep),
        lab.active.key,
        reference_k,
        budget,
        radius,
        mu,
        k_rrf,
    )


def verdict_estimate(n_questions: int) -> float:
    """Seconds the verdict on ``n_questions`` should take here: at this process's last pace,
    else at :data:`PACE_SECONDS`."""
    return n_questions * STEPS * (_PACE[-1] if _PACE else PACE_SECONDS)


def waits_for_click(n_questions: int) -> bool:
    """Whether the verdict on this many questions waits for the button (:data:`AUTO_QUESTIONS`)."""
    return n_questions > AUTO_QUESTIONS


def _inputs() -> tuple[int, float | None]:
    left, right, _ = st.columns([1, 1, 2])
    ref_k = left.number_input(
        "Reference: window ±1 at k =",
        min_value=1,
        max_value=10,
        value=default(keys.VERDICT_REF_K, DEFAULT_K),
        step=1,
        key=keys.VERDICT_REF_K,
        bind=URL,
        help="The yardstick: window ±1 at this k under dense retrieval. Every candidate's "
        "interval is its recall difference from it; its mean tokens are the default budget.",
    )
    budget = right.number_input(
        "Token budget (0: the reference's)",
        min_value=0,
        max_value=1_000_000,
        value=default(keys.VERDICT_BUDGET, 0),
        step=50,
        key=keys.VERDICT_BUDGET,
        bind=URL,
        help="Mean context tokens a query. The verdict is the candidate with the most recall "
        "within it.",
    )
    return int(ref_k or DEFAULT_K), (float(budget) if budget else None)


def _gains(v: Verdict) -> None:
    """The verdict's own gain over the reference beside the gain expected from following it,
    the choice held out (docs/method.md §9)."""
    left, right, _ = st.columns([1, 1, 2])
    left.metric(
        "Its own gain over the reference",
        f"{100 * v.claimed_gain:+.1f} points",
        help=f"The verdict's out-of-fold recall minus the reference's: the best of "
        f"{len(v.candidates)} such figures, so it runs high on few queries.",
    )
    e = v.nested
    right.metric(
        "Expected gain, the choice held out",
        "—" if e is None else f"{100 * e.gain:+.1f} points",
        help="Needs 3 folds (15 queries)."
        if e is None
        else f"95 % CI {100 * e.ci_low:+.1f} to {100 * e.ci_high:+.1f} points: for each fold, "
        "the whole choice made on the other folds and read on it.",
    )


def verdict_block(lab: Lab) -> Verdict | None:
    """The verdict's inputs, chart, sentence, table, *Apply* and settings download; None
    (after a message) when the query set cannot give one."""
    st.subheader("Verdict: which retriever, which expansion, for how many tokens?")
    ref_k, budget = _inputs()
    n, key = len(lab.labelled), verdict_key(lab, ref_k, budget)
    if waits_for_click(n) and not is_cached(key):
        clicked = st.button(
            f"Run the verdict on these {n:,} questions (about {duration(verdict_estimate(n))})",
            key=keys.VERDICT_RUN,
            type="primary",
        )
        if not clicked:
            st.caption(
                f"The verdict cross-validates {STEPS} retriever × k "
                f"steps on every question, so it waits for this click above {AUTO_QUESTIONS} "
                "questions and the rest of the lab opens first. The time is an estimate from "
                "the pace of the last verdict here (or of a 2-core machine before one)."
            )
            return None
    try:
        v = compute_verdict(lab, ref_k, budget, key)
    except UserError as exc:
        alert(f"No verdict: {user_message(exc)}", "info")
        return None
    words = verdict_words(v)
    alert(words.sentence, "info")
    st.caption(words.details)
    _gains(v)
    st.plotly_chart(
        presenter_fonts(verdict_chart(v)),
        key=keys.VERDICT_CHART,
        config=chart_config("verdict"),
    )
    show_table(
        pd.DataFrame(verdict_rows(v)),
        hide_index=True,
        key=keys.VERDICT_TABLE,
        column_config={
            "recall": NUM3,
            "Δ recall vs reference": st.column_config.NumberColumn(format="%+.3f"),
            "chunks": NUM2,
            "tokens": NUM0,
        },
    )
    chosen = verdict_settings(v)
    applied = is_applied(chosen, lab)
    cols = st.columns([1, 1, 2])
    cols[0].button(
        "Applied" if applied else "Apply the verdict",
        key=keys.VERDICT_APPLY,
        on_click=apply_setting,
        args=(chosen,),
        disabled=applied,
        type="primary",
        help=f"Set the retriever and every page's gate to {candidate_label(v.chosen)}."
        + ("" if chosen.policy in ("scar", "learned") else f" {NO_GATE}"),
    )
    download(
        "Download settings (JSON)",
        chosen.to_json,
        SETTINGS_FILE,
        key=keys.VERDICT_DL,
        where=cols[1],
    )
    if applied:
        st.caption(IN_SAMPLE)
    code_box(chosen, lab)
    mu = (
        f" Tuned SCAR may choose μ = {lab.params.mu:g} (the sliders' μ) or 0."
        if lab.params.mu
        else ""
    )
    st.caption(
        f"{len(v.candidates)} candidates: dense, BM25 and hybrid retrieval × top-k, window ±1, "
        "SCAR tuned, presets A and B, the learned gate (five or lexical features) × k = 1 … "
        f"10, each tuned on the training folds only and read out of fold ({v.folds} folds × "
        f"{v.repeats} repeats, folds from the query ids). Intervals: 95 % paired bootstrap of "
        f"each candidate's recall minus the reference's.{mu} " + " ".join(verdict_notes(v))
    )
    return v
