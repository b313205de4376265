"""The labelled query set every Evaluation-lab page works on, and where it comes from.

A query set belongs to one document (keyed by the text's digest). Its sources, offered in
this order when present:

- ``sample``: the built-in sample's own query file;
- ``upload``: a JSON Lines file the user uploaded;
- ``session``: questions labelled while exploring (Explorer, Compare: question + evidence);
- ``generated``: a set an LLM wrote on the Answers page.

Sources other than the sample are kept in ``st.session_state`` (this session only; the user
downloads them to keep them): an upload as its bytes, the session's labelled questions as a
typed :class:`QuerySet` (written as JSON Lines only when downloaded), an LLM's set as text.
The pages call :func:`query_set_picker` and get the parsed, labelled queries under the
current chunking, or ``None`` after a message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from scar_viz.common.errors import UserError, user_message
from scar_viz.documents import samples
from scar_viz.documents.reading import Document
from scar_viz.embeddings import embed_cached
from scar_viz.embeddings.prompts import query_side
from scar_viz.evaluation.report import issue_rows
from scar_viz.pipeline import PreparedDoc
from scar_viz.queries.gold import GoldQuery, label_queries, query_set_key, type_counts
from scar_viz.queries.labelling import (
    QUERY_FORMAT,
    TEMPLATE_JSONL,
    add_query,
    to_jsonl,
    worked_example,
)
from scar_viz.queries.reading import QuerySet, decode_queries, evidence_units, parse_queries
from ui import keys
from ui.alerts import alert, attempt
from ui.cache import disk_cache, prepared_key
from ui.cancel import stop_check
from ui.session_budget import over_budget
from ui.share import download
from ui.state import current_retriever
from ui.tables import show_table

APP_LIMIT = " in the app"
"""Said after the limit on queries a file (:data:`scar_viz.queries.reading.MAX_QUERIES`)."""

SOURCES = {
    "sample": "The sample's own query file",
    "upload": "An uploaded file",
    "session": "Labelled in this session",
    "generated": "Generated with an LLM",
}


SESSION_SET = "labelled in this session"
Stored = str | bytes | QuerySet
"""A kept set: an upload's bytes, JSON Lines text, or the queries themselves."""


@dataclass(frozen=True)
class ActiveQueries:
    """The chosen set: ``labelled`` holds gold chunks and types under the current chunking;
    ``key`` is a content digest of the queries (text and evidence), for cache keys."""

    source: str
    qset: QuerySet
    labelled: tuple[GoldQuery, ...]
    key: str


def _store(doc: Document) -> dict[str, tuple[str, Stored]]:
    return st.session_state.setdefault(keys.QUERY_SETS, {}).setdefault(doc.digest, {})


def stash_query_set(doc: Document, source: str, name: str, jsonl: Stored) -> None:
    """Keep ``jsonl`` (text, or an upload's bytes) as this document's ``source`` set and make
    it the active one; an upload that would pass this session's budget of bytes held is not
    kept (why, under ``QS_REFUSED``) and the set in use stays."""
    if source == "upload":
        refused = over_budget(len(jsonl), f"The query file {name[:80]!r}")
        st.session_state[keys.QS_REFUSED] = refused
        if refused:
            return
    _store(doc)[source] = (name, jsonl)
    st.session_state[keys.QS_PICK] = source


def session_set(doc: Document) -> QuerySet:
    """The questions labelled in this session on this document (possibly none)."""
    name, data = _store(doc).get("session", (SESSION_SET, ""))
    return read_query_set(data, doc, name) if data else QuerySet(name, (), ())


def add_session_query(prep: PreparedDoc, question: str, evidence) -> str:
    """Add (question, evidence passage or span) to the session set; returns the new id.

    Raises:
        UserError: when the question is blank or the evidence is not in the document.
    """
    doc = prep.document
    queries = add_query(session_set(doc).queries, doc, question, evidence)
    _store(doc)["session"] = (SESSION_SET, QuerySet(SESSION_SET, queries, ()))
    return queries[-1].id


def label_from_widget(prep: PreparedDoc, question: str, passage_key: str, error_key: str) -> None:
    """An ``on_click``: the passage in the text area ``passage_key`` becomes ``question``'s
    evidence in the session set; a problem is kept under ``error_key`` (see :func:`label_error`)."""
    st.session_state[error_key] = ""
    try:
        add_session_query(prep, question, st.session_state.get(passage_key, ""))
    except UserError as exc:
        st.session_state[error_key] = user_message(exc)


def label_error(error_key: str) -> str:
    """The message :func:`label_from_widget` kept under ``error_key`` ("" when it worked)."""
    return str(st.session_state.get(error_key) or "")


def _stash_upload() -> None:
    upload = st.session_state.get(keys.QS_FILE)
    doc = st.session_state.get(keys.QS_DOC_TEXT)
    if upload is None or doc is None:
        return
    stash_query_set(doc, "upload", upload.name, upload.getvalue())


def _follow_radio(key: str) -> None:
    """The user's pick on the radio becomes the active source (before the script runs)."""
    st.session_state[keys.QS_PICK] = st.session_state.get(key)


def format_help(key: str = keys.FORMAT_HELP) -> None:
    """The query format, a template and a worked example on the sample, for download."""
    with st.expander("The labelled query format (and a template to fill in)"):
        st.markdown(QUERY_FORMAT)
        c1, c2 = st.columns(2)
        download(
            "Template (JSON Lines)",
            TEMPLATE_JSONL,
            "queries-template.jsonl",
            key=keys.template_download(key),
            where=c1,
        )
        download(
            "Worked example on the sample",
            worked_example(),
            "harbor-example.queries.jsonl",
            key=keys.example_download(key),
            where=c2,
        )
        st.caption(
            "No file yet? Label questions as you explore (Explorer: *Add to my query set*), or "
            "let an LLM write a set on the *Answers (LLM)* page."
        )


def _available(doc_choice: str | None, doc: Document) -> dict[str, tuple[str, Stored]]:
    found: dict[str, tuple[str, Stored]] = {}
    if doc_choice in samples.SAMPLES and samples.sample_queries_text(doc_choice):
        found["sample"] = (
            samples.SAMPLES[doc_choice].queries_filename,
            samples.sample_queries_text(doc_choice),
        )
    found.update(_store(doc))
    return {s: found[s] for s in SOURCES if s in found}


def read_query_set(data: Stored, doc: Document, name: str) -> QuerySet:
    """A stored set: kept queries as they are, an upload's bytes decoded, text parsed (at
    most :data:`~scar_viz.queries.reading.MAX_QUERIES` queries).

    Raises:
        SettingsError: the bytes are not UTF-8, or hold too many queries.
    """
    if isinstance(data, QuerySet):
        return data
    if isinstance(data, bytes):
        return decode_queries(data, doc, name, limit_hint=APP_LIMIT, should_stop=stop_check())
    return parse_queries(data, doc, name, limit_hint=APP_LIMIT, should_stop=stop_check())


def evidence_spans(text: str, doc: Document) -> tuple[list[tuple[int, int]], list[str]]:
    """The distinct evidence spans of a query set's JSON Lines ``text`` and its line errors
    (:func:`~scar_viz.queries.reading.evidence_units`); none, with the message shown,
    when the set cannot be read (over the limit of queries a file)."""
    if not text:
        return [], []
    found = attempt(lambda: evidence_units(text, doc, APP_LIMIT, stop_check()))
    return found or ([], [])


def issues_block(qset: QuerySet) -> None:
    """The file's problems: a count, an example, and every message in an expander."""
    if qset.errors:
        alert(f"{len(qset.errors)} line(s) of '{qset.name}' are invalid and were skipped.")
    if qset.notes:
        alert(f"{len(qset.notes)} note(s) on '{qset.name}': e.g. {qset.notes[0]}", "info")
    if qset.issues:
        with st.expander(f"All {len(qset.issues)} messages on the query file"):
            show_table(
                pd.DataFrame(issue_rows(qset.issues)),
                hide_index=True,
                key=keys.issues_table(qset.name),
            )


def query_set_picker(prep: PreparedDoc, doc_choice: str | None) -> ActiveQueries | None:
    """The query-set block of an Evaluation-lab page: source, upload, format help, counts.

    Returns None after showing why no set can be used.
    """
    text = prep.document
    st.session_state[keys.QS_DOC_TEXT] = text
    st.subheader("Query set")
    st.file_uploader(
        "Labelled queries (JSON Lines: id, query, evidence [{text, start, end}], type)",
        type=["jsonl", "json", "txt"],
        key=keys.QS_FILE,
        on_change=_stash_upload,
        help="One query a line, offsets into the document above. Stale offsets are repaired "
        "when the evidence text occurs exactly once.",
    )
    format_help()
    if st.session_state.get(keys.QS_REFUSED):
        alert(st.session_state[keys.QS_REFUSED])
    sources = _available(doc_choice, text)
    if not sources:
        st.info(
            "This document has no labelled queries yet: upload a file in the format above, "
            "label questions in the Explorer, or generate a set with an LLM."
        )
        return None
    picked = st.session_state.get(keys.QS_PICK)
    if picked not in sources:
        picked = next(iter(sources))
    # ``qs_pick`` is the truth; the radio is drawn afresh (a key per pick) whenever it changes
    # from outside it (a set stashed by an upload, a label or an LLM; another page of the
    # section), since a widget's own state would win over its ``index``.
    key = keys.query_source(picked)
    source = st.radio(
        "Use",
        list(sources),
        index=list(sources).index(picked),
        format_func=lambda s: f"{SOURCES[s]} ({sources[s][0]})",
        horizontal=True,
        key=key,
        on_change=_follow_radio,
        args=(key,),
    )
    st.session_state[keys.QS_PICK] = source
    name, data = sources[source]
    qset = attempt(lambda: read_query_set(data, text, name))
    if qset is None:
        return None
    issues_block(qset)
    if not qset.queries:
        st.error("No valid query is left in this set; fix the lines listed above.")
        return None
    labelled = attempt(
        lambda: tuple(label_queries(qset, text, prep.chunks)),
        "The evidence cannot be mapped to chunks:",
    )
    if labelled is None:
        return None
    return ActiveQueries(source, qset, labelled, query_set_key(labelled))


def type_metrics(labelled: tuple[GoldQuery, ...], config_label: str) -> None:
    """Counts of queries by type under the current chunking, and what the types mean."""
    counts = type_counts(labelled)
    c = st.columns(5)
    c[0].metric("Queries", len(labelled))
    c[1].metric("Fragmented", counts["fragmented"])
    c[2].metric("Atomic", counts["atomic"])
    c[3].metric("Scattered", counts["scattered"])
    c[4].metric("Type differs from the file", sum(q.type_changed for q in labelled))
    st.caption(
        f"Gold chunks and types are recomputed under {config_label} (gold: the minimal run "
        "covering every non-whitespace character of each span). Fragmented: two gold chunks "
        "are consecutive, the evidence crosses a boundary; atomic: one gold chunk; scattered: "
        "two or more gold chunks, none consecutive (no neighbour policy can join them)."
    )


@st.cache_data(show_spinner=False, max_entries=32)
def _query_vecs(model_id: str, texts: tuple[str, ...], _embedder) -> np.ndarray:
    questions = query_side(_embedder)
    return embed_cached(questions, list(texts), disk_cache(), should_stop=stop_check()).vectors


def query_vectors(embedder, labelled) -> np.ndarray | None:
    """(Q, d) vectors of the questions (cached by model and text), or None after a message."""
    texts = tuple(q.query.query for q in labelled)
    return attempt(
        lambda: _query_vecs(embedder.model_id, texts, embedder), "Embedding the queries failed:"
    )


def content_key(prep: PreparedDoc, queries: ActiveQueries | Sequence[GoldQuery], tag: str) -> tuple:
    """What a result depends on besides its settings: document, chunking, model, prepending
    the queries' content (never ids alone, names or the user), and the sidebar's retriever
    when it is not dense. ``queries`` is the active
    set or any labelled queries (a half of it, a second set)."""
    qkey = queries.key if isinstance(queries, ActiveQueries) else query_set_key(queries)
    retriever = current_retriever()
    tail = () if retriever.dense else (("retriever", retriever.name, retriever.k_rrf),)
    return (tag, *prepared_key(prep), qkey, *tail)


def known_sets(doc_choice: str | None, doc: Document) -> list[QuerySet]:
    """Every labelled set of this document (the active one first), for looking up a question's
    known evidence; a set that cannot be read is left out (its page says why)."""
    sources = _available(doc_choice, doc)
    order = sorted(sources, key=lambda s: s != st.session_state.get(keys.QS_PICK))
    out = []
    for source in order:
        name, data = sources[source]
        try:
            out.append(read_query_set(data, doc, name))
        except UserError:
            continue
    return out


def set_text(doc_choice: str | None, doc: Document, source: str) -> str:
    """The file behind ``source``'s set as text (e.g. for its reference answers); "" if none."""
    _, data = _available(doc_choice, doc).get(source, ("", ""))
    if isinstance(data, QuerySet):
        return to_jsonl(data.queries, doc)
    return data.decode("utf-8-sig", errors="replace") if isinstance(data, bytes) else data


def active_set_text(doc_choice: str | None, doc: Document) -> tuple[str, str]:
    """(a line naming it, its JSON Lines text) of this document's active query set — the one
    the Evaluation lab's pages use (:data:`~ui.keys.QS_PICK`, else the first there is) — or
    ("", "") when the document has none."""
    sources = _available(doc_choice, doc)
    if not sources:
        return "", ""
    picked = st.session_state.get(keys.QS_PICK)
    source = picked if picked in sources else next(iter(sources))
    return f"{sources[source][0]} ({SOURCES[source].lower()})", set_text(doc_choice, doc, source)


def stash_lab_upload(doc: Document, upload_key: str) -> None:
    """``on_change`` of an uploader of a page other than the Evaluation lab's: the file
    becomes this document's uploaded set, the active one on every page."""
    upload = st.session_state.get(upload_key)
    if upload is not None:
        stash_query_set(doc, "upload", upload.name, upload.getvalue())
