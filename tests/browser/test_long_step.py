"""ui.alerts.with_progress in Chromium: while a long step's bar shows, the previous run's
elements further down (greyed by Streamlit until the run redraws them) are hidden, and they are
back, redrawn, when the step ends."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scripts.live_app import wait_for_app_run
from tests.browser.conftest import script_app

SCRIPT = "tests/browser/apps/long_step.py"


@pytest.fixture(scope="module")
def long_app(tmp_path_factory):
    with script_app(tmp_path_factory, SCRIPT) as app:
        yield app


def test_the_previous_runs_result_is_hidden_while_the_bar_shows(long_app, page):
    page.goto(long_app.url)
    wait_for_app_run(page)
    old = page.get_by_test_id("stText")
    expect(old).to_have_text("result of run 1")
    page.get_by_test_id("stButton").locator("button").click()
    bar = page.get_by_test_id("stProgress")
    expect(bar).to_be_visible(timeout=10_000)
    # the text is still the first run's (the run has not reached it), and not shown
    stale = page.locator("[data-testid=stElementContainer][data-stale=true]")
    expect(stale.filter(has=page.get_by_test_id("stText"))).to_have_count(1)
    expect(old).to_be_hidden()
    wait_for_app_run(page)
    expect(bar).to_have_count(0)
    expect(page.get_by_test_id("stText")).to_have_text("result of run 2")
    expect(page.get_by_test_id("stText")).to_be_visible()
