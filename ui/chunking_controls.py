"""The sidebar's chunking: chunker, size, overlap, the semantic chunker's percentile and
contextual prepending, validated into one :class:`~scar_viz.chunking.config.ChunkingConfig`.
"""

from __future__ import annotations

import streamlit as st

from scar_viz.chunking.base import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, DEFAULT_PERCENTILE
from scar_viz.chunking.config import ChunkingConfig
from scar_viz.chunking.registry import CHUNKERS
from ui import keys
from ui.named_select import named_select
from ui.state import URL, default, limits


def sidebar_chunking() -> ChunkingConfig | None:
    """Chunker, size, overlap, percentile and prepending; None (message shown) if invalid."""
    st.sidebar.subheader("Chunking")
    chunker = named_select(
        st.sidebar,
        "Chunker",
        {key: c.name for key, c in CHUNKERS.items()},
        keys.CHUNKER,
        ChunkingConfig().chunker,
        help="How the document is cut into chunks. Every page (and the gold chunks of a "
        "query set) uses this chunking.",
    )
    st.sidebar.caption(CHUNKERS[chunker].label)
    c1, c2 = st.sidebar.columns(2)
    size = c1.number_input(
        "Chunk size",
        *limits(keys.SIZE),
        default(keys.SIZE, DEFAULT_CHUNK_SIZE),
        step=50,
        key=keys.SIZE,
        bind=URL,
    )
    overlap = c2.number_input(
        "Overlap",
        *limits(keys.OVERLAP),
        default(keys.OVERLAP, DEFAULT_OVERLAP),
        step=10,
        key=keys.OVERLAP,
        bind=URL,
    )
    extra = st.sidebar.container()  # always present, so later widgets keep their places
    if CHUNKERS[chunker].unit != "characters":
        extra.caption(f"Size and overlap count {CHUNKERS[chunker].unit} (o200k_base).")
    percentile = DEFAULT_PERCENTILE
    if CHUNKERS[chunker].needs_embed:
        percentile = extra.slider(
            "Cut below similarity percentile",
            0.0,
            50.0,
            default(keys.PERCENTILE, DEFAULT_PERCENTILE),
            1.0,
            key=keys.PERCENTILE,
            bind=URL,
            help="Cut between two consecutive sentences when their cosine similarity is below "
            "this percentile of all consecutive-sentence similarities (0 = sentence packing "
            "only). The embedding model below compares the sentences.",
        )
    st.sidebar.checkbox(
        "Contextual prepending",
        False,
        key=keys.PREPEND,
        bind=URL,
        help="Prefix each chunk's section path to the text that is embedded "
        "(not to the text shown or counted).",
    )
    problem = st.sidebar.container()  # always present, so later widgets keep their places
    config = ChunkingConfig(chunker, int(size), int(overlap), float(percentile))
    try:
        config.validate()
    except ValueError as exc:
        problem.error(str(exc))
        st.error(f"Chunking settings are invalid: {exc}")
        return None
    return config
