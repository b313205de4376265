"""Learn: a guided lesson on the built-in sample — fragmentation, the gate, predict-then-reveal."""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from scar_viz import samples
from scar_viz.charts import decision_plane
from scar_viz.chunking import ChunkingConfig
from scar_viz.explain import explain_decision
from scar_viz.gate import DEFAULT_K, DEFAULT_PARAMS, GateParams
from scar_viz.lesson import ROUNDS, candidates, fragment_pair, scale_comparison, score_predictions
from scar_viz.queries import label_queries, parse_queries
from scar_viz.scoring import select_from_sims
from ui.cache import sample_document
from ui.loading import get_embedder, load_model, prepare, query_vector
from ui.share import chart_config
from ui.sidebar import sidebar
from ui.state import URL

LESSON_QUERY = "harbor-f-01"

st.title("Learn the SCAR gate")
st.caption("A guided lesson on the built-in sample: four short steps, about ten minutes.")

slot = st.empty()
_, _, spec, base_url = sidebar(document=False)
doc_key, document = sample_document(samples.DEFAULT_SAMPLE)
embedder = get_embedder(spec, base_url)
if not load_model(embedder, slot):
    st.stop()
prep = prepare(doc_key, document, ChunkingConfig(), embedder, False, slot)
if prep is None:
    st.stop()
chunks = prep.chunks
lesson = next(q for q in samples.sample_questions() if q["id"] == LESSON_QUERY)
evidence = lesson["evidence"][0]
qvec = query_vector(embedder, lesson["query"])
if qvec is None:
    st.stop()
sims = prep.unit @ qvec

# --- 1 ----------------------------------------------------------------------------------------
st.header("1 · Boundary fragmentation")
pair = fragment_pair(chunks, evidence["start"], evidence["end"])
lesson_type = label_queries(
    [
        q
        for q in parse_queries(samples.sample_queries_text(), document.text).queries
        if q.id == LESSON_QUERY
    ],
    document.text,
    chunks,
)[0].type
st.markdown(f"**Question:** {html.escape(lesson['query'])}")
if lesson_type != "fragmented" or pair is None:
    st.info(f"Under the current chunking this query is {lesson_type}: no boundary cuts it.")
else:
    rank = {int(c): r + 1 for r, c in enumerate(sims.argsort()[::-1])}
    st.write(
        f"The answer is one passage, but the splitter (600/60) cut it between chunk "
        f"{pair.left} and chunk {pair.right}. The retriever ranks chunk {pair.left} "
        f"#{rank[pair.left]} and chunk {pair.right} #{rank[pair.right]} of {len(chunks)}: "
        f"with k = {DEFAULT_K}, a top-k retriever "
        f"{'keeps' if rank[pair.right] <= DEFAULT_K else 'drops'} the second half."
    )
    cols = st.columns(2)
    for col, idx in zip(cols, (pair.left, pair.right), strict=True):
        c = chunks[idx]
        lo, hi = max(c.start, pair.start), min(c.end, pair.end)
        text = document.text
        body = (
            html.escape(text[c.start : lo])
            + "<mark>"
            + html.escape(text[lo:hi])
            + "</mark>"
            + html.escape(text[hi : c.end])
        )
        col.html(
            f"<div style='border:1px solid #bbb;border-radius:6px;padding:8px;"
            f"white-space:pre-wrap;font-family:monospace;font-size:13px'><b>chunk {idx}</b>"
            f" · cos(q,c) = {sims[idx]:.3f}<br>{body}</div>"
        )
    st.caption("Highlighted: the evidence. Each half alone answers only part of the question.")

# --- 2 ----------------------------------------------------------------------------------------
st.header("2 · The gate")
st.latex(
    r"\text{admit } n \iff \underbrace{\cos(q,n) - \lambda\,\bigl(1-\cos(c,n)\bigr)}_{S(c,n)}"
    r" \;>\; \tau\cdot\cos(q,c)"
)
c1, c2 = st.columns(2)
lam = c1.slider("λ", 0.0, 2.0, DEFAULT_PARAMS.lam, 0.01, key="l_lam", bind=URL)
tau = c2.slider("τ", 0.0, 1.5, DEFAULT_PARAMS.tau, 0.01, key="l_tau", bind=URL)
sel = select_from_sims(sims, prep.unit, GateParams(lam=lam, tau=tau))
pairs = [f"{d.chunk} → {d.neighbour} ({d.side})" for d in sel.decisions]
if pairs:
    picked = st.selectbox("Candidate", pairs, key="l_cand")
    why = explain_decision(sel.decisions[pairs.index(picked)])
    st.latex(why.latex)
    st.write(why.sentence)

# --- 3 ----------------------------------------------------------------------------------------
st.header("3 · Predict, then reveal")
st.write("For each round, tick the neighbours you expect the gate to admit, then reveal.")
labels = [f"Round {i + 1}: λ = {r.lam}, τ = {r.tau}" for i, r in enumerate(ROUNDS)]
which = st.radio(
    "Round",
    range(len(ROUNDS)),
    format_func=labels.__getitem__,
    key="l_round",
    horizontal=True,
    bind=URL,
)
rnd = ROUNDS[which]
st.caption(rnd.hint)
round_sel = select_from_sims(sims, prep.unit, rnd.params)
pool = candidates(round_sel)
info = {d.neighbour: d for d in round_sel.decisions if d.outcome != "retrieved"}
grid = st.columns(min(4, max(1, len(pool))))
for i, c in enumerate(pool):
    d = info[c]
    grid[i % len(grid)].checkbox(
        f"chunk {c} (next to {d.chunk}: cos(q,n) {d.cos_qn:.2f}, b {d.penalty:.2f})",
        key=f"guess_{which}_{c}",
    )
if st.button("Reveal", key=f"reveal_btn_{which}"):
    st.session_state[f"revealed_{which}"] = True
if st.session_state.get(f"revealed_{which}"):
    guessed = {c for c in pool if st.session_state.get(f"guess_{which}_{c}")}
    score = score_predictions(guessed, round_sel)
    st.success(f"{score.correct} of {score.total} right.")
    if score.false_admits:
        st.write(f"Rejected, though you expected them in: {list(score.false_admits)}")
    if score.missed:
        st.write(f"Admitted, though you left them out: {list(score.missed)}")
    st.plotly_chart(
        decision_plane(round_sel.decisions, rnd.lam, height=340),
        key=f"l_plane_{which}",
        config=chart_config("lesson-plane"),
    )
done = [i for i in range(len(ROUNDS)) if st.session_state.get(f"revealed_{i}")]
if done:
    total = [
        score_predictions({c for c in candidates(s) if st.session_state.get(f"guess_{i}_{c}")}, s)
        for i in done
        for s in [
            select_from_sims(sims, prep.unit, GateParams(lam=ROUNDS[i].lam, tau=ROUNDS[i].tau))
        ]
    ]
    right = sum(t.correct for t in total)
    st.metric(
        "Lesson score",
        f"{right} / {sum(t.total for t in total)}",
        help=f"over {len(done)} revealed round(s)",
    )

# --- 4 ----------------------------------------------------------------------------------------
st.header("4 · Why the bar is relative")
st.write(
    "Embedding models live on different similarity scales: one puts unrelated text at "
    "cos 0.1, another at 0.6. Model 2 below is this model with every cosine mapped to "
    "α + β·cos. The same decisions are judged with SCAR's relative bar τ·cos(q,c), and "
    "with an absolute bar θ fixed on model 1."
)
c1, c2 = st.columns(2)
alpha = c1.slider("model 2 offset α", 0.0, 0.6, 0.4, 0.05, key="l_alpha", bind=URL)
beta = c2.slider("model 2 spread β", 0.2, 1.0, 0.5, 0.05, key="l_beta", bind=URL)
rows, keep_rel, keep_abs = scale_comparison(sel.decisions, alpha, beta)
m1, m2 = st.columns(2)
m1.metric("Relative bar keeps", f"{keep_rel:.0%}", help="of model 1's decisions")
m2.metric("Absolute bar keeps", f"{keep_abs:.0%}", help="of model 1's decisions")
st.dataframe(
    pd.DataFrame(
        [
            {
                "c": r.chunk,
                "n": r.neighbour,
                "model 1": r.model1,
                "model 2, relative bar": r.relative2,
                "model 2, absolute θ": r.absolute2,
            }
            for r in rows
        ]
    ),
    hide_index=True,
    key="l_scale_table",
)
