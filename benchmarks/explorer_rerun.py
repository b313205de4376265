"""The Explorer's rerun after a λ release against an empty script's rerun (the target: at most 3×).

Both sides in one run, through live servers (``streamlit run``) in headless Chromium, with the
presses interleaved (empty, explorer, empty, …) so the machine's drift hits both alike:

- empty: a script with a title and one slider; a key press on the slider;
- explorer release: RFC 9293 uploaded, chunked 434/43 (about 825 chunks), a question asked;
  a key press on the live gate panel's λ range (its ``change`` event reports λ back and
  reruns the gate view, an ``st.fragment``);
- explorer slider: a key press on the page's own λ slider (the same fragment rerun).

The two Explorer sides alternate which one comes right after the empty press (release first
on even rounds, slider first on odd ones), so neither always pays the switch of page and server.

Each time runs from the first websocket frame the key press makes the page send to the last
frame of the answer (then 0.6 s of quiet), as ``benchmarks/perf.py`` part b; the page is then
waited on until the app's script state is ``notRunning``. Medians of ``--n`` presses.

With ``--sample`` the Explorer side is the view a newcomer lands on: the app's address with
nothing in it (the built-in sample, its default question and settings); results go to
``benchmarks/results/sample_rerun.json``. ``benchmarks/perf.py`` part b reports this same
measurement, so the sample's figure and RFC 9293's come from one method.

With ``--corpus`` the Explorer side opens a corpus instead: RFC 9293 cut into one file per
section or subsection (``1.``, ``3.1.``, …, the appendices), uploaded as one ``.zip``, so the page
draws the corpus view (the file table and the small multiples) on every rerun as well;
results go to ``benchmarks/results/corpus_rerun.json``.

Run: ``.venv/bin/python benchmarks/explorer_rerun.py [--model hash|default] [--n 15]
[--corpus | --sample]``
(about 2 minutes with ``hash``; needs Chromium and ``../shared/corpora/rfc9293.txt``).
Writes ``benchmarks/results/explorer_rerun.json``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from scripts.bench_smoke import parse
from scripts.browser_actions import ask, document_caption, upload
from scripts.frames import EMPTY_APP, FrameClock
from scripts.live_app import LiveApp, browser, settle, wait_for_app_run

ROOT = Path(__file__).resolve().parent.parent

CORPUS = ROOT.parent / "shared" / "corpora" / "rfc9293.txt"
RESULTS = ROOT / "benchmarks" / "results" / "explorer_rerun.json"
CORPUS_RESULTS = ROOT / "benchmarks" / "results" / "corpus_rerun.json"
SAMPLE_RESULTS = ROOT / "benchmarks" / "results" / "sample_rerun.json"
GATE_PANEL_RESULTS = ROOT / "benchmarks" / "results" / "gate_panel.json"
QUESTION = "How does TCP decide when to retransmit a segment that was not acknowledged?"
TARGET = 3.0


def press(page, clock: FrameClock, locator, key: str) -> float:
    """Seconds from the key press's first frame sent to the answer's last frame received."""
    locator.focus()
    seconds = clock.rerun_seconds(page, lambda: page.keyboard.press(key))
    wait_for_app_run(page)
    return seconds


def section_zip(text: str) -> tuple[bytes, int]:
    """RFC 9293 as a zip of one file per section or subsection (a development corpus), and the
    number of files."""
    heading = r"(?m)^(?:\d+(?:\.\d+)?|Appendix [A-Z])\.\s+\S"  # sections and subsections
    starts = [m.start() for m in re.finditer(heading, text)]
    starts = [0, *starts] if not starts or starts[0] else starts
    bounds = [*starts, len(text)]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for i, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False)):
            if text[a:b].strip():
                zf.writestr(f"rfc9293/{i:02d}.txt", text[a:b])
    return buf.getvalue(), len(bounds) - 1


MODES = ("rfc", "corpus", "sample")


def measure(mode: str = "rfc", model: str = "hash", n: int = 15) -> dict:
    """Both sides' medians and every press, as the results file holds them (``mode``: RFC 9293
    uploaded, RFC 9293 as a zip of sections, or the landing view on the built-in sample)."""
    cache = tempfile.mkdtemp(prefix="scar-rerun-")
    load_before = round(os.getloadavg()[0], 2)
    env = {"SCAR_VIZ_CACHE_DIR": cache, "HF_HUB_OFFLINE": "1", "SCAR_VIZ_DEFAULT_MODEL": model}
    with tempfile.TemporaryDirectory() as tmp, browser() as b:
        empty_script = Path(tmp) / "empty.py"
        empty_script.write_text(EMPTY_APP)
        empty_app = LiveApp(env=env)
        empty_app.script = str(empty_script)
        with empty_app, LiveApp(env=env) as app:
            epage = b.new_page(viewport={"width": 1400, "height": 1200})
            eclock = FrameClock(epage)
            epage.goto(empty_app.url + "/")
            wait_for_app_run(epage)
            eslider = epage.get_by_test_id("stSlider").filter(has_text="x").get_by_role("slider")

            page = b.new_page(viewport={"width": 1400, "height": 1600})
            clock = FrameClock(page)
            page.goto(app.url + ("/" if mode == "sample" else "/?size=434&overlap=43"))
            wait_for_app_run(page)
            t0 = time.perf_counter()
            files = 1
            if mode == "corpus":
                data, files = section_zip(CORPUS.read_text(encoding="utf-8"))
                upload(page, "rfc9293.zip", data, "application/zip")
            elif mode == "rfc":
                upload(page, "rfc9293.txt", CORPUS.read_bytes())
            embed_s = time.perf_counter() - t0
            if mode != "sample":  # the landing view keeps its own question
                ask(page, QUESTION)
            settle(page)
            chunks = int(
                re.search(r"([\d,]+) chunks", document_caption(page)).group(1).replace(",", "")
            )
            question = (
                page.get_by_test_id("stTextInput").filter(has_text="Question").locator("input")
            ).input_value()
            panel_lam = page.locator("[data-testid=sv-lam]")
            page_lam = (
                page.get_by_test_id("stSlider")
                .filter(has_text="λ (penalty weight)")
                .get_by_role("slider")
            )
            for _ in range(2):  # warm-up: first reruns compile and fill caches
                press(page, clock, panel_lam, "ArrowRight")
                press(epage, eclock, eslider, "ArrowRight")
            empty, release, slider = [], [], []
            for i in range(n):
                key = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
                empty.append(press(epage, eclock, eslider, key))
                # alternate which Explorer side follows the empty press: the press right after
                # the switch from the other page and server was always the release before, and
                # paid that switch (release ≈ slider when measured in balanced order)
                sides = [(release, panel_lam), (slider, page_lam)]
                for times, locator in sides if i % 2 == 0 else sides[::-1]:
                    times.append(press(page, clock, locator, key))
            lam_after = panel_lam.input_value()
            assert "Traceback" not in page.content()
    e, r, s = (statistics.median(x) for x in (empty, release, slider))
    redraw = json.loads(GATE_PANEL_RESULTS.read_text()) if GATE_PANEL_RESULTS.exists() else None
    document = {
        "corpus": f"RFC 9293 as a zip of {files} section files, recursive 434/43, {chunks} chunks",
        "rfc": f"RFC 9293 uploaded, recursive 434/43, {chunks} chunks",
        "sample": f"the built-in sample as the app opens (default settings), {chunks} chunks",
    }[mode]
    return {
        "measured": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "document": document,
        "model": model,
        "question": question,
        "presses_per_side": n,
        "order": "empty, then release/slider alternating which goes first",
        "load_average_1min_before": load_before,
        "upload_to_first_view_s": round(embed_s, 2),
        "empty_script_ms": round(e * 1000, 1),
        "explorer_release_ms": round(r * 1000, 1),
        "explorer_slider_ms": round(s * 1000, 1),
        "ratio_release": round(r / e, 2),
        "ratio_slider": round(s / e, 2),
        "target_ratio": TARGET,
        "met": max(r, s) / e <= TARGET,
        "panel_lambda_after": lam_after,
        "all_ms": {
            "empty": [round(x * 1000, 1) for x in empty],
            "release": [round(x * 1000, 1) for x in release],
            "slider": [round(x * 1000, 1) for x in slider],
        },
        "redraw_in_browser": None
        if redraw is None
        else {"source": "benchmarks/results/gate_panel.json", **redraw.get("summary", redraw)},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="hash", choices=["hash", "default"])
    parser.add_argument("--n", type=int, default=15, help="presses per side")
    parser.add_argument("--out", default=None)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--corpus", action="store_true", help="RFC 9293 as a zip of sections")
    which.add_argument("--sample", action="store_true", help="the landing view (built-in sample)")
    args = parse(parser, argv, sample=True, n=1)
    mode = "corpus" if args.corpus else "sample" if args.sample else "rfc"
    out = args.out or str({"corpus": CORPUS_RESULTS, "sample": SAMPLE_RESULTS}.get(mode, RESULTS))
    if mode != "sample" and not CORPUS.exists():
        sys.exit(f"error: {CORPUS} not found (the development corpus)")
    result = measure(mode, args.model, args.n)
    Path(out).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(
        f"{result['document']} ({args.model}): empty {result['empty_script_ms']:.0f} ms · "
        f"release {result['explorer_release_ms']:.0f} ms ({result['ratio_release']:.2f}×) · "
        f"slider {result['explorer_slider_ms']:.0f} ms ({result['ratio_slider']:.2f}×) · "
        f"target ≤ {TARGET:g}×: {'met' if result['met'] else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
