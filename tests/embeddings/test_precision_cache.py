"""The embedding cache and the precision a model runs in: fp16 vectors are kept apart from
fp32 ones (a cached vector is always the one this precision computes), fp32 vectors are
shared by every device, and on a GPU each model call holds at least a full batch."""

from __future__ import annotations

import numpy as np

from scar_viz.embeddings import EmbeddingCache, HashEmbedder, embed_cached, make_embedder
from scar_viz.runtime.devices import Placement
from scripts.tiny_models import tiny_bert


class Placed(HashEmbedder):
    """The hash model standing in for a transformer placed at ``placement``: its vectors carry
    a trace of the precision, as real fp16 vectors differ from fp32 ones in the last digits."""

    def __init__(self, placement: Placement, batch_size: int = 32) -> None:
        super().__init__(16)
        self.model_id = "st:some-model"
        self.placement = placement
        self.batch_size = batch_size
        self.calls: list[int] = []

    @property
    def vectors_id(self) -> str:
        half = self.placement.precision == "fp16"
        return f"{self.model_id}+fp16" if half else self.model_id

    def embed(self, texts, progress=None):
        self.calls.append(len(texts))
        vecs = super().embed(texts, progress)
        return vecs + (1e-3 if self.placement.precision == "fp16" else 0.0)


TEXTS = [f"berth {i} is assigned by the harbour master" for i in range(40)]


def test_fp16_vectors_never_stand_in_for_fp32_ones(tmp_path):
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    gpu_half = embed_cached(Placed(Placement("cuda:0", "fp16")), TEXTS, cache)
    cpu = Placed(Placement("cpu", "fp32"))
    fresh = embed_cached(cpu, TEXTS, cache)
    assert gpu_half.n_encoded == fresh.n_encoded == len(TEXTS)  # nothing read across
    assert cache.count("st:some-model+fp16") == cache.count("st:some-model") == len(TEXTS)
    assert not np.array_equal(gpu_half.vectors, fresh.vectors)
    again = embed_cached(Placed(Placement("cuda:0", "fp16")), TEXTS, cache)
    assert again.n_encoded == 0 and np.array_equal(again.vectors, gpu_half.vectors)


def test_fp32_vectors_are_shared_across_devices(tmp_path):
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    embed_cached(Placed(Placement("cuda:0", "fp32")), TEXTS, cache)
    on_cpu = embed_cached(Placed(Placement("cpu", "fp32")), TEXTS, cache)
    assert on_cpu.n_encoded == 0


def test_a_transformer_on_the_cpu_keys_its_vectors_by_its_model_id(tmp_path):
    """fp32 keeps the key every existing cache was written under."""
    e = make_embedder(f"st:{tiny_bert(tmp_path / 'tiny')}")
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    embed_cached(e, TEXTS[:5], cache)
    assert e.placement == Placement("cpu", "fp32")
    assert e.vectors_id == e.model_id and cache.count(e.model_id) == 5


def test_on_a_gpu_every_call_holds_a_full_batch():
    texts = [f"chunk {i}" for i in range(1024)]
    gpu = Placed(Placement("cuda:0", "fp16"), batch_size=256)
    embed_cached(gpu, texts, None)
    assert gpu.calls == [256] * 4
    cpu = Placed(Placement("cpu", "fp32"), batch_size=256)
    embed_cached(cpu, texts, None)  # on the CPU: calls of a twentieth, as before
    assert max(cpu.calls) == 1024 // 20
