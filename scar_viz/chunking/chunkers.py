"""The chunking names the app's pages and UI helpers import from here, re-exported from the
modules that define them (:mod:`~scar_viz.chunking.base`, :mod:`~scar_viz.chunking.config`,
:mod:`~scar_viz.chunking.registry`). New code imports from those modules directly.
"""

from __future__ import annotations

from scar_viz.chunking.base import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, DEFAULT_PERCENTILE, Chunk
from scar_viz.chunking.config import ChunkingConfig, chunk_document, chunk_spans
from scar_viz.chunking.registry import CHUNKERS

CHUNKER_INFO = CHUNKERS
"""Chunker id -> its entry (``label``, ``unit``, ``needs_embed``…): the registry itself."""

CHUNKER_NAMES: dict[str, str] = {key: c.name for key, c in CHUNKERS.items()}
"""Chunker id -> the short human name a select shows."""

__all__ = [
    "CHUNKERS",
    "CHUNKER_INFO",
    "CHUNKER_NAMES",
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_OVERLAP",
    "DEFAULT_PERCENTILE",
    "Chunk",
    "ChunkingConfig",
    "chunk_document",
    "chunk_spans",
]
