"""Run the app: ``streamlit run app.py`` with the pages/ folder read as st.navigation pages.

Streamlit treats a ``pages/`` folder beside the main script as a legacy (v1) multipage app until
the main script first calls ``st.navigation``; a server whose first visitor opens a deep link
(``/learn``) would run that page without ``app.py``. Declaring the v2 mode before the server
starts makes every first request go through ``app.py``.

The model hubs are switched off here too, before the server imports anything (``ui``'s own
import does it): a hub name a visitor types never makes this server download.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from streamlit.runtime.pages_manager import PagesManager
from streamlit.web.cli import main

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

if __name__ == "__main__":
    import ui  # noqa: F401 — switches the model hubs off for the server's process (ui/__init__)

    logging.basicConfig(format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("scar_viz").setLevel(logging.INFO)  # e.g. "loaded model …", once each
    PagesManager.uses_pages_directory = False
    sys.exit(main(["run", str(ROOT / "app.py"), *sys.argv[1:]], prog_name="streamlit"))
