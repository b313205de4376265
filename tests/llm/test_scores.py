"""scar_viz.llm.scores: each RAGAS score on hand-made verdicts, against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.llm.scores import (
    Claim,
    CorrectnessVerdict,
    FaithfulnessVerdict,
    RecallVerdict,
    RelevancyVerdict,
    answer_correctness,
    answer_relevancy,
    context_recall,
    faithfulness,
    mean_cosine,
    statements,
)

VECS = {"q": [1.0, 0.0], "same": [2.0, 0.0], "half": [1.0, 1.0], "ortho": [0.0, 3.0]}


def embed(texts):
    """Fixed, un-normalised vectors: the scores must normalise them."""
    return np.array([VECS.get(t, [0.0, 1.0]) for t in texts])


def claims(*flags: bool) -> tuple[Claim, ...]:
    return tuple(Claim(f"c{i}", f) for i, f in enumerate(flags))


def test_faithfulness_is_the_supported_share_of_claims():
    assert faithfulness(FaithfulnessVerdict(claims(True, False, True, True))) == 0.75
    assert faithfulness(FaithfulnessVerdict(())) is None


def test_answer_relevancy_is_the_mean_cosine_to_the_question():
    v = RelevancyVerdict(("same", "ortho", "half"))
    assert answer_relevancy(v, "q", embed) == pytest.approx((1 + 0 + 2**-0.5) / 3)
    assert answer_relevancy(RelevancyVerdict(()), "q", embed) is None
    assert mean_cosine(embed, "q", ["same"]) == pytest.approx(1.0)


def test_context_recall_is_capped_by_the_statements_asked():
    assert context_recall(RecallVerdict(claims(True, False, False, False)), 4) == 0.25
    assert context_recall(RecallVerdict(claims(True, True, True)), 2) == 1.0  # judge added one
    assert context_recall(RecallVerdict(()), 3) is None


def test_answer_correctness_weighs_f1_and_the_cosine():
    v = CorrectnessVerdict(("a", "b"), ("c",), ("d", "e", "f"))
    f1 = 2 / (2 + 0.5 * 4)
    assert answer_correctness(v, "half", "q", embed) == pytest.approx(0.75 * f1 + 0.25 * 2**-0.5)
    assert answer_correctness(CorrectnessVerdict((), (), ()), "q", "q", embed) is None
    # a blank answer is embedded as a blank, not dropped
    assert answer_correctness(CorrectnessVerdict(("a",), (), ()), "", "q", embed) == 0.75


def test_statements_are_the_sentences_of_the_evidence():
    assert statements("First one here.  Second\none here.\n\nThird.") == [
        "First one here.",
        "Second one here.",
        "Third.",
    ]
