"""The sidebar's document: a built-in sample, an upload (one file, several or a .zip) or an
index; for an uploaded corpus, its files and the ones skipped.
"""

from __future__ import annotations

import streamlit as st

from scar_viz.documents import samples
from scar_viz.documents.reading import Document
from scar_viz.documents.samples import UPLOAD
from ui import keys
from ui.alerts import alert
from ui.cache import sample_document
from ui.loading import SHOWN_SKIPPED, UPLOAD_TYPES, read_upload, upload_limits
from ui.named_select import named_select
from ui.store_open import STORE_CHOICE, STORE_NAME, store_picker

NO_DOCUMENT = (
    "Upload a document in the sidebar (txt, md, pdf, html or a source file), several files or "
    "a .zip for a corpus, or pick a built-in sample. Opened from a shared link? An uploaded "
    "document cannot travel in a link; it travels in a session file. Ask the sender for "
    "theirs and open it under Share this view → Restore a session file."
)


def sidebar_document() -> tuple[str, Document] | None:
    """Document picker (built-in sample, upload, or an index). Returns (content key,
    document); None for an index (its folder is kept under ``keys.STORE_OPENED``)."""
    names = {key: samples.document_name(key) for key in [*samples.SAMPLES, UPLOAD]}
    names[STORE_CHOICE] = STORE_NAME
    choice = named_select(st.sidebar, "Document", names, keys.DOC, samples.DEFAULT_SAMPLE)
    area = st.sidebar.container()  # always present, so later widgets keep their places
    st.session_state[keys.STORE_OPENED] = None
    if choice == STORE_CHOICE:
        st.session_state[keys.STORE_OPENED] = store_picker(area)
        return None
    if choice != UPLOAD:
        return sample_document(choice)
    area.file_uploader(
        "A document, several files or a .zip",
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key=keys.UPLOAD_FILE,
        on_change=read_upload,
        help="One file is one document (txt, md, pdf, html, or text and source code such as "
        f"rst, py, java, go). {upload_limits()} Uploads stay on this server for your session "
        "only; they cannot travel in a shared link (a session file carries them).",
    )
    if st.session_state.get(keys.UPLOAD_ERROR):
        alert(st.session_state[keys.UPLOAD_ERROR], "error", area)
    uploaded = st.session_state.get(keys.UPLOADED)
    if uploaded is None:
        alert("No document loaded yet.", "caption", area)
        st.info(NO_DOCUMENT)
        return None
    # the uploader shows no file after a page change or a restored session: name the document
    alert(f"Active: {uploaded[1].name}", "caption", area)
    _upload_summary(uploaded[1], area)
    if uploaded[1].note:
        alert(uploaded[1].note, "caption", area)
    return uploaded


def _upload_summary(document: Document, area) -> None:
    """For an uploaded corpus: "N files · M skipped", and the skipped files with their reasons
    (file names are the uploader's: escaped)."""
    summary, skipped = st.session_state.get(keys.UPLOAD_SKIPPED) or ((), ())
    if not document.several_files and not skipped:
        return
    files = len(document.parts)
    alert(f"{files:,} file{'s' * (files != 1)} · {len(skipped):,} skipped", "caption", area)
    if not skipped:
        return
    with area.expander(f"Skipped files ({len(skipped):,})", expanded=False):
        if len(skipped) > SHOWN_SKIPPED:  # thousands of files: by reason first
            alert("\n".join(summary), "caption")
        listed = [f"{path} — {reason}" for path, reason in skipped[:SHOWN_SKIPPED]]
        if len(skipped) > SHOWN_SKIPPED:
            listed.append(f"… and {len(skipped) - SHOWN_SKIPPED:,} more (counted above)")
        alert("\n".join(listed), "caption")
