"""The wheel's build hook (pyproject.toml, ``[tool.hatch.build.targets.wheel.hooks.custom]``):
a wheel carries the app's root files as one package, :data:`APP_PACKAGE`, beside ``scar_viz``.

The repository keeps ``app.py``, ``pages/``, ``ui/``, ``static/`` and ``.streamlit/`` at its
root (the layout users know); installed, those would be generic top-level names (``app``,
``pages``, ``ui``) in site-packages, so the wheel maps them under one folder instead. Only the
standard wheel gets them: the editable install (``scripts/bootstrap.sh``) puts the checkout's
root on the path (``dev-mode-dirs``), and a copy in site-packages would be served in place of
the files being edited.
"""

from __future__ import annotations

from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

APP_PACKAGE = "scar_viz_app"
"""The installed app's folder; ``scar_viz.cli.app`` names the same."""

APP_FILES = ("app.py", "pages", "ui", "static", ".streamlit/config.toml")
"""What ``streamlit run`` needs beside the main script, relative to the repository's root."""


class AppInWheel(BuildHookInterface):
    """Adds :data:`APP_FILES` under :data:`APP_PACKAGE` to a standard (not editable) wheel."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version != "standard":
            return
        build_data["force_include"].update({f: f"{APP_PACKAGE}/{f}" for f in APP_FILES})
