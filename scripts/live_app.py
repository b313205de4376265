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

    def _command(self) -> list[str]:
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
            cwd=ROOT,
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


def wait_for_app_run(page, timeout_ms: int = 120_000) -> None:
    """Block until the script has finished its run (connection up, script not running)."""
    page.wait_for_timeout(250)
    page.locator("[data-testid='stApp'][data-test-connection-state='CONNECTED']").wait_for(
        state="attached", timeout=timeout_ms
    )
    page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(
        state="attached", timeout=timeout_ms
    )


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
