"""Model transfer: the same λ, τ under a second embedding model, each model's similarity
scale, why SCAR's bar is relative, and the same queries under a second chunker."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from scar_viz.charts import bar_transfer_chart, similarity_histograms
from scar_viz.chunking.config import ChunkingConfig
from scar_viz.chunking.registry import CHUNKERS, chunker_name
from scar_viz.common.fmt import mu_note
from scar_viz.evaluation import bar_transfer, candidates_for, similarity_samples
from scar_viz.evaluation.by_file import paired_file_rows
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.report import bar_rows, chunker_rows, transfer_rows
from scar_viz.evaluation.transfer import MAX_SIMILARITIES, model_labels
from scar_viz.queries.gold import label_queries
from scar_viz.scoring.sweep import THETAS
from ui import keys
from ui.alerts import attempt
from ui.by_file import by_file_table
from ui.consent import SECOND_MODEL, proposal_box, typed
from ui.evaluation_lab import NUM0, NUM2, NUM3, lab_page, run_evaluation
from ui.loading import get_embedder, load_model, prepare
from ui.queryset import query_vectors
from ui.share import chart_config
from ui.state import URL, current_retriever
from ui.tables import show_table


def second_model(lab):
    """(prepared document, query vectors) under the model the user names, or None."""
    c1, c2 = st.columns(2)
    spec = c1.text_input(
        "Second model",
        key=keys.MODEL_2,
        bind=URL,
        placeholder="hash:64 · static · st:FOLDER-or-HUB-NAME · openai:MODEL",
        on_change=typed,
        args=(keys.MODEL_2,),
    )
    url = c2.text_input(
        "Base URL for openai:… (blank = OpenAI)",
        key=keys.MODEL_2_URL,
        bind=URL,
        on_change=typed,
        args=(keys.MODEL_2_URL,),
    )
    if not (spec or "").strip():
        st.info(
            "Name a second embedding model to evaluate the same λ, τ on both, compare their "
            "similarity scales, and see why SCAR's bar is relative."
        )
        return None
    if proposal_box(SECOND_MODEL, place="page") is not None:
        return None  # a link's endpoint: nothing is sent before the visitor answers
    embedder = attempt(lambda: get_embedder(spec.strip(), (url or "").strip(), SECOND_MODEL))
    if embedder is None:
        return None
    if not load_model(embedder, st.empty()):
        return None
    doc, config = lab.prep.document, lab.prep.config
    stored = lab.prep.chunks if config.stored else None  # another tool's cut: embed it again
    prep2 = prepare(doc.digest, doc, config, embedder, lab.prep.prepend, chunks=stored)
    vecs2 = query_vectors(embedder, lab.labelled) if prep2 is not None else None
    return None if vecs2 is None else (prep2, embedder, vecs2)


lab, policies = lab_page(
    "Model transfer",
    "Does a gate setting carry over to another embedding model, or another chunker? SCAR's bar "
    "τ·cos(q,c) is relative to the retrieved chunk's similarity; an absolute bar is not.",
)
prep, params = lab.prep, lab.params
ev = run_evaluation(prep, lab.embedder, lab.active, lab.vecs, policies, params, "main")

# keyed: a widget changed inside a tab reruns the page on the same tab, never the first one
tab_model, tab_chunker = st.tabs(
    ["Second model", "Two chunkers"], key=keys.TRANSFER_TABS, on_change="rerun"
)

with tab_model:
    second = second_model(lab)
    if second is not None:
        prep2, embedder2, vecs2 = second
        ev2 = run_evaluation(prep2, embedder2, lab.active, vecs2, policies, params, "m2")
        names = model_labels(prep.embedder_id, prep2.embedder_id)
        st.caption(
            f"Model 1: {prep.embedder_label}. Model 2: {prep2.embedder_label}. Same k = "
            f"{params.k}, λ = {params.lam:.2f}, τ = {params.tau:.2f}, r = {params.radius}"
            + mu_note(params.mu)
            + "."
        )
        side = pd.DataFrame(transfer_rows(ev, ev2))
        show_table(
            side,
            hide_index=True,
            key=keys.TRANSFER_TABLE,
            column_config={c: NUM2 if c.startswith("chunks") else NUM3 for c in side.columns[1:]},
        )
        by_file_table(
            paired_file_rows({"1": ev, "2": ev2}),
            keys.TRANSFER_BY_FILE,
            "Each policy on each file's queries under model 1 and model 2.",
        )
        retriever = current_retriever()
        runs = [
            LabelledRun(p, lab.labelled, v, retriever)
            for p, v in ((prep, lab.vecs), (prep2, vecs2))
        ]
        samples = {
            name: similarity_samples(run, params.k) for name, run in zip(names, runs, strict=True)
        }
        st.plotly_chart(
            similarity_histograms(samples), key=keys.SCALES_CHART, config=chart_config("transfer-1")
        )
        bars = bar_transfer(
            candidates_for(runs[0], params.k, params.radius),
            candidates_for(runs[1], params.k, params.radius),
            params.lam,
            params.tau,
            names,
        )
        st.markdown("**Relative bar τ·cos(q,c) against an absolute bar θ tuned on model 1**")
        show_table(
            pd.DataFrame(bar_rows(bars)),
            hide_index=True,
            key=keys.BAR_TABLE,
            column_config={"recall": NUM3, "mean chunks": NUM2, "efficiency": NUM3},
        )
        st.plotly_chart(
            bar_transfer_chart(
                THETAS, bars.chunk_curves(names), bars.theta, bars.relative_chunks(names)
            ),
            key=keys.BAR_CHART,
            config=chart_config("transfer-2"),
        )
        st.caption(
            f"θ = {bars.theta:.3f} is the absolute bar that, on {names[0]} at λ = "
            f"{params.lam:.2f}, costs as many chunks as SCAR's relative bar τ = "
            f"{params.tau:.2f}. Applied unchanged to {names[1]}, whose similarities sit on "
            "another scale, it admits far more or far fewer neighbours; the relative bar "
            "scales with cos(q,c) and moves with the model. The 'all chunks' histogram draws "
            f"at most {MAX_SIMILARITIES:,} query × chunk pairs (seeded)."
        )

with tab_chunker:
    st.write(
        "Boundary fragmentation is made at indexing time. Evaluate the same queries under a "
        "second chunker: does a better chunker leave SCAR less to repair?"
    )
    others = [c for c in CHUNKERS if c != prep.config.chunker]
    other = st.selectbox(
        "Second chunker",
        others,
        index=None,
        key=keys.EV_CHUNKER2,
        bind=URL,
        format_func=chunker_name,
        placeholder="Pick a chunker (the document is chunked and embedded again)",
    )
    labelled_b = prep_b = config2 = None
    doc = prep.document
    if other is None:
        st.info("Pick a second chunker to evaluate the same queries under it.")
    else:
        config2 = ChunkingConfig(
            other, prep.config.size, prep.config.overlap, prep.config.percentile
        )
        prep_b = prepare(doc.digest, doc, config2, lab.embedder, prep.prepend, st.empty())
    if prep_b is not None:
        labelled_b = attempt(
            lambda: label_queries(lab.active.qset, doc, prep_b.chunks),
            f"The evidence cannot be mapped to {config2.label} chunks:",
        )
    if labelled_b is not None:
        ev_b = run_evaluation(
            prep_b, lab.embedder, labelled_b, lab.vecs, policies, params, "chunker"
        )
        table = pd.DataFrame(chunker_rows({prep.config.label: ev, config2.label: ev_b}))
        show_table(
            table,
            hide_index=True,
            key=keys.CHUNKER_TABLE,
            column_config={
                c: NUM3 for c in table.columns if c.startswith(("recall", "SCAR recall"))
            }
            | {c: NUM2 for c in table.columns if c.startswith(("chunks ", "SCAR chunks"))}
            | {"chunks in document": NUM0},
        )
        st.caption(
            "Same queries, same model and gate; gold chunks recomputed under each chunking. "
            "'SCAR recall gain over top-k' is what the gate repairs; a chunker that cuts "
            "fewer evidence spans leaves less to repair. Size and overlap are the sidebar's "
            "(tokens for the tokens chunker)."
        )
        by_file_table(
            paired_file_rows({prep.config.label: ev, config2.label: ev_b}),
            keys.CHUNKER_BY_FILE,
            "Each policy on each file's queries under each chunking.",
        )
