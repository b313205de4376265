"""A wheel built from this checkout, installed into a fresh venv, run from a folder outside
the repository: what the packaging tests share.

No download happens: the wheel is built without build isolation (hatchling is in
requirements-dev.txt) and installed with ``--no-deps``; the fresh venv sees the test venv's
packages (torch, streamlit, …) through a ``.pth`` file, after its own site-packages, so the
wheel's own files are what ``import scar_viz`` finds there, never the checkout.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, in_ci


@dataclass(frozen=True)
class Installed:
    """``bin`` holds the venv's ``python`` and ``scar-viz``; ``site`` its site-packages;
    ``elsewhere`` a folder outside the repository to run from; ``wheel`` the file installed."""

    bin: Path
    site: Path
    elsewhere: Path
    wheel: Path

    def run(self, *argv: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
        """``argv`` (a name in the venv's bin, then its arguments) run from ``elsewhere``."""
        return subprocess.run(
            [str(self.bin / argv[0]), *argv[1:]],
            cwd=self.elsewhere,
            env=clean_env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything that would put the checkout on ``sys.path``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **extra}


def _check(argv: list[str], cwd: Path) -> None:
    out = subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, timeout=600, env=clean_env()
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]


def install_wheel(work: Path) -> Installed:
    """Build the wheel into ``work/dist``, make ``work/venv`` and install it there."""
    if importlib.util.find_spec("hatchling") is None:
        reason = "hatchling is not installed (pip install -r requirements-dev.txt)"
        if in_ci():
            pytest.fail(f"the packaging test is mandatory in CI: {reason}")
        pytest.skip(reason)
    dist, venv, elsewhere = work / "dist", work / "venv", work / "elsewhere"
    elsewhere.mkdir()
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    _check([*pip_wheel, "--no-index", "--wheel-dir", str(dist), str(ROOT)], work)
    (wheel,) = dist.glob("scar_viz-*.whl")
    _check([sys.executable, "-m", "venv", "--without-pip", str(venv)], work)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True, env=clean_env(),
        ).stdout.strip()
    )  # fmt: skip
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "_test_venv_packages.pth").write_text("\n".join(sorted(ours)) + "\n")
    _check([str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)], work)
    return Installed(venv / "bin", site, elsewhere, wheel)
