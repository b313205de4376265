"""The Explorer's corpus section: the table of files and their small multiples.

Shown when the document joins several files
(:attr:`scar_viz.documents.reading.Document.several_files`), above the overview. A click on a
cell or a mark of the small multiples focuses that chunk; a click on a table row focuses its
file's best chunk (the same focus key a click in the overview sets,
:func:`ui.gate_panel.remember_overview_click`), so the overview, the focus rows and the live
panel follow on the rerun the click starts. The overview then draws the focused file alone (its
path in the axis title, corpus chunk indices on the axis); retrieval still ranks every chunk of
the corpus.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st

from scar_viz.charts.corpus import MAX_ROWS, corpus_spec
from scar_viz.common.fmt import elide_middle
from scar_viz.pipeline import PreparedDoc
from scar_viz.queries.gold import GoldQuery, label_queries, query_set_key
from scar_viz.views.corpus import CorpusView, corpus_view, loaded_view
from scar_viz.views.focus import Overview, overview_data
from ui import keys
from ui.cache import cached
from ui.gate_panel import remember_overview_click
from ui.hits import remember_pick
from ui.queryset import known_sets
from ui.setup import Setup
from ui.share import pickable_chart
from ui.tables import grid_table, show_table

COLUMNS = {
    "file": st.column_config.TextColumn("file", help="The file's path in the corpus"),
    "chunks": st.column_config.NumberColumn("chunks", width="small"),
    "characters": st.column_config.NumberColumn("characters", format="localized"),
    "retrieved": st.column_config.NumberColumn(
        "retrieved", width="small", help="This question's top-k chunks in the file"
    ),
    "admitted": st.column_config.NumberColumn(
        "admitted", width="small", help="Neighbours the gate admits (never past a file's edge)"
    ),
    "queries": st.column_config.NumberColumn(
        "queries", width="small", help="Queries of the loaded set with gold chunks in the file"
    ),
    "fragmented queries": st.column_config.NumberColumn(
        "fragmented", width="small", help="Of those, queries whose evidence crosses a boundary"
    ),
    "best cos(q,c)": st.column_config.NumberColumn("best cos(q,c)", format="%.3f"),
}
TABLE_ROWS = 8
"""Rows the table shows before it scrolls."""
PICK_FILES = 12
"""Presenter mode's file buttons: the table's first files (those holding hits come first)."""
PATH_CHARS = 48
"""Longest path the table shows; a longer one is cut in the middle, its file name kept."""
OPEN_CHARS = 90
"""Longest path of the open file's line (the whole path on hover)."""


def _gold(setup: Setup) -> tuple[GoldQuery, ...] | None:
    """The first labelled set of this corpus (the active one first) under the current
    chunking, or None when there is none."""
    prep = setup.prepared
    sets = [s for s in known_sets(setup.name, prep.document) if s.queries]
    if not sets:
        return None
    queries = sets[0].queries
    return cached(
        ("corpus-gold", *setup.key, query_set_key(queries)),
        lambda: label_queries(queries, prep.document, prep.chunks),
    )


def _focus_row(table_key: str, best: Sequence[int]) -> Callable[[], None]:
    """An ``on_select`` callback: the picked row's file's best chunk becomes the focus."""

    def remember() -> None:
        held = st.session_state.get(table_key) or {}
        rows = (held.get("selection") or {}).get("rows") or []
        if rows and 0 <= rows[0] < len(best) and best[rows[0]] >= 0:
            st.session_state[keys.FOCUS] = int(best[rows[0]])

    return remember


def _corpus(setup: Setup) -> PreparedDoc | None:
    """The prepared document when it joins several files (the section's one test); None for
    a single file, which has no corpus section."""
    prep = setup.prepared
    return prep if prep.document.several_files else None


def corpus_data(setup: Setup, sims: np.ndarray, sel) -> CorpusView | None:
    """This question's :class:`CorpusView` (with the loaded query set's counts, if any);
    None for a single file."""
    prep = _corpus(setup)
    if prep is None:
        return None
    return corpus_view(prep.document, prep.doc_of, sims, sel, _gold(setup))


def loaded_section(setup: Setup, big: bool) -> None:
    """Before any question, on a corpus: what was loaded (the table of files with their chunks
    and characters, and the small multiples coloured by chunk length). Nothing on one file."""
    prep = _corpus(setup)
    if prep is not None:  # a few milliseconds; the loaded set's counts follow (not cached)
        view = loaded_view(prep.document, prep.doc_of, prep.chunks, _gold(setup))
        corpus_section(view, None, big)


def overview_source(
    view: CorpusView | None, sims: np.ndarray, sel, focus: int | None, big: bool
) -> tuple[Overview, int, str | None]:
    """What the overview draws: (Overview, first chunk's corpus index, file path or None).
    A single file: the whole document. A corpus: the Corpus section first, then the
    focused file."""
    if view is None:
        return overview_data(sims, sel), 0, None
    corpus_section(view, focus, big)
    return file_overview(view, focus)


def focused_file(view: CorpusView, focus: int | None) -> int:
    """The file the overview draws: the focused chunk's, else the table's first."""
    if focus is not None and 0 <= focus < view.overview.n:
        return view.file_of(focus)
    return int(view.order[0])


def file_overview(view: CorpusView, focus: int | None) -> tuple[Overview, int, str]:
    """(the focused file's Overview, its first chunk's corpus index, its path); the path is
    shown above the overview (escaped: it is untrusted text)."""
    d = focused_file(view, focus)
    st.html(
        f'<div data-testid="sv-open-file" style="font-weight:600">Open file: '
        f'<span title="{html.escape(view.paths[d], quote=True)}">'
        f"{html.escape(elide_middle(view.paths[d], OPEN_CHARS))}</span> "
        f'<span style="font-weight:400;opacity:.7">· its {int(view.counts[d]):,} chunks '
        f"({int(view.retrieved[d])} retrieved)</span></div>"
    )
    return view.file_overview(d), int(view.first[d]), view.paths[d]


def corpus_section(view: CorpusView, focus: int | None, big: bool) -> None:
    """The table of files and the small multiples, under a "Corpus" heading."""
    st.subheader("Corpus")
    if view.asked:
        st.caption(
            f"{view.n_files:,} files, {view.overview.n:,} chunks; this question's hits fall in "
            f"{view.with_hits:,} of them. Retrieval ranks every chunk of the corpus; no "
            "neighbour is admitted past its file's edge. Click a file or a mark to open it below."
        )
    else:
        st.caption(
            f"Loaded: {view.n_files:,} files, {view.overview.n:,} chunks. Each row below is a "
            "file cut into its chunks, darker for longer ones; ask a question above to see "
            "where its hits fall."
        )
    columns = view.columns()
    full = [str(p) for p in columns["file"]]
    columns["file"] = [elide_middle(p, PATH_CHARS) for p in full]
    best = view.best_chunk[view.order].tolist()
    config = {c: COLUMNS[c] for c in columns}
    if big:  # the grid draws ~14 px text on a canvas: a large table, a button per file
        show_table(
            grid_table(columns), hide_index=True, column_config=config, titles={"file": full}
        )
        chunks = [c for c in best[:PICK_FILES] if c >= 0]  # each file by its best chunk
        if chunks:
            st.pills(
                "Open a file",
                chunks,
                format_func=lambda c: elide_middle(view.paths[view.file_of(c)], PATH_CHARS),
                key=keys.CORPUS_PICK,
                on_change=remember_pick(keys.CORPUS_PICK, keys.FOCUS),
            )
    else:
        st.dataframe(
            grid_table(columns),
            hide_index=True,
            key=keys.CORPUS_TABLE,
            column_config=config,
            on_select=_focus_row(keys.CORPUS_TABLE, best),
            selection_mode="single-row",
            height=(min(view.n_files, TABLE_ROWS) + 1) * 35 + 3,
        )
    fig = corpus_spec(view, focus, max_rows=MAX_ROWS, font_size=16 if big else 11)
    hidden = fig["layout"]["meta"]["hidden"]
    if not view.asked:
        st.caption("Hover a row for its whole path and a chunk's length.")
    pickable_chart(
        fig,
        keys.CORPUS_CHART,
        remember_overview_click(keys.CORPUS_CHART, keys.FOCUS),
        "corpus",
        displayModeBar=False,
    )
    if hidden:
        why = "fewer hits, lower best cos(q,c)" if view.asked else "later in the corpus"
        st.caption(f"{hidden:,} more files ({why}) are not drawn; the table lists every file.")
