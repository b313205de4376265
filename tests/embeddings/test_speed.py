"""The embedder's speed as measured in this process, and the cost it gives a batch of texts."""

from __future__ import annotations

import pytest

from scar_viz.embeddings import EmbeddingCache, HashEmbedder, embed_cached, speed


@pytest.fixture(autouse=True)
def _fresh():
    speed.forget()
    yield
    speed.forget()


def test_no_measurement_no_time():
    cost = speed.estimate("m", ["one sentence.", "two"])
    assert (cost.texts, cost.chars, cost.seconds) == (2, 16, None)
    assert speed.estimate("m", []).seconds == 0.0


def test_the_estimate_scales_the_measured_characters_per_second():
    speed.record("m", 10_000, 2.0)
    speed.record("m", 30_000, 2.0)  # 40,000 characters in 4 s: 10,000 a second
    assert speed.chars_per_second("m") == pytest.approx(10_000)
    assert speed.estimate("m", ["x" * 25_000]).seconds == pytest.approx(2.5)
    assert speed.chars_per_second("other") is None


def test_an_encode_too_small_to_measure_is_not_recorded():
    speed.record("m", speed.MIN_CHARS - 1, 1.0)
    assert speed.chars_per_second("m") is None


def test_embed_cached_records_what_it_encoded_and_not_what_it_read(tmp_path):
    model, cache = HashEmbedder(), EmbeddingCache(tmp_path)
    texts = [f"sentence number {i} about kestrels and timers" for i in range(200)]
    embed_cached(model, texts, cache)
    measured = speed.chars_per_second(model.model_id)
    assert measured is not None and measured > 0
    speed.forget()
    embed_cached(model, texts, cache)  # every vector from the cache: nothing encoded
    assert speed.chars_per_second(model.model_id) is None
