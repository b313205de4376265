"""What is extracted is budgeted, not only what is uploaded: a PDF's page count is checked
before any page is parsed, an upload's PDF pages and text characters are counted across its
files, pypdf's own limit errors are one sentence (a zip keeps its good files), and reading
stops when the visitor's ``should_stop`` says so."""

from __future__ import annotations

import pytest
from pypdf import PageObject

from scar_viz.documents.collect import CorpusError, Limits, collect_files, collect_zip
from scar_viz.documents.reading import (
    MAX_PDF_PAGES,
    UPLOAD_CHARS,
    UPLOAD_PAGES,
    DocumentError,
    Extraction,
    read_document,
)
from scar_viz.runtime.cancel import Cancelled
from tests.fakes import make_pdf, make_zip, repeated_page_pdf


@pytest.fixture
def parsed(monkeypatch) -> list[int]:
    """Counts the pages whose text pypdf extracts."""
    calls: list[int] = []
    real = PageObject.extract_text

    def counting(self, *args, **kwargs):
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(PageObject, "extract_text", counting)
    return calls


def test_the_repeated_page_pdf_is_refused_before_a_page_is_parsed(parsed):
    data = repeated_page_pdf()
    assert len(data) < 2_000  # 32,768 pages in under 2 KB
    with pytest.raises(DocumentError) as err:
        read_document("loop.pdf", data)
    assert str(err.value) == (
        f"This PDF has 32,768 pages; a PDF may have at most {MAX_PDF_PAGES:,}."
    )
    assert parsed == []


def test_a_page_tree_that_understates_its_pages_stops_in_pypdf_as_one_sentence(parsed):
    with pytest.raises(DocumentError) as err:
        read_document("liar.pdf", repeated_page_pdf(count=1))
    assert err.value.reason == "over a PDF reader limit" and parsed == []
    assert str(err.value).count(". ") == 0 and str(err.value).endswith("cannot be read.")


def test_two_thousand_repeated_page_pdfs_in_a_zip_are_refused_unparsed(parsed):
    data = make_zip({f"p{i:04d}.pdf": repeated_page_pdf() for i in range(2_000)})
    assert len(data) < 1.5 * 2**20  # passes the 20:1 archive budget: it counts PDF bytes
    with pytest.raises(CorpusError) as err:
        collect_zip("loops.zip", data)
    assert str(err.value) == (
        f"No document could be read from 'loops.zip': 2,000 over {MAX_PDF_PAGES:,} PDF pages."
    )
    assert parsed == []


def test_a_zip_with_one_bad_pdf_keeps_its_good_files():
    data = make_zip(
        {"a.md": b"# Harbour\n\nBoats leave at dawn.", "bad.pdf": repeated_page_pdf(count=1)}
        | {"ok.pdf": make_pdf("Tide tables")}
    )
    got = collect_zip("mixed.zip", data)
    assert [d.name for d in got.documents] == ["a.md", "ok.pdf"]
    assert [(s.path, s.reason) for s in got.skipped] == [("bad.pdf", "over a PDF reader limit")]


def test_an_uploads_pdf_pages_are_counted_across_its_files(parsed):
    pdf = repeated_page_pdf(levels=3)  # 8 pages each
    files = [(f"d{i}.pdf", pdf) for i in range(5)]
    got = collect_files(files, Limits(pdf_pages=20))
    assert [d.name for d in got.documents] == ["d0.pdf", "d1.pdf"]  # 16 pages; 4 left
    assert {s.reason for s in got.skipped} == {UPLOAD_PAGES}
    assert len(parsed) == 16


def test_an_uploads_text_is_counted_across_its_files():
    files = [(f"n{i}.txt", b"Harbour notes. " * 100) for i in range(4)]  # 1,500 chars each
    got = collect_files(files, Limits(text_chars=3_200))
    assert [d.name for d in got.documents] == ["n0.txt", "n1.txt"]
    assert len(got.skipped) == 2 and all(s.reason == UPLOAD_CHARS for s in got.skipped)


def test_one_documents_text_is_bounded_whatever_its_bytes(monkeypatch):
    monkeypatch.setattr("scar_viz.documents.reading.MAX_TEXT_CHARS", 1_000)
    with pytest.raises(DocumentError, match="longer than the 1,000 characters a document may"):
        read_document("long.txt", b"word " * 300)


def test_reading_pdf_pages_stops_when_the_visitor_leaves(parsed):
    asked = []

    def should_stop() -> bool:
        asked.append(1)
        return len(asked) > 3  # the visitor leaves while the fourth page is due

    with pytest.raises(Cancelled):
        read_document(
            "pages.pdf", repeated_page_pdf(levels=6), budget=Extraction(should_stop=should_stop)
        )
    assert len(parsed) == 3


def test_a_zip_stops_between_files_when_the_visitor_leaves(parsed):
    data = make_zip({f"n{i}.txt": b"Harbour notes." for i in range(50)})
    seen = []

    def should_stop() -> bool:
        seen.append(1)
        return len(seen) > 5

    with pytest.raises(Cancelled):
        collect_zip("many.zip", data, should_stop=should_stop)
    assert len(seen) == 6
