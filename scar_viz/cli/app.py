"""``scar-viz app [streamlit options]``: serve the app, from an installed wheel or a checkout.

The app's files (``app.py``, ``pages/``, ``ui/``, ``static/``, ``.streamlit/config.toml``) live
at the repository's root; a wheel carries them under ``scar_viz/_app/`` (pyproject.toml,
``force-include``). :func:`app_script` finds them in either place, and :func:`serve` hands this
process over to the app's own launcher, ``ui/serve.py`` (the one ``scripts/serve.py``, the
README's ``run.sh``, calls too), which starts Streamlit on them. The package never imports
Streamlit.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from scar_viz.common.errors import SettingsError

OFFLINE_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
"""The hub switches the server sets to "1" (``ui.OFFLINE_ENV`` names the same three)."""

PACKAGE = Path(__file__).resolve().parent.parent
"""The ``scar_viz`` folder this module was imported from."""

INSTALLED_APP = PACKAGE / "_app" / "app.py"
"""Where a wheel puts the app's main script."""

CHECKOUT_APP = PACKAGE.parent / "app.py"
"""Where a repository checkout has it."""


def app_script() -> Path:
    """The app's main script: the installed copy first, else the checkout's.

    Raises:
        SettingsError: neither is there (one sentence).
    """
    for script in (INSTALLED_APP, CHECKOUT_APP):
        if script.is_file() and (script.parent / "pages").is_dir():
            return script
    raise SettingsError(
        f"The app's files are not beside this scar_viz ({PACKAGE}): install scar-viz from a "
        "wheel or run it from a checkout of the repository."
    )


def serve(script: Path, streamlit_args: Sequence[str]) -> int:
    """Replace this process by ``python -m ui.serve SCRIPT [streamlit_args]``, the app's own
    launcher, with the app's folder first on the import path (it never returns on success).

    The model hubs are switched off in the environment first, whatever it held (``ui``'s
    import does it again): a model name a visitor types is loaded from this machine only,
    never downloaded (docs/deployment.md).
    """
    env = dict(os.environ)
    for name in OFFLINE_ENV:
        env[name] = "1"
    folder = str(script.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (folder, env.get("PYTHONPATH", "")) if p)
    argv = [sys.executable, "-m", "ui.serve", str(script), *streamlit_args]
    os.execve(sys.executable, argv, env)
    return 1  # not reached: execve returns only by raising
