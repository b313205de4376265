"""The Explorer's opening lines for a newcomer: the four words the page is built on, one line
each, and the way to the lesson (Learn)."""

from __future__ import annotations

import streamlit as st

TERMS = (
    ("Chunk", "a piece of the document as the chunker in the sidebar cut it."),
    (
        "Retriever",
        "ranks every chunk against your question and returns the k best, c (cos(q,c), the "
        "cosine of their embeddings).",
    ),
    (
        "Boundary penalty",
        "b(c,n) = 1 − cos(c,n): how far a neighbour n of a retrieved chunk c drifts from it; "
        "λ weighs it.",
    ),
    (
        "The bar",
        "τ·cos(q,c): the gate admits n iff its score S = cos(q,n) − λ·b(c,n) is above it "
        "(S − bar > 0).",
    ),
)
"""(word, definition), in the order the page uses them."""
LESSON = "New here? A 5-minute lesson"
LEARN_PAGE = "pages/learn.py"


def intro() -> None:
    """One caption line per term (the words in bold), then the link to Learn."""
    st.caption("  \n".join(f"**{word}**: {text}" for word, text in TERMS))
    st.page_link(LEARN_PAGE, label=LESSON, icon=":material/school:")
