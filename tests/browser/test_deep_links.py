"""A page's own link opened in a fresh browser logs no console error (issue 48): Streamlit's
front end tried the page's path as the server's base first (``/compare/_stcore/health`` and
``/compare/_stcore/host-config``, two 404s: streamlit/streamlit#7074) until ``ui/serve.py``
named the base in the index page it sends."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts.live_app import settle, wait_for_app_run
from tests.browser.conftest import running_hash_app
from ui.serve import page_paths

APP = Path(__file__).resolve().parents[2] / "app.py"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    yield from running_hash_app(tmp_path_factory)


def _open_fresh(chromium, url: str) -> tuple[object, list[str]]:
    page = chromium.new_page(private=True, viewport={"width": 1280, "height": 720})
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(m.text))
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status} {r.url}"))
    page.goto(url)
    wait_for_app_run(page)
    settle(page)
    return page, problems


def test_a_fresh_browser_on_each_page_link_logs_no_error(app, chromium):
    first, problems = _open_fresh(chromium, app.url)
    assert problems == [], problems
    links = first.get_by_test_id("stSidebarNavLink")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    first.context.close()
    # every page the app declares has its link in the sidebar (the default page's is the root)
    paths = {href.rstrip("/").rsplit("/", 1)[-1] for href in hrefs}
    assert set(page_paths(APP)) - {"explorer"} <= paths, hrefs
    logged = {}
    for href in hrefs:
        page, problems = _open_fresh(chromium, href)
        # the page asked for ran (the main page in its place would have moved the address)
        assert page.url.split("?")[0] == href
        if problems:
            logged[href] = problems
        page.context.close()
    assert logged == {}, logged
