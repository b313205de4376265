"""Fit a gate in headless Chromium: clicking a point of the learned curve sets p (the chart's
selection path, which AppTest cannot drive)."""

from __future__ import annotations

from scripts.live_app import settle, wait_for_app_run


def _p_value(page) -> float:
    slider = page.get_by_test_id("stSlider").filter(has_text="learned: p")
    return float(slider.get_by_test_id("stSliderThumbValue").inner_text())


def test_clicking_a_curve_point_sets_p(hash_app, page):
    page.goto(f"{hash_app.url}/fit-gate")
    wait_for_app_run(page)
    settle(page, timeout_ms=120_000)
    before = _p_value(page)
    chart = page.get_by_test_id("stPlotlyChart").nth(1)
    # SVG traces after the WebGL grid: frontier, 4 labelled points, the learned curve, its star
    curve = chart.locator(".scatterlayer .trace").nth(-2)
    points = curve.locator("path.point")
    assert points.count() > 10
    point = points.nth(points.count() - 3)  # near the cheap end of p's range: large p
    box = point.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(
        "(prev) => { const s = [...document.querySelectorAll('[data-testid=stSlider]')]"
        ".find(el => el.innerText.includes('learned: p'));"
        " return s && s.querySelector('[data-testid=stSliderThumbValue]').innerText !== prev; }",
        arg=f"{before:.3f}",
        timeout=30_000,
    )
    wait_for_app_run(page)
    after = _p_value(page)
    assert after != before
    assert f"p={after:g}" in page.url or f"p={after}" in page.url
