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
from scar_viz.llm.tables import (
    DIFF_COLUMN,
    check_caption,
    claim_rows,
    comparison_rows,
    drop_detail_rows,
    drop_rows,
    file_score_rows,
    kept_rows,
    policy_errors,
    query_choices,
    side_by_side,
    summary_rows,
    unparseable_rows,
    usage_line,
)
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
    m = st.columns(4)
    m[0].metric("Kept", len(gs.queries))
    m[1].metric("Fragmented", gs.type_counts.get("fragmented", 0))
    m[2].metric("Atomic", gs.type_counts.get("atomic", 0))
    m[3].metric("Dropped", len(gs.drops))
    alert(f"Made under {label}. Tokens spent: {usage_line(gs.usage)}.", "caption")
    for note in gs.notes:
        alert(note, "info")
    show_table(drop_rows(gs), hide_index=True, key=keys.GEN_REPORT)
    with st.expander(f"The {len(gs.queries)} kept questions"):
        show_table(kept_rows(gs), hide_index=True, key=keys.GEN_KEPT)
    if gs.drops:
        with st.expander(f"The {len(gs.drops)} dropped questions, with the reason"):
            show_table(drop_detail_rows(gs), hide_index=True, key=keys.GEN_DROPS)
    if not gs.queries:
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
    if stale:
        alert("The settings changed since this run; run the check again to update it.", "warning")
    alert(check_caption(check), "caption")
    st.subheader("Per policy (means over the queries scored)")
    show_table(summary_rows(check), hide_index=True, key=keys.ANS_SUMMARY)
    for problem in policy_errors(check):
        alert(problem, "warning")
    by_file_table(
        file_score_rows(check),
        keys.ANS_BY_FILE,
        "Each policy's mean scores over each file's queries (those scored) and its mean "
        "context tokens.",
    )
    alert(f"Tokens spent: {usage_line(check.usage)}.", "caption")
    if check.comparisons:
        st.subheader("SCAR against each policy (paired bootstrap, B = 10,000; Cohen's d)")
        show_table(comparison_rows(check), hide_index=True, key=keys.ANS_SIGNIFICANCE)
    if check.unparseable:
        alert(
            f"{len(check.unparseable)} judge replies could not be parsed; those scores are left "
            "empty (not counted as zero).",
            "warning",
        )
        with st.expander("The unparseable replies"):
            show_table(unparseable_rows(check), hide_index=True, key=keys.ANS_UNPARSEABLE)
    st.subheader("Answers side by side")
    choices = query_choices(check)
    qid = st.selectbox("Query", list(choices), format_func=choices.get, key=keys.ANS_QUERY)
    rows = side_by_side(check, qid)
    for col, row in zip(st.columns(len(rows) or 1), rows, strict=False):
        col.markdown(f"**{row['policy']}**")
        alert(str(row["answer"]), "info", col)
        alert(str(row[DIFF_COLUMN]), "caption", col)
    show_table(rows, hide_index=True, key=keys.ANS_SIDE)
    with st.expander("What the judge said (claims, questions written from the answers)"):
        show_table(claim_rows(check, qid), hide_index=True, key=keys.ANS_CLAIMS)
    download(
        "Download the answer check (JSON)",
        json.dumps(answer_json(check), ensure_ascii=False, indent=2),
        "answer-check.json",
        key=keys.ANS_DOWNLOAD,
    )
