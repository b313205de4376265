"""Peak memory of a command-line run, measured in a fresh process: ``ru_maxrss`` of that process
(the kernel's own high-water mark, exact, where sampling RSS from outside can miss a short
peak), as ``benchmarks/store_scale.py`` measures it."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

from tests.conftest import ROOT

GIB = 2**30
_MARK = "PEAK-RSS-KIB="
_WRAPPER = f"""
import atexit, resource, sys
atexit.register(lambda: print("{_MARK}%d" % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                              file=sys.stderr))
from scar_viz.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


@dataclass(frozen=True)
class Measured:
    returncode: int
    stdout: str
    stderr: str
    """What the command wrote on stderr (the measurement's own line taken out)."""
    peak_bytes: int


def cli_peak(*args: str, timeout: float = 300) -> Measured:
    """``python -m scar_viz ARGS`` in a fresh process, and that process's peak resident memory."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    run = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )
    lines = run.stderr.splitlines()
    marks = [ln for ln in lines if ln.startswith(_MARK)]
    assert marks, run.stderr[-2000:]
    rest = "\n".join(ln for ln in lines if not ln.startswith(_MARK))
    return Measured(run.returncode, run.stdout, rest, int(marks[-1][len(_MARK) :]) * 1024)
