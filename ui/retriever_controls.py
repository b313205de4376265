"""The sidebar's retriever (dense, BM25 or hybrid) and the hybrid's RRF constant; pages read the
choice with :func:`ui.state.current_retriever`.
"""

from __future__ import annotations

import streamlit as st

from scar_viz.retrieval import DEFAULT_K_RRF, DEFAULT_RETRIEVER
from ui import keys
from ui.named_select import named_select
from ui.state import URL, default, limits

RETRIEVER_NAMES = {
    "dense": "Dense: cos(q, c)",
    "bm25": "BM25: the question's words",
    "hybrid": "Hybrid: dense and BM25 fused (RRF)",
}


def sidebar_retriever() -> None:
    """The retriever (and RRF's constant for hybrid); read with :func:`current_retriever`."""
    choice = named_select(
        st.sidebar,
        "Retriever",
        RETRIEVER_NAMES,
        keys.RETRIEVER,
        DEFAULT_RETRIEVER,
        help="What ranks the chunks before any policy expands them. The gate keeps using "
        "cos(q,c) whatever retrieves c. BM25: bm25s, lower-cased words of two or more letters, "
        "English stop words removed, no stemming.",
    )
    box = st.sidebar.container()  # always present, so later widgets keep their places
    if choice == "hybrid":
        box.number_input(
            "RRF constant k_rrf",
            *limits(keys.RRF_K),
            default(keys.RRF_K, DEFAULT_K_RRF),
            1.0,
            key=keys.RRF_K,
            bind=URL,
            help="Reciprocal rank fusion: score(c) = Σ 1 / (k_rrf + rank(c)) over the dense "
            "and BM25 rankings. A larger k_rrf flattens the difference between ranks.",
        )
