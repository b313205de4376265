"""When the sentence policies' switch starts on: nothing left to embed, or a cheap rest."""

from __future__ import annotations

from scar_viz.runtime.speed import Estimate
from ui.sentences import FREE_SECONDS, UNMEASURED_CHARS_PER_SECOND, cheap


def test_nothing_left_to_embed_starts_on_whatever_the_speed():
    assert cheap(Estimate(0, 0, None))
    assert cheap(Estimate(0, 0, 0.0))


def test_a_measured_cost_starts_on_only_within_the_free_seconds():
    assert cheap(Estimate(30, 2_267, FREE_SECONDS))
    assert not cheap(Estimate(30, 2_267, FREE_SECONDS + 0.1))


def test_before_a_speed_is_measured_a_few_sentences_start_on_and_a_corpus_waits():
    free_chars = int(FREE_SECONDS * UNMEASURED_CHARS_PER_SECOND)
    assert cheap(Estimate(30, 2_267, None))  # the sample's sentences
    assert cheap(Estimate(50, free_chars, None))
    assert not cheap(Estimate(51, free_chars + 1, None))
    assert not cheap(Estimate(1_045, 509_549, None))  # the 90-file corpus
