"""λ×τ sweep: recall and cost over the whole grid, the cheapest setting that keeps window ±1's
recall, every policy on the Pareto chart, and tune-on-one / check-on-another."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from scar_viz.charts import pareto_chart, sweep_heatmap
from scar_viz.common.errors import UserError, user_message
from scar_viz.common.fmt import mu_note
from scar_viz.documents.reading import DEFAULT_MAX_BYTES, read_document
from scar_viz.embeddings import text_key
from scar_viz.evaluation.best_point import window_baseline
from scar_viz.evaluation.budget import evaluation_points
from scar_viz.evaluation.report import tune_rows
from scar_viz.evaluation.tune import (
    OBJECTIVE_LABELS,
    OBJECTIVES,
    PENALTY_OFF,
    best_caption,
    frontier_indices,
    frontier_points,
    point_at,
    preset_points,
    sweep_marks,
    tune_check,
    words_line,
)
from scar_viz.queries.gold import label_queries, split_alternate
from ui import keys, state
from ui.alerts import alert
from ui.by_file import sweep_by_file
from ui.evaluation_lab import NUM2, NUM3, lab_page, run_evaluation, run_sweep
from ui.loading import prepare
from ui.queryset import issues_block, query_vectors, read_query_set
from ui.share import chart_config, pickable_chart
from ui.state import URL, set_widget
from ui.tables import show_table

MU_HINT = (
    "μ = 0: the paper's gate. Set μ (the word weight) above to sweep with the question's words "
    "added, μ·lex(q,n), and compare the best with this one."
)
HEATMAPS = (("recall", "recall"), ("mean chunks", "mean_chunks"), ("efficiency", "efficiency"))


def _set_sliders(lam: float, tau: float) -> None:
    set_widget(keys.LAM, round(float(lam), 2))
    set_widget(keys.TAU, round(float(tau), 2))


def _apply_frontier_pick() -> None:
    picked = state.get(keys.FRONT)
    if picked is not None:
        _set_sliders(picked.lam, picked.tau)


def _apply_chart_pick() -> None:
    points = (state.get(keys.PARETO_CHART) or {}).get("selection", {}).get("points", [])
    for point in points:
        data = point.get("customdata")
        if data and len(data) >= 2:
            _set_sliders(data[0], data[1])
            return


def _stash_check() -> None:
    upload = state.get(keys.CHK_FILE)
    state.put(keys.CHK_DATA, None if upload is None else (upload.name, upload.getvalue()))


def _stash_check_doc() -> None:
    upload = state.get(keys.CHK_DOC_FILE)
    state.put(keys.CHK_DOC_ERROR, "")
    state.put(keys.CHK_DOC, None)
    if upload is not None:
        try:
            doc = read_document(upload.name, upload.getvalue(), max_bytes=DEFAULT_MAX_BYTES)
        except UserError as exc:
            state.put(keys.CHK_DOC_ERROR, user_message(exc))
            return
        state.put(keys.CHK_DOC, (text_key(doc.text), doc))


lab, policies = lab_page(
    "λ×τ sweep",
    "Every (λ, τ) on a grid at the sliders' k and r: where recall is bought, what it costs, "
    "and whether a setting tuned on one query set holds on another.",
)
prep, params = lab.prep, lab.params
cands, grid = run_sweep(prep, lab.active, lab.vecs, params, "main")

# keyed: a widget changed inside a tab reruns the page on the same tab, never the first one
tab_grid, tab_sets = st.tabs(["Sweep", "Two query sets"], key=keys.SWEEP_TABS, on_change="rerun")

with tab_grid:
    floor = st.number_input(
        "Recall floor for the best mark (blank: within 1 point of window ±1)",
        min_value=0.0,
        max_value=1.0,
        value=None,
        step=0.05,
        key=keys.FLOOR,
        bind=URL,
    )
    marks = sweep_marks(grid, cands, floor)
    point = (params.lam, params.tau)
    for col, (title, field) in zip(st.columns(3), HEATMAPS, strict=True):
        col.plotly_chart(
            sweep_heatmap(
                grid.lams,
                grid.bars,
                getattr(grid, field),
                title,
                point,
                marks.marks,
                plot_width=160,
            ),
            key=keys.heatmap(field),
            config=chart_config("sweep-1"),
        )
    at_mu = mu_note(params.mu)
    st.caption(
        f"{len(grid.lams)}×{len(grid.bars)} grid at k = {params.k}, r = {params.radius}{at_mu}; "
        f"★ the sliders, ○ presets A, B and the {best_caption(grid, marks, floor is not None)}."
    )
    if params.mu:
        c0, g0 = run_sweep(prep, lab.active, lab.vecs, params.with_(mu=0.0), "main")
        alert(words_line((g0, sweep_marks(g0, c0, floor)), (grid, marks)), "info")
    else:
        st.caption(MU_HINT)
    ev = run_evaluation(prep, lab.embedder, lab.active, lab.vecs, policies, params, "main")
    if errors := [f"{n} ({pe.error})" for n, pe in ev.policies.items() if pe.error]:
        alert(f"Not on the chart, could not run: {'; '.join(errors)}", "warning")
    fig = pareto_chart(
        grid.mean_chunks,
        grid.recall,
        grid.lams,
        grid.bars,
        frontier_indices(grid),
        preset_points(cands, params.mu) + evaluation_points(ev),
        point_at(cands, params.lam, params.tau, params.mu),
    )
    pickable_chart(fig, keys.PARETO_CHART, _apply_chart_pick, "sweep-2")
    st.selectbox(
        "Pick a frontier point to set the sliders",
        frontier_points(grid),
        index=None,
        key=keys.FRONT,
        on_change=_apply_frontier_pick,
        placeholder="λ, τ of a Pareto-optimal setting …",
        format_func=lambda p: p.label(),
    )
    st.caption(
        "Every policy picked above is a diamond (span policies in chunk equivalents). Click a "
        "grid or frontier point in the chart to move the sliders there."
    )
    sweep_by_file(lab.labelled, cands, marks, params)

with tab_sets:
    mode = st.radio(
        "Check set",
        ["split", "upload"],
        key=keys.CHECK_ON,
        bind=URL,
        horizontal=True,
        format_func={
            "split": "Split this set in two halves (tune on A, check on B)",
            "upload": "Upload a second query set",
        }.get,
    )
    objective = st.selectbox(
        "Tune for", OBJECTIVES, format_func=OBJECTIVE_LABELS.get, key=keys.OBJECTIVE, bind=URL
    )
    check_prep = prep
    if mode == "split":
        tune_set, check_set = split_alternate(lab.labelled)
        tune_name, check_name = "half A", "half B"
    else:
        st.file_uploader(
            "Second query set (JSON Lines)",
            type=["jsonl", "json", "txt"],
            key=keys.CHK_FILE,
            on_change=_stash_check,
        )
        st.file_uploader(
            "Its document, if not the one above (txt, md, pdf, html)",
            type=["txt", "md", "markdown", "pdf", "html", "htm"],
            key=keys.CHK_DOC_FILE,
            on_change=_stash_check_doc,
        )
        if state.get(keys.CHK_DOC_ERROR):
            alert(state.get(keys.CHK_DOC_ERROR))
        tune_set, check_set, tune_name, check_name = lab.labelled, (), lab.active.qset.name, ""
        chk_data, chk_doc = state.get(keys.CHK_DATA), state.get(keys.CHK_DOC)
        if chk_data and chk_doc:
            check_prep = prepare(chk_doc[0], chk_doc[1], prep.config, lab.embedder, prep.prepend)
        if chk_data and check_prep is not None:
            try:
                qset2 = read_query_set(chk_data[1], check_prep.document, chk_data[0])
                issues_block(qset2)
                check_set = label_queries(qset2, check_prep.document, check_prep.chunks)
                check_name = qset2.name
            except UserError as exc:
                alert(user_message(exc))
    if not tune_set or not check_set:
        st.info("Give a check set with at least one valid query (and a tune set of one or more).")
        st.stop()
    vt, vc = query_vectors(lab.embedder, tune_set), query_vectors(lab.embedder, check_set)
    if vt is None or vc is None:
        st.stop()
    c_t, g_t = run_sweep(prep, tune_set, vt, params, f"tune:{mode}")
    c_c, g_c = run_sweep(check_prep, check_set, vc, params, f"check:{mode}")
    targets = (window_baseline(c_t).recall, window_baseline(c_c).recall)
    tc = tune_check(g_t, g_c, objective, params.lam, params.tau, targets)
    show_table(
        pd.DataFrame(tune_rows(tc, tune_name, check_name)),
        hide_index=True,
        key=keys.TWO_SETS_TABLE,
        column_config={"recall": NUM3, "mean chunks": NUM2, "efficiency": NUM3}
        | {"λ": NUM2, "τ": NUM2},
    )
    shown = tc.metric.replace("_", " ")
    m = st.columns(3)
    m[0].metric(f"{shown} on tune set (tuned)", f"{tc.value(tc.tuned):.3f}")
    m[1].metric(
        f"{shown} on check set, same setting",
        f"{tc.value(tc.transferred):.3f}",
        f"{tc.change:+.3f} vs tune set",
        delta_color="inverse" if objective == "frugal" else "normal",
    )
    m[2].metric("Gap to the check set's own best", f"{tc.gap:.3f}")
    if tc.tuned.lam == 0:
        st.caption(f"The tuned setting has λ = 0: {PENALTY_OFF}.")
    st.plotly_chart(
        sweep_heatmap(
            g_c.lams,
            g_c.bars,
            getattr(g_c, tc.metric),
            f"{shown} on the check set",
            (params.lam, params.tau),
            tc.marks(),
        ),
        key=keys.HEAT_CHECK,
        config=chart_config("sweep-3"),
    )
    st.caption(
        "A setting tuned on one set (or corpus) is only as good as it is on the other: the gap "
        "is what tuning cost you on unseen queries."
    )
