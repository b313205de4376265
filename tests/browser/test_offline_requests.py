"""Nothing the page loads comes from another host: the app works offline, favicon included
(a material icon name as ``page_icon`` made the browser fetch it from a font CDN)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from scripts.live_app import settle, wait_for_app_run
from tests.browser.conftest import running_hash_app

LOCAL = {"127.0.0.1", "localhost"}


@pytest.fixture(scope="module")
def offline_app(tmp_path_factory):
    yield from running_hash_app(tmp_path_factory)


@pytest.mark.parametrize("path", ["/", "/learn"])
def test_page_load_requests_only_the_app(offline_app, page, path):
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(offline_app.url + path)
    wait_for_app_run(page)
    expect(page.get_by_test_id("stApp")).to_be_visible()
    settle(page)
    page.wait_for_load_state("networkidle")  # late requests: the favicon, fonts
    web = [u for u in requests if urlsplit(u).scheme in ("http", "https")]
    assert web, "the page made no request"
    elsewhere = sorted(u for u in web if urlsplit(u).hostname not in LOCAL)
    assert not elsewhere, elsewhere
    icon = page.locator("link[rel*='icon']").first.get_attribute("href")
    assert icon and urlsplit(icon).hostname in (None, *LOCAL), icon
