"""Evaluate: does SCAR pay on this document? Recall, chunk cost, significance, the λ×τ sweep,
a held-out check and model transfer, over a labelled query set."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import streamlit as st

from scar_viz import samples
from scar_viz.charts import bar_transfer_chart, pareto_chart, similarity_histograms, sweep_heatmap
from scar_viz.chunking import CHUNKERS, ChunkingConfig
from scar_viz.documents import DEFAULT_MAX_BYTES, DocumentError, read_document
from scar_viz.embeddings import EmbeddingError, embed_cached, text_key
from scar_viz.errors import UserError, user_message
from scar_viz.evaluation import (
    Evaluation,
    available_policies,
    bar_transfer,
    candidates_for,
    chunker_rows,
    default_policies,
    evaluate,
    evaluation_json,
    reduction,
    significance,
)
from scar_viz.queries import (
    decode_queries,
    label_queries,
    parse_queries,
    query_set_key,
    split_alternate,
    type_counts,
)
from scar_viz.scoring import PRESETS, top_k
from scar_viz.sweep import LAMS, TAUS, THETAS, pareto_frontier, sweep
from scar_viz.tokens import TOKENIZER_NAME
from ui.alerts import alert
from ui.cache import cached, disk_cache
from ui.gate_controls import gate_sliders
from ui.loading import get_embedder, load_model, prepare
from ui.share import chart_config
from ui.sidebar import sidebar_setup
from ui.state import URL, set_widget

COVERAGE_NOTE = (
    "Span policies without chunk ids (QASC) are scored by character coverage: each gold chunk "
    "counts by the share of its non-whitespace characters inside the policy's spans, and the "
    "policy's chunk count is its context length in chunk equivalents (characters / mean chunk "
    "length)."
)

# --- callbacks and cached steps (glue only; the computing is in scar_viz) ----------------------


def _stash_upload(widget: str, target: str) -> None:
    upload = st.session_state.get(widget)
    st.session_state[target] = None if upload is None else (upload.name, upload.getvalue())


def _stash_check_doc() -> None:
    upload = st.session_state.get("chk_doc_file")
    st.session_state["chk_doc_error"] = ""
    if upload is None:
        st.session_state["chk_doc"] = None
        return
    try:
        doc = read_document(upload.name, upload.getvalue(), max_bytes=DEFAULT_MAX_BYTES)
    except DocumentError as exc:
        st.session_state["chk_doc_error"] = str(exc)
        return
    st.session_state["chk_doc"] = (text_key(doc.text), doc)


def _set_sliders(lam: float, tau: float) -> None:
    set_widget("lam", round(float(lam), 2))
    set_widget("tau", round(float(tau), 2))


def _apply_frontier_pick() -> None:
    picked = st.session_state.get("front")
    if picked:
        _set_sliders(picked[0], picked[1])


def _apply_chart_pick() -> None:
    state = st.session_state.get("pareto_chart")
    points = (state or {}).get("selection", {}).get("points", []) if state else []
    for point in points:
        data = point.get("customdata")
        if data and len(data) >= 2:
            _set_sliders(data[0], data[1])
            return


@st.cache_data(show_spinner=False, max_entries=32)
def _query_vecs(key: tuple, _embedder, texts: tuple[str, ...]) -> np.ndarray:
    return embed_cached(_embedder, list(texts), disk_cache()).vectors


def query_vectors(embedder, labelled) -> np.ndarray | None:
    texts = tuple(q.query.query for q in labelled)
    try:
        return _query_vecs((embedder.model_id, texts), embedder, texts)
    except EmbeddingError as exc:
        alert(f"Embedding the queries failed: {exc}")
        return None


def progress_bar(text: str):
    bar = st.progress(0.0, text=text)

    def update(done: int, total: int) -> None:
        bar.progress(min(1.0, done / max(total, 1)), text=f"{text} {done}/{total}")

    return bar, update


def _content_key(prep, labelled, tag: str) -> tuple:
    """What an evaluation or a sweep depends on besides the gate: document, chunking, model,
    prepending and the queries' content (text and evidence of each, never ids alone or the
    user)."""
    return (
        tag,
        text_key(prep.document.text),
        prep.config,
        prep.embedder_id,
        prep.prepend,
        query_set_key(labelled),
    )


def run_evaluation(prep, embedder, labelled, vecs, policies, params, tag: str) -> Evaluation:
    key = (
        *_content_key(prep, labelled, tag),
        tuple(policies),
        params.k,
        params.lam,
        params.tau,
        params.radius,
    )

    def embed(texts: list[str]) -> np.ndarray:
        return embed_cached(embedder, texts, disk_cache()).vectors

    def compute() -> Evaluation:
        bar, update = progress_bar(f"Evaluating {len(labelled)} queries …")
        try:
            return evaluate(
                prep,
                labelled,
                vecs,
                policies,
                params,
                embed=embed,
                progress=update,
            )
        finally:
            bar.empty()

    return cached(("eval", *key), compute)


def run_sweep(prep, labelled, vecs, params, tag: str):
    key = (*_content_key(prep, labelled, tag), params.k, params.radius)

    def compute():
        bar, update = progress_bar(f"Sweeping {len(LAMS)}×{len(TAUS)} (λ, τ) …")
        try:
            cands = candidates_for(prep, labelled, vecs, params.k, params.radius)
            return cands, sweep(cands, LAMS, TAUS, progress=update)
        finally:
            bar.empty()

    return cached(("sweep", *key), compute)


def issues_block(qset) -> None:
    if qset.errors:
        alert(f"{len(qset.errors)} line(s) of '{qset.name}' are invalid and were skipped.")
    if qset.notes:
        alert(f"{len(qset.notes)} note(s) on '{qset.name}': e.g. {qset.notes[0]}", "info")
    if qset.issues:
        with st.expander(f"All {len(qset.issues)} messages on the query file"):
            st.dataframe(
                pd.DataFrame(
                    [
                        {"line": i.line, "id": i.query_id, "level": i.level, "message": i.message}
                        for i in qset.issues
                    ]
                ),
                hide_index=True,
                key=f"issues_{qset.name}",
            )


def summary_rows(ev: Evaluation, model: str | None = None) -> list[dict[str, object]]:
    rows = []
    for name, pe in ev.policies.items():
        if pe.error:
            rows.append({"policy": name, "subset": "—", "note": f"did not run: {pe.error}"})
            continue
        for subset, s in pe.summaries.items():
            if subset == "scattered" and not s.n:
                continue
            row = {
                "policy": name,
                "subset": subset,
                "n": s.n,
                "recall": s.recall,
                "mean chunks": s.mean_chunks,
                "efficiency": s.efficiency,
                "mean tokens": s.mean_tokens,
            }
            if model:
                row = {"model": model, **row}
            rows.append(row)
    return rows


NUM3 = st.column_config.NumberColumn(format="%.3f")
NUM2 = st.column_config.NumberColumn(format="%.2f")

# --- page ----------------------------------------------------------------------------------------

st.title("Evaluate")
st.caption(
    "Run a labelled query set through the policies: Recall@K, mean unique chunks, chunk "
    "efficiency (recall / chunks) and context tokens; why each gold chunk was missed; a paired "
    "bootstrap; the λ×τ sweep; a held-out check; and model transfer."
)

setup = sidebar_setup()
if setup is None:
    st.stop()
prep, embedder = setup
doc_choice = st.session_state.get("doc")

st.subheader("Query set")
st.file_uploader(
    "Labelled queries (JSON Lines: id, query, evidence [{text, start, end}], type)",
    type=["jsonl", "json", "txt"],
    key="qs_file",
    on_change=_stash_upload,
    args=("qs_file", "qs_data"),
    help="One query a line, offsets into the document above. Stale offsets are repaired when "
    "the evidence text occurs exactly once.",
)
stashed = st.session_state.get("qs_data")
if stashed:
    try:
        qset = decode_queries(stashed[1], prep.document.text, stashed[0])
    except ValueError as exc:
        alert(str(exc))
        st.stop()
elif doc_choice in samples.SAMPLES and samples.sample_queries_text(doc_choice):
    qset = parse_queries(
        samples.sample_queries_text(doc_choice),
        prep.document.text,
        f"{samples.SAMPLES[doc_choice].queries_filename}",
    )
    st.caption(f"Using the sample's own {qset.name} (upload a file to use yours).")
else:
    st.info("Upload a labelled query file for this document (format: shared/corpora/README.md).")
    st.stop()
issues_block(qset)
if not qset.queries:
    st.error("No valid query is left in the file; fix the lines listed above.")
    st.stop()
try:
    labelled = label_queries(qset, prep.document.text, prep.chunks)
except ValueError as exc:
    alert(f"The evidence cannot be mapped to chunks: {exc}")
    st.stop()
counts = type_counts(labelled)
c = st.columns(5)
c[0].metric("Queries", len(labelled))
c[1].metric("Fragmented", counts["fragmented"])
c[2].metric("Atomic", counts["atomic"])
c[3].metric("Scattered", counts["scattered"])
c[4].metric("Type differs from the file", sum(q.type_changed for q in labelled))
st.caption(
    f"Gold chunks and types are recomputed under {prep.config.label} (gold: the minimal run "
    "covering every non-whitespace character of each span). Fragmented: two gold chunks are "
    "consecutive, the evidence crosses a boundary; atomic: one gold chunk; scattered: two or "
    "more gold chunks, none consecutive (no neighbour policy can join them)."
)

params = gate_sliders(len(prep.chunks))
choices = list(available_policies())
policies = st.multiselect(
    "Policies",
    choices,
    default=list(default_policies()),
    key="pol",
    bind=URL,
    help="windowN = static window ±N; rerank needs a local "
    "cross-encoder; qasc embeds every sentence (slow on a real model).",
)
if not policies:
    st.info("Pick at least one policy.")
    st.stop()
vecs = query_vectors(embedder, labelled)
if vecs is None:
    st.stop()
ev = run_evaluation(prep, embedder, labelled, vecs, policies, params, "main")

tabs = st.tabs(
    [
        "Metrics",
        "Per query",
        "Significance",
        "Sweep",
        "Two query sets",
        "Model transfer",
        "Two chunkers",
    ]
)

with tabs[0]:
    st.dataframe(
        pd.DataFrame(summary_rows(ev)),
        hide_index=True,
        key="metrics_table",
        column_config={
            "recall": NUM3,
            "mean chunks": NUM2,
            "efficiency": NUM3,
            "mean tokens": st.column_config.NumberColumn(format="%.0f"),
        },
    )
    ran = {n for n, pe in ev.policies.items() if not pe.error}
    if {"scar", "window1"} <= ran:
        st.write(
            f"SCAR uses **{reduction(ev, 'scar', 'window1'):.1f}%** fewer chunks than window "
            f"±1 over all queries ({reduction(ev, 'scar', 'window1', 'fragmented'):.1f}% on "
            "the fragmented ones)."
        )
    st.caption(f"Tokens: {TOKENIZER_NAME}, over the assembled context. {COVERAGE_NOTE}")
    st.download_button(
        "Download as JSON",
        json.dumps(evaluation_json(ev), indent=2),
        file_name="evaluation.json",
        mime="application/json",
        key="dl_json",
    )

with tabs[1]:
    ran_names = [n for n, pe in ev.policies.items() if not pe.error]
    if ran_names:
        pick = st.selectbox(
            "Policy",
            ran_names,
            index=ran_names.index("scar") if "scar" in ran_names else 0,
            key="pq_pol",
        )
        pe = ev.policies[pick]
        rows = []
        for gq, o in zip(ev.queries, pe.outcomes, strict=True):
            rows.append(
                {
                    "id": gq.id,
                    "type": gq.type,
                    "query": gq.query.query,
                    "gold": ", ".join(map(str, gq.gold)),
                    "selected": "—" if o.selected is None else ", ".join(map(str, o.selected)),
                    "recall": o.recall,
                    "chunks": o.chunks,
                    "tokens": o.tokens,
                    "missed → why": "; ".join(f"{m.chunk}: {m.reason}" for m in o.misses),
                }
            )
        per_query = pd.DataFrame(rows)
        st.dataframe(
            per_query,
            hide_index=True,
            key="per_query_table",
            column_config={"recall": NUM3, "chunks": NUM2},
        )
        st.download_button(
            "Download per-query results (CSV)",
            data=lambda: per_query.to_csv(index=False),
            file_name=f"per-query-{pick}.csv",
            mime="text/csv",
            key="dl_per_query",
            on_click="ignore",
        )
        counts = pd.DataFrame(
            [
                {"policy": n, "reason": m.reason}
                for n in ran_names
                for o in ev.policies[n].outcomes
                for m in o.misses
            ]
        )
        if len(counts):
            st.markdown("**Missed gold chunks by reason**")
            st.dataframe(counts.value_counts().unstack(fill_value=0), key="miss_reasons")
        st.caption(
            "never reached: not retrieved and farther than r from every retrieved chunk; "
            "blocked by relevance: cos(q,n) alone is not above τ·cos(q,c); blocked by penalty: "
            "λ·b(c,n) pulls S under the bar; not examined: a nearer neighbour was rejected "
            "first (r > 1); not expanded: the policy adds no neighbours."
        )

with tabs[2]:
    tests = cached(
        (
            "sig",
            text_key(prep.document.text),
            prep.config,
            ev.document,
            ev.model,
            ev.prepend,
            ev.k,
            ev.lam,
            ev.tau,
            ev.radius,
            tuple(ev.policies),
            query_set_key(ev.queries),
        ),
        lambda: significance(ev),
    )
    if not tests:
        st.info("Add SCAR and at least one other policy to compare them.")
    else:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "SCAR vs": t.baseline,
                        "metric": t.metric,
                        "SCAR": t.result.mean_a,
                        "baseline": t.result.mean_b,
                        "mean diff": t.result.mean_diff,
                        "95% CI low": t.result.ci_low,
                        "95% CI high": t.result.ci_high,
                        "p (two-sided)": t.result.p_value,
                        "Cohen's d": t.result.cohens_d,
                    }
                    for t in tests
                ]
            ),
            hide_index=True,
            key="sig_table",
            column_config={
                c: NUM3
                for c in ("SCAR", "baseline", "mean diff", "95% CI low", "95% CI high", "Cohen's d")
            }
            | {"p (two-sided)": st.column_config.NumberColumn(format="%.4f")},
        )
        st.caption(
            f"Paired bootstrap over the {ev.n_queries} queries, B = {tests[0].result.n_boot:,} "
            f"resamples (seed {tests[0].result.seed}); differences are SCAR − baseline per "
            "query; p = 2·min(share of resampled means ≤ 0, ≥ 0) with the +1 correction, so "
            f"the smallest reportable p is {2 / (tests[0].result.n_boot + 1):.4f}. Cohen's d "
            "= mean / sd of the paired differences."
        )

with tabs[3]:
    cands, grid = run_sweep(prep, labelled, vecs, params, "main")
    point = (params.lam, params.tau)
    best = grid.best("efficiency")
    marks = {
        "A": (PRESETS["A"]["lam"], PRESETS["A"]["tau"]),
        "B": (PRESETS["B"]["lam"], PRESETS["B"]["tau"]),
        "best": (float(grid.lams[best[0]]), float(grid.bars[best[1]])),
    }
    cols = st.columns(3)
    for col, (title, z) in zip(
        cols,
        (
            ("recall", grid.recall),
            ("mean chunks", grid.mean_chunks),
            ("efficiency", grid.efficiency),
        ),
        strict=True,
    ):
        col.plotly_chart(
            sweep_heatmap(grid.lams, grid.bars, z, title, point, marks),
            key=f"heat_{title.replace(' ', '_')}",
            config=chart_config("evaluate-1"),
        )
    st.caption(
        f"{len(grid.lams)}×{len(grid.bars)} grid at k = {params.k}, r = {params.radius}; "
        "★ the sliders, ○ presets A/B and the best efficiency point."
    )
    frontier = pareto_frontier(grid.recall, grid.mean_chunks)
    presets = (
        sweep(cands, [PRESETS["A"]["lam"]], [PRESETS["A"]["tau"]]),
        sweep(cands, [PRESETS["B"]["lam"]], [PRESETS["B"]["tau"]]),
    )
    labelled_pts = [
        (f"preset {n}", float(s.mean_chunks[0, 0]), float(s.recall[0, 0]))
        for n, s in zip("AB", presets, strict=True)
    ]
    for name, pe in ev.policies.items():
        if name != "scar" and not pe.error:
            s = pe.summaries["all"]
            labelled_pts.append((name, s.mean_chunks, s.recall))
    here = sweep(cands, [params.lam], [params.tau])
    st.plotly_chart(
        pareto_chart(
            grid.mean_chunks,
            grid.recall,
            grid.lams,
            grid.bars,
            frontier,
            labelled_pts,
            (float(here.mean_chunks[0, 0]), float(here.recall[0, 0])),
        ),
        key="pareto_chart",
        on_select=_apply_chart_pick,
        selection_mode="points",
        config=chart_config("evaluate-2"),
    )
    flat_l, flat_t = np.meshgrid(grid.lams, grid.bars, indexing="ij")
    options = [
        (
            float(flat_l.ravel()[i]),
            float(flat_t.ravel()[i]),
            float(grid.recall.ravel()[i]),
            float(grid.mean_chunks.ravel()[i]),
        )
        for i in frontier
    ]
    st.selectbox(
        "Pick a frontier point to set the sliders",
        options,
        index=None,
        key="front",
        on_change=_apply_frontier_pick,
        placeholder="λ, τ of a Pareto-optimal setting …",
        format_func=lambda o: (
            f"λ = {o[0]:.2f}, τ = {o[1]:.2f} · recall {o[2]:.3f} · {o[3]:.2f} chunks"
        ),
    )
    st.caption("Or click a point in the chart (grid or frontier) to move the sliders there.")

with tabs[4]:
    mode = st.radio(
        "Check set",
        ["split", "upload"],
        key="chk",
        bind=URL,
        horizontal=True,
        format_func={
            "split": "Split this set in two halves (tune on A, check on B)",
            "upload": "Upload a second query set",
        }.get,
    )
    objective = st.selectbox("Tune for", ["efficiency", "recall"], key="obj", bind=URL)
    tune_prep, check_prep = prep, prep
    if mode == "split":
        tune_set, check_set = split_alternate(labelled)
        tune_name, check_name = "half A", "half B"
    else:
        st.file_uploader(
            "Second query set (JSON Lines)",
            type=["jsonl", "json", "txt"],
            key="chk_file",
            on_change=_stash_upload,
            args=("chk_file", "chk_data"),
        )
        st.file_uploader(
            "Its document, if not the one above (txt, md, pdf, html)",
            type=["txt", "md", "markdown", "pdf", "html", "htm"],
            key="chk_doc_file",
            on_change=_stash_check_doc,
        )
        if st.session_state.get("chk_doc_error"):
            alert(st.session_state["chk_doc_error"])
        tune_set, check_set, tune_name, check_name = labelled, (), qset.name, ""
        chk_data, chk_doc = st.session_state.get("chk_data"), st.session_state.get("chk_doc")
        if chk_data:
            if chk_doc:
                check_prep = prepare(chk_doc[0], chk_doc[1], prep.config, embedder, prep.prepend)
            if check_prep is not None:
                try:
                    qset2 = decode_queries(chk_data[1], check_prep.document.text, chk_data[0])
                    issues_block(qset2)
                    check_set = label_queries(qset2, check_prep.document.text, check_prep.chunks)
                    check_name = qset2.name
                except ValueError as exc:
                    alert(str(exc))
    if not tune_set or not check_set:
        st.info("Give a check set with at least one valid query (and a tune set of one or more).")
    else:
        vt, vc = query_vectors(embedder, tune_set), query_vectors(embedder, check_set)
        if vt is not None and vc is not None:
            _, g_t = run_sweep(tune_prep, tune_set, vt, params, f"tune:{mode}")
            _, g_c = run_sweep(check_prep, check_set, vc, params, f"check:{mode}:{check_name}")
            z_t = getattr(g_t, objective)
            z_c = getattr(g_c, objective)
            bt, bc = g_t.best(objective), g_c.best(objective)
            here_t, here_c = (
                g_t.nearest(params.lam, params.tau),
                g_c.nearest(params.lam, params.tau),
            )

            def row(label, grid_, ij):
                return {
                    "set": label,
                    "λ": float(grid_.lams[ij[0]]),
                    "τ": float(grid_.bars[ij[1]]),
                    "recall": float(grid_.recall[ij]),
                    "mean chunks": float(grid_.mean_chunks[ij]),
                    "efficiency": float(grid_.efficiency[ij]),
                }

            table = [
                {"setting": "best on the tune set", **row(tune_name, g_t, bt)},
                {"setting": "… applied to the check set", **row(check_name, g_c, bt)},
                {"setting": "best on the check set", **row(check_name, g_c, bc)},
                {"setting": "sliders (nearest grid point)", **row(tune_name, g_t, here_t)},
                {"setting": "sliders (nearest grid point)", **row(check_name, g_c, here_c)},
            ]
            st.dataframe(
                pd.DataFrame(table),
                hide_index=True,
                key="two_sets_table",
                column_config={
                    "recall": NUM3,
                    "mean chunks": NUM2,
                    "efficiency": NUM3,
                    "λ": NUM2,
                    "τ": NUM2,
                },
            )
            gap = float(z_c[bc] - z_c[bt])
            m = st.columns(3)
            m[0].metric(f"{objective} on tune set (tuned)", f"{float(z_t[bt]):.3f}")
            m[1].metric(
                f"{objective} on check set, same setting",
                f"{float(z_c[bt]):.3f}",
                f"{float(z_c[bt] - z_t[bt]):+.3f} vs tune set",
            )
            m[2].metric("Gap to the check set's own best", f"{gap:.3f}")
            st.plotly_chart(
                sweep_heatmap(
                    g_c.lams,
                    g_c.bars,
                    z_c,
                    f"{objective} on the check set",
                    (params.lam, params.tau),
                    {
                        "tuned on tune set": (float(g_t.lams[bt[0]]), float(g_t.bars[bt[1]])),
                        "check best": (float(g_c.lams[bc[0]]), float(g_c.bars[bc[1]])),
                    },
                ),
                key="heat_check",
                config=chart_config("evaluate-3"),
            )
            st.caption(
                "A setting tuned on one set (or corpus) is only as good as it is on the "
                "other: the gap is what tuning cost you on unseen queries."
            )

with tabs[5]:
    c1, c2 = st.columns([2, 2])
    spec2 = c1.text_input(
        "Second model",
        key="m2",
        bind=URL,
        placeholder="hash:64 · static · st:/path/to/model · openai:MODEL",
    )
    url2 = c2.text_input("Base URL for openai:… (blank = OpenAI)", key="m2url", bind=URL)
    spec2 = (spec2 or "").strip()
    if not spec2:
        st.info(
            "Name a second embedding model to evaluate the same λ, τ on both, compare "
            "their similarity scales, and see why SCAR's bar is relative."
        )
    else:
        prep2 = None
        try:
            embedder2 = get_embedder(spec2, (url2 or "").strip())
        except UserError as exc:
            alert(user_message(exc))
            embedder2 = None
        if embedder2 is not None and load_model(embedder2, st.empty()):
            prep2 = prepare(
                text_key(prep.document.text), prep.document, prep.config, embedder2, prep.prepend
            )
        vecs2 = query_vectors(embedder2, labelled) if prep2 is not None else None
        if prep2 is not None and vecs2 is not None:
            ev2 = run_evaluation(prep2, embedder2, labelled, vecs2, policies, params, "m2")
            names = (prep.embedder_id, prep2.embedder_id)
            if names[0] == names[1]:
                names = (f"{names[0]} (1)", f"{names[1]} (2)")
            st.caption(
                f"Model 1: {prep.embedder_label}. Model 2: {prep2.embedder_label}. "
                f"Same k = {params.k}, λ = {params.lam:.2f}, τ = {params.tau:.2f}, "
                f"r = {params.radius}."
            )
            side = []
            for name, pe in ev.policies.items():
                pe2 = ev2.policies.get(name)
                if pe.error or pe2 is None or pe2.error:
                    continue
                a, b = pe.summaries["all"], pe2.summaries["all"]
                side.append(
                    {
                        "policy": name,
                        "recall · 1": a.recall,
                        "recall · 2": b.recall,
                        "chunks · 1": a.mean_chunks,
                        "chunks · 2": b.mean_chunks,
                        "efficiency · 1": a.efficiency,
                        "efficiency · 2": b.efficiency,
                    }
                )
            st.dataframe(
                pd.DataFrame(side),
                hide_index=True,
                key="transfer_table",
                column_config={
                    c: (NUM2 if c.startswith("chunks") else NUM3) for c in side[0] if c != "policy"
                }
                if side
                else None,
            )
            hist = {}
            for name, p, v in ((names[0], prep, vecs), (names[1], prep2, vecs2)):
                sims = v @ p.unit.T
                top = np.concatenate([row[top_k(row, params.k)] for row in sims])
                flat = sims.ravel()
                if len(flat) > 20000:
                    flat = np.random.default_rng(0).choice(flat, 20000, replace=False)
                hist[name] = {
                    "cos(q,c), all chunks": flat,
                    "cos(q,c), top-k": top,
                    "cos(c, c+1), adjacent chunks": 1.0 - p.penalties,
                }
            st.plotly_chart(
                similarity_histograms(hist), key="scales_chart", config=chart_config("evaluate-4")
            )
            c_1 = candidates_for(prep, labelled, vecs, params.k, params.radius)
            c_2 = candidates_for(prep2, labelled, vecs2, params.k, params.radius)
            bars = bar_transfer(c_1, c_2, params.lam, params.tau, names)
            st.markdown("**Relative bar τ·cos(q,c) against an absolute bar θ tuned on model 1**")
            st.dataframe(
                pd.DataFrame([vars(r) for r in bars.rows]),
                hide_index=True,
                key="bar_table",
                column_config={"recall": NUM3, "mean_chunks": NUM2, "efficiency": NUM3},
            )
            st.plotly_chart(
                bar_transfer_chart(
                    THETAS,
                    {
                        names[0]: bars.curves[0].mean_chunks[0],
                        names[1]: bars.curves[1].mean_chunks[0],
                    },
                    bars.theta,
                    {names[0]: bars.rows[0].mean_chunks, names[1]: bars.rows[2].mean_chunks},
                ),
                key="bar_chart",
                config=chart_config("evaluate-5"),
            )
            st.caption(
                f"θ = {bars.theta:.3f} is the absolute bar that, on {names[0]} at λ = "
                f"{params.lam:.2f}, costs as many chunks as SCAR's relative bar τ = "
                f"{params.tau:.2f}. Applied unchanged to {names[1]}, whose similarities sit on "
                "another scale, it admits far more or far fewer neighbours; the relative bar "
                "scales with cos(q,c) and moves with the model."
            )

with tabs[6]:
    st.write(
        "Boundary fragmentation is made at indexing time. Evaluate the same queries under a "
        "second chunker: does a better chunker leave SCAR less to repair?"
    )
    others = [c for c in CHUNKERS if c != prep.config.chunker]
    other = st.selectbox("Second chunker", others, key="ev_chunker2", bind=URL)
    config2 = ChunkingConfig(other, prep.config.size, prep.config.overlap, prep.config.percentile)
    prep_b = prepare(
        text_key(prep.document.text), prep.document, config2, embedder, prep.prepend, st.empty()
    )
    if prep_b is not None:
        try:
            labelled_b = label_queries(qset, prep_b.document.text, prep_b.chunks)
        except ValueError as exc:
            alert(f"The evidence cannot be mapped to {config2.label} chunks: {exc}")
        else:
            ev_b = run_evaluation(prep_b, embedder, labelled_b, vecs, policies, params, "chunker")
            table = pd.DataFrame(chunker_rows({prep.config.label: ev, config2.label: ev_b}))
            st.dataframe(
                table,
                hide_index=True,
                key="chunker_table",
                column_config={
                    c: NUM3 for c in table.columns if c.startswith(("recall", "SCAR recall"))
                },
            )
            st.caption(
                "Same queries, same model and gate; gold chunks recomputed under each chunking. "
                "'SCAR recall gain over top-k' is what the gate repairs; a chunker that cuts "
                "fewer evidence spans leaves less to repair. Size and overlap are the sidebar's "
                "(tokens for the tokens chunker)."
            )
