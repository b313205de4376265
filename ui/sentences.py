"""The document's sentences, split and embedded once per document and model, with a progress bar;
and the switch that leaves the sentence policies (QASC, its hybrid, the sentence window) out.

The split is read from the on-disk span cache (:mod:`scar_viz.documents.sentence_cache`) and
seeds the in-process memo the policies use; the vectors go through the on-disk embedding cache.
Both run under :func:`ui.cache.cached`, keyed by the document's content, the splitter and the
model, so later pages and reruns skip the step entirely.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from scar_viz.documents.reading import Document
from scar_viz.documents.sentence_cache import cached_sentence_spans
from scar_viz.documents.sentences import DEFAULT_MAX_CHARS
from scar_viz.embeddings import Embedder, embed_cached
from ui.alerts import attempt, with_progress
from ui.cache import cached, disk_cache, document_key, span_cache
from ui.cancel import stop_check

SENTENCE_POLICIES = ("qasc", "qasc-hybrid", "sentence-window")
"""The policies that need every sentence of the document embedded."""
SPLITTER = "pysbd"


def sentence_toggle(key: str) -> bool:
    """The switch that keeps (True) or leaves out the sentence policies on this page."""
    return st.toggle(
        "Sentence policies (QASC, qasc-hybrid, sentence window)",
        True,
        key=key,
        help="They embed every sentence of the document once (cached afterwards); turn them "
        "off to skip that step on a long document.",
    )


def without_sentence_policies(names: Sequence[str]) -> list[str]:
    """``names`` without the sentence policies."""
    return [n for n in names if n not in SENTENCE_POLICIES]


def prepare_sentences(doc: Document, embedder: Embedder) -> bool:
    """Split ``doc`` into sentences (spinner; read from the disk cache after the first time)
    and embed them (progress bar) once per document, splitter and model in this process;
    False (after a warning) when embedding failed."""
    key = ("sentences", document_key(doc), SPLITTER, DEFAULT_MAX_CHARS, embedder.model_id)

    place = st.empty()  # drawn on every run, so the page keeps its shape
    with place.container(), st.spinner("Splitting the document into sentences (once) …"):
        # a read of the disk cache after the first time; it also seeds the policies' memo
        spans = cached_sentence_spans(doc.text, span_cache(), doc.part_bounds, SPLITTER)

    def compute() -> bool:
        with place.container():
            result = with_progress(
                f"Sentence vectors for {len(spans):,} sentences (once per model)",
                lambda update: attempt(
                    lambda: embed_cached(
                        embedder,
                        [doc.text[s:e] for s, e in spans],
                        disk_cache(),
                        update,
                        stop_check(),
                    ),
                    "Embedding the sentences failed:",
                    kind="warning",
                ),
            )
        if result is None:
            raise _NotEmbedded
        return True

    try:
        done = cached(key, compute)
    except _NotEmbedded:
        return False
    place.empty()
    return done


class _NotEmbedded(Exception):
    """Embedding the sentences failed (the warning is shown); nothing is cached."""
