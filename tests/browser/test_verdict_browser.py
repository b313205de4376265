"""In the browser: upload a document and its queries, read the verdict, *Apply*, and the
Explorer's sliders hold the tuned k, λ, τ; a session file saved there and restored in a fresh
browser brings back the query set, the fitted gate and the setting (hashing model)."""

from __future__ import annotations

import json
import os
import re

from scar_viz.documents import samples
from scar_viz.scoring.learned import DEFAULT_P
from scripts.live_app import settle, wait_for_app_run
from tests.browser.actions import ask, download_text, go, upload
from tests.browser.test_query_sets import upload_queries
from tests.browser.test_share import nudge, slider_value

SETTING = re.compile(r"SCAR at k = (\d+), λ = ([0-9.]+), τ = ([0-9.]+)")
QUERIES = "manual.queries.jsonl"
QUESTION = "When may the master refuse to sail in strong wind?"
P = 0.05
"""The learned gate's p set on *Fit a gate* (its default is 0.04)."""


def slider_text(page, label: str) -> str:
    return page.get_by_test_id("stSlider").filter(has_text=label).first.inner_text()


SESSION_UPLOADER = "Restore a session file"
GATE_IN_BUDGET = "learned: the gate fitted on Fit a gate"
"""Equal budget's caption when the session holds a fitted gate ("the default gate" otherwise)."""
GATE_IN_VERDICT = "The learned gate (fitted on Fit a gate) is beside it."
N_QUERIES = 20
"""The round trip uploads the sample's first 20 queries, so the restored set differs from the
sample's own (24), which a fresh session shows."""


def shows_metric(page, label: str, value: str) -> None:
    """Wait until the metric ``label`` reads ``value``."""
    box = page.get_by_test_id("stMetric").filter(has_text=label).first
    box.get_by_test_id("stMetricValue").filter(has_text=re.compile(rf"^\s*{value}\s*$")).wait_for(
        timeout=30_000
    )


def explorer_setting(page, question: str | None = None) -> tuple[str, str, str]:
    """The Explorer's k, λ, τ slider values, as drawn (after asking ``question``, if given)."""
    go(page, "Explorer")
    if question:
        ask(page, question)
    return tuple(
        slider_value(page, label)
        for label in ("k (retrieved)", "λ (penalty weight)", "τ (relative bar)")
    )


def upload_and_verdict(page, url: str, queries: str) -> tuple[str, str, str]:
    """Open the Evaluation lab, upload the sample as a document and ``queries`` (JSON Lines) as
    a file, and read the verdict; returns its (k, λ, τ) as written in its sentence."""
    page.goto(url + "/evaluate")
    wait_for_app_run(page)
    upload(page, "manual.md", samples.load_sample().text.encode(), "text/markdown")
    upload_queries(page, QUERIES, queries)
    verdict = page.get_by_test_id("sv-alert-info").filter(has_text="SCAR at k = ").first
    verdict.wait_for(timeout=60_000)
    text = verdict.inner_text()
    assert text.startswith(("Keep the window", "Use "))
    k, lam, tau = SETTING.search(text).groups()
    settle(page)
    return k, lam, tau


def apply_verdict(page) -> None:
    page.get_by_role("button", name="Apply k, λ, τ").click()
    wait_for_app_run(page)
    page.get_by_role("button", name="Applied").wait_for(timeout=30_000)


def fit_and_keep_gate(page) -> None:
    """On *Fit a gate*: fit on the active set, make the fitted gate the session's, and move p
    off its default to :data:`P`."""
    go(page, "Fit a gate")
    settle(page, timeout_ms=120_000)
    page.get_by_role("button", name="Use this gate in Compare and the Explorer").click()
    wait_for_app_run(page)
    nudge(page, "learned: p", round((P - DEFAULT_P) * 1000))
    in_use = f"In use: this session's gate (fitted or uploaded); p = {P:g}."
    page.get_by_text(in_use).wait_for(timeout=30_000)


def save_session(page) -> str:
    page.get_by_test_id("stSidebar").get_by_text("Share this view").click()
    return download_text(page, "Save session file (JSON)")


def restore_session(page, text: str) -> None:
    """Restore ``text`` through the sidebar's "Restore a session file"."""
    page.get_by_test_id("stSidebar").get_by_text("Share this view").click()
    box = page.get_by_test_id("stFileUploader").filter(has_text=SESSION_UPLOADER)
    box.locator("input[type='file']").set_input_files(
        files=[{"name": "session.json", "mimeType": "application/json", "buffer": text.encode()}]
    )
    box.filter(has_text="session.json").first.wait_for(timeout=10_000)
    wait_for_app_run(page)


def test_upload_verdict_apply_reaches_the_explorer(hash_app, chromium):
    context = chromium.new_context(viewport={"width": 1400, "height": 1800})
    page = context.new_page()
    try:
        k, lam, tau = upload_and_verdict(page, hash_app.url, samples.sample_queries_text())
        if os.environ.get("SCAR_VIZ_SHOTS"):
            page.screenshot(path=os.environ["SCAR_VIZ_SHOTS"], full_page=True)
        apply_verdict(page)
        go(page, "Explorer")
        ask(page, QUESTION)  # a new document: the gate's sliders come with a question
        assert k in slider_text(page, "k (retrieved)")
        assert f"{float(lam):.2f}" in slider_text(page, "λ (penalty weight)")
        assert f"{float(tau):.2f}" in slider_text(page, "τ (relative bar)")
        assert "Traceback" not in page.content()
    finally:
        context.close()


def test_session_file_restores_the_query_set_the_gate_and_the_setting(hash_app, chromium):
    first = chromium.new_context(viewport={"width": 1400, "height": 1800})
    second = chromium.new_context(viewport={"width": 1400, "height": 1800})
    try:
        page = first.new_page()
        lines = samples.sample_queries_text().splitlines()[:N_QUERIES]
        k, lam, tau = upload_and_verdict(page, hash_app.url, "\n".join(lines))
        apply_verdict(page)
        shows_metric(page, "Queries", str(N_QUERIES))
        fit_and_keep_gate(page)
        setting = explorer_setting(page, QUESTION)
        assert setting == (k, f"{float(lam):.2f}", f"{float(tau):.2f}")
        text = save_session(page)
        saved = json.loads(text)
        assert saved["queries"]["active"] == "upload" and saved["gate"]["json"]
        assert saved["gate"]["p"] == P

        fresh = second.new_page()  # a new browser context: a new session
        fresh.goto(hash_app.url + "/evaluate")
        wait_for_app_run(fresh)
        restore_session(fresh, text)
        fresh.get_by_text(f"An uploaded file ({QUERIES})").wait_for(timeout=30_000)
        shows_metric(fresh, "Queries", str(N_QUERIES))  # not the sample's own 24
        fresh.get_by_text(GATE_IN_VERDICT).wait_for(timeout=60_000)
        go(fresh, "Equal budget")
        fresh.get_by_text(f"{GATE_IN_BUDGET}, p = {P:g}.").wait_for(timeout=30_000)
        assert explorer_setting(fresh) == setting  # the question comes back with the file
        assert "Traceback" not in fresh.content()
    finally:
        first.close()
        second.close()
