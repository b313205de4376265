"""Where a model runs and in what precision: one choice, resolved against what torch sees.

The choice is a device and a precision: ``--device`` and ``--precision`` on the command line,
``SCAR_VIZ_DEVICE`` and ``SCAR_VIZ_PRECISION`` for the app (and the command line's default).

- device ``auto`` (the default) picks CUDA, then MPS (Apple), then the CPU; ``cpu``, ``cuda``,
  ``cuda:N`` and ``mps`` are taken as given, and one that is not available here is one
  :class:`DeviceError` that says what is.
- precision ``auto`` (the default) is fp16 on a GPU and fp32 on the CPU; ``fp32`` keeps a GPU
  in full precision; ``fp16`` on the CPU is refused (slower there than fp32, and never what
  the default model was measured in).

Every model the package loads — the sentence-transformers embedder, the cross-encoder, the
static model's distillation — takes its device and dtype from :meth:`DeviceChoice.resolve`;
no other module names a device. torch is imported only when a choice is resolved, so a
command that loads no model never imports it.

A command runs with one choice for all its models: the command line's entry point sets it
for the length of a command (:func:`use`); without that, it is the environment's
(:func:`current`). It describes the machine, not a user, so the app's sessions share it.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from scar_viz.common.errors import UserError

DEVICE_ENV = "SCAR_VIZ_DEVICE"
PRECISION_ENV = "SCAR_VIZ_PRECISION"
AUTO = "auto"
PRECISIONS = (AUTO, "fp16", "fp32")
DEVICE_HELP = "auto (CUDA, then MPS, then the CPU), cpu, cuda, cuda:N or mps"
PRECISION_HELP = "auto (fp16 on a GPU, fp32 on the CPU), fp16 or fp32"

CPU_BATCH = 32
"""Texts per forward pass on the CPU (sentence-transformers' own default)."""

GPU_BATCH = 256
"""Texts per forward pass on a GPU: the batch the issue measured on an H200 (fp16: 2,065
chunks/s at 256, 2,139 at 1,024); ``benchmarks/gpu_embed.py --batch-sizes`` re-measures it."""

_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")


class DeviceError(UserError, ValueError):
    """A device or precision that is malformed or not available here; the message says which
    ones are."""


@dataclass(frozen=True)
class Placement:
    """Where a model was put: a torch device (``cpu``, ``cuda:0``, ``mps``) and a precision
    (``fp16`` or ``fp32``)."""

    device: str
    precision: str

    @property
    def gpu(self) -> bool:
        """True on CUDA or MPS."""
        return self.device != "cpu"

    @property
    def dtype(self) -> str:
        """The dtype's name as torch and transformers take it (``float16``, ``float32``)."""
        return "float16" if self.precision == "fp16" else "float32"

    @property
    def batch_size(self) -> int:
        """Texts per forward pass: :data:`GPU_BATCH` on a GPU, else :data:`CPU_BATCH`."""
        return GPU_BATCH if self.gpu else CPU_BATCH

    @property
    def label(self) -> str:
        """``cuda:0, fp16``: as the sidebar and ``index`` show it."""
        return f"{self.device}, {self.precision}"


@dataclass(frozen=True)
class DeviceChoice:
    """What was asked: a device (``auto``, ``cpu``, ``cuda``, ``cuda:N``, ``mps``) and a
    precision (``auto``, ``fp16``, ``fp32``). Cheap to build and to ship to a Ray worker; it is
    resolved where the model loads."""

    device: str = AUTO
    precision: str = AUTO

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> DeviceChoice:
        """``SCAR_VIZ_DEVICE`` and ``SCAR_VIZ_PRECISION`` (blank or unset: ``auto``)."""
        env = os.environ if environ is None else environ
        device = env.get(DEVICE_ENV, "").strip() or AUTO
        precision = env.get(PRECISION_ENV, "").strip() or AUTO
        return cls(device.lower(), precision.lower())

    def validate(self) -> None:
        """Check the spelling only (no torch import).

        Raises:
            DeviceError: a device or precision that is not one of the forms above.
        """
        if not _DEVICE.match(self.device):
            raise DeviceError(f"Unknown device '{self.device}': use {DEVICE_HELP}.")
        if self.precision not in PRECISIONS:
            raise DeviceError(
                f"Unknown precision '{self.precision}': use auto, fp16 or fp32 (auto is fp16 "
                "on a GPU, fp32 on the CPU)."
            )
        if self.device == "cpu" and self.precision == "fp16":
            raise DeviceError(_FP16_ON_CPU)

    def resolve(self) -> Placement:
        """The device and precision a model loads with on this machine, as torch sees it.

        Raises:
            DeviceError: a malformed choice, or a device not available here.
        """
        self.validate()
        torch = _torch()
        device = _resolve_device(torch, self.device)
        precision = self.precision
        if precision == AUTO:
            precision = "fp32" if device == "cpu" else "fp16"
        if device == "cpu" and precision == "fp16":
            raise DeviceError(_FP16_ON_CPU)
        return Placement(device, precision)

    @property
    def label(self) -> str:
        """``auto, auto``; ``cuda:1, fp32``."""
        return f"{self.device}, {self.precision}"


_FP16_ON_CPU = (
    "fp16 runs on a GPU only; on the CPU models run in fp32 (give precision auto or fp32)."
)


def _torch():
    try:
        import torch
    except ImportError as exc:
        raise DeviceError("torch is not installed; the models need it (requirements.txt).") from exc
    return torch


def _resolve_device(torch, asked: str) -> str:
    cuda = torch.cuda.is_available()
    if asked == AUTO:
        if cuda:
            return f"cuda:{torch.cuda.current_device()}"
        if _mps_available(torch):
            return "mps"
        return "cpu"
    if asked == "cpu":
        return "cpu"
    if asked == "mps":
        if not _mps_available(torch):
            raise DeviceError(
                "Device 'mps' is not available: torch finds no Apple GPU here. Choose auto or cpu."
            )
        return "mps"
    if not cuda:
        why = (
            f"this torch ({torch.__version__}) is built without CUDA"
            if torch.version.cuda is None
            else "torch finds no CUDA device"
        )
        raise DeviceError(f"Device '{asked}' is not available: {why}. Choose auto or cpu.")
    if asked == "cuda":
        return f"cuda:{torch.cuda.current_device()}"
    number, count = int(asked.partition(":")[2]), torch.cuda.device_count()
    if number >= count:
        there = "1 CUDA device (cuda:0)" if count == 1 else f"{count} CUDA devices (cuda:0 … "
        there += "" if count == 1 else f"cuda:{count - 1})"
        raise DeviceError(f"Device '{asked}' is not available: this machine has {there}.")
    return f"cuda:{number}"


def _mps_available(torch) -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def placement_label(model: object) -> str:
    """Where ``model`` (an embedder) runs, ``cuda:0, fp16``; "" for one without a device (the
    hash and static models, an endpoint)."""
    placement = getattr(model, "placement", None)
    return placement.label if isinstance(placement, Placement) else ""


def model_line(label: str, model: object) -> str:
    """``label`` and where ``model`` runs: ``all-MiniLM-L6-v2 (…) on cuda:0, fp16``; the label
    alone for a model without a device."""
    where = placement_label(model)
    return f"{label} on {where}" if where else label


_chosen: DeviceChoice | None = None


def current() -> DeviceChoice:
    """The choice in force: the one :func:`use` set for this command, else the environment's."""
    return _chosen if _chosen is not None else DeviceChoice.from_env()


@contextlib.contextmanager
def use(choice: DeviceChoice | None) -> Iterator[None]:
    """Make ``choice`` the one in force (:func:`current`) until the block ends; None keeps the
    environment's. For an entry point that runs one command: the command line's ``main``."""
    global _chosen
    before = _chosen
    _chosen = choice
    try:
        yield
    finally:
        _chosen = before
