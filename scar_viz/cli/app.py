"""``scar-viz app [streamlit options]``: serve the app, from an installed wheel or a checkout.

The app's files (``app.py``, ``pages/``, ``ui/``, ``static/``, ``.streamlit/config.toml``) live
at the repository's root; a wheel carries them under ``scar_viz/_app/`` (pyproject.toml,
``force-include``). :func:`app_script` finds them in either place, and :func:`serve` starts
Streamlit on them the one way ``scripts/serve.py`` (the README's ``run.sh``) does too.

Streamlit treats a ``pages/`` folder beside the main script as a legacy (v1) multipage app
until the main script first calls ``st.navigation``; a server whose first visitor opens a deep
link (``/learn``) would run that page without ``app.py``. Declaring the v2 mode before the
server starts makes every first request go through ``app.py``. Streamlit itself reads the
``.streamlit/config.toml`` beside the main script (a script-level config), so the installed
app keeps the checkout's server settings whatever folder it is started from.

Streamlit is imported only inside :func:`serve`: the package stays free of it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

from scar_viz.errors import SettingsError

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
    """Run ``streamlit run SCRIPT [streamlit_args]`` in this process (until it stops).

    The model hubs are switched off before Streamlit imports anything, whatever the environment
    held (as ``ui``'s own import does again for a bare ``streamlit run``): a model name a visitor
    types is loaded from this machine only, never downloaded (docs/deployment.md).

    Returns:
        Streamlit's exit status.
    """
    for name in OFFLINE_ENV:
        os.environ[name] = "1"
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web.cli import main

    logging.basicConfig(format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("scar_viz").setLevel(logging.INFO)  # e.g. "loaded model …", once each
    PagesManager.uses_pages_directory = False
    try:
        main(["run", str(script), *streamlit_args], prog_name="streamlit")
    except SystemExit as done:  # click ends every command this way
        return done.code if isinstance(done.code, int) else 0 if done.code is None else 1
    return 0
