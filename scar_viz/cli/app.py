"""``scar-viz app [streamlit options]``: ``streamlit run`` on the app's script, in this process.

The app's files (``app.py``, ``pages/``, ``ui/``, ``static/``, ``.streamlit/config.toml``) live
at the repository's root; a wheel carries them as one package beside this one,
``scar_viz_app/`` (``scripts/wheel_hook.py``). :func:`app_script` finds them in either place,
and :func:`serve` calls the app's own launcher, ``ui/serve.py`` (the one ``scripts/serve.py``,
the README's ``run.sh``, calls too), imported by name from where the script lies: Streamlit is
imported there, on the app's side, so this package never imports it. No environment is built
for a child process and no ``sys.path`` is edited: the checkout's root is on the path through
its editable install (``scripts/bootstrap.sh``), the wheel's app package through site-packages,
and Streamlit puts the script's folder first when it runs it (the pages' ``import ui``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from pathlib import Path

from scar_viz.common.errors import SettingsError

OFFLINE_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
"""The hub switches the server sets to "1" (``ui.OFFLINE_ENV`` names the same three)."""

PACKAGE = Path(__file__).resolve().parent.parent
"""The ``scar_viz`` folder this module was imported from."""

APP_PACKAGE = "scar_viz_app"
"""The package a wheel installs the app's files as (``scripts/wheel_hook.py`` names the same)."""

INSTALLED_APP = PACKAGE.parent / APP_PACKAGE / "app.py"
"""Where a wheel puts the app's main script: beside ``scar_viz`` in site-packages."""

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


def launcher(script: Path) -> str:
    """The module name ``ui/serve.py`` beside ``script`` imports as here: inside the installed
    app package, or top-level in a checkout (its root is on the path)."""
    return f"{APP_PACKAGE}.ui.serve" if script.parent.name == APP_PACKAGE else "ui.serve"


def serve(script: Path, streamlit_args: Sequence[str]) -> int:
    """``streamlit run SCRIPT [streamlit_args]`` in this process, through the app's launcher
    (until the server stops).

    The model hubs are switched off in the environment first, whatever it held, before anything
    can import a model library (``ui``'s import does it again): a model name a visitor types is
    loaded from this machine only, never downloaded (docs/deployment.md).

    Returns:
        Streamlit's exit status.
    """
    for name in OFFLINE_ENV:
        os.environ[name] = "1"
    return importlib.import_module(launcher(script)).serve(script, streamlit_args)
