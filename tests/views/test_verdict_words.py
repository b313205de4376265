"""The verdict said answer first (scar_viz.views.verdict_words): the lead is the choice, its
gain over the reference with its interval and token ratio, in at most 40 words; a second short
sentence on the runner-up; the power guide only in the details."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.views.verdict_words import LEAD_WORDS, queries_needed, verdict_json, verdict_words
from tests.evaluation.verdict_corpora import made_up, made_up_verdict

N = 200
REF = ("dense", "window1", 3)
OPTS = [REF, ("hybrid", "scar", 4), ("bm25", "topk", 5)]


def recalls(seed: int = 3):
    rng = np.random.default_rng(seed)
    base = (rng.random(N) < 0.5).astype(float)
    better = np.maximum(base, (rng.random(N) < 0.6).astype(float))
    close = better.copy()
    close[:2] = 1 - close[:2]  # two queries differ: cannot be told apart
    return base, better, close


def kinds():
    base, better, close = recalls()
    tokens = [800, 700, 750]
    return {
        "decided": made_up_verdict(made_up([base, better, base], tokens, OPTS), 1000),
        "cannot tell": made_up_verdict(made_up([base, better, close], tokens, OPTS), 1000),
        "reference wins": made_up_verdict(made_up([better, base, base], tokens, OPTS), 1000),
        "nothing fits": made_up_verdict(made_up([base, better, base], tokens, OPTS), 500),
    }


@pytest.mark.parametrize("kind", ["decided", "cannot tell", "reference wins", "nothing fits"])
def test_the_lead_answers_in_at_most_40_words_and_the_formula_waits_in_the_details(kind):
    v = kinds()[kind]
    words = verdict_words(v)
    assert len(words.lead.split()) <= LEAD_WORDS, words.lead
    assert len(words.versus.split()) <= 30, words.versus
    assert "7.84" not in words.sentence and "out of fold" not in words.sentence.lower()
    assert words.details.startswith("Out of fold on 200 queries (5 folds × 3 repeats)")
    assert verdict_json(v)["verdict"]["sentence"] == words.sentence


def test_a_decided_verdict_leads_with_its_held_out_gain_interval_and_token_ratio():
    v = kinds()["decided"]
    assert v.decided and v.nested is not None
    e = v.nested
    lead = verdict_words(v).lead
    assert lead == (
        f"Use SCAR tuned (λ 0.00, τ 0.00) on hybrid at k = 4: {100 * e.gain:+.1f} recall points "
        f"(95 % CI {100 * e.ci_low:+.1f} to {100 * e.ci_high:+.1f}, held out) over your dense "
        f"window ±1 at k = 3, at {700 / 800:.2f}× its tokens."
    )
    assert verdict_words(v).versus.startswith("It beats the runner-up, top-k on bm25")


def test_cannot_tell_leads_with_the_gain_not_the_doubt():
    v = kinds()["cannot tell"]
    words = verdict_words(v)
    assert v.gain_held_out and not v.decided
    assert words.lead.startswith("Use SCAR tuned")
    assert words.versus.startswith("It cannot be told from the runner-up, top-k on bm25")
    assert f"(n ≈ 7.84·s²/d̄² = {queries_needed(v):,} in all, a guide)" in words.details


def test_when_the_reference_wins_the_lead_says_keep_it():
    v = kinds()["reference wins"]
    assert v.best == v.cv.reference
    assert verdict_words(v).lead.startswith(
        "Keep what you have, window ±1 on dense at k = 3: nothing within the budget"
    )


def test_when_nothing_fits_the_lead_names_the_cheapest():
    words = verdict_words(kinds()["nothing fits"])
    assert words.lead.startswith("No candidate stays within 500 tokens a query; the cheapest, ")
    assert words.versus == "" and words.sentence == words.lead
