"""Presenter mode a room can read (issue 48), measured in Chromium at 1280×720 from computed
colours and element boxes: the sidebar opened to change page is closed on the page it led to;
no table cell breaks inside a word; every visible text and chart label has a contrast of at
least 4.5:1 against what it is drawn on (3:1 for text of 24 px or more), the revealed Learn
round included; the lesson's decision plane is at least half the screen wide, its legend whole
and its labels apart. On arrival the sidebar is collapsed for the whole width and a chart is
on the first screen; opened again by its chevron, it stays open on the next page."""

from __future__ import annotations

from playwright.sync_api import expect

from scripts.browser_actions import go, open_sidebar
from scripts.live_app import settle, wait_for_app_run

WIDTH, HEIGHT = 1280, 720

LOW_CONTRAST = """async () => {
  // a fade still running (a slider's tick bar fading out after the pointer left it) is
  // measured once it ends, not half-way: seen in CI as "1" and "20" at 1.04:1
  const ending = document.getAnimations()
    .filter(a => Number.isFinite(a.effect?.getComputedTiming().endTime))
    .map(a => a.finished.catch(() => null));
  await Promise.all(ending);
  const rgba = (s) => {
    const m = s.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const v = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  };
  const over = (top, bottom) => {
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat(1);
  };
  const lum = (c) => {
    const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const background = (el) => {  // what is painted behind el's middle, composited
    el.scrollIntoView({block: 'center', inline: 'nearest'});
    const r = el.getBoundingClientRect();
    const root = el.getRootNode();
    const at = (root.elementsFromPoint ? root : document)
      .elementsFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const layers = [];
    for (const e of at) {
      if (e !== el && el.contains(e)) continue;  // its own children are drawn over its text
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let bg = [255, 255, 255, 1];
    for (const c of layers.reverse()) bg = over(c, bg);
    return bg;
  };
  const opacity = (el) => {
    let o = 1;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      o *= Number(getComputedStyle(e).opacity);
    }
    return o;
  };
  const visible = (el) => {
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || s.display === 'none') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const bad = [];
  const seen = new Set();
  const texts = [];
  const collect = (root) => {  // text nodes, those in shadow roots (the gate panel) too
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === 3) texts.push(n);
      else if (n.shadowRoot) collect(n.shadowRoot);
    }
  };
  collect(document.querySelector('[data-testid=stMain]'));
  for (const n of texts) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (!text || !el || seen.has(el) || !visible(el) || opacity(el) === 0) continue;
    seen.add(el);
    const s = getComputedStyle(el);
    const svg = el instanceof SVGElement;
    let fg = rgba(svg ? s.fill : s.color);
    if (!fg) continue;
    if (svg) fg[3] *= Number(s.fillOpacity || 1);
    fg[3] *= opacity(el);
    const bg = background(el);
    const r = ratio(over(fg, bg), bg);
    const px = parseFloat(s.fontSize);
    const need = px >= 24 ? 3 : 4.5;
    if (r < need) bad.push([text.slice(0, 40), Math.round(r * 100) / 100, px, s.color || s.fill]);
  }
  return bad;
}"""
"""Every visible text in the main area (HTML and the charts' SVG) whose colour, with its own
alpha and its ancestors' opacity, is below 4.5:1 (3:1 at 24 px or more) against the colours
behind it, once the transitions running when it is called have ended: [text, ratio, px,
colour]."""

BROKEN_WORDS = """() => {
  const bad = [];
  for (const cell of document.querySelectorAll('[data-testid=stMain] :is(td, th)')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const re = /[^\\s\\-\\/]+/g;
      for (let m = re.exec(n.textContent); m; m = re.exec(n.textContent)) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (tops.size > 1) bad.push(m[0]);
      }
    }
  }
  return bad;
}"""
"""The words of table cells drawn on more than one line (a break inside the word; a break
at a space, a hyphen or a slash is a line break, not a broken word)."""

PLANE = """(el) => {
  const box = (e) => { const b = e.getBoundingClientRect();
    return [b.left, b.top, b.right, b.bottom]; };
  return {
    svg: box(el.querySelector('.main-svg')),
    legend: box(el.querySelector('.legend')),
    notes: [...el.querySelectorAll('.annotation-text')].map(t => [t.textContent, ...box(t)]),
  };
}"""


def sidebar_collapsed(page) -> bool:
    return page.get_by_test_id("stSidebar").get_attribute("data-collapsed") == "true"


def overlapping(notes: list) -> list:
    return [
        (a[0], b[0])
        for i, a in enumerate(notes)
        for b in notes[i + 1 :]
        if not (a[3] <= b[1] or b[3] <= a[1] or a[4] <= b[2] or b[4] <= a[2])
    ]


FIRST_SCREEN = """() => {
  const main = document.querySelector('[data-testid=stMain]').getBoundingClientRect();
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart] .main-svg')]
    .map(e => e.getBoundingClientRect()).filter(r => r.height > 0);
  return {mainLeft: main.left, mainWidth: main.width, chartTops: charts.map(r => r.top)};
}"""
"""Where the main area starts and how wide it is, and the top of every drawn plotly chart."""


def test_presenter_mode_reads_in_a_room_at_1280_by_720(hash_app, chromium, artifacts):
    page = chromium.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(hash_app.url + "/?present=true")
    wait_for_app_run(page)
    settle(page)
    assert sidebar_collapsed(page)
    shown = page.evaluate(FIRST_SCREEN)
    assert shown["mainLeft"] < 50 and shown["mainWidth"] > 1200, shown  # the whole width
    assert min(shown["chartTops"]) < HEIGHT - 150, shown  # a chart on the first screen
    page.screenshot(path=str(artifacts / "browser-presenter-1280x720.png"))
    assert page.evaluate(LOW_CONTRAST) == []
    go(page, "Compare policies")  # opens the sidebar to follow its link
    assert sidebar_collapsed(page), "the sidebar stayed open on the page it led to"
    assert page.locator("table.sv-table").count() >= 1  # the cost table, as HTML
    assert page.evaluate(BROKEN_WORDS) == []
    assert page.evaluate(LOW_CONTRAST) == []
    page.screenshot(path=str(artifacts / "browser-presenter-room-compare.png"))
    open_sidebar(page)  # the main area 500 px narrower: the table scrolls, no word breaks
    assert page.evaluate(BROKEN_WORDS) == []
    go(page, "Learn")
    assert sidebar_collapsed(page), "the sidebar stayed open on the page it led to"
    page.get_by_role("button", name="Reveal").click()
    wait_for_app_run(page)
    settle(page)
    assert page.get_by_role("button", name="Reveal").is_disabled()  # the round is revealed
    assert page.evaluate(LOW_CONTRAST) == []
    assert page.evaluate(BROKEN_WORDS) == []
    plane = page.get_by_test_id("stPlotlyChart").last
    plane.scroll_into_view_if_needed()
    shown = plane.evaluate(PLANE)
    left, top, right, bottom = shown["svg"]
    assert right - left >= WIDTH / 2, shown["svg"]
    l_left, l_top, l_right, l_bottom = shown["legend"]
    assert left <= l_left and top <= l_top and l_right <= right and l_bottom <= bottom, shown
    assert shown["notes"] and overlapping(shown["notes"]) == []
    page.screenshot(path=str(artifacts / "browser-presenter-room-learn.png"))
    # the chevron opens the sidebar again, presenter mode still on and its toggle at hand
    sidebar = page.get_by_test_id("stSidebar")
    page.get_by_test_id("stExpandSidebarButton").click()
    page.locator("[data-testid=stSidebar][data-collapsed=false]").wait_for()
    toggle = sidebar.get_by_test_id("stCheckbox").filter(has_text="Presenter mode")
    expect(toggle).to_be_visible()
    assert toggle.locator("input").is_checked()
    # the choice is kept: the next page opens with the sidebar as the user left it
    page.goto(hash_app.url + "/")
    wait_for_app_run(page)
    assert sidebar.get_attribute("data-collapsed") == "false"
