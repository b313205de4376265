"""Browser fixtures: live ``streamlit run`` servers and headless Debian Chromium.

One Chromium per worker serves every browser test (``chromium``, ``page``): a test's
"contexts" are tabs in one persistent browser profile (each tab its own Streamlit session; the
app's front end is compiled once per server, not per page: :class:`Tabs`), a test about
separate visitors' browsers opens private contexts, and whatever a test opened is closed when
it ends. One server serves each configuration: every module that asks for the app on the
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

from scripts.live_app import CHROMIUM, LAUNCH, STARTED, LiveApp
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


@contextlib.contextmanager
def script_app(tmp_path_factory, script: str):
    """A live server running ``script`` (a tiny app under tests/browser/apps) with its own log,
    stopped on leaving."""
    _require_chromium()
    cache = tmp_path_factory.mktemp("live-script")
    app = LiveApp(env={"SCAR_VIZ_LOG": str(cache / "server.log")})
    app.script = script
    app.start()
    try:
        yield app
    finally:
        app.stop()


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


_FORGET_STORAGE = """(() => {
  // a test's first load of an origin forgets what earlier tests left in its web storage
  const m = document.cookie.match(/(?:^|; )sv_test_generation=(\\d+)/);
  try {
    if (m && localStorage.getItem("sv_test_generation") !== m[1]) {
      localStorage.clear();
      sessionStorage.clear();
      localStorage.setItem("sv_test_generation", m[1]);
    }
  } catch (e) {}
})();"""


class Tabs:
    """What a test gets for a "new browser context": tabs in the worker's one browser profile.

    Each tab is a Streamlit session of its own (a session is a websocket connection, not a
    cookie), opened at the viewport asked for; ``close()`` closes this group's tabs, as closing
    a visitor's window would. The app keeps nothing in cookies or web storage (its sessions are
    server-side), so the tabs share nothing the app reads; what they share is the profile's
    HTTP cache and V8's code cache, so the app's front end is fetched and compiled once per
    server instead of once per page (:class:`SharedBrowser`). A test about two visitors'
    browsers asks for ``private=True``: a context of its own.
    """

    def __init__(self, shared: SharedBrowser, viewport: dict | None) -> None:
        self._shared = shared
        self._viewport = viewport
        self.pages: list = []

    def new_page(self):
        page = self._shared.profile().new_page()
        if self._viewport:
            page.set_viewport_size(self._viewport)
        self.pages.append(page)
        return page

    def close(self) -> None:
        for page in self.pages:
            with contextlib.suppress(Exception):
                page.close()


class SharedBrowser:
    """The browser tests' Chromium, one per worker: a persistent profile (a user-data folder)
    whose tabs stand in for browser contexts (:class:`Tabs`), and, started only when a test
    asks for ``private=True``, a second Chromium for contexts of their own. What a test opened
    is closed when the test ends.

    Why a persistent profile: every page load in a fresh context fetched, parsed and compiled
    Streamlit's front end again, and one shared off-the-record context (``new_context()``)
    saved under 2 % (it keeps its HTTP cache in memory, but presumably no compiled code for
    the next renderer). A profile on disk keeps both: the browser tests (``pytest -n 2
    tests/browser``) took 592 and 661 s of CPU against 675 and 773 s with a context per test,
    323 and 354 s against 366 and 412 s of wall (two pairs of runs, each pair back to back;
    docs/performance.md, "The test suite").
    """

    def __init__(self, browser_type, folder: Path) -> None:
        self._type = browser_type
        self._folder = folder
        self._profile = None
        self._private = None
        self._generation = 0
        self._opened: list = []

    def profile(self):
        """The shared profile's context (started again if a test closed it)."""
        if self._profile is None:
            STARTED["browsers"] += 1
            self._profile = self._type.launch_persistent_context(self._folder, **LAUNCH)
            self._profile.on("close", lambda _: setattr(self, "_profile", None))
            self._profile.add_init_script(_FORGET_STORAGE)
            self._profile.add_cookies([self._generation_cookie()])
        return self._profile

    def forget(self) -> None:
        """Start the next test with no cookies and, in each app's first page load, no web
        storage (Streamlit keeps the sidebar's state and width there): a browser of its own, but
        for the cache."""
        self._generation += 1
        if self._profile is not None:
            self._profile.clear_cookies()
            self._profile.add_cookies([self._generation_cookie()])

    def _generation_cookie(self) -> dict:
        return {
            "name": "sv_test_generation",
            "value": str(self._generation),
            "domain": "127.0.0.1",
            "path": "/",
        }

    def new_context(self, viewport: dict | None = None, private: bool = False, **options):
        if private or options:
            if self._private is None:
                STARTED["browsers"] += 1
                self._private = self._type.launch(**LAUNCH)
            context = self._private.new_context(viewport=viewport, **options)
        else:
            context = Tabs(self, viewport)
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

    def close(self) -> None:
        """Close the profile and the private Chromium, whichever started."""
        self.close_contexts()
        for running in (self._profile, self._private):
            if running is not None:
                with contextlib.suppress(Exception):
                    running.close()
        self._profile = self._private = None


_BROWSER: list[SharedBrowser] = []


@pytest.fixture(scope="package")
def chromium(tmp_path_factory):
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        shared = SharedBrowser(p.chromium, tmp_path_factory.mktemp("chromium-profile"))
        _BROWSER.append(shared)
        try:
            yield shared
        finally:
            _BROWSER.remove(shared)
            shared.close()


@pytest.fixture(autouse=True)
def _close_the_tests_contexts():
    """Each test starts with no cookies or web storage from earlier tests, and its browser
    contexts are closed when it ends, as a browser of its own would be."""
    for shared in _BROWSER:
        shared.forget()
    yield
    for shared in _BROWSER:
        shared.close_contexts()


@pytest.fixture
def page(chromium):
    tabs = chromium.new_context(viewport={"width": 1400, "height": 1800})
    yield tabs.new_page()
    tabs.close()


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
