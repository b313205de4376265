"""The hits list under the Explorer's overview: a click on a row focuses that chunk (in
presenter mode, a large table and one button per hit, since the grid's text stays small).

The same focus a click in the overview sets (:func:`ui.gate_panel.remember_overview_click`):
the row's chunk goes into the focus key before the (fragment) rerun the click starts, so the
overview's outline and the gate panel's focus rows follow on that same run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from scar_viz.documents.sections import FRONT_MATTER
from scar_viz.scoring.lexical import QuestionLex, question_lex
from scar_viz.views.hits import Hit
from ui import keys
from ui.cache import cached
from ui.presenter import presenting
from ui.tables import as_frame, grid_table, show_table

COLUMNS = {
    "rank": st.column_config.NumberColumn("rank", width="small"),
    "chunk": st.column_config.NumberColumn("chunk", width="small"),
    "position": st.column_config.NumberColumn(
        "position", format="%.0f %%", help="How far through the document the chunk starts"
    ),
    "section": st.column_config.TextColumn("section"),
    "cos(q,c)": st.column_config.NumberColumn("cos(q,c)", format="%.3f"),
    "dense rank": st.column_config.NumberColumn(
        "dense rank", width="small", help="The chunk's rank by cos(q,c) among all chunks"
    ),
    "BM25 rank": st.column_config.NumberColumn(
        "BM25 rank", width="small", help="The chunk's rank by its BM25 score among all chunks"
    ),
    "BM25": st.column_config.NumberColumn("BM25", format="%.2f", help="The chunk's BM25 score"),
    "gold": st.column_config.TextColumn(
        "gold", width="small", help="★: the chunk holds the labelled question's evidence"
    ),
}

ROW_PX = 35
"""Row height of the hits table in pixels, fixed so that a row's place on screen does not
depend on the page's type size (presenter mode draws larger text around a canvas grid)."""


def _remember_row(table_key: str, focus_key: str, chunks: Sequence[int]) -> Callable[[], None]:
    """An ``on_select`` callback: the picked row's chunk becomes the focus (an empty selection
    leaves the focus as it was)."""

    def remember() -> None:
        held = st.session_state.get(table_key) or {}
        rows = (held.get("selection") or {}).get("rows") or []
        if rows and 0 <= rows[0] < len(chunks):
            st.session_state[focus_key] = int(chunks[rows[0]])

    return remember


def remember_pick(pick_key: str, focus_key: str) -> Callable[[], None]:
    """An ``on_change`` callback of buttons whose values are chunks (presenter mode's hits,
    the corpus' files by their best chunk): the picked chunk becomes the focus."""

    def remember() -> None:
        chunk = st.session_state.get(pick_key)
        if chunk is not None:
            st.session_state[focus_key] = int(chunk)

    return remember


def retrieval_scores(
    setup, query: str, sims: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None, QuestionLex]:
    """(BM25 score of every chunk, the sidebar retriever's scores the top-k is taken by or None
    for dense, the question's words over the chunks for μ and a lexical gate) for ``query`` on
    ``setup``'s document (a :class:`ui.setup.Setup`), each cached once per question."""
    prep = setup.prepared
    lexical = cached(("bm25", *setup.key, query), lambda: prep.bm25.scores(query))
    words = cached(
        ("words", *setup.key, query), lambda: question_lex([c.text for c in prep.chunks], query)
    )
    if setup.retriever.dense:
        return lexical, None, words
    rank = cached(
        ("rank", *setup.key, query),
        lambda: prep.ranking(setup.retriever, sims[None, :], [query])[0],
    )
    return lexical, rank, words


@functools.lru_cache(maxsize=32)
def hits_table(found: tuple[Hit, ...]) -> object:
    """The hits as the grid's table (:func:`ui.tables.grid_table`), once per hits: they change
    with the question, k and the retriever, not with λ and τ, whose every release redraws the
    list. A document without headings has no section column."""
    rows = [h.as_row() for h in found]
    names = [c for c in COLUMNS if not rows or c in rows[0]]
    if rows and all(row["section"] == FRONT_MATTER for row in rows):
        names.remove("section")
    return grid_table([{c: row[c] for c in names} for row in rows])


def hits_list(found: Sequence[Hit]) -> None:
    """The retrieved chunks, best first, in an expander under the overview (closed at first:
    the overview and the gate panel come first on screen)."""
    with st.expander(
        "Hits: every retrieved chunk, best first (click a row to focus it)",
        key=keys.HITS_OPEN,
    ):
        table = hits_table(tuple(found))
        names = list(table.columns) if isinstance(table, pd.DataFrame) else table.column_names
        config = {c: COLUMNS[c] for c in names}
        chunks = [h.chunk for h in found]
        if presenting():  # the grid draws ~14 px text on a canvas: a large table and buttons
            show_table(as_frame(table), hide_index=True, column_config=config)
            st.pills(
                "Focus a hit",
                chunks,
                format_func=lambda c: f"chunk {c}",
                key=keys.HITS_PICK,
                on_change=remember_pick(keys.HITS_PICK, keys.FOCUS),
            )
            return
        st.dataframe(
            table,
            hide_index=True,
            width="content",
            key=keys.HITS_TABLE,
            column_config=config,
            on_select=_remember_row(keys.HITS_TABLE, keys.FOCUS, chunks),
            selection_mode="single-row",
            row_height=ROW_PX,
            height=(len(found) + 1) * ROW_PX + 3,  # every hit shown, no inner scrolling
        )
