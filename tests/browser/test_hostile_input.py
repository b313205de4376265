"""Hostile and broken input in a real browser: clear messages, nothing lost, nothing executed."""

from __future__ import annotations

import os
import re

from playwright.sync_api import expect

from scripts.browser_actions import (
    DOCUMENT_UPLOADER,
    ON_THE_UPLOADER,
    ask,
    caption_shows,
    context_chunks,
    document_caption,
    go,
    upload,
)
from scripts.live_app import settle, wait_for_app_run
from tests.fakes import make_pdf

GOOD = "# Field notes\n\n" + "\n\n".join(
    f"Note {i}. The ferry crossing {i} depends on wind, tide and the master's judgement; "
    f"a delay of {i} minutes is logged and passengers are told why. " * 3
    for i in range(12)
)

BAD_FILES = [
    ("empty.txt", b"", "is empty"),
    ("blank.txt", b"  \n\t\n   ", "only whitespace"),
    ("garbage.txt", os.urandom(4000) + b"\x00" * 100, "binary"),
    ("broken.pdf", b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF", "malformed|no text"),
    ("secret.pdf", make_pdf("Hidden text", password="s3cret"), "password|encrypted"),
    ("scan.pdf", make_pdf(None), "no text layer"),
    (
        "scripts.html",
        b"<html><head><script>window.x=1</script><style>p{}</style></head>"
        b"<body><script>alert(1)</script></body></html>",
        "no visible text",
    ),
]


def test_bad_files_get_a_message_and_keep_the_previous_document(hash_app, page, tmp_path):
    page.goto(f"{hash_app.url}/?{ON_THE_UPLOADER}")
    wait_for_app_run(page)
    upload(page, "field-notes.md", GOOD.encode())
    assert caption_shows(page, "field-notes.md"), document_caption(page)
    ask(page, "What is logged when a crossing is delayed?")
    for name, data, expected in BAD_FILES:
        upload(page, name, data, "application/pdf" if name.endswith(".pdf") else "text/plain")
        expect(page.locator("[data-testid='sv-alert-error']").first).to_contain_text(
            re.compile(expected), timeout=30_000
        )
        # the previous document is kept
        assert caption_shows(page, "field-notes.md"), (name, document_caption(page))
        assert page.get_by_test_id("stMetric").count() == 5, name  # the explorer still works
        assert "Traceback" not in page.content()
    # a file over the upload limit: the browser refuses the file itself and asks the server
    # for no run, so no wait for one (and the file goes by its path: sent as a 21 MB buffer
    # the check took 12.7 s, 5.5 s so)
    huge = tmp_path / "huge.txt"
    huge.write_bytes(b"a" * (21 * 2**20))
    page.locator(DOCUMENT_UPLOADER).set_input_files(huge)
    expect(page.get_by_text("File must be 20.0MB or smaller.")).to_be_visible()
    assert caption_shows(page, "field-notes.md"), document_caption(page)


def test_degenerate_documents_and_queries_and_other_encodings(hash_app, page):
    page.goto(f"{hash_app.url}/?{ON_THE_UPLOADER}")
    wait_for_app_run(page)
    upload(page, "tiny.txt", b"One short sentence about the ferry.")
    assert caption_shows(page, "1 chunks"), document_caption(page)
    ask(page, "What about the ferry?")  # a new document starts with an empty question
    expect(page.get_by_text("No candidates")).to_be_visible()
    upload(
        page, "same.txt", ("Identical paragraph about tides and wind. " * 14 + "\n\n").encode() * 12
    )
    ask(page, "What about the tides?")
    assert page.get_by_test_id("stMetric").count() == 5
    ask(page, "   ")
    expect(page.get_by_text("Type a question to see which chunks")).to_be_visible()
    ask(page, "tide " * 4000)
    expect(page.get_by_text("only the first 2,000 are used")).to_be_visible()
    assert "Traceback" not in page.content()
    # encodings: decoded, saying how, or refused clearly
    upload(page, "utf16.txt", ("Ünïcödé notes. " * 80).encode("utf-16"))
    assert caption_shows(page, "utf16.txt"), document_caption(page)
    expect(page.get_by_text("Decoded as UTF-16")).to_be_visible()
    upload(page, "latin1.txt", ("Café crème, déjà vu. " * 80).encode("latin-1"))
    assert caption_shows(page, "latin1.txt"), document_caption(page)
    expect(page.get_by_text("decoded as Latin-1")).to_be_visible()


PAYLOAD = """# Report <img src=x onerror="window.__pwned=1"> :red[RED] **bold**

<script>window.__pwned = 1</script> The harbour payload paragraph talks about tides.

[click me](javascript:window.__pwned=1) and ![pic](javascript:window.__pwned=1)

<a href="javascript:window.__pwned=1">js link</a> <svg onload="window.__pwned=1"></svg>

<iframe src="javascript:window.__pwned=1"></iframe> :material/warning: $x^2$ <b onclick="x">b</b>
"""


def test_untrusted_text_is_shown_as_text_and_never_runs(hash_app, page):
    filler = "\n\n".join(
        f"Section {i} of the tide tables, with wind limits and crossings." * 6 for i in range(6)
    )
    doc = (PAYLOAD + "\n\n" + filler + "\n\n" + PAYLOAD).encode()
    page.goto(f"{hash_app.url}/?{ON_THE_UPLOADER}")
    wait_for_app_run(page)
    upload(page, ":red[x]**<b>bold</b>**.md", doc, "text/markdown")
    ask(page, "harbour payload paragraph tides script window pwned")
    settle(page)
    strip = page.get_by_test_id("stPlotlyChart").first
    strip.hover()  # draw a hover label (the overview sends no chunk text; the panel does)
    page.wait_for_timeout(300)
    assert context_chunks(page), "the payload chunks are in the context view"
    views = {
        "explorer": None,
        "compare": "Compare policies",
        "chunking": "Chunking lab",
        "evaluate": "Evaluation lab",
        "sweep": "λ×τ sweep",
        "transfer": "Model transfer",
    }
    for view, title in views.items():
        if title:
            go(page, title)
        for summary in page.get_by_test_id("stExpander").locator("summary").all():
            summary.click()  # open every expander, so all text on the page is on show
        page.wait_for_timeout(300)
        body = page.inner_text("body")
        assert page.evaluate("window.__pwned") is None, view
        assert page.locator("img[src='x'], iframe, a[href^='javascript'], svg[onload]").count() == 0
        assert "Traceback" not in body, view
        if view in ("explorer", "compare", "chunking"):
            assert "<script>window.__pwned = 1</script>" in body, view  # visible as text
            assert ":red[RED]" in body, view  # no markdown directive applied
    # the file name, as text
    assert caption_shows(page, ":red[x]**<b>bold</b>**.md"), document_caption(page)
    page.screenshot(path="artifacts/browser-untrusted.png", full_page=True)
