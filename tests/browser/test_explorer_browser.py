"""Open the explorer in headless Chromium, type a question, move λ, watch the gate change."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from scripts.browser_actions import click_within
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


def _panel_summary(page) -> tuple[int, int]:
    text = page.locator(".sv-summary").inner_text()
    m = re.search(r"(\d+) admitted · (\d+) rejected", text)
    return int(m.group(1)), int(m.group(2))


def _input(page, testid: str, value: str, release: bool = False) -> None:
    """Move one of the panel's ranges as a drag does (input events), optionally releasing."""
    page.locator(f"[data-testid={testid}]").evaluate(
        "(el, a) => { el.value = a[0]; el.dispatchEvent(new Event('input'));"
        " if (a[1]) el.dispatchEvent(new Event('change')); }",
        [value, release],
    )


def test_dragging_lambda_in_the_panel_flips_neighbours_and_release_updates_tables(
    hash_app, page, artifacts
):
    page.goto(hash_app.url + "/?k=5&r=2")
    wait_for_app_run(page)
    settle(page)
    chips = page.locator(".sv-chip.sv-admitted")
    runs = "() => [window.__svRuns.started, window.__svRuns.requests]"  # begun, asked for
    runs_before = page.evaluate(runs)
    counts = []
    for lam in ("0", "0.5", "1", "2"):  # a drag: input events only
        _input(page, "sv-lam", lam)
        _input(page, "sv-tau", "0")
        counts.append(chips.count())
    assert counts[0] > counts[-1], counts  # neighbours flip from admitted to rejected
    assert page.evaluate(runs) == runs_before  # no rerun while dragging, none asked for
    _input(page, "sv-lam", "0.25", release=True)
    wait_for_app_run(page)
    settle(page)
    admitted, _ = _panel_summary(page)
    assert admitted_count(page) == admitted  # the page's tables follow the release
    lam = page.get_by_test_id("stSlider").filter(has_text="λ (penalty weight)")
    assert "0.25" in lam.inner_text()
    page.wait_for_function("() => window.location.search.includes('lam=0.25')", timeout=10_000)
    panel_lam = page.locator("[data-testid=sv-lam]")
    for value in ("1.1", "0.4"):  # the panel keeps what it released (no jump back)
        _input(page, "sv-lam", value, release=True)
        wait_for_app_run(page)
        assert panel_lam.input_value() == value
        assert value in lam.inner_text()
    lam.get_by_role("slider").focus()  # the page's slider moves the panel
    page.keyboard.press("ArrowRight")
    wait_for_app_run(page)
    expect(panel_lam).to_have_value("0.41", timeout=10_000)
    page.screenshot(path=str(artifacts / "browser-explorer-panel-release.png"), full_page=True)
    assert "Traceback" not in page.content()


def test_the_overview_focuses_a_chunk_and_an_upload_starts_with_starters(hash_app, page, artifacts):
    from scripts.browser_actions import upload

    page.goto(hash_app.url + "/")
    wait_for_app_run(page)
    settle(page)
    # a click on the overview's similarity row focuses that chunk in the panel
    base = page.get_by_test_id("stPlotlyChart").nth(1)  # the similarity row under the marks
    plot = base.locator(".nsewdrag")  # the plotting area
    box = plot.first.bounding_box()
    click_within(page, plot, box["width"] * 0.5, box["height"] * 0.5)
    settle(page)
    first = page.locator(".sv-row").first
    expect(first).to_contain_text("focus")
    chunk = int(first.get_attribute("data-chunk"))
    n = int(re.search(r"(\d+) chunks\)", page.inner_text("body")).group(1))
    assert abs(chunk - n // 2) <= 2  # the middle of the row is the middle of the document
    # an uploaded document starts with an empty question and offers starters
    text = "# Ferry report\n\n" + "\n\n".join(
        f"## {t}\n\n" + f"The {t.lower()} of the ferry are described here in detail. " * 8
        for t in ("Weather limits", "Crew duties", "Fuel and bunkering")
    )
    upload(page, "ferry-report.md", text.encode(), "text/markdown")
    settle(page)
    box = page.get_by_test_id("stTextInput").filter(has_text="Question").locator("input")
    assert box.input_value() == ""
    expect(page.get_by_text("A new document: type a question")).to_be_visible()
    assert page.get_by_test_id("stMetric").count() == 0
    page.get_by_test_id("stSelectbox").filter(has_text="start with a question").click()
    options = page.get_by_role("option").all_inner_texts()
    assert "What does the document say about crew duties?" in options
    page.get_by_role("option", name="What does the document say about crew duties?").click()
    wait_for_app_run(page)
    settle(page)
    assert box.input_value() == "What does the document say about crew duties?"
    assert page.get_by_test_id("stMetric").count() == 5
    page.screenshot(path=str(artifacts / "browser-explorer-upload-starters.png"), full_page=True)
