"""The overview on a long document in a real browser: no two marks or labels overlap, and the
hits list focuses the chunk a row names."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

from scripts.browser_actions import ON_THE_UPLOADER, ask, click_within, press, upload
from scripts.live_app import settle, wait_for_app_run
from tests.browser.conftest import running_hash_app
from ui.hits import ROW_PX

# fmt: off
WORDS = [
    "harbour", "tide", "ledger", "clause", "notice", "vessel", "cargo", "pilot", "berth",
    "anchor", "crew", "master", "schedule", "weather", "route", "signal", "permit",
    "inspection", "fee", "warden", "storm", "chart", "buoy", "quay",
]
# fmt: on
TOPIC = "the lighthouse keeper logs the lamp oil"


def long_document(paragraphs: int = 850, seed: int = 3) -> str:
    """~600-character paragraphs of generated prose; a run of them, and a few scattered ones,
    about the lighthouse keeper, so the best hits land both close together and far apart."""
    rng = random.Random(seed)
    out = []
    for i in range(paragraphs):
        words = [rng.choice(WORDS) for _ in range(90)]
        if 400 <= i < 425 or i % 97 == 5:
            words[5:5] = TOPIC.split()
        text = " ".join(words)
        out.append(text[0].upper() + text[1:] + ".")
    return "\n\n".join(out)


BOXES = """() => {
  const chart = document.querySelector('[data-testid=stPlotlyChart]');  // the marks figure
  const out = [];
  const drawn = '.scatterlayer path.point, .scatterlayer g.textpoint text';
  for (const el of chart.querySelectorAll(drawn)) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;  // an empty count text
    out.push({what: el.tagName + ' ' + (el.textContent || ''),
              x0: r.left, y0: r.top, x1: r.right, y1: r.bottom});
  }
  return out;
}"""


def _overlapping(boxes: list[dict], slack: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of boxes that intersect by more than ``slack`` px both ways (touching is fine)."""
    pairs = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if (
                min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > slack
                and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > slack
            ):
                pairs.append((a["what"], b["what"]))
    return pairs


def _font_px(page, locator) -> float:
    return float(locator.evaluate("el => parseFloat(getComputedStyle(el).fontSize)"))


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    yield from running_hash_app(tmp_path_factory)


@pytest.mark.parametrize(("width", "present"), [(1280, False), (1920, False), (1920, True)])
def test_long_document_marks_never_overlap_and_hits_focus(app, chromium, artifacts, width, present):
    page = chromium.new_context(viewport={"width": width, "height": 1400}).new_page()
    page.goto(f"{app.url}/?{ON_THE_UPLOADER}&k=20&r=3" + ("&present=true" if present else ""))
    wait_for_app_run(page)
    settle(page)
    upload(page, "long.txt", long_document().encode())
    settle(page)
    ask(page, "What does the lighthouse keeper log about the lamp oil?")
    settle(page)
    body = page.inner_text("body")
    assert "Traceback" not in body
    n = int(body.split(" chunks)")[0].rsplit("(document order, ", 1)[1].replace(",", ""))
    assert n >= 800, n

    boxes = page.evaluate(BOXES)
    marks = [b for b in boxes if b["what"].startswith("path")]
    assert len(marks) >= 5  # retrieved, admitted and rejected marks are all drawn
    assert any(b["what"].strip() == "text 1" or b["what"].startswith("text 1,") for b in boxes)
    assert not _overlapping(boxes), _overlapping(boxes)[:5]

    # the hits list: a click on rank 5's row focuses that chunk in the gate panel
    hits = page.get_by_test_id("stExpander").filter(has_text="Hits: every retrieved chunk")
    if not hits.locator("details[open]").count():
        hits.get_by_text("Hits: every retrieved chunk").click()
    if present:
        # presenter mode: a large HTML table and one focus button per hit, in rank order
        table = hits.locator("table").first
        table.wait_for()
        cells = table.locator("tbody tr").nth(4).locator("td").all_inner_texts()
        rank, chunk = (int(c) for c in [c for c in cells if c.strip()][:2])
        assert rank == 5, cells
        assert _font_px(page, table.locator("td").first) >= 18
        pill = hits.locator("button").filter(has_text=re.compile(rf"^\s*chunk {chunk}\s*$"))
        press(page, pill)
    else:
        table = hits.get_by_test_id("stDataFrame").first
        table.wait_for()
        row = table.locator("[role=row]").nth(5)  # the header, then rank 1 …
        expect(
            row.locator("[role=gridcell]").filter(has_text=re.compile(r"\d")).first
        ).to_have_text("5")
        cells = row.locator("[role=gridcell]").all_inner_texts()
        rank, chunk = (int(c) for c in [c for c in cells if c.strip()][:2])
        assert rank == 5, cells
        # the grid is drawn on a canvas: a header, then the rows, each ROW_PX tall
        click_within(page, table.locator("canvas"), 18, ROW_PX * 5.5)  # rank 5's selection box
    settle(page)
    focused = page.locator(".sv-row.sv-focused").first
    focused.wait_for()
    assert int(focused.get_attribute("data-chunk")) == chunk
    name = f"browser-overview-marks-{width}{'-present' if present else ''}.png"
    page.screenshot(path=str(artifacts / name), full_page=True)
    page.close()
