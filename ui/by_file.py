"""The per-file breakdown every Evaluation-lab page shows on a corpus: one heading and one
table (:mod:`scar_viz.evaluation.by_file` builds the rows); nothing on a single document."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui.tables import show_table

NUM3 = st.column_config.NumberColumn(format="%.3f")
NUM2 = st.column_config.NumberColumn(format="%.2f")
NUM0 = st.column_config.NumberColumn(format="%.0f")
HEADING = "**By file**: each file's queries (the file their evidence is in)"


def _format(column: str) -> object | None:
    # "recall · tokens 600/60" is a recall under the tokens chunker: the metric comes first
    metric = column.split(" · ")[0]
    if metric in ("file", "policy", "queries"):
        return None
    if metric.endswith("tokens"):
        return NUM0
    if metric.endswith("chunks"):
        return NUM2
    return NUM3  # recall and the answer scores


def by_file_table(rows: list[dict[str, object]], key: str, caption: str = "") -> bool:
    """Draw ``rows`` (one per file, or per file and policy) under :data:`HEADING`, numbers
    formatted by what they count, and ``caption`` under the table; nothing when there are no
    rows (a single document). Returns whether a table was drawn."""
    if not rows:
        return False
    frame = pd.DataFrame(rows)
    config = {c: f for c in frame.columns if (f := _format(str(c))) is not None}
    st.markdown(HEADING)
    show_table(frame, hide_index=True, key=key, column_config=config)
    if caption:
        st.caption(caption)
    return True
