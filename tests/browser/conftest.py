"""Browser fixtures: a live ``streamlit run`` server and headless Debian Chromium.

In CI (CI=true) a missing Chromium fails the run; elsewhere the browser tests skip, saying why.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scripts.live_app import CHROMIUM, LiveApp, browser
from tests.conftest import in_ci

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def _require_chromium() -> None:
    if Path(CHROMIUM).exists():
        return
    reason = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    if in_ci():
        pytest.fail(f"browser tests are mandatory in CI: {reason}")
    pytest.skip(reason)


def start_app(tmp_path_factory, **env: str) -> LiveApp:
    """A live server with its own empty embedding cache and log."""
    _require_chromium()
    cache = tmp_path_factory.mktemp("live-cache")
    base = {
        "SCAR_VIZ_CACHE_DIR": str(cache),
        "HF_HUB_OFFLINE": "1",
        "SCAR_VIZ_LOG": str(cache / "server.log"),
    }
    return LiveApp(env={**base, **env}).start()


@pytest.fixture(scope="module")
def live_app(tmp_path_factory):
    """The app on the embedded default model."""
    app = start_app(tmp_path_factory)
    yield app
    app.stop()


def running_hash_app(tmp_path_factory, **env: str):
    """The app on the instant hashing embedder with ``env`` (a generator for a module fixture:
    ``yield from``); stopped after."""
    app = start_app(tmp_path_factory, SCAR_VIZ_DEFAULT_MODEL="hash", **env)
    yield app
    app.stop()


@pytest.fixture(scope="module")
def hash_app(tmp_path_factory):
    """The app starting on the instant hashing embedder (for input handling, not models)."""
    yield from running_hash_app(tmp_path_factory)


@pytest.fixture(scope="module")
def chromium():
    _require_chromium()
    with browser() as b:
        yield b


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1400, "height": 1800})
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)
