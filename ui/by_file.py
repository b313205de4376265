"""The per-file breakdown every Evaluation-lab page shows on a corpus: one heading and one
table (:mod:`scar_viz.evaluation.by_file` builds the rows); nothing on a single document."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from scar_viz.common.fmt import mu_note
from scar_viz.evaluation.by_file import file_groups, sweep_file_rows
from scar_viz.queries.gold import GoldQuery
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.sweep import Candidates
from ui import keys
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


def sweep_by_file(
    labelled: Sequence[GoldQuery], cands: Candidates, marks, params: GateParams
) -> None:
    """The sweep's breakdown on a corpus: window ±1 and SCAR per file at the best mark (when
    there is one) or the sliders' λ, τ, picked by a radio; nothing on a single document.
    ``marks`` are the sweep's marks (:func:`scar_viz.evaluation.tune.sweep_marks`)."""
    if not file_groups(labelled):
        return
    cells = {"sliders": (params.lam, params.tau)}
    if "best" in marks.marks:
        cells = {"best": marks.marks["best"], **cells}
    at = st.radio(
        "SCAR by file at",
        list(cells),
        key=keys.SWEEP_BY_FILE_AT,
        horizontal=True,
        format_func=lambda c: (
            f"the {'best mark' if c == 'best' else c}: λ = {cells[c][0]:.2f}, τ = {cells[c][1]:.2f}"
        ),
    )
    lam, tau = cells[at or next(iter(cells))]
    at_mu = mu_note(params.mu)
    by_file_table(
        sweep_file_rows(labelled, cands, lam, tau, params.mu),
        keys.SWEEP_BY_FILE,
        f"Window ±1 and SCAR at λ = {lam:.2f}, τ = {tau:.2f} (k = {params.k}, r = "
        f"{params.radius}{at_mu}) on each file's queries, from the sweep's candidates.",
    )
