"""The numeric tests hold under another BLAS kernel and thread count, so a bit-for-bit
assumption cannot come back unseen.

Another CPU's OpenBLAS kernel sums a dot product in another order, and the last digits of
every cosine change (docs/testing.md, "Numbers"). This test runs the stored references and
the gate's equivalence tests again in a subprocess with ``OPENBLAS_CORETYPE`` set to another
core type this CPU can run (read back with threadpoolctl, so a request OpenBLAS ignored fails
here rather than passing unseen) and another ``OPENBLAS_NUM_THREADS``. The normal run's
settings are left as they are. It costs one pytest start and the modules below (~15 s on a
quiet 2-core machine).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np  # noqa: F401  (loads the BLAS threadpoolctl reads)
import pytest
from threadpoolctl import threadpool_info

ROOT = Path(__file__).resolve().parents[1]
AGAIN = (
    "tests/cli/test_cli_reference.py",
    "tests/scoring/test_reference.py",
)
"""The tests run again under the other kernel: stored numbers, and the gate's implementations
that must agree with each other."""

CORE_TYPES = {
    "x86_64": (("Sandybridge", "avx"), ("Nehalem", "sse4_2"), ("Haswell", "avx2")),
    "aarch64": (("ARMV8", "asimd"), ("NEOVERSEN1", "asimd")),
}
"""Per machine: OpenBLAS core types to switch to, each with the CPU flag it needs."""


def _openblas() -> dict:
    found = [i for i in threadpool_info() if i.get("internal_api") == "openblas"]
    if not found:
        pytest.skip("numpy is not linked against OpenBLAS here; OPENBLAS_CORETYPE means nothing")
    return found[0]


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return set()
    return {f for line in text.splitlines() if line.startswith(("flags", "Features"))
            for f in line.split(":", 1)[1].split()}  # fmt: skip


def other_core_type(current: str) -> str | None:
    """A core type other than ``current`` that this CPU can run, or None."""
    flags = _cpu_flags()
    for name, needs in CORE_TYPES.get(platform.machine(), ()):
        if name.lower() != current.lower() and needs in flags:
            return name
    return None


def _env(**changes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return {**env, **changes}


def test_the_numeric_tests_pass_under_another_openblas_kernel_and_thread_count():
    blas = _openblas()
    core = other_core_type(str(blas.get("architecture")))
    threads = "1" if blas.get("num_threads", 1) != 1 else "2"
    changes = {"OPENBLAS_NUM_THREADS": threads}
    if core is not None:  # else the thread count alone changes how the sums are split
        changes["OPENBLAS_CORETYPE"] = core
    env = _env(**changes)
    probe = subprocess.run(
        [sys.executable, "-c", "import json, numpy, threadpoolctl; "
         "print(json.dumps(threadpoolctl.threadpool_info()))"],
        env=env, capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    seen = next(i for i in json.loads(probe.stdout) if i.get("internal_api") == "openblas")
    assert str(seen["num_threads"]) == threads
    if core is not None:
        assert seen["architecture"].lower() == core.lower(), (seen, core)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         *AGAIN],
        env=env, capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, f"under {changes}:\n{run.stdout[-4000:]}\n{run.stderr[-2000:]}"
    assert " passed" in run.stdout
