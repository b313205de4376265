"""The Chunking lab's statistics: the units (split file by file under a progress bar), the
table of every chunker at the same length cutting the same units, and the curves' sweeps
(each under a progress bar with the time left). A chunker that needs the embedding model
(semantic) embeds every sentence of the document, seconds to minutes on a corpus: it joins
the table only when it is chunking A or B (asked for), when that work is cheap or done
(:data:`ui.sentences.FREE_SECONDS`), or once the button that states its cost is clicked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.chunking.fragmentation import (
    DEFAULT_OVERLAPS,
    DEFAULT_SIZES,
    FragmentationGrid,
    document_units,
    fragmentation_grid,
    in_own_units,
)
from scar_viz.chunking.registry import CHUNKERS, chunker_name
from scar_viz.common.errors import UserError
from scar_viz.common.spans import Span
from scar_viz.documents.reading import Document
from scar_viz.documents.sentences import sentence_spans
from scar_viz.embeddings import Embedder
from scar_viz.pipeline import embed_function
from scar_viz.views import chunking_lab as lab
from ui import keys, state
from ui.alerts import alert, with_progress
from ui.cache import cached, disk_cache
from ui.sentences import cheap, cost_words, sentence_cost
from ui.tables import show_table


def _ask(doc_key: str) -> None:
    state.put(keys.LAB_SEMANTIC_ON, {*state.get(keys.LAB_SEMANTIC_ON, set()), doc_key})


def table_chunkers(
    doc_key: str, doc: Document, embedder: Embedder, asked: Sequence[str]
) -> list[str]:
    """The chunkers of the table: all of them, less those needing the model that were not
    ``asked`` for (A, B) while their work is not cheap; for those, a button stating the cost."""
    costly = [n for n in CHUNKERS if CHUNKERS[n].needs_embed and n not in asked]
    if not costly or doc_key in state.get(keys.LAB_SEMANTIC_ON, set()):
        return list(CHUNKERS)
    cost, exact = sentence_cost(doc, embedder)
    if cheap(cost):
        return list(CHUNKERS)
    names = ", ".join(chunker_name(n) for n in costly)
    st.button(
        f"Add {names} to the table",
        key=keys.LAB_SEMANTIC,
        icon=":material/add:",
        on_click=_ask,
        args=(doc_key,),
        help="It compares the embeddings of consecutive sentences, so it embeds every "
        "sentence of the document once (cached afterwards).",
    )
    st.caption(f"{names}: left out until asked; {cost_words(cost, exact)}")
    return [n for n in CHUNKERS if n not in costly]


def chunker_table(
    names: Sequence[str],
    doc: Document,
    units: Sequence[Span],
    size_overlap_scale: tuple[int, int, float],
    percentile: float,
    spans_of: Callable[[ChunkingConfig], list[Span]],
) -> None:
    """The table: each chunker of ``names`` at ``size_overlap_scale`` (characters, characters,
    characters per token), its chunks and the units it cuts; a chunker that fails is left out
    with a warning."""
    size_chars, overlap_chars, scale = size_overlap_scale
    rows = []
    with st.spinner(f"Chunking with {len(names)} chunkers …"):
        for name in names:
            cfg = in_own_units(name, size_chars, overlap_chars, scale, percentile)
            try:
                spans = spans_of(cfg)
            except UserError as exc:
                alert(lab.failed_chunker(name, exc), "warning")
                continue
            rows.append(lab.chunker_row(name, lab.summarise(name, doc.text, cfg, spans, units)))
    show_table(pd.DataFrame(rows), hide_index=True, key=keys.CHUNK_TABLE)


def lab_units(doc_key: str, doc: Document, kind: str) -> list[Span]:
    """The document's sentences or paragraphs (:func:`document_units`); a corpus' sentences
    are split file by file under a progress bar first (pysbd: seconds on a long corpus), once
    per process."""
    parts = doc.part_bounds
    if kind == "sentence" and len(parts) > 1:

        def split(update) -> bool:
            for i, (start, end) in enumerate(parts):
                sentence_spans(doc.text[start:end])
                update(i + 1, len(parts))
            return True

        cached(
            ("lab sentences", doc_key),
            lambda: with_progress(f"Splitting {len(parts)} files into sentences", split),
        )
    return document_units(doc, kind)


def sweeps(
    doc_key: str,
    doc: Document,
    names: Sequence[str],
    units: Sequence[Span],
    kind: str,
    percentile: float,
    embedder: Embedder,
) -> list[FragmentationGrid]:
    """Each chunker of ``names`` over every size and overlap, once per content and process,
    under a progress bar."""
    settings = sum(o < s for s in DEFAULT_SIZES for o in DEFAULT_OVERLAPS)
    embed = embed_function(embedder, disk_cache())
    return [
        cached(
            ("lab sweep", doc_key, name, tuple(units), kind, percentile, embedder.model_id),
            lambda name=name: with_progress(
                f"{chunker_name(name)} at {settings} sizes and overlaps",
                lambda update: fragmentation_grid(
                    doc,
                    name,
                    list(units),
                    kind,
                    embed=embed,
                    percentile=percentile,
                    progress=update,
                ),
            ),
        )
        for name in names
    ]
