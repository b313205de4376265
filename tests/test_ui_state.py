"""The app switches the model hubs off for its process, whatever the operator's environment
says and however it was started: importing ``ui`` (every page and ``app.py`` do) sets them."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT

CHECK = (
    "import os, ui, huggingface_hub.constants as c; "
    "print(c.HF_HUB_OFFLINE, [os.environ[n] for n in ui.OFFLINE_ENV])"
)


def test_importing_ui_switches_the_hubs_off_even_over_the_operators_setting():
    env = {k: v for k, v in os.environ.items() if not k.endswith("_OFFLINE")}
    env["HF_HUB_OFFLINE"] = "0"  # an operator's leftover setting is overridden
    out = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "True ['1', '1', '1']"


def test_without_ui_the_hub_would_be_online():  # the check above can fail
    env = {k: v for k, v in os.environ.items() if not k.endswith("_OFFLINE")}
    out = subprocess.run(
        [sys.executable, "-c", "import huggingface_hub.constants as c; print(c.HF_HUB_OFFLINE)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out == "False"
