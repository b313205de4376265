"""The landing, and each page's own link opened directly, log no console error, no page
script error and no failed request (issue 48): Streamlit's front end tried the page's path as
the server's base first (``/compare/_stcore/health`` and ``/compare/_stcore/host-config``, two
404s: streamlit/streamlit#7074) until ``ui/serve.py`` named the base in the index page it
sends."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts.live_app import settle, wait_for_app_run
from tests.browser.conftest import running_hash_app
from ui.serve import page_paths

APP = Path(__file__).resolve().parents[2] / "app.py"
WIDTH, HEIGHT = 1280, 720


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    yield from running_hash_app(tmp_path_factory)


def _open(chromium, url: str, private: bool = False) -> tuple[object, list[str]]:
    """``url`` loaded in a new page (``private``: a browser of its own, nothing cached) and
    every console error, page error and failed request it logged."""
    page = chromium.new_page(private=private, viewport={"width": WIDTH, "height": HEIGHT})
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(m.text))
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status} {r.url}"))
    page.goto(url)
    wait_for_app_run(page)
    settle(page)
    return page, problems


FIRST_SCREEN = """() => {
  const seen = [];
  const walker = document.createTreeWalker(
    document.querySelector('[data-testid=stMain]'), NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const r = n.parentElement && n.parentElement.getBoundingClientRect();
    if (r && r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight) seen.push(n.textContent);
  }
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart]')]
    .map(e => e.getBoundingClientRect().top);
  const ask = document.querySelector(
    '[data-testid=stMain] :is([data-testid=stTextInput], [data-testid=stTextArea])');
  return {text: seen.join(' '), chartTops: charts,
          questionTop: ask ? ask.getBoundingClientRect().top : null};
}"""
"""The text drawn wholly inside the first screen, the top of every chart and of the
question box."""


def test_the_landing_and_each_page_link_open_directly_with_no_error(app, chromium, artifacts):
    # a fresh browser on the landing: it names fragmentation on the sample's cut above the fold
    first, problems = _open(chromium, app.url, private=True)
    shown = first.evaluate(FIRST_SCREEN)
    first.screenshot(path=str(artifacts / "browser-landing-1280.png"))
    assert problems == [], problems
    assert re.search(r"fragment", shown["text"], re.IGNORECASE), shown["text"][:400]
    assert re.search(r"between chunk \d+ and chunk \d+", shown["text"]), shown["text"][:400]
    assert shown["questionTop"] is not None and shown["questionTop"] < HEIGHT
    # the overview begins on the first screen: its marks row at least
    assert shown["chartTops"] and min(shown["chartTops"]) < HEIGHT - 80, shown["chartTops"]
    links = first.get_by_test_id("stSidebarNavLink")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    first.context.close()
    # every page the app declares has its link in the sidebar (the default page's is the root)
    paths = {href.rstrip("/").rsplit("/", 1)[-1] for href in hrefs}
    assert set(page_paths(APP)) - {"explorer"} <= paths, hrefs
    # each link loaded as a new document (a new session; the front end's code comes from the
    # cache, the base path is worked out again on each load)
    logged = {}
    for href in hrefs:
        page, problems = _open(chromium, href)
        # the page asked for ran (the main page in its place would have moved the address)
        assert page.url.split("?")[0] == href
        if problems:
            logged[href] = problems
        page.close()
    assert logged == {}, logged
