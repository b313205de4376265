"""``--device`` and ``--precision`` on every sub-command that loads a model: a device this
machine lacks, or a misspelt one, is one line and a non-zero exit; the flags win over the
environment; the choice reaches the cross-encoder too. torch's availability checks are faked,
so these run alike with and without a GPU."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from scar_viz.cli import main as cli
from scar_viz.runtime import devices
from scar_viz.runtime.devices import DeviceChoice
from scripts.tiny_models import tiny_bert, tiny_cross_encoder
from tests.fake_devices import fake_machine

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "scar_viz" / "documents" / "samples" / "harbor_manual.md"
QUERY = "Who takes command when the master is absent from the wheelhouse?"
MODEL_COMMANDS = ("select", "eval", "recommend", "fit-gate", "answer", "make-queries", "index")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> str:
    return str(tiny_bert(tmp_path_factory.mktemp("tiny")))


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def select(capsys, model: str, *extra: str) -> tuple[int, str, str]:
    return run(capsys, "select", str(SAMPLE), "--query", QUERY, "--model", model, *extra)


@pytest.mark.parametrize("command", MODEL_COMMANDS)
def test_every_command_that_loads_a_model_takes_device_and_precision(command):
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    flags = {f for a in sub.choices[command]._actions for f in a.option_strings}
    assert {"--device", "--precision"} <= flags


def test_cuda_without_cuda_is_one_line_and_a_non_zero_exit(capsys, monkeypatch, tiny_model):
    fake_machine(monkeypatch, cuda=0, cuda_build=False)
    code, out, err = select(capsys, f"st:{tiny_model}", "--device", "cuda")
    assert code == 1 and out == ""
    assert err.startswith("error: Device 'cuda' is not available: this torch (")
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "extra,message",
    [
        (("--device", "gpu"), "error: Unknown device 'gpu'"),
        (("--precision", "half"), "error: Unknown precision 'half'"),
        (("--device", "cpu", "--precision", "fp16"), "error: fp16 runs on a GPU only"),
    ],
)
def test_a_misspelt_choice_is_refused_before_any_work(capsys, monkeypatch, extra, message):
    fake_machine(monkeypatch)
    code, out, err = select(capsys, "hash", *extra)
    assert code == 1 and err.startswith(message) and err.count("\n") == 1


def test_the_flags_win_over_the_environment(capsys, monkeypatch, tiny_model):
    fake_machine(monkeypatch, cuda=0, cuda_build=False)
    monkeypatch.setenv(devices.DEVICE_ENV, "cuda")
    code, _, err = select(capsys, f"st:{tiny_model}")
    assert code == 1 and "Device 'cuda' is not available" in err  # the environment's choice
    code, out, err = select(capsys, f"st:{tiny_model}", "--device", "cpu", "--json")
    assert code == 0 and '"policy": "scar"' in out
    assert devices.current() == DeviceChoice("cuda", "auto")  # the command's scope has ended


def test_the_choice_reaches_the_cross_encoder(capsys, monkeypatch, tmp_path):
    fake_machine(monkeypatch, cuda=0, cuda_build=False)
    folder = str(tiny_cross_encoder(tmp_path / "ce"))
    args = ("--policy", "rerank", "--reranker", folder)
    code, _, err = select(capsys, "hash", *args, "--device", "cuda")
    assert code == 1 and "Device 'cuda' is not available" in err
    code, out, _ = select(capsys, "hash", *args, "--device", "cpu")
    assert code == 0 and "reranked" in out
