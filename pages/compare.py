"""Compare: what each retrieval policy sends to the language model for one query, and its cost."""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from scar_viz.charts._style import REJECTED
from scar_viz.charts.policy_strips import policy_strips, span_text_html
from scar_viz.embeddings import EmbeddingError, embed_cached
from scar_viz.knobs import knob_values
from scar_viz.pipeline import query_inputs
from scar_viz.policies import ORDER, PolicyResult, comparison_rows, run_all, subtract_spans
from scar_viz.policies.rerank import DEFAULT_RERANKER
from scar_viz.qasc import QascParams
from scar_viz.sentences import sentence_spans
from scar_viz.tokens import TOKENIZER_NAME
from ui.alerts import alert
from ui.cache import disk_cache
from ui.gate_controls import gate_sliders, query_box
from ui.knobs import knob_controls
from ui.loading import query_vector
from ui.share import chart_config
from ui.sidebar import sidebar_setup
from ui.state import URL

BIG_DOC = 60_000

st.title("Compare policies")
st.caption(
    "The same question on the same document under six policies: top-k, a static window, parent "
    "sections, cross-encoder reranking, SCAR and QASC. Each strip shows the document characters "
    "a policy would send to the language model."
)

setup = sidebar_setup()
if setup is None:
    st.stop()
prep, embedder = setup
doc = prep.document

query = query_box(st.session_state.get("doc"))
gate = gate_sliders(len(prep.chunks))

with st.expander("Policy knobs", expanded=False):
    c1, c2 = st.columns(2)
    w = c1.number_input("Window ±w (chunks)", 1, 10, 1, key="w", bind=URL)
    level = c1.number_input(
        "Parent: heading depth (0 = the chunk's own section)", 0, 6, 0, key="plevel", bind=URL
    )
    n_cand = c2.number_input("Rerank: cosine candidates (0 = 4·k)", 0, 200, 0, key="nc", bind=URL)
    reranker = c2.text_input(
        "Rerank: cross-encoder (local HF cache name or folder)",
        DEFAULT_RERANKER,
        key="rr",
        bind=URL,
    )
    qasc = knob_controls(QascParams, "QASC")

if query is None:
    st.stop()
qvec = query_vector(embedder, query)
if qvec is None:
    st.stop()
try:
    inputs = query_inputs(prep, query, qvec, gate, embedder=embedder, cache=disk_cache())
except ValueError as exc:
    alert(str(exc))
    st.stop()

settings = {
    "topk": {},
    "window": {"w": int(w)},
    "parent": {"level": int(level)},
    "rerank": {"n_candidates": int(n_cand) or None, "reranker": reranker},
    "scar": {},
    "qasc": knob_values(qasc),
}
with st.spinner("Splitting the document into sentences (once per document) …"):
    sentences = sentence_spans(doc.text)
bar = st.progress(0.0, text=f"QASC: embedding {len(sentences):,} sentences (once per model) …")
try:
    embed_cached(
        embedder,
        [doc.text[s:e] for s, e in sentences],
        disk_cache(),
        lambda done, total: bar.progress(
            min(1.0, done / max(total, 1)), text=f"QASC: sentence vectors {done:,}/{total:,}"
        ),
    )
except EmbeddingError as exc:
    alert(f"Embedding the sentences for QASC failed: {exc}", "warning")
finally:
    bar.empty()
with st.spinner("Running the six policies …"):
    results = run_all(inputs, {name: settings[name] for name in ORDER})

for name, res in results.items():
    if not isinstance(res, PolicyResult):
        alert(f"Policy '{name}' is not available: {res} The other policies are shown.", "warning")

labels = {
    "topk": f"topk (k={gate.k})",
    "window": f"window ±{int(w)}",
    "parent": "parent" + (f" (depth {int(level)})" if level else ""),
    "rerank": "rerank",
    "scar": f"scar (r={gate.radius})",
    "qasc": "qasc" + (" adaptive" if qasc.adaptive else f" m={qasc.window_m}"),
}

st.subheader("What each policy keeps")
view = None
if len(doc.text) > BIG_DOC:
    view = st.slider(
        "Region of the document (characters)",
        0,
        len(doc.text),
        (0, len(doc.text)),
        step=500,
        key="cmp_view",
    )
rows = [
    (labels[name], res.spans if isinstance(res, PolicyResult) else None)
    for name, res in results.items()
]
st.plotly_chart(
    policy_strips(doc.text, rows, doc.sections, view),
    key="cmp_strips",
    config=chart_config("compare-1"),
)
st.caption("Top row: the detected sections (alternating shades). Hover a bar for its text.")

st.subheader("Cost")
table = pd.DataFrame(comparison_rows(results, reference="scar"))
table.insert(0, "label", [labels[name] for name in results])
st.dataframe(
    table,
    hide_index=True,
    key="cmp_table",
    column_config={
        "ms": st.column_config.NumberColumn("time (ms)", format="%.2f"),
        "jaccard vs scar": st.column_config.NumberColumn("Jaccard vs SCAR", format="%.3f"),
        "characters": st.column_config.NumberColumn("characters", format="%d"),
    },
)
st.caption(
    f"Characters and tokens count the text as assembled (pieces joined by a blank line); "
    f"tokens: {TOKENIZER_NAME}, offline. Time: the policy's own query-time work; embedding the "
    "chunks and the query is shared and not counted; QASC's time includes looking up (or, the "
    "first time, encoding) the sentence vectors; rerank's includes the cross-encoder's scoring. "
    "Jaccard: |A ∩ B| / |A ∪ B| over document characters."
)

note_items = [
    f"<li><b>{html.escape(labels[name])}</b>: {html.escape(note)}</li>"
    for name, res in results.items()
    if isinstance(res, PolicyResult)
    for note in res.notes
]
if note_items:
    st.html(f"<ul style='font-size:0.9em;margin:0'>{''.join(note_items)}</ul>")

ok = [name for name, res in results.items() if isinstance(res, PolicyResult) and name != "scar"]
scar = results.get("scar")
st.subheader("Difference with SCAR")
if not isinstance(scar, PolicyResult) or not ok:
    st.info("The difference view needs SCAR and at least one other policy.")
    st.stop()
other = st.selectbox(
    "Policy to compare with SCAR",
    ok,
    key="vs",
    bind=URL,
    index=ok.index("window") if "window" in ok else 0,
)
theirs = results[other]
only_theirs = subtract_spans(theirs.spans, scar.spans)
only_scar = subtract_spans(scar.spans, theirs.spans)
left, right = st.columns(2)
with left:
    st.markdown(
        f"**In {labels[other]}, not in SCAR** · {sum(e - s for s, e in only_theirs):,} characters"
    )
    st.html(span_text_html(doc.text, only_theirs, doc.sections))
with right:
    st.markdown(
        f"**In SCAR, not in {labels[other]}** · {sum(e - s for s, e in only_scar):,} characters"
    )
    st.html(
        span_text_html(doc.text, only_scar, doc.sections, colour=REJECTED, background="#fdeeee")
    )

with st.expander(f"The full context {labels[other]} sends ({theirs.tokens:,} tokens)"):
    st.text(theirs.context)
qasc_result = results.get("qasc")
if isinstance(qasc_result, PolicyResult) and qasc_result.detail is not None:
    with st.expander("QASC step by step"):
        det = qasc_result.detail
        st.write(
            f"θ = {det.threshold:.3f} (p{qasc.percentile:g}); {len(det.seeds)} seeds; keep bar "
            f"ρ·θ = {det.keep_bar:.3f}; {len(det.kept)} of {len(det.windows)} windows kept; "
            f"{len(det.merged)} after merging."
        )
        st.dataframe(
            pd.DataFrame(
                [
                    {"seed": x.seed, "first": x.lo, "last": x.hi, "W": x.score, "kept": x.kept}
                    for x in det.windows
                ]
            ),
            hide_index=True,
            key="qasc_windows",
            column_config={"W": st.column_config.NumberColumn(format="%.3f")},
        )
