"""The Explorer's context view and the tools around it: the gate policy (SCAR or learned) with the
learned gate's why? box, labelling the current question, and answering it with an LLM.

Widgets and rendering only; the computing is in :mod:`scar_viz.views.explorer`,
:mod:`scar_viz.llm.check` and :mod:`ui.queryset`. Everything drawn from document text, the
question or an LLM's answer goes through :func:`ui.alerts.alert` or a dataframe (escaped).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from scar_viz.charts.context import context_html
from scar_viz.charts.learned import contributions_chart
from scar_viz.chunking.base import Chunk
from scar_viz.common.errors import UserError, user_message
from scar_viz.common.fmt import chunk_list
from scar_viz.documents import samples
from scar_viz.documents.reading import Document
from scar_viz.embeddings import Embedder
from scar_viz.pipeline import PreparedDoc, embed_function
from scar_viz.queries.labelling import to_jsonl
from scar_viz.queries.reading import LabelledQuery, parse_queries
from scar_viz.scoring.explain import explain_learned
from scar_viz.scoring.learned import LearnedGate, LearnedSelection
from scar_viz.views.explorer import (
    POLICIES,
    answer_question,
    answer_rows,
    chunk_span,
    gold_chunks,
    labelled_query,
    why_table,
)
from ui import keys
from ui.alerts import alert
from ui.cache import disk_cache
from ui.chat import chat_model, llm_settings
from ui.learned import active_gate as session_gate
from ui.learned import current_p, gate_name, p_slider
from ui.queryset import add_session_query, session_set
from ui.share import chart_config, download
from ui.state import URL
from ui.tables import show_table

# --- the gate policy -----------------------------------------------------------------------


def active_gate() -> tuple[LearnedGate, str]:
    """The learned gate to use (the session's, from Fit a gate, else the shipped default) and
    where it comes from, in words."""
    gate = session_gate()
    return gate, gate_name(gate)


def policy_choice() -> tuple[str, float]:
    """The gate policy ("SCAR" or "learned") and the learned gate's bar p."""
    cols = st.columns([2, 1])
    policy = cols[0].segmented_control(
        "Gate",
        POLICIES,
        default="SCAR",
        key=keys.POLICY,
        bind=URL,
        required=True,
        help="SCAR: the relative bar with λ and τ. Learned: a logistic gate over five "
        "features, admitting a neighbour when its probability exceeds p.",
    )
    p = p_slider(cols[1]) if policy == "learned" else current_p()
    return str(policy or "SCAR"), float(p)


def learned_why(sel: LearnedSelection, source: str) -> None:
    """The learned gate's why? box: each feature's contribution and the probability vs p."""
    st.caption(f"Learned gate: {source}; admits a neighbour when σ(w·z + b) > p = {sel.p:g}.")
    if not sel.decisions:
        return
    pairs = [f"{d.chunk} → {d.neighbour} ({d.side}, d={d.distance})" for d in sel.decisions]
    picked = st.selectbox(
        "Why this decision?", range(len(pairs)), format_func=pairs.__getitem__, key=keys.WHY_LEARNED
    )
    decision = sel.decisions[picked]
    st.write(explain_learned(decision))
    st.plotly_chart(contributions_chart(decision), key=keys.WHY_CHART, config=chart_config("why"))
    why_terms(why_table(decision))


def why_terms(rows: Sequence[Mapping[str, object]]) -> None:
    """The why? rows as a table (term, value, contribution), then each term's meaning in full,
    wrapped (a table cell would cut it off); the meanings are the package's text, not the
    user's."""
    show_table(
        pd.DataFrame([{k: v for k, v in r.items() if k != "meaning"} for r in rows]),
        hide_index=True,
        key=keys.WHY_TABLE,
    )
    st.markdown("\n".join(f"- **{r['term']}**: {r['meaning']}" for r in rows if r["meaning"]))


# --- label as you explore --------------------------------------------------------------------


def label_box(prep: PreparedDoc, question: str, chunk_ids: Sequence[int]) -> None:
    """ "Add to my query set": the question + a pasted passage or picked chunks."""
    with st.expander("Add to my query set", icon=":material/bookmark_add:"):
        st.caption(
            "Label as you explore: the current question and the passage that answers it go "
            "into this session's query set, which the Evaluation lab uses (source: session)."
        )
        passage = st.text_area(
            "Evidence: paste the answer's text from the document", key=keys.LAB_TEXT, height=90
        )
        picked = st.multiselect(
            "…or pick the chunk(s) that hold it",
            list(chunk_ids),
            key=keys.LAB_CHUNKS,
            format_func=lambda i: f"chunk {i}",
        )
        if st.button("Add to my query set", key=keys.LAB_ADD, icon=":material/add:"):
            try:
                evidence = passage if passage.strip() else chunk_span(prep.chunks, picked)
                qid = add_session_query(prep, question, evidence)
                alert(f"Added as {qid}.", "info")
            except UserError as exc:
                alert(user_message(exc))
        queries = session_set(prep.document).queries
        if queries:
            download(
                f"Download my query set ({len(queries)} questions, JSON Lines)",
                to_jsonl(queries, prep.document, prep.chunks),
                "my-queries.jsonl",
                key=keys.LAB_DL,
            )


# --- the context -----------------------------------------------------------------------------


def context_view(chunks: Sequence[Chunk], sel, big: bool, gold: Sequence[int] = ()) -> None:
    """The context sent to the language model (:func:`scar_viz.charts.context.context_html`:
    every piece of document text escaped), a labelled question's gold chunks marked."""
    st.subheader("Context sent to the language model")
    st.caption(
        "Blue: retrieved (with rank); green: admitted by the gate; yellow: text repeated "
        "from the previous chunk by the splitter's overlap"
        + ("; gold outline and ★: the labelled question's evidence" if gold else "")
        + ". Document order."
    )
    st.html(context_html(chunks, sel.retrieved, sel.admitted, font_px=20 if big else 14, gold=gold))


# --- answer with an LLM ----------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=8)
def _sample_queries(doc_choice: str, doc_key: str, _doc: Document) -> tuple[LabelledQuery, ...]:
    return parse_queries(samples.sample_queries_text(doc_choice), _doc).queries


def known_query_for(
    prep: PreparedDoc, doc_choice: str | None, question: str
) -> LabelledQuery | None:
    """``question`` when it is labelled: in this session's query set, or in a built-in
    sample's own query file; else None."""
    doc = prep.document
    found = labelled_query(session_set(doc).queries, question)
    if found is None and doc_choice in samples.SAMPLES:
        found = labelled_query(_sample_queries(doc_choice, doc.digest, doc), question)
    return found


def known_evidence_for(prep: PreparedDoc, doc_choice: str | None, question: str) -> tuple[str, ...]:
    """Evidence texts of ``question`` when it is labelled (:func:`known_query_for`), else ()."""
    found = known_query_for(prep, doc_choice, question)
    return () if found is None else tuple(e.text for e in found.evidence)


def gold_for(prep: PreparedDoc, doc_choice: str | None, question: str) -> tuple[int, ...]:
    """The chunks holding a labelled ``question``'s evidence under this chunking; () when the
    question is not labelled."""
    return gold_chunks(known_query_for(prep, doc_choice, question), prep.document, prep.chunks)


def gold_note(gold: Sequence[int]) -> None:
    """Under the overview: which chunks hold the labelled question's evidence."""
    if gold:
        st.caption(
            f"★ Gold evidence of this labelled question: {chunk_list(gold)} (the gold "
            "band under the row; ★ in the hits and the context)."
        )


def answer_box(
    prep: PreparedDoc,
    embedder: Embedder,
    question: str,
    contexts: Mapping[str, str],
    against: str,
    evidence: Sequence[str] = (),
) -> None:
    """ "Answer with an LLM": each context's answer side by side, escaped, with its cost."""
    with st.expander("Answer with an LLM", icon=":material/forum:"):
        llm = llm_settings()
        if llm.endpoint.problem or llm.endpoint.pending:
            alert(
                llm.endpoint.problem or llm.endpoint.pending,
                "error" if llm.endpoint.problem else "info",
            )
            return
        alert(
            f"{llm.model} at {llm.base_url or 'OpenAI'} (the sidebar's LLM settings; requests "
            f"carry {llm.endpoint.key.words}) answers from each context: top-k, the static "
            "window and the gate's, at the current setting."
            + (" The question has known evidence: answers are also scored." if evidence else ""),
            "caption",
        )
        if not st.button("Answer", key=keys.LLM_ANSWER, icon=":material/play_arrow:"):
            return
        try:
            with st.spinner("Asking the model …"):
                chat = chat_model(llm)
                embed = embed_function(embedder, disk_cache()) if evidence else None
                answers = answer_question(chat, question, contexts, embed=embed, evidence=evidence)
        except UserError as exc:
            alert(user_message(exc))
            return
        show_table(
            pd.DataFrame(answer_rows(answers, against)), hide_index=True, key=keys.ANSWER_TABLE
        )
        for col, answer in zip(st.columns(len(answers)), answers, strict=True):
            col.markdown(f"**{answer.policy}**")
            alert(answer.answer or "(empty answer)", "info", col)
