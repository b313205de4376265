"""What the live-server benchmarks share: the empty script they measure against, and a clock of
the websocket frames a page sends and receives (``benchmarks/perf.py`` part b,
``benchmarks/explorer_rerun.py``)."""

from __future__ import annotations

import time

EMPTY_APP = "import streamlit as st\n\nst.title('Empty')\nst.slider('x', 0, 100, 50, key='x')\n"


class FrameClock:
    """Times of the websocket frames a page sends and receives (Streamlit's BackMsg/ForwardMsg)."""

    def __init__(self, page) -> None:
        self.sent: list[float] = []
        self.received: list[float] = []
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        ws.on("framesent", lambda _: self.sent.append(time.perf_counter()))
        ws.on("framereceived", lambda _: self.received.append(time.perf_counter()))

    def rerun_seconds(self, page, act, quiet: float = 0.6, limit: float = 60.0) -> float:
        """From the first frame ``act`` makes the page send to the last frame of the answer."""
        self.sent.clear()
        self.received.clear()
        act()
        deadline = time.perf_counter() + limit
        while time.perf_counter() < deadline:
            page.wait_for_timeout(50)
            last = self.received[-1] if self.received else 0.0
            if self.sent and last and time.perf_counter() - last > quiet:
                return last - self.sent[0]
        raise TimeoutError("no answer to the slider move")
