"""Peak memory of a command-line run, measured in a fresh process: ``VmHWM`` of that process
(the kernel's own high-water mark of its resident memory, exact, where sampling RSS from outside
can miss a short peak).

Not ``ru_maxrss``: Linux carries it over an ``exec`` from the process that started the command,
so under a pytest process that has grown past 1 GiB a 130 MiB command read 1.08 GB. ``VmHWM``
belongs to the new program's own memory map. Where ``/proc`` is missing, ``ru_maxrss`` stands in.
"""

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
def _peak_kib():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
atexit.register(lambda: print("{_MARK}%d" % _peak_kib(), file=sys.stderr))
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
