"""Every chunker, listed once in the order the UI and the CLI offer them (docs/method.md §6).

Each chunker module declares its :class:`~scar_viz.chunking.base.Chunker` entry (id, splitter,
names, unit, options); :data:`CHUNKERS` collects them here.
"""

from __future__ import annotations

from scar_viz.chunking import fixed, recursive, section, semantic, sentence, token_windows
from scar_viz.chunking.base import Chunker

CHUNKERS: dict[str, Chunker] = {
    c.key: c
    for c in (
        recursive.CHUNKER,
        fixed.CHUNKER,
        token_windows.CHUNKER,
        sentence.CHUNKER,
        semantic.CHUNKER,
        section.CHUNKER,
    )
}
"""Chunker id -> its entry: ``CHUNKERS[id].split(text, size, overlap, **options)`` returns
sorted (start, end) spans; ``semantic`` also takes ``embed`` and ``percentile``, ``section``
takes ``sections``."""


def chunker_name(key: str) -> str:
    """The short human name of chunker ``key`` (``key`` itself for an unknown one)."""
    return CHUNKERS[key].name if key in CHUNKERS else key
