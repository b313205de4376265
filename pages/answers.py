"""Answers (LLM): a labelled query set written by a language model from this document, and the
answer check (each policy's context to the model, the answers scored as RAGAS defines them)."""

from __future__ import annotations

import streamlit as st

from scar_viz.documents.reading import Document
from scar_viz.evaluation import available_policies
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.llm.check import check_answers
from scar_viz.llm.judge import DEFAULT_QUESTIONS
from scar_viz.llm.querygen import DEFAULT_FRAGMENTED_SHARE, DEFAULT_N, generate_queries
from scar_viz.pipeline import embed_function
from scar_viz.runtime.endpoints import public_url
from scar_viz.views.answers import calls_note
from ui import keys, state
from ui.alerts import alert, attempt, with_progress
from ui.answer_views import check_view, generated_view
from ui.cache import disk_cache
from ui.chat import chat_model, llm_settings
from ui.consent import typed
from ui.gate_controls import gate_sliders
from ui.queryset import (
    content_key,
    query_set_picker,
    query_vectors,
    set_text,
    stash_query_set,
    type_metrics,
)
from ui.setup import sidebar_setup
from ui.state import URL, current_retriever

POLICIES = ["topk", "window1", "scar"]
NOT_CONFIGURED = (
    "No language model is configured, so this page shows no answer-quality figure. Open "
    "*LLM (answers and query generation)* in the sidebar and give a chat model and a base URL "
    "(Ollama: `http://localhost:11434/v1`), and an API key for a hosted endpoint (yours, or "
    "the server's `OPENAI_API_KEY` where its operator allows that endpoint)."
)


def _load_generated(doc: Document, jsonl: str) -> None:
    stash_query_set(doc, "generated", "generated.jsonl", jsonl)  # the picker follows


st.title("Answers (LLM)")
st.caption(
    "Bring your own language model: let it write labelled questions for this document, then "
    "send each policy's context to it and score the answers (faithfulness, answer relevancy, "
    "context recall, answer correctness). Every reply is cached on disk: a rerun is free."
)
setup = sidebar_setup()
if setup is None:
    st.stop()
prep, embedder = setup.prepared, setup.embedder
llm = llm_settings()
model, base_url = llm.model, llm.base_url
configured = llm.configured and not llm.endpoint.problem and not llm.endpoint.pending
if llm.endpoint.problem:
    alert(llm.endpoint.problem)
elif llm.endpoint.pending:  # a link's endpoint: the question is in the sidebar, opened
    alert(llm.endpoint.pending, "info")
elif configured:
    alert(
        f"Chat model: {model} at {public_url(base_url or None)}; requests carry "
        f"{llm.endpoint.key.words}.",
        "caption",
    )
else:
    st.info(NOT_CONFIGURED, icon=":material/info:")


# --- 1. a query set written by the model -------------------------------------------------------
st.header("Generate a query set", divider="gray")
st.caption(
    "Fragmented questions come from chunk boundaries that cut a paragraph or sentence (the "
    "model sees both sides), atomic ones from single chunks. A question is kept only if every "
    "evidence sentence is found in the document, it does not copy its evidence and it is not "
    "a duplicate; its type is then computed under the current chunking."
)
c1, c2, c3, c4 = st.columns([1, 1.4, 1, 1.2], vertical_alignment="bottom")
n = c1.number_input("Queries", 1, 200, DEFAULT_N, key=keys.GEN_N, bind=URL)
share = c2.slider(
    "Fragmented share", 0.0, 1.0, DEFAULT_FRAGMENTED_SHARE, 0.05, key=keys.GEN_SHARE, bind=URL
)
seed = c3.number_input("Seed", 0, 10_000, 0, key=keys.GEN_SEED, bind=URL)
doc_key = prep.document.digest
if c4.button("Generate", key=keys.GEN_RUN, icon=":material/auto_awesome:", disabled=not configured):
    options = {"n": int(n), "fragmented_share": share, "seed": int(seed)}
    gs = with_progress(
        "Asking the model for questions …",
        lambda update: attempt(
            lambda: generate_queries(
                prep.document, prep.chunks, chat_model(llm), **options, progress=update
            ),
            "Generating failed:",
            "Nothing was lost; try again.",
        ),
    )
    if gs is not None:
        state.put(
            keys.GENERATED, {**state.get(keys.GENERATED, {}), doc_key: (prep.config.label, gs)}
        )

made = state.get(keys.GENERATED, {}).get(doc_key)
if made is not None:
    jsonl = made[1].jsonl()
    stashed = set_text(None, prep.document, "generated")
    in_use = state.get(keys.QS_PICK) == "generated" and stashed == jsonl
    generated_view(*made, on_load=_load_generated, args=(prep.document, jsonl), loaded=in_use)

# --- 2. the answer check -----------------------------------------------------------------------
st.header("Answer check", divider="gray")
st.caption(
    "Each query's context under each policy (as the Explorer's context view assembles it) goes "
    "to the chat model with one fixed prompt; a judge model scores the answers. Faithfulness = "
    "supported claims / claims; answer relevancy = mean cosine between the question and N "
    "questions the judge writes from the answer; context recall = reference-evidence "
    "statements the context supports; answer correctness (files with reference answers) = "
    "0.75 · F1 of the answer's statements against the reference + 0.25 · their cosine."
)
active = query_set_picker(prep, setup.name)
if active is None:
    st.stop()
type_metrics(active.labelled, prep.config.label)
st.caption("SCAR's gate")
params = gate_sliders(len(prep.chunks))
a1, a2, a3 = st.columns([2, 1.2, 1])
policies = a1.multiselect(
    "Policies", list(available_policies()), POLICIES, key=keys.ANS_POLICIES, bind=URL
)
judge_name = a2.text_input(
    "Judge model (blank = the chat model)",
    key=keys.ANS_JUDGE,
    bind=URL,
    placeholder=model,
    on_change=typed,
    args=(keys.ANS_JUDGE,),
).strip()
n_questions = a3.number_input(
    "N (relevancy)",
    1,
    10,
    DEFAULT_QUESTIONS,
    key=keys.ANS_NQ,
    bind=URL,
    help="Questions the judge writes from each answer for answer relevancy.",
)
references = active.qset.references  # read with the queries, once
st.caption(calls_note(active.labelled, len(policies), references))
settings = (
    content_key(prep, active, "answers"),
    tuple(policies),
    params,
    judge_name,
    int(n_questions),
    model,
    public_url(base_url or None),
)
ready = configured and bool(policies)
if st.button(
    "Run the answer check",
    key=keys.ANS_RUN,
    icon=":material/fact_check:",
    disabled=not ready,
    type="primary",
):
    vecs = query_vectors(embedder, active.labelled)
    if vecs is not None:
        check = with_progress(
            "Answering and judging …",
            lambda update: attempt(
                lambda: check_answers(
                    LabelledRun(prep, active.labelled, vecs, current_retriever()),
                    chat_model(llm),
                    embed_function(embedder, disk_cache()),
                    policies=policies,
                    params=params,
                    judge=chat_model(llm, judge_name) if judge_name else None,
                    references=references,
                    n_questions=int(n_questions),
                    progress=update,
                ),
                "The answer check failed:",
                "Earlier results are kept.",
            ),
        )
        if check is not None:
            state.put(keys.ANSWER_CHECK, (settings, check))

last = state.get(keys.ANSWER_CHECK)
if last is not None:
    check_view(last[1], stale=last[0] != settings)
