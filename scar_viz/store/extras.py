"""The optional scale extras (LanceDB, Ray Data): imported only here, only when used.

The app and every other sub-command never import them; without them, the message says in one
line what to install.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from scar_viz.common.errors import UserError

INSTALL = "pip install -r requirements-scale.txt"


class ExtrasMissing(UserError, ImportError):
    """A scale extra is not installed; the message names what to install."""


def _load(name: str, package: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ExtrasMissing(
            f"The {package} package is not installed; install the scale extras with '{INSTALL}'."
        ) from exc


def lancedb() -> ModuleType:
    """The ``lancedb`` module (the store).

    Raises:
        ExtrasMissing: when it is not installed.
    """
    return _load("lancedb", "lancedb")


def ray() -> ModuleType:
    """The ``ray`` module with Ray Data loaded (the distributed engine).

    Raises:
        ExtrasMissing: when it is not installed.
    """
    module = _load("ray", "ray[data]")
    _load("ray.data", "ray[data]")
    return module
