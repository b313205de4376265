"""Learn: a guided lesson on the built-in sample — fragmentation, the gate, predict-then-reveal,
and why the bar is relative. Widgets → one core call (``scar_viz.teaching.lesson``,
``scar_viz.teaching.rounds``) → render."""

from __future__ import annotations

import html

import streamlit as st

from scar_viz.charts import decision_plane
from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents import samples
from scar_viz.scoring.explain import explain_decision
from scar_viz.scoring.params import DEFAULT_PARAMS, GateParams
from scar_viz.scoring.scar import scar_select
from scar_viz.teaching.lesson import LESSONS
from scar_viz.teaching.rounds import (
    candidate_labels,
    feedback,
    pick_rounds,
    round_from_address,
    round_selection,
    round_title,
    score_rounds,
)
from scar_viz.views.model_language import model_language_note
from ui import keys, state
from ui.alerts import alert, or_stop
from ui.cache import cached, prepared_key, sample_document
from ui.lesson import answers_for, lesson_material, reveal, show_fragment_step, show_scale_step
from ui.loading import get_embedder, load_model, prepare
from ui.named_select import named_select
from ui.presenter import PRESENTER_CHART_PX, PRESENTER_PLANE_PX, presenting
from ui.share import chart_config
from ui.sidebar import sidebar
from ui.state import URL

st.title("Learn the SCAR gate")
st.caption("A guided lesson on a built-in sample, in four short steps.")
lesson_doc = named_select(
    st,
    "Lesson document",
    {k: samples.document_name(k) for k in LESSONS},
    keys.L_DOC,
    samples.DEFAULT_SAMPLE,
)
lesson_query = LESSONS[lesson_doc]

slot = st.empty()
choice = sidebar(document=False)
spec, base_url = choice.spec, choice.base_url
doc_key, document = sample_document(lesson_doc)
embedder = or_stop(lambda: get_embedder(spec, base_url))
if not load_model(embedder, slot):
    st.stop()
prep = prepare(doc_key, document, ChunkingConfig(), embedder, False, slot)
if prep is None:
    st.stop()
if note := model_language_note(document.text, embedder.model_id):
    alert(note, "warning", st.sidebar)
key = ("lesson", *prepared_key(prep))
material = lesson_material(key, lesson_doc, lesson_query, document, prep, embedder)
if material is None:
    st.stop()
questions, qvec = material.questions, material.qvec

# --- 1 ----------------------------------------------------------------------------------------
st.header("1 · Boundary fragmentation")
show_fragment_step(material, document, prep)

# --- 2 ----------------------------------------------------------------------------------------
st.header("2 · The gate")
st.latex(
    r"\text{admit } n \iff \underbrace{\cos(q,n) - \lambda\,\bigl(1-\cos(c,n)\bigr)}_{S(c,n)}"
    r" \;>\; \tau\cdot\cos(q,c)"
)
c1, c2 = st.columns(2)
lam = c1.slider("λ", 0.0, 2.0, DEFAULT_PARAMS.lam, 0.01, key=keys.L_LAM, bind=URL)
tau = c2.slider("τ", 0.0, 1.5, DEFAULT_PARAMS.tau, 0.01, key=keys.L_TAU, bind=URL)
sel = scar_select(qvec, prep.unit, GateParams(lam=lam, tau=tau))
pairs = [f"{d.chunk} → {d.neighbour} ({d.side})" for d in sel.decisions]
if pairs:
    picked = st.selectbox("Candidate", pairs, key=keys.L_CAND)
    why = explain_decision(sel.decisions[pairs.index(picked)])
    st.latex(why.latex)
    st.write(why.sentence)

# --- 3 ----------------------------------------------------------------------------------------
st.header("3 · Predict, then reveal")
rounds = cached(
    (*key, "rounds", lesson_query),
    lambda: pick_rounds(prep.unit, questions, lesson_id=lesson_query),
)
st.write(
    "Each round is another of the sample's questions at one (λ, τ). Tick the neighbours you "
    "expect the gate to admit, then reveal. Each round is scored once, when you reveal it."
)
st.caption(
    "Each box shows what the gate reads for neighbour n of retrieved chunk c: cos(q,n), the "
    "penalty b = 1 − cos(c,n) and the bar τ·cos(q,c). Admit n iff cos(q,n) − λ·b > bar."
)
if state.get(keys.L_ROUND) is None:  # a link names its round by number: ?l_round=3
    state.put(keys.L_ROUND, round_from_address(st.query_params.get(keys.L_ROUND), len(rounds)))
which = st.radio(
    "Round",
    range(len(rounds)),
    format_func=lambda i: round_title(i, rounds[i]),
    key=keys.L_ROUND,
    horizontal=True,
)
if st.query_params.get(keys.L_ROUND) != str(which + 1):  # a write sends the whole address
    st.query_params[keys.L_ROUND] = str(which + 1)
rnd = rounds[which]
answers = answers_for(key)
done = which in answers.revealed
st.markdown(f"**Question:** {html.escape(rnd.query)} · k = {rnd.k}, r = 1")
round_sel = round_selection(prep.unit, next(q for q in questions if q.id == rnd.question_id), rnd)
labels = candidate_labels(round_sel)
grid = st.columns(1 if presenting() else 2)
shown = answers.prediction(which)
for i, (c, label) in enumerate(labels.items()):
    grid[i % len(grid)].checkbox(label, value=c in shown, key=keys.guess(which, c), disabled=done)
if not done:
    ticked = {c for c in labels if state.get(keys.guess(which, c))}
    answers = answers.tick(which, ticked)
    state.put(keys.L_ANSWERS, (key, answers))
st.button(
    "Reveal",
    key=keys.reveal(which),
    disabled=done,
    on_click=reveal,
    args=(key, which, tuple(labels)),
    icon=":material/visibility:",
)
score = score_rounds(rounds, answers)
if done:
    first, *rest = feedback(score.rounds[which])
    st.success(first)
    for line in rest:
        st.write(line)
    st.info(rnd.reason, icon=":material/lightbulb:")
    big = presenting()  # placed for the type it is drawn in, half a 1920 screen wide or more
    st.plotly_chart(
        decision_plane(
            round_sel.decisions,
            rnd.lam,
            height=560 if big else 340,
            font_size=PRESENTER_CHART_PX if big else 12,
            marker_size=18 if big else 11,
            width=PRESENTER_PLANE_PX if big else None,
        ),
        key=keys.lesson_plane(which),
        config=chart_config("lesson-plane"),
        width="content",  # drawn at the width its labels are placed for
    )
if score.revealed:
    st.metric(
        "Lesson score",
        f"{score.correct} / {score.total}",
        help=f"the sum over {score.revealed} revealed round(s), each scored once",
    )

# --- 4 ----------------------------------------------------------------------------------------
st.header("4 · Why the bar is relative")
show_scale_step(key, prep, material)
