"""Run the app from this checkout: ``streamlit run app.py`` the way ``scar-viz app`` runs it
(:mod:`ui.serve`: the pages/ folder read as st.navigation pages, the model hubs switched off,
the logging)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's app and scar_viz, whatever the current folder

from ui.serve import serve  # noqa: E402

if __name__ == "__main__":
    sys.exit(serve(ROOT / "app.py", sys.argv[1:]))
