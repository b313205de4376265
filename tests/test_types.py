"""The type check: mypy on scar_viz/ (its settings in pyproject.toml) finds no error."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_mypy_finds_no_error_in_the_package():
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "scar_viz/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout
