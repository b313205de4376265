"""The loopback HTTP server under the fake OpenAI-compatible endpoints (``tests/fakes.py``,
``tests/fake_llm.py``): it records every POST and lets a subclass answer it with JSON."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

POLL_S = 0.02
"""How often ``serve_forever`` looks for a shutdown: ``shutdown()`` waits up to this long
(the default, 0.5 s, cost each test that starts a fake half a second at its end)."""


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client that gave up (the timeout tests)
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def send_raw(handler: BaseHTTPRequestHandler, code: int, raw: bytes, headers=None) -> None:
    """Answer with ``raw`` bytes as JSON content, plus any extra ``headers``."""
    handler.send_response(code)
    handler.send_header("Content-Type", "application/json")
    for k, v in (headers or {}).items():
        handler.send_header(k, v)
    handler.send_header("Content-Length", str(len(raw)))
    handler.end_headers()
    handler.wfile.write(raw)


def send_json(handler: BaseHTTPRequestHandler, code: int, payload, headers=None) -> None:
    """Answer with ``payload`` serialised as JSON."""
    send_raw(handler, code, json.dumps(payload).encode(), headers)


class JsonServer:
    """A POST endpoint on 127.0.0.1 (a free port) under ``base_url`` (…/v1); use as a context
    manager. Each request is recorded in ``requests`` (path, lower-cased headers, JSON body) and
    answered by :meth:`respond`."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server._lock:
                    server.requests.append(
                        {
                            "path": self.path,
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                            "body": body,
                        }
                    )
                    n = len(server.requests)
                server.respond(self, body, n)

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True
        )

    def respond(self, handler: BaseHTTPRequestHandler, body: dict, n: int) -> None:
        """Answer the ``n``-th request (1-based), whose JSON body is ``body``."""
        raise NotImplementedError

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
