"""Start the app with ``streamlit run`` on a free loopback port and drive it in headless Chromium.

Used by the browser tests, the benchmarks and ``python scripts/live_app.py screenshot``.
Waits follow Streamlit's own e2e tests: on the app's run state, never on fixed sleeps.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
]


try:  # the browser extras are optional for serving
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # pragma: no cover
    PlaywrightTimeout = TimeoutError  # noqa: N816


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveApp:
    """A ``streamlit run app.py`` process on 127.0.0.1."""

    def __init__(self, env: dict[str, str] | None = None, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen | None = None
        self.log_path = Path(self.env.get("SCAR_VIZ_LOG", f"/tmp/scar-viz-{self.port}.log"))
        self.started_at = 0.0
        self.script: str | None = None  # another script to serve instead of the app
        self.command: list[str] | None = None  # another command (e.g. an installed scar-viz app)
        self.cwd: Path = ROOT

    def _command(self) -> list[str]:
        if self.command is not None:
            return self.command
        if self.script is None:
            return [sys.executable, "scripts/serve.py"]
        return [sys.executable, "-m", "streamlit", "run", self.script]

    def start(self, timeout: float = 90) -> LiveApp:
        self.started_at = time.perf_counter()
        log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [
                *self._command(),
                "--server.port",
                str(self.port),
                "--server.address",
                "127.0.0.1",
                "--server.headless",
                "true",
            ],
            cwd=self.cwd,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited: {self.log_path.read_text()[-2000:]}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=1) as r,
            ):
                if r.read() == b"ok":
                    return self
            time.sleep(0.1)
        raise TimeoutError("streamlit did not become healthy")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> LiveApp:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


_WATCH_RUNS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app) return null;
  if (!window.__svRuns) {
    const runs = {started: 0, seen: 0, active: false};
    const note = () => {
      const state = app.getAttribute("data-test-script-state");
      const busy = state === "running" || state === "rerunRequested";
      if (busy && !runs.active) runs.started += 1;
      runs.active = busy;
    };
    new MutationObserver(note).observe(app, {
      attributes: true, attributeFilter: ["data-test-script-state"],
    });
    note();
    window.__svRuns = runs;
  }
  window.__svRuns.seen = window.__svRuns.started;
  return window.__svRuns.seen;
}"""
"""Install (once per document) an observer that counts the runs the page has started, and
mark every run so far as seen."""

_NOT_RUNNING = "[data-testid='stApp'][data-test-script-state='notRunning']"


def wait_for_app_run(page, timeout_ms: int = 120_000, start_timeout_ms: int = 10_000) -> None:
    """Block until the run started by the last action has finished.

    The page counts its runs (a ``MutationObserver`` on ``stApp``'s script state, installed by
    the first call on each document). A call waits for a run that began after the previous call
    returned, then for the script state ``notRunning``; so it never returns on the
    ``notRunning`` left over from before the action, however late the new run starts. Right
    after ``page.goto`` (a fresh document, state ``initial``) it waits for the first run. If
    the action starts no run within ``start_timeout_ms``, it returns once nothing runs.
    """
    page.locator("[data-testid='stApp'][data-test-connection-state='CONNECTED']").wait_for(
        state="attached", timeout=timeout_ms
    )
    mark = page.evaluate("() => window.__svRuns ? window.__svRuns.seen : null")
    if mark is not None:
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(
                "m => window.__svRuns && window.__svRuns.started > m",
                arg=mark,
                timeout=start_timeout_ms,
            )
    page.locator(_NOT_RUNNING).wait_for(state="attached", timeout=timeout_ms)
    page.wait_for_function("() => !window.__svRuns || !window.__svRuns.active", timeout=timeout_ms)
    page.evaluate(_WATCH_RUNS)


def settle(page, timeout_ms: int = 30_000) -> None:
    """Wait until no element is a loading skeleton and every plotly chart has drawn."""
    page.wait_for_function(
        "() => !document.querySelector("
        "'[data-testid=stSkeleton], [data-testid=stSkeletonElement]')",
        timeout=timeout_ms,
    )
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')]"
        ".every(el => el.querySelector('.main-svg'))",
        timeout=timeout_ms,
    )
    page.wait_for_timeout(500)


def screenshot(url: str, out: str, width: int = 1400, height: int = 2600) -> None:
    with browser() as b:
        page = b.new_page(viewport={"width": width, "height": height})
        page.goto(url)
        wait_for_app_run(page)
        settle(page)
        page.screenshot(path=out, full_page=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    shot = sub.add_parser("screenshot", help="start the app, open PATHS, save full-page PNGs")
    shot.add_argument(
        "paths", nargs="+", help="URL paths with query, e.g. '/?k=3' (explorer) or '/learn'"
    )
    shot.add_argument("--out", default="artifacts")
    shot.add_argument("--width", type=int, default=1400)
    args = parser.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    with LiveApp() as app:
        for i, path in enumerate(args.paths):
            name = path.strip("/").split("?")[0].replace("/", "_") or "root"
            out = f"{args.out}/{i:02d}-{name}.png"
            screenshot(app.url + path, out, width=args.width)
            print(out)


if __name__ == "__main__":
    main()
