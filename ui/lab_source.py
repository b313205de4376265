"""What the Chunking lab cuts: the sidebar's document at its chunking, or an opened index at
its own.
"""

from __future__ import annotations

from typing import NamedTuple

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents.reading import Document
from scar_viz.embeddings import Embedder
from ui.alerts import alert, or_stop
from ui.loading import get_embedder
from ui.setup import cache_note, opened_index
from ui.sidebar import sidebar
from ui.store_open import STORE_CHOICE


class LabSource(NamedTuple):
    """What the Chunking lab cuts: the document's content key, the document, chunking A, the
    embedder (for semantic chunking), the Document select's choice, and for an opened index
    the spans its files were cut into (chunking A as stored; None otherwise)."""

    key: str
    document: Document
    config: ChunkingConfig
    embedder: Embedder
    name: str | None
    stored: list[tuple[int, int]] | None


def lab_source(slot) -> LabSource | None:
    """The whole sidebar, then the Chunking lab's document: the one picked at the sidebar's
    chunking, or an opened index at its own (said on the page). None (the reason shown) when
    there is none yet."""
    picked, config, spec, base_url, name = sidebar()
    cache_note()
    if name != STORE_CHOICE:
        if picked is None or config is None:
            return None
        embedder = or_stop(lambda: get_embedder(spec, base_url))
        return LabSource(picked[0], picked[1], config, embedder, name, None)
    opened = opened_index(spec, base_url, slot)
    if opened is None:
        return None
    prepared, embedder = opened
    config = prepared.config
    alert(
        f"A is the index's own chunking ({config.label}), where its files were cut; B and the "
        "statistics below re-cut the same files here, one by one.",
        "info",
    )
    stored = [(c.start, c.end) for c in prepared.chunks]
    doc = prepared.document
    return LabSource(doc.digest, doc, config, embedder, name, stored)
