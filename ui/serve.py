"""Start Streamlit on the app: ``streamlit run app.py`` the one way ``scripts/serve.py`` (the
README's ``run.sh``) and ``scar-viz app`` (:mod:`scar_viz.cli.app`, which imports this module
by name and calls :func:`serve` in its own process) start it. Streamlit is imported here, on
the app's side, so the ``scar_viz`` package never imports it. In a checkout this module is
``ui.serve`` (the root is on the path through the editable install); in a wheel it is
``scar_viz_app.ui.serve``, and the pages' ``import ui`` then finds the same folder as a
top-level package because Streamlit puts the main script's folder first on the path.

Streamlit treats a ``pages/`` folder beside the main script as a legacy (v1) multipage app
until the main script first calls ``st.navigation``; a server whose first visitor opens a deep
link (``/learn``) would run that page without ``app.py``. Declaring the v2 mode before the
server starts makes every first request go through ``app.py``. Streamlit itself reads the
``.streamlit/config.toml`` beside the main script (a script-level config), so the installed
app keeps the checkout's server settings whatever folder it is started from.

A page's own link (``/compare``) opened in a fresh browser made Streamlit's front end ask
``/compare/_stcore/health`` and ``/compare/_stcore/host-config`` first (two 404s in the console,
streamlit/streamlit#7074: it tries the page's path as the server's base before its parent);
the index page this server sends names the base for the page paths it knows
(:func:`_quiet_deep_links`), so the front end asks the right path only.

The model hubs are switched off by importing :mod:`ui` (this module's package), before
Streamlit imports anything: a model name a visitor types is loaded from this machine only,
never downloaded (docs/deployment.md). ``scar-viz app`` switches them off before importing this
module as well.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

_BASE_SCRIPT = """<script>
(() => {
  // streamlit/streamlit#7074: on a page's link the front end first tries the page's path as
  // the server's base (two 404s); name the base when the last segment is one of the pages
  const pages = %s;
  const parts = window.location.pathname.replace(/\\/+$/, "").split("/");
  if (parts.length > 1 && pages.includes(decodeURIComponent(parts[parts.length - 1]))) {
    const base = parts.slice(0, -1).join("/") + "/";
    window.__streamlit = { BACKEND_BASE_URL: window.location.origin + base };
  }
})();
</script>"""


def page_paths(script: Path) -> list[str]:
    """The address paths of the app's pages (``pages/fit_gate.py`` is ``fit-gate``), as
    ``app.py`` declares them."""
    return sorted(p.stem.replace("_", "-") for p in script.parent.joinpath("pages").glob("*.py"))


def base_script(pages: Sequence[str]) -> str:
    """The ``<script>`` naming the server's base on a page's link (:func:`_quiet_deep_links`)."""
    return _BASE_SCRIPT % json.dumps(list(pages))


def _quiet_deep_links(pages: Sequence[str]) -> None:
    """Serve Streamlit's ``index.html`` with :func:`base_script` in its head.

    Streamlit's static files answer every unknown path (a page's link) with ``index.html``;
    this wraps the handler that Streamlit's server builds, so the page it sends sets
    ``window.__streamlit.BACKEND_BASE_URL`` (read by the front end before it connects) when the
    address ends in one of ``pages``. Other addresses get the page unchanged in effect.
    """
    from starlette.responses import FileResponse, HTMLResponse
    from streamlit.web.server.starlette import starlette_static_routes as routes

    make = routes.create_streamlit_static_handler
    head = "<head>" + base_script(pages)

    def create(directory: str, base_url: str | None):
        handler = make(directory=directory, base_url=base_url)
        index = Path(directory, "index.html")
        html = index.read_text(encoding="utf-8").replace("<head>", head, 1)
        answer = handler.get_response

        async def get_response(path, scope):
            response = await answer(path, scope)
            if isinstance(response, FileResponse) and Path(response.path) == index:
                return HTMLResponse(html, headers={"Cache-Control": "no-cache"})
            return response

        handler.get_response = get_response
        return handler

    routes.create_streamlit_static_handler = create


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
    _quiet_deep_links(page_paths(script))
    try:
        main(["run", str(script), *streamlit_args], prog_name="streamlit")
    except SystemExit as done:  # click ends every command this way
        return done.code if isinstance(done.code, int) else 0 if done.code is None else 1
    return 0


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1]), sys.argv[2:]))
