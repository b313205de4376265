"""Compare: what each retrieval policy sends to the language model for one query, its cost, and
whether it holds the question's known evidence."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from scar_viz.charts.learned import contributions_chart
from scar_viz.charts.policy_strips import file_strips, policy_strips, span_text_html
from scar_viz.chunking.qasc import QascParams
from scar_viz.chunking.tokens import TOKENIZER_NAME
from scar_viz.pipeline import query_inputs
from scar_viz.policies import PolicyResult, run_all
from scar_viz.scoring.learned import setting_notes
from scar_viz.scoring.learned.select import decision_features
from scar_viz.views.compare import (
    COVERS,
    cost_rows,
    diff_with_scar,
    find_evidence,
    hit_files,
    policy_labels,
    policy_settings,
    qasc_steps,
    split_notes,
    why_options,
    why_table,
)
from scar_viz.views.compare_settings import CompareSettings
from ui import keys
from ui.alerts import alert, or_stop
from ui.cache import disk_cache
from ui.explore_tools import why_terms
from ui.gate_controls import gate_sliders, query_box
from ui.knobs import knob_controls
from ui.learned import active_gate, gate_name, k_mismatch, p_slider
from ui.loading import query_vector
from ui.models import app_reranker
from ui.presenter import presenter_fonts
from ui.queryset import known_sets, label_error, label_from_widget
from ui.sentences import SENTENCE_POLICIES, prepare_sentences, sentence_toggle
from ui.setup import sidebar_setup
from ui.share import chart_config
from ui.state import URL
from ui.tables import show_notes, show_table

BIG_DOC = 60_000
REJECTED_TEXT = {"colour": "#d73027", "background": "#fdeeee"}


st.title("Compare policies")
st.caption(
    "The same question on the same document under every policy: top-k, a static window, parent "
    "sections, cross-encoder reranking, SCAR, QASC and its hybrid, RSE, auto-merging, sentence "
    "windows and the learned gate. Each strip shows the document characters a policy would send "
    "to the language model."
)

setup = sidebar_setup()
if setup is None:
    st.stop()
prep, embedder, doc = setup.prepared, setup.embedder, setup.source

query = query_box(setup.name, doc, setup.doc_key)
gate = gate_sliders(len(prep.chunks))

with_sentences = sentence_toggle(keys.CMP_SENTENCES, doc, embedder)
with st.expander("Policy knobs", expanded=False):
    chosen = knob_controls(CompareSettings, per_row=4)
    p = p_slider(st.columns(4)[0])
    qasc = knob_controls(QascParams, "QASC")
knobs = replace(chosen, qasc=qasc, gate=active_gate(), p=p)

with st.spinner("Loading the cross-encoder (once) …"):
    status, reranker_path = app_reranker(knobs.reranker)
if not status.available:
    st.caption(f"Rerank is left out: {status.message} {status.hint}")

qvec = query_vector(embedder, query)
inputs = or_stop(
    lambda: query_inputs(
        prep, query, qvec, gate, embedder=embedder, cache=disk_cache(), retriever=setup.retriever
    )
)

settings = policy_settings(knobs, status.available, reranker_path)
if with_sentences:
    prepare_sentences(doc, embedder)
else:
    settings = {n: v for n, v in settings.items() if n not in SENTENCE_POLICIES}

with st.spinner("Running every policy …"):
    results = run_all(inputs, settings)
labels = policy_labels(knobs, gate)
for name, res in results.items():
    if not isinstance(res, PolicyResult):
        alert(f"Policy '{name}' is not available: {res} The other policies are shown.", "warning")

st.subheader("What each policy keeps")
strip_rows = [(labels[n], getattr(r, "spans", None)) for n, r in results.items()]
if doc.several_files:  # each file holding the hits on its own axis, not the whole corpus
    hits = getattr(results.get("topk"), "spans", None) or ()
    files, more = hit_files(
        [(p.path, p.start, p.end) for p in doc.parts], hits, [r for _, r in strip_rows]
    )
    figure = file_strips(doc.text, strip_rows, files, doc.shown_sections)
    note = f" {more} other files hold a policy's spans (not drawn)." if more else ""
    where = f"Each file holding the hits on its own axis (characters in that file).{note} "
else:
    view = None
    if len(doc.text) > BIG_DOC:
        view = st.slider(
            "Region of the document (characters)", 0, len(doc.text), (0, len(doc.text)),
            step=500, key=keys.CMP_VIEW,
        )  # fmt: skip
    figure = policy_strips(doc.text, strip_rows, doc.shown_sections, view)
    where = ""
st.plotly_chart(presenter_fonts(figure), key=keys.CMP_STRIPS, config=chart_config("compare-1"))
st.caption(f"{where}Top row: the detected sections (alternating shades). Hover a bar for its text.")

evidence = find_evidence(query, known_sets(setup.name, doc))
st.subheader("Cost")
cost_table, cost_notes = split_notes(cost_rows(results, doc.text, labels, evidence))
show_table(cost_table, hide_index=True, key=keys.CMP_TABLE)
show_notes(cost_notes, "What each policy did")
if evidence:
    st.caption(
        f"'{COVERS}': the share of the question's known evidence (from a labelled query set) "
        "inside each policy's context: full, partial (share of its characters) or none."
    )
st.caption(
    f"Spans: separate passages as a reader sees them (chunks separated only by whitespace are "
    f"one). Characters and tokens count the text as assembled (pieces joined by a blank line); "
    f"tokens: {TOKENIZER_NAME}, offline. Time: the policy's own query-time work (embedding is "
    "shared and not counted). Jaccard: |A ∩ B| / |A ∪ B| over document characters."
)
with st.expander(
    "Label this question: paste the passage that answers it"
    + (" (it has known evidence)" if evidence else "")
):
    st.text_area("Evidence passage (copied from the document)", key=keys.CMP_PASSAGE, height=100)
    st.button(
        "Add to my query set",
        key=keys.CMP_LABEL,
        icon=":material/bookmark_add:",
        on_click=label_from_widget,
        args=(prep, query, keys.CMP_PASSAGE, keys.CMP_LABEL_ERROR),
    )
    if label_error(keys.CMP_LABEL_ERROR):
        alert(label_error(keys.CMP_LABEL_ERROR))
    st.caption("The Evaluation lab can use the questions you label (source: this session).")

learned = results.get("learned")
if isinstance(learned, PolicyResult):
    for note in setting_notes(knobs.gate, prep.embedder_id, prep.config.label):
        alert(f"Learned policy: {note}", "warning")
    k_mismatch(knobs.gate, gate.k, decision_features(learned.detail.decisions), knobs.p)
    with st.expander("Learned gate: why? (each feature's contribution against p)"):
        st.caption(f"Gate: {gate_name(knobs.gate)}, p = {knobs.p:g}.")
        options = why_options(learned.detail)
        if not options:
            st.info("The learned gate made no decision here (no neighbour to judge).")
        else:
            picked = st.selectbox("Decision", list(options), key=keys.CMP_WHY)
            why_terms(why_table(options[picked]))
            st.plotly_chart(
                contributions_chart(options[picked]),
                key=keys.WHY_CHART,
                config=chart_config("compare-why"),
            )

ok = [n for n, r in results.items() if isinstance(r, PolicyResult) and n != "scar"]
scar = results.get("scar")
st.subheader("Difference with SCAR")
if not isinstance(scar, PolicyResult) or not ok:
    st.info("The difference view needs SCAR and at least one other policy.")
    st.stop()
other = st.selectbox(
    "Policy to compare with SCAR",
    ok,
    key=keys.VS,
    bind=URL,
    index=ok.index("window") if "window" in ok else 0,
)
theirs = results[other]
diff = diff_with_scar(theirs, scar)
left, right = st.columns(2)
with left:
    st.markdown(f"**In {labels[other]}, not in SCAR** · {diff.theirs_chars:,} characters")
    st.html(span_text_html(doc.text, diff.only_theirs, doc.shown_sections))
with right:
    st.markdown(f"**In SCAR, not in {labels[other]}** · {diff.scar_chars:,} characters")
    st.html(span_text_html(doc.text, diff.only_scar, doc.shown_sections, **REJECTED_TEXT))

with st.expander(f"The full context {labels[other]} sends ({theirs.tokens:,} tokens)"):
    st.text(theirs.context)

summary, windows = qasc_steps(getattr(results.get("qasc"), "detail", None), qasc.percentile)
if windows:
    with st.expander("QASC step by step"):
        st.write(summary)
        show_table(windows, hide_index=True, key=keys.QASC_WINDOWS)
