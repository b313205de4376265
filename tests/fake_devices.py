"""What torch sees, faked: CUDA devices, an Apple GPU, a torch built with or without CUDA."""

from __future__ import annotations

import pytest

from scar_viz.runtime import devices


def fake_machine(
    monkeypatch: pytest.MonkeyPatch, cuda: int = 0, mps: bool = False, cuda_build: bool = True
) -> None:
    """Make torch's availability checks answer as on a machine with ``cuda`` CUDA devices and
    an Apple GPU when ``mps``; the device environment variables are cleared."""
    torch = pytest.importorskip("torch")
    monkeypatch.delenv(devices.DEVICE_ENV, raising=False)
    monkeypatch.delenv(devices.PRECISION_ENV, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: cuda)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
    monkeypatch.setattr(torch.version, "cuda", "12.8" if cuda_build else None)
