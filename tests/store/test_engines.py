"""The Ray engine on a local Ray gives the vectors the in-process engine gives, and its
actors put the model where the device choice says, on the GPU they ask Ray for."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.embeddings import make_embedder
from scar_viz.runtime.devices import DeviceChoice
from scar_viz.store import EmbedderSpec, EngineOptions, StoreError, index_corpus, open_store
from scripts.tiny_models import tiny_bert
from tests.store.corpus import CONFIG, CountingEmbedder, sample_files

pytestmark = pytest.mark.ray

ray = pytest.importorskip(
    "ray", reason="the scale extras are not installed (pip install -r requirements-scale.txt)"
)


@pytest.fixture(scope="module")
def local_ray():
    # one GPU declared to Ray (a logical resource; none need exist), so that an actor can ask
    # for it as ``--num-gpus 1`` does, and be given it
    ray.init(num_cpus=2, num_gpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> str:
    return f"st:{tiny_bert(tmp_path_factory.mktemp('tiny'))}"


def test_ray_actors_place_the_model_by_the_choice_and_the_run_records_where(
    tmp_path, local_ray, tiny_model
):
    docs = sample_files(2)
    cpu = DeviceChoice("cpu")
    report = index_corpus(
        docs,
        str(tmp_path / "r"),
        EmbedderSpec(tiny_model, device=cpu),
        CONFIG,
        options=EngineOptions("ray", concurrency=1),
    )
    local = index_corpus(docs, str(tmp_path / "l"), make_embedder(tiny_model, device=cpu), CONFIG)
    assert report.devices == local.devices == ("cpu, fp32",)
    assert report.line.endswith(" on cpu, fp32")
    model_id = make_embedder(tiny_model).model_id
    got = open_store(str(tmp_path / "r"), model_id, CONFIG)
    want = open_store(str(tmp_path / "l"), model_id, CONFIG)
    assert got.chunks == want.chunks and np.allclose(got.unit, want.unit, atol=1e-5)


def test_an_actor_given_a_gpu_resolves_the_choice_where_it_runs(tmp_path, local_ray, tiny_model):
    """``--num-gpus 1`` with ``--device cuda``: the driver accepts the pair, and the actor,
    holding the GPU Ray gave it, resolves ``cuda`` itself: on this torch's CUDA when it has
    one, else the actor's one-line reason comes back as ``index``'s error."""
    import torch

    spec = EmbedderSpec(tiny_model, device=DeviceChoice("cuda"))
    options = EngineOptions("ray", num_gpus=1)
    if torch.cuda.is_available():
        report = index_corpus(sample_files(1), str(tmp_path / "g"), spec, CONFIG, options=options)
        assert report.devices == ("cuda:0, fp16",)
        return
    with pytest.raises(StoreError, match=r"^A Ray actor could not embed: Device 'cuda' is not"):
        index_corpus(sample_files(1), str(tmp_path / "g"), spec, CONFIG, options=options)


def test_more_gpus_than_this_machines_ray_has_is_one_line_not_a_wait(tmp_path, local_ray):
    with pytest.raises(StoreError, match="asks for 2 GPU per actor, but the Ray on this machine"):
        index_corpus(
            sample_files(1),
            str(tmp_path / "g"),
            EmbedderSpec("hash"),
            CONFIG,
            options=EngineOptions("ray", num_gpus=2),
        )


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
