"""The Ray engine on a local Ray gives the vectors the in-process engine gives."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.store import EmbedderSpec, EngineOptions, index_corpus, open_store
from tests.store.corpus import CONFIG, CountingEmbedder, sample_files

ray = pytest.importorskip(
    "ray", reason="the scale extras are not installed (pip install -r requirements-scale.txt)"
)


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_engine_writes_the_local_engine_vectors(tmp_path, local_ray):
    docs = sample_files(4)
    seen: list[tuple[int, int]] = []
    options = EngineOptions("ray", batch_size=5, concurrency=2)
    report = index_corpus(
        docs,
        str(tmp_path / "r"),
        EmbedderSpec("hash"),
        CONFIG,
        options=options,
        progress=lambda done, total: seen.append((done, total)),
    )
    index_corpus(docs, str(tmp_path / "l"), CountingEmbedder(), CONFIG)
    got = open_store(str(tmp_path / "r"), "hash:256", CONFIG)
    want = open_store(str(tmp_path / "l"), "hash:256", CONFIG)
    assert report.chunks_embedded == len(want.chunks) > 20
    assert got.chunks == want.chunks and np.array_equal(got.unit, want.unit)
    assert seen[-1] == (len(want.chunks), len(want.chunks)) and len(seen) > 1
    assert ray.is_initialized()  # a running Ray is joined, not shut down
