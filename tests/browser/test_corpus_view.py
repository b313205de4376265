"""The Explorer on a corpus in a real browser: the table lists the files, and a click on a mark
of the small multiples opens that file with the clicked chunk in the focus rows."""

from __future__ import annotations

import zipfile

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from scar_viz.chunking.config import ChunkingConfig, chunk_doc_of, chunk_document
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import Document, document_from_text
from scripts.browser_actions import ON_THE_UPLOADER, ask, click_within
from scripts.live_app import settle, wait_for_app_run
from tests.browser.conftest import running_hash_app

FILES = {
    "guide/boats.md": "# Boats\n\n"
    + "The harbour rents small sailing boats by the hour. " * 18
    + "\n\nA deposit of forty euros is paid before the boat leaves the quay.",
    "guide/fees.md": "# Fees\n\n" + "Mooring fees are charged per night at the office. " * 20,
    "notes/tides.txt": "Tide tables are posted at the harbour master's office each morning. " * 16,
    "tools/weather.py": '"""Weather for sailors."""\n\n'
    + "def forecast(day):\n    return 'wind from the west'\n\n" * 12,
}
QUESTION = "What deposit is paid before the boat leaves the quay?"
ZIP_INPUT = "[data-testid='stFileUploaderDropzoneInput'][accept*='.zip']"

MARK = """(args) => {
  const [kind, skip] = args;
  const plot = document.querySelector('.st-key-corpus_chart .js-plotly-plot');
  const found = [];
  plot.data.forEach(t => {
    if (t.type !== 'scatter' || t.name !== kind) return;
    (t.customdata || []).forEach((c, j) => found.push({x: t.x[j], y: t.y[j], chunk: c[0]}));
  });
  const pick = found[Math.min(skip, found.length - 1)];
  const full = plot._fullLayout;
  return {
    chunk: pick.chunk,
    x: full._size.l + full.xaxis.l2p(pick.x),
    y: full._size.t + full.yaxis.l2p(pick.y),
    n: found.length,
  };
}"""
"""The centre of a ``kind`` mark of the small multiples (the ``skip``-th one, in drawing
order: bottom row first), in px from the chart's top-left corner, and the corpus chunk it
carries."""


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    yield from running_hash_app(tmp_path_factory)


def _zip(tmp_path) -> bytes:
    path = tmp_path / "harbour.zip"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in FILES.items():
            z.writestr(name, text)
    return path.read_bytes()


def _corpus_paths(corpus: Document) -> list[str]:
    """Each chunk's file under the app's default chunking (the app's own numbering)."""
    chunks = chunk_document(corpus, ChunkingConfig())
    return [corpus.parts[d].path for d in chunk_doc_of(corpus, chunks)]


def _open_corpus(page, url: str, tmp_path) -> Document:
    """Open the app at ``url`` on the uploader and upload the zip through the sidebar's
    uploader (it must take one)."""
    page.goto(f"{url}/?{ON_THE_UPLOADER}")
    wait_for_app_run(page)
    zipped = page.locator(ZIP_INPUT)
    # the run can end a moment before the browser has drawn the sidebar's uploader: wait for
    # it (a missing uploader still fails here, with the message below)
    try:
        zipped.first.wait_for(state="attached", timeout=30_000)
    except PlaywrightTimeout:
        pytest.fail("the document uploader takes a .zip")
    zipped.first.set_input_files(
        files=[{"name": "harbour.zip", "mimeType": "application/zip", "buffer": _zip(tmp_path)}]
    )
    wait_for_app_run(page)
    settle(page)
    assert f"corpus: {len(FILES)} files" in page.inner_text("section[data-testid=stSidebar]")
    return join_documents([document_from_text(p, t) for p, t in FILES.items()])


def test_after_a_zip_upload_the_corpus_shows_before_any_question(
    app, chromium, artifacts, tmp_path
):
    page = chromium.new_context(viewport={"width": 1400, "height": 1600}).new_page()
    corpus = _open_corpus(page, app.url, tmp_path)
    paths = _corpus_paths(corpus)
    body = page.inner_text("body")
    assert "Traceback" not in body
    assert f"Loaded: {len(FILES)} files, {len(paths)} chunks" in body

    # the table: every file with its chunks and characters, in corpus order
    table = page.locator(".st-key-corpus_table [data-testid=stDataFrame]")
    table.wait_for()
    # the grid writes its cells a moment after the frame appears: wait for the last file's
    last = corpus.parts[-1].path
    table.locator("[role=gridcell]").filter(has_text=last).first.wait_for(
        state="attached", timeout=15_000
    )
    cells = table.locator("[role=gridcell]").all_inner_texts()
    for part in corpus.parts:
        assert part.path in cells, (part.path, cells[:20])
        i = cells.index(part.path)
        assert cells[i + 1] == str(paths.count(part.path))  # its chunks
        assert cells[i + 2].replace(",", "") == str(part.end - part.start)  # its characters
    headers = table.locator("[role=columnheader]").all_inner_texts()
    assert not any("retrieved" in h or "cos" in h for h in headers), headers

    # the small multiples: one row per file, coloured by chunk length
    chart = page.locator(".st-key-corpus_chart .js-plotly-plot")
    chart.wait_for()
    drawn = chart.evaluate(
        "p => ({rows: p.data.filter(t => t.type === 'heatmap').map(t => t.name),"
        " colour: p.layout.coloraxis.colorbar.title.text})"
    )
    assert sorted(drawn["rows"]) == sorted(FILES), drawn
    assert drawn["colour"] == "characters"

    # the question box sits above the corpus
    question = page.get_by_label("Question", exact=True).bounding_box()
    heading = page.get_by_role("heading", name="Corpus").bounding_box()
    assert question is not None and heading is not None
    assert question["y"] < heading["y"]
    page.screenshot(path=str(artifacts / "browser-corpus-loaded.png"), full_page=True)

    # a question turns the same view into its hits
    ask(page, QUESTION)
    settle(page)
    assert "hits fall in" in page.inner_text("body")
    page.close()


def test_table_then_a_mark_opens_its_file_in_the_focus_rows(app, chromium, artifacts, tmp_path):
    page = chromium.new_context(viewport={"width": 1400, "height": 2000}).new_page()
    corpus = _open_corpus(page, app.url, tmp_path)
    paths = _corpus_paths(corpus)
    ask(page, QUESTION)
    settle(page)
    body = page.inner_text("body")
    assert "Traceback" not in body
    assert "Corpus" in body

    # the table lists every file
    table = page.locator(".st-key-corpus_table [data-testid=stDataFrame]")
    table.wait_for()
    # the grid fills its accessible cells a moment after the frame is drawn: wait for them
    table.locator("[role=gridcell]").first.wait_for(state="attached", timeout=15_000)
    cells = table.locator("[role=gridcell]").all_inner_texts()
    for part in corpus.parts:
        assert part.path in cells, (part.path, cells[:20])

    # a click on the retrieved mark of a file other than the one open now
    opened = page.get_by_test_id("sv-open-file").inner_text()
    mark = None
    for skip in range(8):
        mark = page.evaluate(MARK, ["retrieved", skip])
        if paths[mark["chunk"]] not in opened or skip >= mark["n"] - 1:
            break
    assert mark is not None and mark["n"] >= 2, mark
    click_within(page, page.locator(".st-key-corpus_chart .js-plotly-plot"), mark["x"], mark["y"])
    settle(page)

    chunk = int(mark["chunk"])
    focused = page.locator(".sv-row.sv-focused").first
    focused.wait_for()
    assert int(focused.get_attribute("data-chunk")) == chunk
    assert paths[chunk] in page.get_by_test_id("sv-open-file").inner_text()
    page.screenshot(path=str(artifacts / "browser-corpus-view.png"), full_page=True)
    page.close()
