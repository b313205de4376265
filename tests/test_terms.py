"""One tokeniser and one idf for BM25 and the gate's lexical term (scar_viz/terms.py)."""

from __future__ import annotations

import math
import re

import bm25s
import numpy as np
import pytest
from bm25s.stopwords import STOPWORDS_EN
from hypothesis import given, settings
from hypothesis import strategies as st

from scar_viz.retrieval import K1, B, bm25_index
from scar_viz.scoring.lexical import chunk_index
from scar_viz.terms import idf, term_index, tokenize, tokenize_all

TEXTS = [
    "The harbour gate opens at dawn; the gate closes at dusk.",
    "Vessels signal the gate before entering the harbour.",
    "Pilots board vessels outside the harbour.",
    "Nothing relevant here, naïve café_2 and TCP's RTO.",
]


def reference(text: str) -> list[str]:
    """A straightforward reference: lower-cased ``\\w+`` runs of two or more characters, less
    bm25s's English stop words (the μ term's tokeniser before it shared this one)."""
    return [t for t in re.findall(r"\w+", text.lower()) if len(t) > 1 and t not in STOPWORDS_EN]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_the_tokeniser_is_bm25s_and_the_plain_regex(text):
    assert tokenize(text) == reference(text)
    assert tokenize(text) == list(
        bm25s.tokenize([text], return_ids=False, show_progress=False, stopwords="en")[0]
    )


def test_tokenize_all_is_tokenize_text_by_text():
    assert tokenize_all(TEXTS) == [tokenize(t) for t in TEXTS]
    assert tokenize_all([]) == [] and tokenize("") == [] and tokenize("a an the") == []
    assert tokenize("TCP's RTO, x = 3 s; naïve café_2") == ["tcp", "rto", "naïve", "café_2"]


def test_the_index_counts_each_term_once_per_chunk_and_weighs_it_by_idf():
    index = term_index([*TEXTS, "gate gate gate"])
    assert index.n_chunks == 5 and index.tokens[4] == ("gate", "gate", "gate")
    assert index.postings["gate"].tolist() == [0, 1, 4]
    assert index.idf["gate"] == pytest.approx(math.log1p((5 - 3 + 0.5) / 3.5))
    assert index.query_terms("Which gate? The GATE of the harbour, not the moon") == (
        "gate",
        "harbour",
    )
    assert index.query_terms("which gate", leave_out={"gate"}) == ()
    assert term_index(list(TEXTS)) is term_index(tuple(TEXTS))


def test_bm25_scores_with_the_same_idf():
    """bm25s computes idf inside its index: for one term, its score is idf(t) times the
    term-frequency factor of §8, with idf from :func:`scar_viz.terms.idf`."""
    index = term_index(TEXTS)
    lengths = np.array([len(t) for t in index.tokens], dtype=np.float64)
    for term in ("gate", "harbour", "vessels", "dawn"):
        tf = np.array([t.count(term) for t in index.tokens], dtype=np.float64)
        factor = tf / (tf + K1 * (1 - B + B * lengths / lengths.mean()))
        expected = idf(index.n_chunks, len(index.postings[term])) * factor
        assert np.allclose(bm25_index(TEXTS).scores(term), expected, rtol=1e-12)


def test_bm25_and_the_lexical_term_read_one_index():
    assert bm25_index(TEXTS).terms is term_index(TEXTS) is chunk_index(TEXTS).terms
    assert chunk_index(TEXTS).idf is term_index(TEXTS).idf
