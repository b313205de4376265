"""BM25, RRF and the retriever's score vector against rankings computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scar_viz.common.errors import SettingsError
from scar_viz.retrieval import (
    K1,
    B,
    Retriever,
    bm25_index,
    rank_matrix,
    rank_scores,
    ranks,
    rrf,
    tokenize,
)
from scar_viz.scoring.scar import top_k

# Tokens after stop words: [cat dog], [dog bird bird], [cat dog], [fish], [] → avgdl = 8 / 5.
TEXTS = ["The cat and a dog.", "Dog, bird; BIRD!", "cat dog", "fish", "the of and"]
SIMS = np.array([0.1, 0.5, 0.9, 0.9, 0.2])  # dense order 2, 3 (tie → lower), 1, 4, 0


def _hand_bm25(tf: int, length: int, df: int, n: int = 5, avgdl: float = 8 / 5) -> float:
    """bm25s's Lucene variant (scar_viz.retrieval.bm25's docstring), k1 = 1.5, b = 0.75."""
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf / (tf + K1 * (1 - B + B * length / avgdl))


def test_tokenise_lowercases_drops_stop_words_and_one_letter_tokens():
    assert tokenize("The cat and a DOG, x y") == ["cat", "dog"]
    assert tokenize("the of and") == []


def test_bm25_scores_equal_the_hand_computed_formula():
    scores = bm25_index(TEXTS).scores("cat bird")
    cat = _hand_bm25(tf=1, length=2, df=2)
    bird = _hand_bm25(tf=2, length=3, df=1)
    assert scores == pytest.approx([cat, bird, cat, 0.0, 0.0], abs=1e-12)
    assert (K1, B) == (1.5, 0.75)


def test_bm25_ranking_breaks_ties_to_the_lower_index():
    scores = rank_scores("bm25", SIMS, bm25_index(TEXTS), "cat bird")
    assert top_k(scores, 5) == [1, 0, 2, 3, 4]  # 0 and 2 tie, 3 and 4 both score 0
    assert ranks(scores).tolist() == [2, 1, 3, 4, 5]


def test_repeated_and_unknown_query_words_count_once_or_not_at_all():
    index = bm25_index(TEXTS)
    assert np.array_equal(index.scores("cat CAT zebra"), index.scores("cat"))
    assert np.array_equal(index.scores("zebra the"), np.zeros(5))
    assert np.array_equal(bm25_index(["the", "a"]).scores("the"), np.zeros(2))


def test_the_index_is_built_once_per_content():
    assert bm25_index(list(TEXTS)) is bm25_index(tuple(TEXTS))
    assert bm25_index(TEXTS[:4]) is not bm25_index(TEXTS)


def test_rrf_by_hand_with_ties():
    # dense ranks (1-based): c0 5, c1 3, c2 1, c3 2, c4 4; BM25 ranks: 2, 1, 3, 4, 5.
    fused = rank_scores("hybrid", SIMS, bm25_index(TEXTS), "cat bird", k_rrf=60)
    hand = [1 / 65 + 1 / 62, 1 / 63 + 1 / 61, 1 / 61 + 1 / 63, 1 / 62 + 1 / 64, 1 / 64 + 1 / 65]
    assert fused == pytest.approx(hand, abs=1e-15)
    assert fused[1] == fused[2]  # an exact tie: c1 first
    assert top_k(fused, 5) == [1, 2, 3, 0, 4]


def test_rrf_constant_changes_the_fusion():
    dense, lexical = np.array([3.0, 2.0, 1.0]), np.array([0.0, 0.5, 1.0])
    # ranks: dense 1, 2, 3; lexical 3, 2, 1 → every chunk ties at k_rrf = 0 except c1
    assert rrf([dense, lexical], 0.0).tolist() == pytest.approx([4 / 3, 1.0, 4 / 3])
    assert top_k(rrf([dense, lexical], 0.0), 3) == [0, 2, 1]
    with pytest.raises(SettingsError):
        rrf([dense, lexical], -1)


def test_dense_is_the_similarities_themselves():
    assert rank_scores("dense", SIMS, None, "anything") is SIMS
    sims = np.vstack([SIMS, SIMS[::-1]])
    assert rank_matrix("dense", sims, None, ["a", "b"]) is sims


def test_rank_matrix_stacks_each_query():
    index = bm25_index(TEXTS)
    sims = np.vstack([SIMS, SIMS[::-1]])
    out = rank_matrix("bm25", sims, index, ["cat bird", "fish"], 60)
    assert np.array_equal(out[0], index.scores("cat bird"))
    assert top_k(out[1], 1) == [3]


def test_bad_settings_are_clear_errors():
    with pytest.raises(SettingsError, match="Unknown retriever"):
        rank_scores("sparse", SIMS, None, "q")
    with pytest.raises(SettingsError, match="needs a BM25 index"):
        rank_scores("bm25", SIMS, None, "q")
    with pytest.raises(SettingsError, match="covers 4 chunks"):
        rank_scores("bm25", SIMS, bm25_index(TEXTS[:4]), "q")
    with pytest.raises(SettingsError):
        Retriever("hybrid", -1)
    assert Retriever("hybrid", 60).label == "hybrid (k_rrf = 60)"
    assert Retriever("bm25").as_json() == {"name": "bm25"}
