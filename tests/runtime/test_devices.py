"""Where models run: ``auto``'s order and every explicit device with torch's availability
checks faked, the precision rule, the scope of a command's choice, and that every model
constructor in the package takes its device from this one place."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scar_viz.runtime import devices
from scar_viz.runtime.devices import DeviceChoice, DeviceError, Placement
from tests.fake_devices import fake_machine

torch = pytest.importorskip("torch")

PACKAGE = Path(__file__).resolve().parents[2] / "scar_viz"


@pytest.fixture
def machine(monkeypatch):
    """Fake what torch sees: ``machine(cuda=2, mps=False)``."""
    return lambda **seen: fake_machine(monkeypatch, **seen)


@pytest.mark.parametrize(
    "cuda,mps,expected",
    [
        (1, True, Placement("cuda:0", "fp16")),  # CUDA first, even beside MPS
        (0, True, Placement("mps", "fp16")),  # then MPS
        (0, False, Placement("cpu", "fp32")),  # then the CPU
    ],
)
def test_auto_picks_cuda_then_mps_then_the_cpu(machine, cuda, mps, expected):
    machine(cuda=cuda, mps=mps)
    assert DeviceChoice().resolve() == expected


def test_explicit_devices_are_taken_as_given(machine):
    machine(cuda=2, mps=True)
    assert DeviceChoice("cpu").resolve() == Placement("cpu", "fp32")
    assert DeviceChoice("cuda").resolve() == Placement("cuda:0", "fp16")
    assert DeviceChoice("cuda:1").resolve() == Placement("cuda:1", "fp16")
    assert DeviceChoice("mps").resolve() == Placement("mps", "fp16")


def test_fp32_opts_a_gpu_out_of_half_precision(machine):
    machine(cuda=1)
    placement = DeviceChoice("auto", "fp32").resolve()
    assert placement == Placement("cuda:0", "fp32") and placement.dtype == "float32"
    assert placement.batch_size == devices.GPU_BATCH  # still a GPU's batch
    half = DeviceChoice("cuda", "fp16").resolve()
    assert half.dtype == "float16" and half.label == "cuda:0, fp16"


@pytest.mark.parametrize(
    "choice,cuda_build,match",
    [
        (DeviceChoice("cuda"), False, r"'cuda' is not available: this torch .* without CUDA"),
        (DeviceChoice("cuda:0"), True, "Device 'cuda:0' is not available: torch finds no CUDA"),
        (DeviceChoice("mps"), True, "Device 'mps' is not available: torch finds no Apple GPU"),
        (DeviceChoice("auto", "fp16"), True, "fp16 runs on a GPU only"),
    ],
)
def test_a_device_this_machine_lacks_is_one_clear_error(machine, choice, cuda_build, match):
    machine(cuda=0, mps=False, cuda_build=cuda_build)
    with pytest.raises(DeviceError, match=match) as info:
        choice.resolve()
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "count,there", [(1, "1 CUDA device (cuda:0)"), (2, "2 CUDA devices (cuda:0 … cuda:1)")]
)
def test_a_gpu_number_past_the_last_names_the_ones_there(machine, count, there):
    machine(cuda=count)
    with pytest.raises(DeviceError) as info:
        DeviceChoice("cuda:2").resolve()
    assert str(info.value) == f"Device 'cuda:2' is not available: this machine has {there}."


@pytest.mark.parametrize(
    "choice,match",
    [
        (DeviceChoice("gpu"), "Unknown device 'gpu'"),
        (DeviceChoice("cuda:x"), "Unknown device 'cuda:x'"),
        (DeviceChoice("auto", "fp8"), "Unknown precision 'fp8'"),
        (DeviceChoice("cpu", "fp16"), "fp16 runs on a GPU only"),
    ],
)
def test_spelling_is_checked_without_torch(choice, match, monkeypatch):
    monkeypatch.setattr(devices, "_torch", lambda: pytest.fail("validate must not import torch"))
    with pytest.raises(DeviceError, match=match):
        choice.validate()


def test_the_environment_sets_the_default_and_a_command_scopes_its_own(monkeypatch):
    monkeypatch.setenv(devices.DEVICE_ENV, " CUDA:1 ")
    monkeypatch.setenv(devices.PRECISION_ENV, "")
    assert devices.current() == DeviceChoice("cuda:1", "auto")
    with devices.use(DeviceChoice("cpu", "fp32")):
        assert devices.current() == DeviceChoice("cpu", "fp32")
        with devices.use(None):  # a command without device options: the environment's
            assert devices.current() == DeviceChoice("cuda:1", "auto")
    assert devices.current() == DeviceChoice("cuda:1", "auto")
    monkeypatch.delenv(devices.DEVICE_ENV)
    assert devices.current() == DeviceChoice()


def test_the_model_line_names_the_device_only_for_a_model_that_has_one():
    class OnGpu:
        placement = Placement("cuda:0", "fp16")

    assert devices.model_line("MiniLM", OnGpu()) == "MiniLM on cuda:0, fp16"
    assert devices.model_line("hash", object()) == "hash"


# --- every model constructor takes its device from here --------------------------------------

MODEL_CONSTRUCTORS = {"SentenceTransformer", "CrossEncoder", "model2vec_distill", "distill"}
"""Calls that build a torch model: each must pass ``device=`` from a resolved choice."""


def hard_coded_devices(source: str, name: str = "<source>") -> list[str]:
    """Every place in ``source`` that fixes where a model runs: a ``device=`` keyword given as
    a literal, ``.to("…")`` / ``.cuda()`` / ``.cpu()`` on anything, a model constructor
    without ``device=``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        where = f"{name}:{node.lineno}"
        for kw in node.keywords:
            if kw.arg == "device" and isinstance(kw.value, ast.Constant):
                found.append(f"{where}: device={kw.value.value!r}")
        if isinstance(func, ast.Attribute) and called in {"cuda", "cpu"} and not node.args:
            found.append(f"{where}: .{called}()")
        if called == "to" and any(isinstance(a, ast.Constant) for a in node.args):
            found.append(f"{where}: .to(<literal>)")
        if called in MODEL_CONSTRUCTORS and not any(kw.arg == "device" for kw in node.keywords):
            found.append(f"{where}: {called}(…) without device=")
    return found


def test_no_model_in_the_package_is_built_on_a_hard_coded_device():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += hard_coded_devices(path.read_text(encoding="utf-8"), str(path))
    assert found == []


def test_the_scan_sees_each_way_of_fixing_a_device():
    bad = """
SentenceTransformer(path, device="cpu")
CrossEncoder(name, local_files_only=True)
model.to("cuda")
model.cuda()
model2vec_distill(model_name=path, device=placement.device)
"""
    assert [line.split(": ", 1)[1] for line in hard_coded_devices(bad)] == [
        "device='cpu'",
        "CrossEncoder(…) without device=",
        ".to(<literal>)",
        ".cuda()",
    ]


# --- the models get the resolved device and dtype, with CUDA faked -------------------------


class Recorder:
    """Stands in for a sentence-transformers class: records how it was built."""

    built: list[tuple[tuple, dict]] = []

    def __init__(self, *args, **kwargs):
        Recorder.built.append((args, kwargs))


def test_the_embedder_asks_sentence_transformers_for_the_gpu_in_fp16(machine, monkeypatch):
    import sentence_transformers

    from scar_viz.embeddings import make_embedder

    machine(cuda=1)
    Recorder.built = []
    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", Recorder)
    e = make_embedder("st:some/model", device=DeviceChoice())
    e.load()
    assert Recorder.built == [
        (("some/model",), {"device": "cuda:0", "model_kwargs": {"dtype": "float16"}})
    ]
    assert e.batch_size == devices.GPU_BATCH
    assert e.vectors_id == "st:some/model+fp16" and e.model_id == "st:some/model"
    assert devices.model_line(e.label, e).endswith(" on cuda:0, fp16")


def test_the_embedder_follows_the_choice_in_force_when_none_is_given(machine, monkeypatch):
    import sentence_transformers

    from scar_viz.embeddings import make_embedder

    machine(cuda=1)
    Recorder.built = []
    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", Recorder)
    with devices.use(DeviceChoice("cuda", "fp32")):
        e = make_embedder("st:m")
    e.load()  # the choice is captured when the embedder is made
    assert Recorder.built[0][1] == {"device": "cuda:0", "model_kwargs": {"dtype": "float32"}}
    assert e.vectors_id == e.model_id == "st:m"  # fp32 on a GPU shares the CPU's vectors


def test_the_cross_encoder_is_placed_by_the_same_choice(machine, monkeypatch):
    import sentence_transformers

    from scar_viz.policies import rerank

    machine(cuda=1)
    Recorder.built = []
    monkeypatch.setattr(sentence_transformers, "CrossEncoder", Recorder)
    rerank._load.cache_clear()
    try:
        rerank.load_reranker("some/reranker", device=DeviceChoice())
        with devices.use(DeviceChoice("cpu")):
            rerank.load_reranker("some/reranker")
    finally:
        rerank._load.cache_clear()
    assert [kw for _, kw in Recorder.built] == [
        {"device": "cuda:0", "local_files_only": True, "model_kwargs": {"dtype": "float16"}},
        {"device": "cpu", "local_files_only": True, "model_kwargs": {"dtype": "float32"}},
    ]


def test_a_missing_device_for_the_cross_encoder_is_a_reranker_error(machine):
    from scar_viz.policies.rerank import RerankerError, load_reranker

    machine(cuda=0, cuda_build=False)
    with pytest.raises(RerankerError, match="Device 'cuda' is not available"):
        load_reranker("some/reranker", device=DeviceChoice("cuda"))


def test_the_static_models_distillation_runs_on_the_chosen_device(machine, monkeypatch, tmp_path):
    from model2vec import distill as model2vec_distill_module

    from scar_viz.embeddings.distill import distill

    machine(cuda=1)
    seen: dict[str, object] = {}

    def fake_distill(**kwargs):
        seen.update(kwargs)
        raise ValueError("stop here")

    monkeypatch.setattr(model2vec_distill_module, "distill", fake_distill)
    from scar_viz.embeddings.base import EmbeddingError

    with pytest.raises(EmbeddingError, match="stop here"):
        distill(tmp_path, tmp_path / "out", device=DeviceChoice())
    assert seen["device"] == "cuda:0"
