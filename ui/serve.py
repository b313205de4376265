"""Start Streamlit on the app: ``streamlit run app.py`` the one way ``scripts/serve.py`` (the
README's ``run.sh``) and ``scar-viz app`` (:mod:`scar_viz.cli.app`, which runs this module as
``python -m ui.serve APP_SCRIPT [streamlit options]``) start it. Streamlit is imported here, on
the app's side, so the ``scar_viz`` package never imports it.

Streamlit treats a ``pages/`` folder beside the main script as a legacy (v1) multipage app
until the main script first calls ``st.navigation``; a server whose first visitor opens a deep
link (``/learn``) would run that page without ``app.py``. Declaring the v2 mode before the
server starts makes every first request go through ``app.py``. Streamlit itself reads the
``.streamlit/config.toml`` beside the main script (a script-level config), so the installed
app keeps the checkout's server settings whatever folder it is started from.

The model hubs are switched off by importing :mod:`ui` (this module's package), before
Streamlit imports anything: a model name a visitor types is loaded from this machine only,
never downloaded (docs/deployment.md).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path


def serve(script: Path, streamlit_args: Sequence[str]) -> int:
    """Run ``streamlit run SCRIPT [streamlit_args]`` in this process (until it stops).

    Returns:
        Streamlit's exit status.
    """
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


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1]), sys.argv[2:]))
