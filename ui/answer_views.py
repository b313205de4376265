"""The Answers page's result views: a generated query set and an answer check.

Every text from the document, the query file or a model (questions, answers, judge replies,
file names) is shown escaped: in ``ui.alerts.alert`` boxes or in dataframes, never as markdown.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import streamlit as st

from scar_viz.llm.answer_json import answer_json
from scar_viz.llm.check import AnswerCheck
from scar_viz.llm.querygen import GeneratedSet
from scar_viz.views import answers
from scar_viz.views.answers import DIFF_COLUMN
from ui import keys
from ui.alerts import alert
from ui.by_file import by_file_table
from ui.share import download
from ui.tables import show_table


def generated_view(
    label: str, gs: GeneratedSet, on_load: Callable, args: tuple, loaded: bool = False
) -> None:
    """Counts, tokens, the kept/dropped report, the download and the load button (``loaded``:
    the set is the Evaluation lab's active one)."""
    view = answers.generated_view(gs)
    m = st.columns(4)
    m[0].metric("Kept", view.kept)
    m[1].metric("Fragmented", view.fragmented)
    m[2].metric("Atomic", view.atomic)
    m[3].metric("Dropped", view.dropped)
    alert(f"Made under {label}. Tokens spent: {view.usage}.", "caption")
    for note in view.notes:
        alert(note, "info")
    show_table(view.outcomes, hide_index=True, key=keys.GEN_REPORT)
    with st.expander(f"The {view.kept} kept questions"):
        show_table(view.kept_rows, hide_index=True, key=keys.GEN_KEPT)
    if view.dropped:
        with st.expander(f"The {view.dropped} dropped questions, with the reason"):
            show_table(view.drop_rows, hide_index=True, key=keys.GEN_DROPS)
    if not view.kept:
        alert("No generated question was kept; the table above says why.", "warning")
        return
    d1, d2 = st.columns(2)
    download(
        "Download the set (JSON Lines)",
        gs.jsonl(),
        "generated.queries.jsonl",
        key=keys.GEN_DOWNLOAD,
        where=d1,
    )
    d2.button(
        "Use it in the Evaluation lab",
        key=keys.GEN_LOAD,
        icon=":material/playlist_add_check:",
        on_click=on_load,
        args=args,
        help="Makes this set the active query set of every Evaluation-lab page (this session).",
    )
    if loaded:
        st.success(
            "Loaded: the Evaluation lab's pages use this set now (source: Generated with an "
            "LLM). Download it to keep it beyond this session.",
            icon=":material/check_circle:",
        )


def check_view(check: AnswerCheck, stale: bool) -> None:
    """Per-policy means, significance, tokens, unparseable replies, the answers side by side
    for one query, the judge's verdicts, and the JSON download."""
    view = answers.check_view(check)
    if stale:
        alert("The settings changed since this run; run the check again to update it.", "warning")
    alert(view.caption, "caption")
    st.subheader("Per policy (means over the queries scored)")
    show_table(view.summary, hide_index=True, key=keys.ANS_SUMMARY)
    for problem in view.errors:
        alert(problem, "warning")
    by_file_table(
        view.by_file,
        keys.ANS_BY_FILE,
        "Each policy's mean scores over each file's queries (those scored) and its mean "
        "context tokens.",
    )
    alert(f"Tokens spent: {view.usage}.", "caption")
    if view.comparisons:
        st.subheader("SCAR against each policy (paired bootstrap, B = 10,000; Cohen's d)")
        show_table(view.comparisons, hide_index=True, key=keys.ANS_SIGNIFICANCE)
    if view.unparseable:
        alert(
            f"{len(view.unparseable)} judge replies could not be parsed; those scores are left "
            "empty (not counted as zero).",
            "warning",
        )
        with st.expander("The unparseable replies"):
            show_table(view.unparseable, hide_index=True, key=keys.ANS_UNPARSEABLE)
    st.subheader("Answers side by side")
    choices = view.choices
    qid = st.selectbox("Query", list(choices), format_func=choices.get, key=keys.ANS_QUERY)
    shown = view.queries.get(qid) or answers.QueryAnswers([], [])
    rows = shown.side
    for col, row in zip(st.columns(len(rows) or 1), rows, strict=False):
        col.markdown(f"**{row['policy']}**")
        alert(str(row["answer"]), "info", col)
        alert(str(row[DIFF_COLUMN]), "caption", col)
    show_table(rows, hide_index=True, key=keys.ANS_SIDE)
    with st.expander("What the judge said (claims, questions written from the answers)"):
        show_table(shown.claims, hide_index=True, key=keys.ANS_CLAIMS)
    download(
        "Download the answer check (JSON)",
        json.dumps(answer_json(check), ensure_ascii=False, indent=2),
        "answer-check.json",
        key=keys.ANS_DOWNLOAD,
    )
