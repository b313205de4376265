"""The live gate panel in a real browser: the same decisions as Python, text kept as text.

The harness (tests/browser/apps/gate_panel_app.py) mounts the panel on the built-in sample
embedded with the default model and dumps the arrays it decides from; the browser's gate
(``window.__scarGateDecide``, installed because the address carries ``test_hooks=1``) must
agree with ``select_from_sims`` on every decision of hundreds of random settings, exact ties
and document edges included, to the last bit of S and the bar.
"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import select_from_sims
from scripts.live_app import LiveApp, settle, wait_for_app_run
from tests.browser.conftest import _require_chromium

HARNESS = "tests/browser/apps/gate_panel_app.py"
FIELDS = ("chunk", "neighbour", "side", "distance", "score", "bar", "outcome")
DECIDE_ALL = "(settings) => settings.map(([l, t, k, r]) => window.__scarGateDecide(l, t, k, r))"


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    _require_chromium()
    cache = tmp_path_factory.mktemp("gate-cache")
    dump = tmp_path_factory.mktemp("gate-dump")
    app = LiveApp(
        env={
            "SCAR_VIZ_CACHE_DIR": str(cache),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "SCAR_VIZ_LOG": str(cache / "server.log"),
            "GATE_APP_DUMP": str(dump),
        }
    )
    app.script = HARNESS
    app.start()
    app.dump = dump
    yield app
    app.stop()


def _open(page, app, query: str, *, hooks: bool = True) -> None:
    """Open the harness at ``query``; with ``hooks`` the panel installs its test hooks."""
    page.goto(f"{app.url}/?{query}" + ("&test_hooks=1" if hooks else ""))
    wait_for_app_run(page)
    settle(page, timeout_ms=120_000)
    if hooks:
        page.wait_for_function(
            "() => typeof window.__scarGateDecide === 'function'", timeout=60_000
        )
    else:
        page.locator(".sv-summary").wait_for(timeout=60_000)


def _python(sims, unit, lam, tau, k, r):
    sel = select_from_sims(
        sims, unit, GateParams(k=k, lam=lam, tau=tau, radius=r), doc_of=one_file(len(unit))
    )
    return [[getattr(d, f) for f in FIELDS] for d in sel.decisions]


def _exact_ties(sims, unit, order, rng, count):
    """Settings where S(c, n) == τ·cos(q,c) exactly for some examined (c, n) (found by ulps)."""
    n = len(sims)
    out = []
    for _ in range(count * 20):
        rank = int(rng.integers(0, min(len(order), 8)))
        c = order[rank]
        j = c + (1 if rng.random() < 0.5 else -1)
        if not 0 <= j < n:
            continue
        b = min(2.0, max(0.0, float(1.0 - unit[c] @ unit[j])))
        tau = float(rng.choice([0.0, rng.uniform(0, 1.5)]))
        bar = tau * float(sims[c])
        if b == 0:
            continue
        lam = (float(sims[j]) - bar) / b
        if not 0 <= lam <= 4:
            continue
        for _ in range(64):
            s = float(sims[j]) - lam * b
            if s == bar:
                out.append((lam, tau, rank + 1, 1))
                break
            lam = float(np.nextafter(lam, np.inf if s > bar else -np.inf))
        if len(out) >= count:
            break
    return out


@pytest.mark.model
def test_browser_gate_agrees_with_python_on_every_decision(harness, page):
    _open(page, harness, "k=3&r=1&kmax=all")
    sims = np.load(harness.dump / "sims.npy")
    unit = np.load(harness.dump / "unit.npy")
    payload = json.loads((harness.dump / "payload.json").read_text())
    n = len(sims)
    assert payload["n"] == n and len(payload["order"]) == n  # kmax = N: k up to N in the page
    rng = np.random.default_rng(14)
    settings = []
    for _ in range(520):
        lam = float(rng.choice([0.0, rng.uniform(0, 2), round(rng.uniform(0, 2), 2)]))
        tau = float(rng.choice([0.0, rng.uniform(0, 1.5), round(rng.uniform(0, 1.5), 2)]))
        k = int(rng.choice([int(rng.integers(1, 21)), n]))
        settings.append((lam, tau, k, int(rng.integers(0, 4))))
    settings += [(0.0, 0.0, n, 3), (2.0, 1.5, n, 3), (0.0, 0.0, 1, 3), (0.5, 0.1, n, 1)]
    ties = _exact_ties(sims, unit, payload["order"], rng, 40)
    assert len(ties) >= 10, "enough exact ties were found to test the strict rule"
    settings += ties
    browser = page.evaluate(DECIDE_ALL, [list(s) for s in settings])
    outcomes = {"admitted": 0, "rejected": 0, "retrieved": 0}
    edges = 0
    tie_hits = 0
    for (lam, tau, k, r), got in zip(settings, browser, strict=True):
        want = _python(sims, unit, lam, tau, k, r)
        got = [[d[f] for f in FIELDS] for d in got]
        assert got == want, (lam, tau, k, r)
        for d in want:
            outcomes[d[6]] += 1
            tie_hits += d[4] == d[5]
            edges += d[1] in (0, n - 1)
    assert len(settings) >= 500
    assert min(outcomes.values()) > 100, outcomes  # every kind of decision was compared
    assert tie_hits >= 10  # S == bar exactly, rejected on both sides
    assert edges > 50  # the document's first and last chunks were candidates


DECIDE_MU = "(s) => s.map(([l, t, k, r, mu]) => window.__scarGateDecide(l, t, k, r, mu))"


def test_browser_gate_adds_the_lexical_term_as_python_does(harness, page):
    """μ > 0 (docs/method.md §8): the payload's lex(q, ·) and the page's μ; every decision of
    random (λ, τ, μ, k, r) agrees with select_from_sims to the last bit."""
    _open(page, harness, "model=hash&k=3&r=1&kmax=all&mu=0.5")
    sims = np.load(harness.dump / "sims.npy")
    unit = np.load(harness.dump / "unit.npy")
    lex = np.load(harness.dump / "lex.npy")
    words = SimpleNamespace(share=lex)  # all select_from_sims reads of a QuestionLex
    n = len(sims)
    assert lex.max() > 0
    summary = page.locator(".sv-summary").inner_text()
    assert "μ 0.50" in summary
    sel = select_from_sims(
        sims, unit, GateParams(k=3, lam=0.5, tau=0.1, mu=0.5), one_file(len(unit)), words
    )
    assert f"{len(sel.admitted)} admitted" in summary  # the page's μ decides the panel
    rng = np.random.default_rng(31)
    settings = [
        (
            float(rng.uniform(0, 2)),
            float(rng.uniform(0, 1.5)),
            int(rng.choice([int(rng.integers(1, 21)), n])),
            int(rng.integers(1, 4)),
            float(rng.choice([0.0, 0.25, 0.5, 1.0, rng.uniform(0, 2)])),
        )
        for _ in range(300)
    ]
    browser = page.evaluate(DECIDE_MU, [list(s) for s in settings])
    moved = 0
    for (lam, tau, k, r, mu), got in zip(settings, browser, strict=True):
        params = GateParams(k=k, lam=lam, tau=tau, radius=r, mu=mu)
        want = [
            [getattr(d, f) for f in FIELDS]
            for d in select_from_sims(sims, unit, params, one_file(len(unit)), words).decisions
        ]
        assert [[d[f] for f in FIELDS] for d in got] == want, (lam, tau, k, r, mu)
        moved += want != _python(sims, unit, lam, tau, k, r)
    assert moved > 30  # μ changed the decisions often enough for the test to see a lost term


def test_browser_gate_stops_at_file_edges_as_python_does(harness, page):
    _open(page, harness, "doc=corpus&size=120&k=3&r=1&kmax=all")
    sims = np.load(harness.dump / "sims.npy")
    unit = np.load(harness.dump / "unit.npy")
    doc_of = np.load(harness.dump / "doc_of.npy")
    n = len(sims)
    assert len(set(doc_of.tolist())) == 5
    rng = np.random.default_rng(23)
    settings = [
        (float(rng.uniform(0, 2)), float(rng.uniform(-0.5, 1.5)), int(rng.integers(1, n + 1)), r)
        for r in (1, 2, 3)
        for _ in range(60)
    ]
    browser = page.evaluate(DECIDE_ALL, [list(s) for s in settings])
    crossings = 0
    for (lam, tau, k, r), got in zip(settings, browser, strict=True):
        sel = select_from_sims(sims, unit, GateParams(k=k, lam=lam, tau=tau, radius=r), doc_of)
        want = [[getattr(d, f) for f in FIELDS] for d in sel.decisions]
        assert [[d[f] for f in FIELDS] for d in got] == want, (lam, tau, k, r)
        assert all(doc_of[d[0]] == doc_of[d[1]] for d in want)
        crossings += any(doc_of[d[0]] != doc_of[d[1]] for d in _python(sims, unit, lam, tau, k, r))
    assert crossings > 10  # joined as one document, the same settings would cross files
    # the rows (k = 3, r = 1) name a file's start or end, never the document's
    order = json.loads((harness.dump / "payload.json").read_text())["order"][:3]
    want = sorted(
        ["file start"] * sum(c == 0 or doc_of[c - 1] != doc_of[c] for c in order)
        + ["file end"] * sum(c == n - 1 or doc_of[c + 1] != doc_of[c] for c in order)
    )
    chips = page.locator("[data-testid=sv-gate-panel] .sv-edge").all_inner_texts()
    assert sorted(chips) == want


def test_on_one_document_the_rows_name_the_documents_edges(harness, page):
    # every chunk's range is the whole document: its edges are the document's, not a file's
    _open(page, harness, "doc=hostile&size=400&k=1&r=1&kmax=all")
    n = len(np.load(harness.dump / "sims.npy"))
    assert not np.load(harness.dump / "doc_of.npy").any()
    _open(page, harness, f"doc=hostile&size=400&k={n}&r=1&kmax=all")
    chips = page.locator("[data-testid=sv-gate-panel] .sv-edge").all_inner_texts()
    assert set(chips) == {"document end", "document start"}  # rows within r of either edge


GAP_PX = 3
"""Labels keep this far apart (``LABEL_GAP`` in ui/gate_panel.js): they never touch."""


def _labels_inside_and_apart(view) -> None:
    """Decision-plane labels lie inside the frame (never clipped at the top), and never
    overlap nor touch: at least :data:`GAP_PX` between any two (boxes as wide as the canvas
    measures each label's text)."""
    boxes, frame = view["labelBoxes"], view["frame"]
    assert view["points"] > 0 and boxes
    g = GAP_PX
    for i, a in enumerate(boxes):
        assert frame["x0"] <= a["x0"] < a["x1"] <= frame["x1"]
        assert frame["y0"] <= a["y0"] < a["y1"] <= frame["y1"]
        for b in boxes[i + 1 :]:
            apart = (
                a["x1"] + g <= b["x0"]
                or b["x1"] + g <= a["x0"]
                or a["y1"] + g <= b["y0"]
                or b["y1"] + g <= a["y0"]
            )
            assert apart, (a, b)


@pytest.mark.model
def test_dragging_redraws_in_the_browser_and_release_reports_back(harness, page):
    _open(page, harness, "k=3&r=2")
    admitted = page.locator(".sv-chip.sv-admitted")
    python_line = page.get_by_text("Python: λ = 0.50, τ = 0.10")
    python_line.wait_for()
    counts = []
    for lam, tau in (("0", "0"), ("2", "1.5")):
        page.locator("[data-testid=sv-lam]").evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", lam
        )
        page.locator("[data-testid=sv-tau]").evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", tau
        )
        counts.append(admitted.count())
    assert counts[0] > counts[1], counts  # a low bar admits more than a high one
    for lam in ("0", "0.35", "1.2", "2"):
        page.locator("[data-testid=sv-lam]").evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", lam
        )
        _labels_inside_and_apart(page.evaluate("() => window.__scarGateView()"))
    assert python_line.count() == 1  # input events alone never rerun the script
    page.locator("[data-testid=sv-lam]").evaluate(
        "el => { el.value = '0.9'; el.dispatchEvent(new Event('input'));"
        " el.dispatchEvent(new Event('change')); }"
    )
    page.get_by_text("Python: λ = 0.90, τ = 1.50").wait_for(timeout=30_000)
    wait_for_app_run(page)
    assert "released: (0.9, 1.5)" in page.inner_text("body")
    assert page.locator("[data-testid=sv-lam]").input_value() == "0.9"
    # the panel's counts after the release are Python's
    body = page.inner_text("body")
    admitted = re.search(r"admitted \[([\d, ]*)\]", body).group(1)
    rejected = re.search(r"rejected \[([\d, ]*)\] · released", body).group(1)
    count = lambda text: len([x for x in text.split(",") if x.strip()])  # noqa: E731
    summary = page.locator(".sv-summary").inner_text()
    assert f"{count(admitted)} admitted · {count(rejected)} rejected" in summary


def test_a_page_without_the_test_parameter_gets_no_hooks_on_window(harness, page):
    _open(page, harness, "doc=hostile&k=3&r=1", hooks=False)
    assert page.locator(".sv-row").count() > 0  # the panel is drawn
    hooks = page.evaluate("() => Object.keys(window).filter((k) => k.startsWith('__scarGate'))")
    assert hooks == []


def test_document_markup_shows_as_text_and_never_runs(harness, page):
    _open(page, harness, "doc=hostile&k=3&r=3")
    panel = page.locator("[data-testid=sv-gate-panel]")
    text = panel.inner_text()
    assert "<script>window.__pwned" in text
    assert 'onerror="window.__pwned' in text
    assert panel.locator("img, script, [onerror], [onclick]").count() == 0
    for lam in ("0", "2"):
        page.locator("[data-testid=sv-lam]").evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", lam
        )
    assert page.evaluate("() => window.__pwned") is None


def _click(page, point) -> None:
    box = point.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _focused(page, previous: str | None = None) -> int:
    page.wait_for_function(
        "(prev) => { const m = document.body.innerText.match(/Focused chunk: (\\d+)/);"
        " return m && m[1] !== prev; }",
        arg=previous,
        timeout=30_000,
    )
    wait_for_app_run(page)
    return int(page.get_by_text("Focused chunk:").inner_text().split(":")[1])


@pytest.mark.model
def test_clicking_the_overview_focuses_a_chunk(harness, page):
    _open(page, harness, "k=3&r=1")
    payload = json.loads((harness.dump / "payload.json").read_text())
    chart = page.get_by_test_id("stPlotlyChart").first
    traces = chart.locator(".scatterlayer .trace")
    # the retrieved marks are the scatter trace before the rank labels, in document order
    retrieved = traces.nth(traces.count() - 2).locator("path.point")
    _click(page, retrieved.nth(sorted(payload["order"][:3]).index(payload["order"][0])))
    top = _focused(page)
    assert top == payload["order"][0]
    first_row = page.locator(".sv-row").first
    assert first_row.get_attribute("data-chunk") == str(top)
    assert "sv-focused" in first_row.get_attribute("class")
    # a chunk far from every retrieved one: the first scatter trace has one marker per chunk
    sims = np.load(harness.dump / "sims.npy")
    far = int(np.argmin(sims))
    _click(page, traces.first.locator("path.point").nth(far))
    assert _focused(page, str(top)) == far
    settle(page)
    first_row = page.locator(".sv-row").first
    assert first_row.get_attribute("data-chunk") == str(far)
    assert "◎ focus" in first_row.inner_text()
    assert page.locator(".sv-row").count() == 4  # the focus row and the three retrieved rows
