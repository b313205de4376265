"""Sharing a view: the address holds the settings (a built-in sample's or sample corpus' id
among them); a session file also holds an uploaded document, or every file of an uploaded
corpus; charts download as PNG or SVG."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import PurePath

import plotly.graph_objects as go
import streamlit as st

from scar_viz.documents.reading import Document
from scar_viz.documents.samples import UPLOAD
from scar_viz.queries.reading import QuerySet
from scar_viz.scoring.learned import GateFileError, LearnedGate
from scar_viz.views.session import SETTING_KEYS, SavedWork, dumps, loads
from ui import keys
from ui.alerts import alert
from ui.consent import came_from_file
from ui.learned import keep_gate
from ui.state import URL, set_widget


def _restore() -> None:
    upload = st.session_state.get(keys.SESSION_FILE)
    if upload is None:
        return
    try:
        saved = loads(upload.getvalue())
    except ValueError as exc:  # one sentence, after the file's name (the uploader's: escaped)
        st.session_state[keys.SESSION_ERROR] = f"'{upload.name}': {exc}"
        st.session_state[keys.SESSION_NOTE] = ""  # a note of an earlier file no longer holds
        return
    st.session_state[keys.SESSION_ERROR] = ""
    st.session_state[keys.SESSION_NOTE] = saved.reset_note
    if saved.document is not None:
        st.session_state[keys.UPLOADED] = (saved.document.digest, saved.document)
        st.session_state[keys.UPLOAD_SKIPPED] = ((), ())
    _restore_work(saved.work)
    came_from_file(list(saved.settings))  # an endpoint it names is its proposal, not a choice
    for key, value in saved.settings.items():
        if key == "doc" and value == UPLOAD and saved.document is None:
            continue  # an upload that the file does not carry: keep the current document
        set_widget(key, value)


def _restore_work(work: SavedWork) -> None:
    """The file's query sets (active one picked) and fitted gate back into the session."""
    if work.query_sets and work.doc_key:
        store = st.session_state.setdefault(keys.QUERY_SETS, {})
        store[work.doc_key] = {s: (n, t) for s, (n, t) in work.query_sets.items()}
        if work.query_pick:
            st.session_state[keys.QS_PICK] = work.query_pick
    if work.gate:
        try:
            keep_gate(LearnedGate.from_json(work.gate))  # the file's gate, on the shelf too
        except GateFileError:
            st.session_state[keys.GATE_JSON] = work.gate  # as before: read, and refused, later
        if work.p is not None:  # the file's p, even where this session moved its slider
            st.session_state[keys.P_KEPT] = work.p
            set_widget(keys.P, work.p)


def _jsonl(data: object) -> str:
    """A kept query set as JSON Lines text (an upload's bytes decoded, kept queries written)."""
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    if isinstance(data, QuerySet):
        return "\n".join(json.dumps(q.as_row(), ensure_ascii=False) for q in data.queries)
    return str(data)


def current_work(document: Document | None) -> SavedWork:
    """This session's query sets of ``document``, the active one, and the fitted gate."""
    doc_key = document.digest if document is not None else ""
    kept = (st.session_state.get(keys.QUERY_SETS) or {}).get(doc_key, {})
    sets = {source: (name, _jsonl(data)) for source, (name, data) in kept.items()}
    pick = st.session_state.get(keys.QS_PICK)
    gate = st.session_state.get(keys.GATE_JSON) or None
    p = st.session_state.get(keys.P, st.session_state.get(keys.P_KEPT))
    return SavedWork(doc_key, sets, pick if pick in sets else None, gate, p)


def share_panel(document: Document | None) -> None:
    """Sidebar block: how to share, save-session download, restore-session upload."""
    with st.sidebar.expander("Share this view", expanded=False):
        st.caption(
            "The address in your browser holds every setting of this page: copy it to "
            "share exactly this view."
        )
        uploaded = st.session_state.get(keys.DOC) == UPLOAD
        if uploaded:
            st.warning(
                "An uploaded document cannot travel in a link. Save a session file "
                "(settings + document text, every file of a corpus) and send that instead."
            )
        settings = {k: st.session_state[k] for k in SETTING_KEYS if k in st.session_state}
        work = current_work(document)
        download(
            "Save session file (JSON)",
            lambda: dumps(settings, document, uploaded, work),
            "scar-viz-session.json",
            key=keys.SAVE_SESSION,
        )
        st.selectbox(
            "Chart download format (camera icon on each chart)",
            ["png", "svg"],
            key=keys.IMG_FMT,
            bind=URL,
        )
        st.file_uploader(
            "Restore a session file", type=["json"], key=keys.SESSION_FILE, on_change=_restore
        )
        if st.session_state.get(keys.SESSION_ERROR):
            alert(st.session_state[keys.SESSION_ERROR])
        if st.session_state.get(keys.SESSION_NOTE):
            alert(st.session_state[keys.SESSION_NOTE], "warning")


def chart_config(name: str) -> dict:
    """Plotly config: the camera button saves the chart as PNG or SVG (Share panel choice)."""
    fmt = st.session_state.get(keys.IMG_FMT, "png")
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": fmt, "filename": f"scar-viz-{name}", "scale": 2},
    }


MIME = {".json": "application/json", ".jsonl": "application/jsonl", ".csv": "text/csv"}
"""Download types by file ending."""


def download(
    label: str,
    data: str | bytes | Callable[[], str | bytes],
    file_name: str,
    key: str,
    where=st,
) -> None:
    """One download button, drawn the same everywhere: the type from the file's ending, the
    download icon, and no rerun on the click (nothing on the page changes). ``data`` may be a
    function, called only when the button is pressed; ``where`` is a column or container."""
    where.download_button(
        label,
        data=data,
        file_name=file_name,
        mime=MIME.get(PurePath(file_name).suffix, "application/octet-stream"),
        key=key,
        icon=":material/download:",
        on_click="ignore",
    )


class PlainFigure(go.Figure):
    """A figure Streamlit draws from its plain dict (:func:`scar_viz.charts._style.
    figure_spec`) as it is: no plotly objects are built, and ``to_dict`` is the dict itself.

    ``st.plotly_chart`` validates a dict it is given by building a ``go.Figure`` of it and
    calls ``to_dict`` (a deep copy, then every array to base64) on a figure: on a 25-file
    corpus that was 45 ms of every λ release for the small multiples alone, against 2 ms for
    the dict and its JSON. Only ``to_dict`` may be called on it.
    """

    def __init__(self, spec: dict) -> None:  # noqa: D107 — no plotly init, on purpose
        object.__setattr__(self, "_spec", spec)

    def to_dict(self) -> dict:
        return self._spec


def pickable_chart(fig, key: str, on_pick: Callable[[], None], name: str, **config) -> None:
    """A chart whose points the user clicks to pick something (a setting, a chunk):
    ``on_pick`` runs on a click and reads ``st.session_state[key]``; the camera button
    saves it as ``scar-viz-{name}``; ``config`` adds Plotly config (``displayModeBar``).
    ``fig``: a plotly figure, or a plain figure dict (drawn as :class:`PlainFigure`)."""
    st.plotly_chart(
        PlainFigure(fig) if isinstance(fig, dict) else fig,
        key=key,
        on_select=on_pick,
        selection_mode="points",
        config={**chart_config(name), **config},
    )
