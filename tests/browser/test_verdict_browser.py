"""In the browser: upload a document and its queries, read the verdict, *Apply*, and the
Explorer's sliders hold the tuned k, λ, τ (hashing model)."""

from __future__ import annotations

import os
import re

from scar_viz.documents import samples
from scripts.live_app import settle, wait_for_app_run
from tests.browser.actions import go, upload
from tests.browser.test_query_sets import upload_queries

SETTING = re.compile(r"SCAR at k = (\d+), λ = ([0-9.]+), τ = ([0-9.]+)")


def slider_text(page, label: str) -> str:
    return page.get_by_test_id("stSlider").filter(has_text=label).first.inner_text()


def test_upload_verdict_apply_reaches_the_explorer(hash_app, chromium):
    context = chromium.new_context(viewport={"width": 1400, "height": 1800})
    page = context.new_page()
    try:
        page.goto(hash_app.url + "/evaluate")
        wait_for_app_run(page)
        upload(page, "manual.md", samples.load_sample().text.encode(), "text/markdown")
        upload_queries(page, "manual.queries.jsonl", samples.sample_queries_text())
        verdict = page.get_by_test_id("sv-alert-info").filter(has_text="SCAR at k = ").first
        verdict.wait_for(timeout=60_000)
        text = verdict.inner_text()
        assert text.startswith(("Keep the window", "Use "))
        k, lam, tau = SETTING.search(text).groups()
        settle(page)
        if os.environ.get("SCAR_VIZ_SHOTS"):
            page.screenshot(path=os.environ["SCAR_VIZ_SHOTS"], full_page=True)
        page.get_by_role("button", name="Apply k, λ, τ").click()
        wait_for_app_run(page)
        page.get_by_role("button", name="Applied").wait_for(timeout=30_000)
        go(page, "Explorer")
        assert k in slider_text(page, "k (retrieved)")
        assert f"{float(lam):.2f}" in slider_text(page, "λ (penalty weight)")
        assert f"{float(tau):.2f}" in slider_text(page, "τ (relative bar)")
        assert "Traceback" not in page.content()
    finally:
        context.close()
