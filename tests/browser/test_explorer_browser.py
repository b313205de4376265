"""Open the explorer in headless Chromium, type a question, move λ, watch the gate change."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from scripts.live_app import settle, wait_for_app_run


def admitted_count(page) -> int:
    metric = page.get_by_test_id("stMetric").filter(has_text="Admitted neighbours")
    value = metric.get_by_test_id("stMetricValue").inner_text()
    return int(re.search(r"(\d+)\s*$", value).group(1))


def set_slider(page, label: str, key: str, presses: int) -> None:
    """Move a slider with the keyboard (End/Home, then arrow presses), as a person would."""
    handle = page.get_by_test_id("stSlider").filter(has_text=label).get_by_role("slider")
    handle.focus()
    page.keyboard.press(key)
    for _ in range(presses):
        page.keyboard.press("ArrowLeft" if key == "End" else "ArrowRight")
    wait_for_app_run(page)


def test_type_query_move_lambda_admitted_count_changes(live_app, page, artifacts):
    page.goto(live_app.url + "/")
    wait_for_app_run(page)
    expect(page.get_by_role("heading", name="Explorer")).to_be_visible(timeout=120_000)

    box = page.get_by_test_id("stTextInput").filter(has_text="Question").locator("input")
    box.fill("What must the master do when the last crossing of the day is cancelled?")
    box.press("Enter")
    wait_for_app_run(page)
    set_slider(page, "λ (penalty weight)", "Home", 0)  # λ = 0: no penalty
    set_slider(page, "τ (relative bar)", "Home", 0)  # τ = 0: bar at zero
    loose = admitted_count(page)
    settle(page)
    page.screenshot(path=str(artifacts / "browser-explorer-loose.png"), full_page=True)

    set_slider(page, "λ (penalty weight)", "End", 0)  # λ = 2: strongest penalty
    strict = admitted_count(page)
    settle(page)
    page.screenshot(path=str(artifacts / "browser-explorer-strict.png"), full_page=True)

    assert loose > strict, (loose, strict)
    page.wait_for_function("() => window.location.search.includes('lam=2')", timeout=10_000)
    assert "Traceback" not in page.content()
