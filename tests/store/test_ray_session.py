"""``index --engine ray`` without a running Ray: Ray starts while the files are chunked, and
is shut down at the end."""

from __future__ import annotations

import time

import pytest

from scar_viz.store import EmbedderSpec, EngineOptions, index_corpus, open_store
from scar_viz.store import index as index_module
from tests.store.corpus import CONFIG, sample_files

pytestmark = pytest.mark.ray

ray = pytest.importorskip(
    "ray", reason="the scale extras are not installed (pip install -r requirements-scale.txt)"
)


def test_ray_starts_while_the_files_are_chunked_and_stops_after(tmp_path, monkeypatch):
    ray.shutdown()  # no Ray running, as for a fresh `index --engine ray`
    chunk_rows = index_module._chunk_rows
    seen_running: list[bool] = []

    def slow_chunking(*args, **kwargs):
        # chunking outlasts Ray's start here: wait (at most 60 s) to see Ray come up
        deadline = time.monotonic() + 60
        while not ray.is_initialized() and time.monotonic() < deadline:
            time.sleep(0.05)
        seen_running.append(ray.is_initialized())
        return chunk_rows(*args, **kwargs)

    monkeypatch.setattr(index_module, "_chunk_rows", slow_chunking)
    docs = sample_files(2)
    report = index_corpus(
        docs, str(tmp_path / "r"), EmbedderSpec("hash"), CONFIG, options=EngineOptions("ray")
    )
    assert seen_running == [True]
    assert not ray.is_initialized()  # started here, so shut down here
    stored = open_store(str(tmp_path / "r"), "hash:256", CONFIG)
    assert report.chunks_embedded == len(stored.chunks) > 5
