"""Lexical evidence: tokeniser, stop words, idf, lex(q, x) and new(q, c, n) by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scar_viz.common.terms import idf
from scar_viz.scoring.lexical import (
    STOP_WORDS,
    chunk_index,
    lex_matrix,
    question_lex,
    tokenize,
)

CHUNKS = [
    "The harbour gate opens at dawn.",  # 0: harbour, gate, opens, dawn
    "Vessels signal the gate before entering.",  # 1: vessels, signal, gate, entering
    "Pilots board vessels outside the harbour.",  # 2: pilots, board, vessels, outside, harbour
    "Nothing relevant here.",  # 3: nothing, relevant
]


def test_tokenize_lowercases_drops_stop_words_and_single_characters():
    assert tokenize("What must a Vessel do before entering the Harbour?") == [
        "vessel",
        "entering",
        "harbour",
    ]
    assert tokenize("TCP's RTO, x = 3 s; naïve café_2") == ["tcp", "rto", "naïve", "café_2"]
    assert {"the", "what", "before", "must"} <= STOP_WORDS


def test_idf_is_bm25s_and_positive():
    assert idf(4, 2) == pytest.approx(math.log(1 + 2.5 / 2.5))
    assert idf(4, 4) == pytest.approx(math.log(1 + 0.5 / 4.5))
    assert idf(4, 4) > 0


def test_chunk_index_counts_each_term_once_per_chunk_and_is_cached():
    index = chunk_index(CHUNKS + ["gate gate gate"])
    assert index.postings["gate"].tolist() == [0, 1, 4]
    assert index.idf["gate"] == pytest.approx(idf(5, 3))
    assert chunk_index(list(CHUNKS)) is chunk_index(tuple(CHUNKS))


def test_lex_by_hand():
    # Content terms known to the chunks: gate (df 2), vessels (df 2), harbour (df 2);
    # "lighthouse" occurs in no chunk and does not count.
    lex = question_lex(CHUNKS, "When do vessels reach the gate of the harbour lighthouse?")
    assert lex.terms == ("vessels", "gate", "harbour")
    w = idf(4, 2)  # all three have df 2: equal weights of 1/3
    assert lex.weights == pytest.approx([w / (3 * w)] * 3)
    assert lex.share == pytest.approx([2 / 3, 2 / 3, 2 / 3, 0.0])
    # new(q, c, n): in n but not in c
    assert lex.new_share(0, 1) == pytest.approx(1 / 3)  # vessels
    assert lex.new_share(1, 2) == pytest.approx(1 / 3)  # harbour
    assert lex.new_share(3, 0) == pytest.approx(2 / 3)
    assert lex.new_share(0, 3) == pytest.approx(0.0)
    feats = lex.features(np.array([0, 1]), np.array([1, 3]))
    assert feats == pytest.approx(np.array([[2 / 3, 2 / 3, 1 / 3], [0.0, 2 / 3, 0.0]]))


def test_idf_weighting_favours_rare_terms():
    lex = question_lex(CHUNKS, "pilots gate")  # pilots df 1, gate df 2
    wp, wg = idf(4, 1), idf(4, 2)
    assert wp > wg
    assert lex.share == pytest.approx([wg, wg, wp, 0.0] / np.float64(wp + wg))


def test_a_question_of_stop_words_only_gives_zero_everywhere():
    lex = question_lex(CHUNKS, "What is it?")
    assert lex.terms == ()
    assert lex.share.tolist() == [0.0] * 4
    assert lex.new_share(0, 1) == 0.0
    assert lex_matrix(CHUNKS, ["What is it?", "pilots"]).shape == (2, 4)
