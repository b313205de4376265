"""The Learn page's predict-then-reveal rounds in headless Chromium, as a student plays them: on
the default model, round 1: tick chunks 15 and 18, Reveal (4 of 4); round 2, another question
about chunks 39–45: tick 42 (the penalty blocks it), Reveal (3 of 4); the score reads 7 / 8, and
round 1 keeps its ticks and its own score."""

from __future__ import annotations

from playwright.sync_api import expect

from scripts.browser_actions import open_sidebar
from scripts.live_app import settle, wait_for_app_run


def tick(page, chunk: int) -> None:
    box = page.get_by_test_id("stCheckbox").filter(has_text=f"chunk {chunk} (next to")
    box.locator("label").first.click()
    wait_for_app_run(page)


def reveal(page) -> None:
    page.get_by_role("button", name="Reveal").click()
    wait_for_app_run(page)


def open_round(page, number: int) -> None:
    page.get_by_test_id("stRadio").get_by_text(f"Round {number}:").click()
    wait_for_app_run(page)


def score(page) -> str:
    metric = page.get_by_test_id("stMetric").filter(has_text="Lesson score")
    return metric.get_by_test_id("stMetricValue").inner_text().strip()


def ticked(page) -> set[int]:
    boxes = page.get_by_test_id("stCheckbox")
    out = set()
    for i in range(boxes.count()):
        box = boxes.nth(i)
        if box.locator("input").is_checked():
            out.add(int(box.inner_text().split()[1]))
    return out


def test_rounds_are_kept_and_scored_once(live_app, page, artifacts):
    page.set_viewport_size({"width": 1400, "height": 4400})  # the whole lesson in one shot
    page.goto(live_app.url + "/learn")
    wait_for_app_run(page)
    expect(page.get_by_role("heading", name="3 · Predict, then reveal")).to_be_visible(
        timeout=120_000
    )
    settle(page)
    page.screenshot(path=str(artifacts / "learn-start.png"), full_page=True)

    tick(page, 15)
    tick(page, 18)
    reveal(page)
    expect(page.get_by_text("4 of 4 right.")).to_be_visible()
    assert score(page) == "4 / 4"

    open_round(page, 2)
    tick(page, 42)
    reveal(page)
    expect(page.get_by_text("3 of 4 right.")).to_be_visible()
    assert score(page) == "7 / 8"
    settle(page)
    page.screenshot(path=str(artifacts / "learn-round2-revealed.png"), full_page=True)

    open_round(page, 1)
    expect(page.get_by_text("4 of 4 right.")).to_be_visible()
    assert ticked(page) == {15, 18}
    assert score(page) == "7 / 8"
    assert not page.get_by_text("left them out").count()
    assert "Traceback" not in page.content()
    settle(page)
    page.screenshot(path=str(artifacts / "learn-round1-again.png"), full_page=True)


def test_presenter_mode_shows_full_labels(live_app, page, artifacts):
    page.set_viewport_size({"width": 1400, "height": 5600})
    page.goto(live_app.url + "/learn?present=true")
    wait_for_app_run(page)
    expect(page.get_by_role("heading", name="4 · Why the bar is relative")).to_be_visible(
        timeout=120_000
    )
    tick(page, 15)
    reveal(page)
    settle(page)
    for label in ("Relative bar keeps", "Absolute bar keeps", "Lesson score"):
        metric = page.get_by_test_id("stMetric").filter(has_text=label)
        shown = metric.get_by_test_id("stMetricLabel")
        assert shown.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), label
    open_sidebar(page)  # presenter mode collapses it; its toggle's label must fit too
    for box in page.get_by_test_id("stCheckbox").all():
        assert box.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), box.inner_text()
    page.screenshot(path=str(artifacts / "learn-presenter.png"), full_page=True)
