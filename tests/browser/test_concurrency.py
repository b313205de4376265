"""Six browser sessions on one server, on different documents and questions at the same time:
each gets its own correct result, the model is loaded once, nothing fails. Loopback only,
bounded in count and time."""

from __future__ import annotations

import json

import psutil
import pytest

from scar_viz.chunking.config import chunk_document
from scar_viz.documents import samples
from scar_viz.documents.reading import document_from_text
from scar_viz.embeddings import default_embedder
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import scar_select
from scripts.browser_actions import ON_THE_UPLOADER, ask, context_chunks, send_document, upload
from scripts.live_app import wait_for_app_run
from tests.browser.conftest import start_app

SESSIONS = 6


@pytest.fixture(scope="module")
def live_app(tmp_path_factory):
    """The app on the default model in a server of its own: the six sessions are the first it
    serves, and its log counts every load of the model."""
    app = start_app(tmp_path_factory)
    yield app
    app.stop()


def documents() -> list[tuple[str, str, str]]:
    """(file name, text, question) per session: each session a different part of the sample."""
    text = samples.load_sample().text
    parts = [p for p in text.split("\n## ") if len(p) > 1500]
    questions = [q["query"] for q in samples.sample_questions()]
    return [
        (f"part-{i}.md", "## " + parts[i % len(parts)] + f"\n\nSession {i}.\n", questions[i])
        for i in range(SESSIONS)
    ]


def expected(text: str, question: str) -> dict[int, str]:
    embedder = default_embedder()
    chunks = chunk_document(document_from_text("x.md", text))
    vecs = embedder.embed([c.text for c in chunks])
    sel = scar_select(embedder.embed([question])[0], vecs, GateParams.preset("A"))
    out = {c: f"retrieved · rank {r + 1}" for r, c in enumerate(sel.retrieved)}
    out.update({c: "admitted neighbour" for c in sel.admitted})
    return out


def rss_mib(pid: int) -> float:
    proc = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [proc, *proc.children(recursive=True)]) / 2**20


def test_six_sessions_at_once(live_app, chromium, artifacts):
    docs = documents()
    contexts = [
        chromium.new_context(viewport={"width": 1300, "height": 1400}) for _ in range(SESSIONS)
    ]
    pages = [c.new_page() for c in contexts]
    try:
        pages[0].goto(f"{live_app.url}/?{ON_THE_UPLOADER}")  # the sample is never embedded
        wait_for_app_run(pages[0])
        upload(pages[0], docs[0][0], docs[0][1].encode())
        ask(pages[0], docs[0][2])
        one_session = rss_mib(live_app.proc.pid)

        for page in pages[1:]:  # open the others on the uploader (as a link may) at once
            page.goto(f"{live_app.url}/?{ON_THE_UPLOADER}")
        for page in pages[1:]:
            wait_for_app_run(page)
        for page, (name, text, _) in zip(pages[1:], docs[1:], strict=True):
            send_document(page, name, text.encode())  # five uploads read at the same time
        for page in pages[1:]:
            wait_for_app_run(page)
        for page, (_, _, question) in zip(pages[1:], docs[1:], strict=True):
            box = page.get_by_test_id("stTextInput").filter(has_text="Question").locator("input")
            box.fill(question)
            box.press("Enter")  # all six questions now run on the server together
        for page in pages[1:]:  # (the first has nothing pending: its question ran above)
            wait_for_app_run(page)
        six_sessions = rss_mib(live_app.proc.pid)

        for page, (name, text, question) in zip(pages, docs, strict=True):
            assert name in page.get_by_test_id("stSidebar").inner_text()
            assert context_chunks(page) == expected(text, question), name
            assert "Traceback" not in page.content()
    finally:
        for c in contexts:
            c.close()
    loads = live_app.log().count("scar_viz: loaded model")
    assert loads == 1, live_app.log()[-3000:]
    (artifacts / "concurrency.json").write_text(
        json.dumps(
            {
                "sessions": SESSIONS,
                "rss_mib_one_session": round(one_session, 1),
                "rss_mib_six_sessions": round(six_sessions, 1),
                "model_loads": loads,
            },
            indent=1,
        )
    )
    assert six_sessions < one_session + 600  # sessions share the model and caches
