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
    # the learned curve is the SVG trace with the most markers (the in-sample curve is a
    # line without markers, the star one marker, the labelled points one each)
    traces = chart.locator(".scatterlayer .trace")
    counts = [traces.nth(i).locator("path.point").count() for i in range(traces.count())]
    curve = traces.nth(counts.index(max(counts)))
    points = curve.locator("path.point")
    assert points.count() > 10
    # the point whose p lies farthest from the slider's (the star may sit on any point)
    ps = chart.locator(".js-plotly-plot").evaluate(
        "(g, n) => Array.from(g._fullData.filter(t => t.type === 'scatter' && t.customdata"
        " && t.customdata.length === n)[0].customdata, row => row[0])",
        points.count(),
    )
    assert len(ps) == points.count()
    far = max(range(len(ps)), key=lambda i: abs(ps[i] - before))
    point = points.nth(far)
    point.scroll_into_view_if_needed()  # a mouse click lands only inside the viewport
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
