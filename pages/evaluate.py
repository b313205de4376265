"""Evaluation lab: does SCAR pay on this document? Recall, chunk cost and tokens per policy,
why each gold chunk was missed, and whether the differences are significant."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from scar_viz.chunking.tokens import TOKENIZER_NAME
from scar_viz.common.fmt import mu_note
from scar_viz.evaluation import significance
from scar_viz.evaluation.by_file import file_rows
from scar_viz.evaluation.report import (
    MISS_REASONS_NOTE,
    chunk_sentence,
    evaluation_json,
    miss_reason_rows,
    per_query_rows,
    ran,
    significance_rows,
    summary_rows,
)
from scar_viz.evaluation.significance import smallest_p
from ui import keys
from ui.by_file import by_file_table
from ui.cache import cached
from ui.evaluation_lab import NUM0, NUM2, NUM3, lab_page, run_evaluation
from ui.queryset import content_key
from ui.share import download
from ui.tables import show_table
from ui.verdict import verdict_block

COVERAGE_NOTE = (
    "Span policies without chunk ids (QASC, RSE, sentence window) are scored by character "
    "coverage: each gold chunk counts by the share of its non-whitespace characters inside the "
    "policy's spans, and the policy's chunk count is its context length in chunk equivalents "
    "(characters / mean chunk length)."
)

lab, policies = lab_page(
    "Evaluation lab",
    "Run a labelled query set through the policies: Recall@K, mean unique chunks, chunk "
    "efficiency (recall / chunks) and context tokens; why each gold chunk was missed; a paired "
    "bootstrap. The verdict first: every retriever × expansion × k, cross-validated, the most "
    "recall within a token budget. The λ×τ sweep and model transfer have their own pages in "
    "this section.",
)
verdict_block(lab)
ev = run_evaluation(lab.prep, lab.embedder, lab.active, lab.vecs, policies, lab.params, "main")
names = ran(ev)
if sentence := chunk_sentence(ev):
    words = mu_note(lab.params.mu)
    st.markdown(f"**At the sliders (k = {lab.params.k}{words}):** {sentence}")

tab_metrics, tab_query, tab_sig = st.tabs(["Metrics", "Per query", "Significance"])

with tab_metrics:
    show_table(
        pd.DataFrame(summary_rows(ev)),
        hide_index=True,
        key=keys.METRICS_TABLE,
        column_config={
            "recall": NUM3,
            "mean chunks": NUM2,
            "efficiency": NUM3,
            "mean tokens": NUM0,
        },
    )
    by_file_table(file_rows(ev), keys.BY_FILE_TABLE)
    st.caption(f"Tokens: {TOKENIZER_NAME}, over the assembled context. {COVERAGE_NOTE}")
    download(
        "Download as JSON",
        json.dumps(evaluation_json(ev), indent=2),
        "evaluation.json",
        key=keys.DL_JSON,
    )

with tab_query:
    if names:
        pick = st.selectbox(
            "Policy",
            names,
            index=names.index("scar") if "scar" in names else 0,
            key=keys.PQ_POL,
        )
        per_query = pd.DataFrame(per_query_rows(ev, pick))
        show_table(
            per_query,
            hide_index=True,
            key=keys.PER_QUERY_TABLE,
            column_config={"recall": NUM3, "chunks": NUM2},
        )
        download(
            "Download per-query results (CSV)",
            lambda: per_query.to_csv(index=False),
            f"per-query-{pick}.csv",
            key=keys.DL_PER_QUERY,
        )
        reasons = miss_reason_rows(ev)
        if reasons:
            st.markdown("**Missed gold chunks by reason**")
            show_table(pd.DataFrame(reasons), hide_index=True, key=keys.MISS_REASONS)
        st.caption(MISS_REASONS_NOTE)

with tab_sig:
    key = ("sig", *content_key(lab.prep, lab.active, "main"), tuple(policies), lab.params)
    tests = cached(key, lambda: significance(ev))
    if not tests:
        st.info("Add SCAR and at least one other policy to compare them.")
    else:
        show_table(
            pd.DataFrame(significance_rows(tests)),
            hide_index=True,
            key=keys.SIG_TABLE,
            column_config={
                c: NUM3 for c in ("SCAR", "baseline", "mean diff", "95% CI low", "95% CI high")
            }
            | {"p (two-sided)": st.column_config.NumberColumn(format="%.4f"), "Cohen's d": NUM2},
        )
        boot = tests[0].result
        st.caption(
            f"Paired bootstrap over the {ev.n_queries} queries, B = {boot.n_boot:,} resamples "
            f"(seed {boot.seed}); differences are SCAR − baseline per query; p = 2·min(share "
            "of resampled means ≤ 0, ≥ 0) with the +1 correction, so the smallest reportable p "
            f"is {smallest_p(boot.n_boot):.4f}. Cohen's d = mean / sd of the paired differences."
        )
