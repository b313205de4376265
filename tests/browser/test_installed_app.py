"""The app a wheel installs, served by ``scar-viz app`` from a folder outside the repository,
is the same app: the Explorer draws the built-in sample and answers a question."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scripts.live_app import LiveApp, wait_for_app_run
from tests.packaging import clean_env, install_wheel

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def installed_app(tmp_path_factory, chromium):
    installed = install_wheel(tmp_path_factory.mktemp("packaging"))
    cache = tmp_path_factory.mktemp("cache")
    app = LiveApp(env=clean_env(SCAR_VIZ_DEFAULT_MODEL="hash", SCAR_VIZ_CACHE_DIR=str(cache)))
    app.command = [str(installed.bin / "scar-viz"), "app"]
    app.cwd = installed.elsewhere
    app.start()
    yield app
    app.stop()


def test_the_installed_explorer_draws_the_sample_and_answers(installed_app, page, artifacts):
    page.goto(installed_app.url + "/")
    wait_for_app_run(page)
    expect(page.get_by_role("heading", name="Explorer")).to_be_visible(timeout=120_000)
    assert page.title() == "scar-viz"
    box = page.get_by_test_id("stTextInput").filter(has_text="Question").locator("input")
    box.fill("What happens if the last crossing of the day is cancelled?")
    box.press("Enter")
    wait_for_app_run(page)
    expect(page.get_by_test_id("stMetric").filter(has_text="Admitted neighbours")).to_be_visible()
    assert not page.get_by_test_id("stException").count()
    page.screenshot(path=str(artifacts / "installed_app.png"), full_page=False)
    assert "Traceback" not in installed_app.log()
