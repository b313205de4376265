"""Test doubles that are real things: a local HTTP server that speaks the embeddings API, a
one-page PDF and a zip. The tiny random BERT models live in :mod:`scripts.tiny_models` and the
zip maker in :mod:`scripts.synthetic_corpus` (the benchmarks use them too)."""

from __future__ import annotations

import io
import time

import numpy as np

from scripts.synthetic_corpus import make_zip  # noqa: F401  (the tests import it from here)
from tests.fake_http import JsonServer, send_json, send_raw


class EmbeddingsServer(JsonServer):
    """An OpenAI-compatible ``POST /v1/embeddings`` on 127.0.0.1 with a switchable ``mode``:
    ok, 401, 429, slow, malformed, wrong-dims, mixed-dims. Records each request's headers."""

    def __init__(self, dim: int = 8) -> None:
        self.dim = dim
        self.mode = "ok"
        super().__init__()

    def respond(self, handler, body: dict, n: int) -> None:
        mode = self.mode
        if mode == "401":
            return send_json(
                handler,
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
        if mode == "429":
            return send_json(
                handler,
                429,
                {
                    "error": {
                        "message": "Rate limit reached",
                        "type": "requests",
                        "code": "rate_limit",
                    }
                },
            )
        if mode == "slow":
            time.sleep(3)
        if mode == "malformed":
            raw = b'{"object": "list", "data": [{"embedding": [0.1, 0.2'
            return send_raw(handler, 200, raw)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = []
        for i, text in enumerate(texts):
            dim = self.dim + (1 if mode == "mixed-dims" and i % 2 else 0)
            dim = self.dim * 2 if mode == "wrong-dims" else dim
            rng = np.random.default_rng(abs(hash(text)) % 2**32)
            data.append(
                {
                    "object": "embedding",
                    "index": i,
                    "embedding": rng.normal(size=dim).round(6).tolist(),
                }
            )
        return send_json(
            handler,
            200,
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            },
        )


def make_pdf(text: str | None, password: str | None = None) -> bytes:
    """A one-page PDF: with ``text`` in its text layer, blank without; encrypted with a password."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(width=300, height=300)
    if text is not None:
        font = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
        )
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 12 Tf 20 250 Td ({text}) Tj ET".encode())
        page[NameObject("/Contents")] = writer._add_object(stream)
    if password:
        writer.encrypt(password, algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def repeated_page_pdf(levels: int = 15, count: int | None = None) -> bytes:
    """A PDF of a few hundred bytes whose page tree names one node twice at every level:
    ``2**levels`` pages of one line of text. ``count``: the page count it declares (default
    the true one; a smaller one lies)."""
    text = b"BT /F1 12 Tf 72 720 Td (Repeated page text.) Tj ET"
    objs = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        5: b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text),
    }
    child, pages = 3, 1
    for n in range(6, 6 + levels):
        pages *= 2
        objs[n] = b"<< /Type /Pages /Kids [%d 0 R %d 0 R] /Count %d >>" % (child, child, pages)
        child = n
    objs[2] = b"<< /Type /Pages /Kids [%d 0 R] /Count %d >>" % (
        child,
        pages if count is None else count,
    )
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for i in sorted(objs):
        offsets[i] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (i, objs[i])
    xref, size = len(out), max(objs) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    out += b"".join(b"%010d 00000 n \n" % offsets[i] for i in range(1, size))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)
