"""Run the app from this checkout: ``streamlit run app.py`` the way ``scar-viz app`` runs it
(:mod:`ui.serve`: the pages/ folder read as st.navigation pages, the model hubs switched off,
the logging).

``scripts/run.sh`` runs it as ``python -m scripts.serve`` from the repository's root, so this
checkout's ``ui`` and ``scar_viz`` are imported, first on the path as the current folder;
``python scripts/serve.py`` from anywhere finds them through the editable install
(``scripts/bootstrap.sh``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ui.serve import serve

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    sys.exit(serve(ROOT / "app.py", sys.argv[1:]))
