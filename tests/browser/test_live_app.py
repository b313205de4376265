"""``scripts/live_app.wait_for_app_run`` waits for the run the action started, not for the
``notRunning`` state left over from the run before it, however late the run starts and however
quick it is; ``settle`` waits until the page stops changing."""

from __future__ import annotations

import time
import warnings

import pytest

from scripts.browser_actions import click_within, press
from scripts.live_app import QUIET_MS, settle, wait_for_app_run
from tests.browser.conftest import script_app

SCRIPT = "tests/browser/apps/run_counter.py"
START_MS = 300
"""The start timeout the tests below give the wait: time for the front end to send its request
after an action, far less than the runs' delays."""
CLICK_LATER = (
    "ms => setTimeout(() => "
    "document.querySelector(\"[data-testid='stButton'] button\").click(), ms)"
)


@pytest.fixture(scope="module")
def counter_app(tmp_path_factory):
    with script_app(tmp_path_factory, SCRIPT) as app:
        yield app


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


SWALLOW_NEXT_CLICK = """() => {
  // the next click never reaches the page's handlers, as a lost click never did
  window.addEventListener("click", (e) => { e.stopImmediatePropagation(); e.preventDefault(); },
    {capture: true, once: true});
}"""


def test_press_clicks_once_and_waits_for_the_run(counter_app, page):
    page.goto(counter_app.url)
    wait_for_app_run(page)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a click that was answered is never repeated
        press(page, page.get_by_test_id("stButton").locator("button"))
    assert runs(page) == "runs: 2"


def test_press_clicks_again_once_when_the_click_asked_for_no_run(counter_app, page):
    page.goto(counter_app.url)
    wait_for_app_run(page)
    page.evaluate(SWALLOW_NEXT_CLICK)
    with pytest.warns(UserWarning, match="asked for no run: clicked again"):
        press(page, page.get_by_test_id("stButton").locator("button"), asks_within_ms=1_000)
    assert runs(page) == "runs: 2"  # the second click's run, and only it


def test_click_within_clicks_a_point_of_the_target_and_again_when_it_asked_for_no_run(
    counter_app, page
):
    page.goto(counter_app.url)
    wait_for_app_run(page)
    button = page.get_by_test_id("stButton").locator("button")
    box = button.bounding_box()
    middle = (box["width"] / 2, box["height"] / 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a click that was answered is never repeated
        click_within(page, button, *middle)
    assert runs(page) == "runs: 2"
    page.evaluate(SWALLOW_NEXT_CLICK)
    with pytest.warns(UserWarning, match="asked for no run: clicked again"):
        click_within(page, button, *middle, asks_within_ms=1_000)
    assert runs(page) == "runs: 3"  # the second click's run, and only it
    with pytest.warns(UserWarning, match="asked for no run: clicked again"):
        click_within(page, button, -5, -5, asks_within_ms=1_000)  # outside the button: no run
    assert runs(page) == "runs: 3"


DELAY_SENDS = """ms => {
  // everything the page sends leaves ms late, as if the server were slow to take it
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) { setTimeout(() => send.call(this, data), ms); };
}"""


def test_a_run_asked_for_is_waited_for_however_late_it_starts(counter_app, page):
    page.goto(counter_app.url)
    page.evaluate(DELAY_SENDS, 1500)  # under the wait's own watch, installed by its first call
    wait_for_app_run(page)
    page.get_by_test_id("stButton").locator("button").click()
    # the run starts 1.5 s after the click, long after the wait's 300 ms for a start: the
    # page's request for it is what the wait sees (the front end sends the request a moment
    # after the click returns, so a 1 ms start timeout could miss the request itself)
    wait_for_app_run(page, start_timeout_ms=START_MS)
    assert runs(page) == "runs: 2"


def test_a_quick_run_the_page_never_draws_as_running_is_waited_for(counter_app, page):
    page.goto(counter_app.url)
    wait_for_app_run(page)
    for n, option in enumerate(["b", "c", "a"], start=2):
        page.get_by_test_id("stSelectbox").click()
        page.get_by_role("option", name=option).click()
        wait_for_app_run(page, start_timeout_ms=START_MS)
        assert runs(page) == f"runs: {n}"
    assert page.evaluate("() => window.__svRuns.requests") == 3


CHANGE_FOR = """ms => {
  // change the page every 20 ms for ms, then stop; the time of the last change
  const el = document.createElement('div');
  document.body.append(el);
  const t0 = performance.now();
  window.__lastChange = t0;
  const tick = setInterval(() => {
    el.textContent = String(performance.now());
    window.__lastChange = performance.now();
    if (performance.now() - t0 > ms) clearInterval(tick);
  }, 20);
}"""


def test_settle_waits_until_the_page_stops_changing(counter_app, page):
    page.goto(counter_app.url)
    wait_for_app_run(page)
    page.evaluate(CHANGE_FOR, 700)
    settle(page)
    quiet_for = page.evaluate("() => performance.now() - window.__lastChange")
    assert quiet_for >= QUIET_MS


def test_a_test_starts_with_no_cookie_or_web_storage_but_the_cached_front_end(
    counter_app, chromium
):
    """The tabs of one test share web storage and cookies, as one browser's tabs do; what runs
    before each test (``forget``) leaves the next one none of either, while the front end's
    scripts come from the profile's cache."""
    first = chromium.new_context().new_page()
    first.goto(counter_app.url)
    wait_for_app_run(first)
    first.evaluate("() => localStorage.setItem('sv-probe', '1')")
    first.context.add_cookies([{"name": "sv-probe", "value": "1", "url": counter_app.url}])
    second = chromium.new_context().new_page()
    second.goto(counter_app.url)
    wait_for_app_run(second)
    assert second.evaluate("() => localStorage.getItem('sv-probe')") == "1"

    chromium.forget()  # as before the next test
    third = chromium.new_context().new_page()
    third.goto(counter_app.url)
    wait_for_app_run(third)
    assert third.evaluate("() => localStorage.getItem('sv-probe')") is None
    assert "sv-probe" not in {c["name"] for c in third.context.cookies()}
    scripts = third.evaluate(
        "() => performance.getEntriesByType('resource')"
        ".filter(e => e.initiatorType === 'script' || e.name.endsWith('.js'))"
        ".map(e => [e.name, e.transferSize])"
    )
    assert scripts and all(size == 0 for _, size in scripts), scripts  # from the cache
