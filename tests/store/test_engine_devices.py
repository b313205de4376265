"""The engines' device rules, without Ray: batch sizes by device, and on Ray the pairs of
``--device`` and ``--num-gpus`` that no actor could meet, refused before any actor starts."""

from __future__ import annotations

import pytest

from scar_viz.runtime.devices import DeviceChoice
from scar_viz.store.engines import INDEX_BATCH_CPU, INDEX_BATCH_GPU, EngineOptions
from scar_viz.store.meta import StoreError


def test_engine_batches_are_larger_on_a_gpu_unless_given():
    assert (INDEX_BATCH_CPU, INDEX_BATCH_GPU) == (256, 1024)
    assert EngineOptions().batch_for(gpu=False) == INDEX_BATCH_CPU
    assert EngineOptions().batch_for(gpu=True) == INDEX_BATCH_GPU
    assert EngineOptions(batch_size=64).batch_for(gpu=True) == 64


@pytest.mark.parametrize(
    "num_gpus,choice,match",
    [
        (1, DeviceChoice("cpu"), "asks Ray for a CUDA GPU per actor, but --device is cpu"),
        (1, DeviceChoice("mps"), "but --device is mps"),
        (1, DeviceChoice("cuda:1"), "each actor sees the GPU it was given as cuda:0"),
        (0, DeviceChoice("cuda"), "--device cuda on Ray needs --num-gpus"),
        (0, DeviceChoice("auto", "fp16"), "--precision fp16 on Ray needs --num-gpus"),
    ],
)
def test_a_device_the_ray_actors_cannot_have_is_refused_up_front(num_gpus, choice, match):
    with pytest.raises(StoreError, match=match):
        EngineOptions("ray", num_gpus=num_gpus).check_device(choice)


@pytest.mark.parametrize(
    "num_gpus,choice",
    [
        (1, DeviceChoice()),
        (0.5, DeviceChoice("cuda", "fp32")),
        (1, DeviceChoice("cuda:0")),
        (0, DeviceChoice()),
        (0, DeviceChoice("cpu")),
    ],
)
def test_pairs_an_actor_can_meet_pass(num_gpus, choice):
    EngineOptions("ray", num_gpus=num_gpus).check_device(choice)


def test_in_process_the_device_is_the_choice_alone():
    EngineOptions("local", num_gpus=0).check_device(DeviceChoice("cuda"))  # resolved at load
