"""Start the app with ``streamlit run`` on a free loopback port and drive it in headless Chromium.

Used by the browser tests, the benchmarks and ``python scripts/live_app.py screenshot``.
Waits follow Streamlit's own e2e tests: on the app's run state, never on fixed sleeps.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
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
LAUNCH = {"executable_path": CHROMIUM, "headless": True, "args": CHROMIUM_ARGS}
"""How every Chromium here is launched (Playwright's ``launch`` and
``launch_persistent_context``)."""


STARTED = {"servers": 0, "browsers": 0}
"""How many app servers (:meth:`LiveApp.start`) and Chromiums (:func:`browser`) this process
has started: the test run prints them at its end."""

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
        self.log_from = 0  # log() starts at this byte of the log file (since_now)
        self.command: list[str] | None = None  # another command (e.g. an installed scar-viz app)
        self.cwd: Path = ROOT

    def _command(self) -> list[str]:
        if self.command is not None:
            return self.command
        if self.script is None:
            return [sys.executable, "-m", "scripts.serve"]  # this checkout first: cwd is ROOT
        return [sys.executable, "-m", "streamlit", "run", self.script]

    def start(self, timeout: float = 90) -> LiveApp:
        STARTED["servers"] += 1
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
        if not self.log_path.exists():
            return ""
        return self.log_path.read_bytes()[self.log_from :].decode(errors="replace")

    def since_now(self) -> LiveApp:
        """This server as seen from now: the same process, address and environment, with a
        :meth:`log` that holds only what the server writes after this call (for tests that
        share one server and each read its log)."""
        view = copy.copy(self)
        view.log_from = self.log_path.stat().st_size if self.log_path.exists() else 0
        return view

    def __enter__(self) -> LiveApp:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        STARTED["browsers"] += 1
        b = p.chromium.launch(**LAUNCH)
        try:
            yield b
        finally:
            b.close()


_WATCH_RUNS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app) return null;
  if (!window.__svRuns) {
    const runs = {
      started: 0, seen: 0, active: false,
      requests: 0, requestsSeen: 0, answered: 0, needStart: false,
    };
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
    // The runs the page asks for, and the server's answers, read off the websocket: a request
    // is a BackMsg whose field is rerun_script (11: first byte 0x5a); a run begins with a
    // ForwardMsg new_session (field 4) and ends with script_finished (field 6) of any status
    // but FINISHED_EARLY_FOR_RERUN (2), which a restart follows. A request is answered by the
    // end of a run that began after it.
    const topFields = (buffer) => {
      const b = new Uint8Array(buffer), out = new Map();
      let i = 0;
      const varint = () => {
        let x = 0, shift = 0, c;
        do { c = b[i++]; x += (c & 127) * 2 ** shift; shift += 7; } while (c & 128 && i < b.length);
        return x;
      };
      while (i < b.length) {
        const tag = varint(), wire = tag & 7;
        if (wire === 0) out.set(Math.floor(tag / 8), varint());
        else if (wire === 2) { const n = varint(); out.set(Math.floor(tag / 8), null); i += n; }
        else if (wire === 1) i += 8;
        else if (wire === 5) i += 4;
        else break;
      }
      return out;
    };
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      if (!this.__svHeard) {
        this.__svHeard = true;
        this.addEventListener("message", (event) => {
          if (!(event.data instanceof ArrayBuffer)) return;
          const f = topFields(event.data);
          if (f.has(4)) runs.needStart = false;
          if (f.has(6) && f.get(6) !== 2 && !runs.needStart) runs.answered = runs.requests;
        });
      }
      const bytes = data instanceof ArrayBuffer ? new Uint8Array(data)
        : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
        : null;
      if (bytes && bytes.length && bytes[0] === 0x5a) {
        runs.requests += 1;
        runs.needStart = true;
      }
      return send.call(this, data);
    };
    window.__svRuns = runs;
  }
  window.__svRuns.seen = window.__svRuns.started;
  window.__svRuns.requestsSeen = window.__svRuns.requests;
  return window.__svRuns.seen;
}"""
"""Install (once per document) the page's run watch: runs started (``stApp``'s script state,
seen by a ``MutationObserver``) and runs asked for and answered (the websocket's messages);
then mark everything so far as seen."""

_NOT_RUNNING = "[data-testid='stApp'][data-test-script-state='notRunning']"
_ASKED = "() => window.__svRuns.requests > window.__svRuns.requestsSeen"
_STARTED = "() => window.__svRuns.started > window.__svRuns.seen"
_ANSWERED = "() => window.__svRuns.answered >= window.__svRuns.requests && !window.__svRuns.active"
_RUN_ASKED = f"() => !window.__svRuns || ({_ASKED})() || ({_STARTED})()"
"""True once the page has asked for a run (or one started) since the last
:func:`wait_for_app_run` returned; true at once on a page that call never watched."""
RUN_REQUESTED = f"() => !window.__svRuns || ({_ASKED})()"
"""True once the page itself has sent a rerun request since the last :func:`wait_for_app_run`
(a run the server starts on its own does not count); true at once on a page never watched."""


def wait_for_app_run(page, timeout_ms: int = 120_000, start_timeout_ms: int = 3_000) -> None:
    """Block until the run started by the last action has finished.

    The page watches its runs (installed by the first call on each document): the runs it
    asks the server for (a rerun request on its websocket, sent the moment a widget changes)
    and the server's answer to each (the end of a run that began after the request), and the
    script state on ``stApp``. A call waits until every run asked for since the previous call
    returned has been answered and nothing runs; so it never returns on the ``notRunning``
    left over from before the action, however late the server starts the run, nor waits for
    a state change that a quick run never shows (the browser draws ``running`` and
    ``notRunning`` in one frame). Right after ``page.goto`` (a fresh document, state
    ``initial``) it waits for the first run. If the page asks for no run within
    ``start_timeout_ms`` of the call (the action starts none), it returns once nothing runs.
    """
    page.locator("[data-testid='stApp'][data-test-connection-state='CONNECTED']").wait_for(
        state="attached", timeout=timeout_ms
    )
    if page.evaluate("() => !!window.__svRuns"):
        with contextlib.suppress(PlaywrightTimeout):  # no request: the action started no run
            page.wait_for_function(_RUN_ASKED, timeout=start_timeout_ms)
        page.wait_for_function(_ANSWERED, timeout=timeout_ms)
    page.locator(_NOT_RUNNING).wait_for(state="attached", timeout=timeout_ms)
    page.wait_for_function("() => !window.__svRuns || !window.__svRuns.active", timeout=timeout_ms)
    page.evaluate(_WATCH_RUNS)


_QUIET = """([quietMs, maxMs]) => new Promise((resolve) => {
  // resolves once nothing in the document (its open shadow roots too: the gate panel draws
  // in one) has changed for quietMs after the next frame, or after maxMs (true: it was quiet)
  const watched = new Set();
  let timer = null;
  const done = (quiet) => {
    observer.disconnect();
    clearTimeout(timer);
    clearTimeout(cap);
    resolve(quiet);
  };
  const restart = () => { clearTimeout(timer); timer = setTimeout(() => done(true), quietMs); };
  const watch = (root) => {
    if (watched.has(root)) return;
    watched.add(root);
    observer.observe(root, {subtree: true, childList: true, attributes: true, characterData: true});
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) watch(el.shadowRoot);
  };
  const observer = new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      if (n.nodeType !== 1) continue;
      if (n.shadowRoot) watch(n.shadowRoot);
      for (const el of n.querySelectorAll("*")) if (el.shadowRoot) watch(el.shadowRoot);
    }
    restart();
  });
  const cap = setTimeout(() => done(false), maxMs);
  watch(document.body);
  requestAnimationFrame(() => requestAnimationFrame(restart));
})"""

QUIET_MS = 150
"""How long the page must stay unchanged for :func:`settle` (a plotly chart or a component
that redraws does so within a frame or two)."""


def settle(page, timeout_ms: int = 30_000) -> None:
    """Wait until no element is a loading skeleton, every plotly chart has drawn, and the
    page has stopped changing (nothing in it, shadow roots included, changed for
    ``QUIET_MS``)."""
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
    page.evaluate(_QUIET, [QUIET_MS, timeout_ms])


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
