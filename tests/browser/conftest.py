"""Browser fixtures: live ``streamlit run`` servers and headless Debian Chromium.

One Chromium serves every browser test (``chromium``, ``page``): each test opens its own
contexts (no cookies, storage or session shared), and the contexts a test opened are closed
when it ends. One server serves each configuration: every module that asks for the app on the
default model (``live_app``) gets the same process, as does every module that asks for it on
the hashing embedder with no environment of its own (``hash_app``, ``running_hash_app()``).
A module sees such a server's log from its own start (``app.log()``), as it saw the log of a
server of its own. A server with an environment of its own (an operator's key, allow-lists) is
started for its module and stopped after it; a test whose server must be untouched by other
tests starts one (``start_app``) and stops it. Everything shared is stopped after the last
browser test.

In CI (CI=true) a missing Chromium fails the run; elsewhere the browser tests skip, saying why.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from scripts.live_app import CHROMIUM, LiveApp, browser
from tests.conftest import in_ci

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

_SHARED: dict[tuple[tuple[str, str], ...], LiveApp] = {}
"""The shared servers, by their environment."""


def _require_chromium() -> None:
    if Path(CHROMIUM).exists():
        return
    reason = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    if in_ci():
        pytest.fail(f"browser tests are mandatory in CI: {reason}")
    pytest.skip(reason)


def start_app(tmp_path_factory, **env: str) -> LiveApp:
    """A live server of its own, with its own empty embedding cache and log (the caller stops
    it)."""
    _require_chromium()
    cache = tmp_path_factory.mktemp("live-cache")
    base = {
        "SCAR_VIZ_CACHE_DIR": str(cache),
        "HF_HUB_OFFLINE": "1",
        "SCAR_VIZ_LOG": str(cache / "server.log"),
    }
    return LiveApp(env={**base, **env}).start()


def shared_app(tmp_path_factory, **env: str) -> LiveApp:
    """The server every module asking for ``env`` shares (started on first use), as seen from
    now: its log holds what it wrote after this call."""
    key = tuple(sorted(env.items()))
    app = _SHARED.get(key)
    if app is None:
        app = _SHARED[key] = start_app(tmp_path_factory, **env)
    elif app.proc is None or app.proc.poll() is not None:
        pytest.fail(f"the shared server for {env} exited:\n{app.log()[-3000:]}")
    return app.since_now()


@pytest.fixture(scope="package", autouse=True)
def _stop_shared_servers():
    """Stops the shared servers after the last browser test."""
    yield
    for app in _SHARED.values():
        app.stop()
    _SHARED.clear()


@pytest.fixture(scope="module")
def live_app(tmp_path_factory):
    """The app on the embedded default model (the shared server; its log from this module)."""
    yield shared_app(tmp_path_factory)


def running_hash_app(tmp_path_factory, **env: str):
    """The app on the instant hashing embedder with ``env`` (a generator for a module fixture:
    ``yield from``). Without ``env``: the shared server, its log from now on; with it: a server
    of its own, stopped after."""
    if not env:
        yield shared_app(tmp_path_factory, SCAR_VIZ_DEFAULT_MODEL="hash")
        return
    app = start_app(tmp_path_factory, SCAR_VIZ_DEFAULT_MODEL="hash", **env)
    yield app
    app.stop()


@pytest.fixture(scope="module")
def hash_app(tmp_path_factory):
    """The app starting on the instant hashing embedder (for input handling, not models)."""
    yield from running_hash_app(tmp_path_factory)


class SharedBrowser:
    """The browser tests' one Chromium: a Playwright ``Browser`` that remembers the contexts
    it opened, so that each test's are closed when the test ends."""

    def __init__(self, chromium) -> None:
        self._chromium = chromium
        self._opened: list = []

    def new_context(self, **options):
        context = self._chromium.new_context(**options)
        self._opened.append(context)
        return context

    def new_page(self, **options):
        return self.new_context(**options).new_page()

    def close_contexts(self) -> None:
        """Close every context opened since the last call (one already closed is skipped)."""
        opened, self._opened = self._opened, []
        for context in opened:
            with contextlib.suppress(Exception):
                context.close()

    def __getattr__(self, name: str):
        return getattr(self._chromium, name)


_BROWSER: list[SharedBrowser] = []


@pytest.fixture(scope="package")
def chromium():
    _require_chromium()
    with browser() as b:
        shared = SharedBrowser(b)
        _BROWSER.append(shared)
        yield shared
        _BROWSER.remove(shared)


@pytest.fixture(autouse=True)
def _close_the_tests_contexts():
    """Each test's browser contexts are closed when it ends, as a browser of its own would be."""
    yield
    for shared in _BROWSER:
        shared.close_contexts()


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
    """Every test here is a ``browser`` test; one on the app with the default model
    (``live_app``) is a ``model`` test too."""
    for item in items:
        if "tests/browser" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)
            if "live_app" in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.model)
