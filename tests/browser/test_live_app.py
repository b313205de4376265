"""``scripts/live_app.wait_for_app_run`` waits for the run the action started, not for the
``notRunning`` state left over from the run before it."""

from __future__ import annotations

import time

import pytest

from scripts.live_app import LiveApp, wait_for_app_run
from tests.browser.conftest import _require_chromium

SCRIPT = "tests/browser/apps/run_counter.py"
CLICK_LATER = (
    "ms => setTimeout(() => "
    "document.querySelector(\"[data-testid='stButton'] button\").click(), ms)"
)


@pytest.fixture(scope="module")
def counter_app(tmp_path_factory):
    _require_chromium()
    cache = tmp_path_factory.mktemp("live-counter")
    app = LiveApp(env={"SCAR_VIZ_LOG": str(cache / "server.log")})
    app.script = SCRIPT
    app.start()
    yield app
    app.stop()


def runs(page) -> str:
    return page.get_by_test_id("stText").inner_text()


def test_waits_for_a_run_that_starts_late(counter_app, page):
    page.goto(counter_app.url)
    wait_for_app_run(page)
    assert runs(page) == "runs: 1"
    # The run starts 800 ms after the action, as a rerun may on a loaded machine: a wait
    # that sleeps 250 ms and then looks for notRunning returns on the previous run's state.
    page.evaluate(CLICK_LATER, 800)
    wait_for_app_run(page)
    assert runs(page) == "runs: 2"
    page.get_by_test_id("stButton").locator("button").click()
    wait_for_app_run(page)
    assert runs(page) == "runs: 3"


def test_an_action_without_a_run_returns(counter_app, page):
    page.goto(counter_app.url)
    wait_for_app_run(page)
    t0 = time.monotonic()
    wait_for_app_run(page, start_timeout_ms=1_000)  # nothing was done: no run comes
    assert time.monotonic() - t0 < 10
    assert runs(page) == "runs: 1"
