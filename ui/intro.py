"""The Explorer's opening lines for a newcomer: one sentence naming boundary fragmentation
with the built-in sample's own cut (:mod:`scar_viz.views.landing`), and the way to the lesson
(Learn). The formulas and μ are under "How the gate decides", by the sliders
(:mod:`ui.gate_controls`)."""

from __future__ import annotations

import streamlit as st

from scar_viz.views.landing import LESSON_MINUTES, sample_cut
from ui.cache import cached

LESSON = f"New here? The {LESSON_MINUTES}-minute lesson"
LEARN_PAGE = "pages/learn.py"
GENERAL = (
    "**Boundary fragmentation**: a chunker's cut can fall inside the passage that answers a "
    "question, and a retriever that returns one side sends the model half the answer. The "
    "gate below decides which neighbours of the retrieved chunks to send along."
)
"""The sentence on a document other than the built-in sample (its questions are unknown)."""


def intro(setup) -> None:
    """The fragmentation sentence (the sample's cut when the sample is open), then the link
    to Learn."""
    prep = setup.prepared
    cut = cached(
        ("sample-cut", *setup.key),
        lambda: sample_cut(setup.name, setup.source, prep.chunks),
    )
    # Streamlit's 6rem above the title: 2.5rem here, so the overview starts on a 720 px screen
    st.html("<style>[data-testid=stMainBlockContainer]{padding-top:2.5rem}</style>")
    st.markdown(cut.sentence() if cut is not None else GENERAL)
    st.page_link(LEARN_PAGE, label=LESSON, icon=":material/school:")
