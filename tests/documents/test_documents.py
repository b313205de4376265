"""Reading documents and detecting headings; every bad input ends in a clear DocumentError."""

from __future__ import annotations

import pytest

from scar_viz.documents.reading import (
    DocumentError,
    detect_sections,
    document_from_text,
    load_path,
    read_document,
)
from tests.fakes import make_pdf


def titles(text: str) -> list[str]:
    return [s.title for s in detect_sections(text)]


@pytest.mark.parametrize(
    "line",
    [
        "# Title",
        "### 1.2 Sub",
        "3.10.7.  SEGMENT ARRIVES",
        "3.1.  Header Format",
        "A.1.  Notes",
        "Article 12",
        "ARTICLE IV",
        "Item 1A. Risk Factors",
        "Item 7.",
        "Section 2.3 Definitions",
        "CHAPTER I",
        "Chapter 3 - Remedies",
        "Appendix B.  TCP Requirement Summary",
        "PART II",
    ],
)
def test_heading_forms_are_detected(line):
    text = f"Intro text.\n{line}\nBody of the section.\n"
    assert titles(text)[-1] == line.lstrip("# ").strip()


@pytest.mark.parametrize(
    "line",
    [
        "   3.1.  Header Format . . . . . 5",  # indented table-of-contents line
        "1.  The first step is to close the valve.",  # sentence, ends with a period
        "A quick brown fox",  # a capital letter that is prose
        "Section 2.3 says that the buyer shall pay the price, in full, on the date of closing "
        "without any deduction or set-off of any kind whatsoever, and in cash.",
    ],
)
def test_prose_is_not_a_heading(line):
    assert titles(f"Intro.\n{line}\nMore.\n") == ["(front matter)"]


def test_sections_tile_the_text_and_nest():
    text = "Preamble\n# A\ntext a\n## A.1\ntext a1\n## A.2\ntext\n# B\nend"
    sections = detect_sections(text)
    assert sections[0].start == 0 and sections[-1].end == len(text)
    assert all(a.end == b.start for a, b in zip(sections, sections[1:], strict=False))
    assert [s.path for s in sections] == [(), ("A",), ("A", "A.1"), ("A", "A.2"), ("B",)]


def test_numbered_hierarchy_like_the_rfc():
    text = "3.  Spec\nx\n3.10.  Event Processing\ny\n3.10.7.  SEGMENT ARRIVES\nz\n4.  Glossary\nw"
    paths = [s.path for s in detect_sections(text)]
    assert paths[2] == ("3.  Spec", "3.10.  Event Processing", "3.10.7.  SEGMENT ARRIVES")
    assert paths[3] == ("4.  Glossary",)


def test_every_character_has_a_section():
    doc = document_from_text("x.md", "# One\nabc\n# Two\ndef")
    assert doc.section_at(0).title == "One"
    assert doc.section_at(len(doc.text) - 1).title == "Two"


def test_corpus_sections(corpus_path):
    doc = load_path(corpus_path)
    labels = [s.title for s in doc.sections]
    assert "3.10.7.  SEGMENT ARRIVES" in labels
    assert "Appendix A.  Other Implementation Notes" in labels
    seg = next(s for s in doc.sections if s.title == "3.10.7.1.  CLOSED STATE")
    assert seg.path[:2] == ("3.  Functional Specification", "3.10.  Event Processing")


# --- decoding and bad input ---------------------------------------------------------------


def test_utf8_with_bom_and_utf16_and_latin1():
    assert read_document("a.txt", "\ufeffcafé".encode("utf-8")).text == "café"
    doc = read_document("b.txt", "naïve text".encode("utf-16"))
    assert doc.text == "naïve text" and "UTF-16" in doc.note
    doc = read_document("c.txt", "déjà vu".encode("latin-1"))
    assert doc.text == "déjà vu" and "Latin-1" in doc.note


@pytest.mark.parametrize(
    "name,data,match",
    [
        ("empty.txt", b"", "empty"),
        ("blank.txt", b"   \n\t \n", "only whitespace"),
        ("garbage.txt", bytes(range(256)) * 40, "binary"),
        ("controls.txt", bytes([1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0x81]) * 100, "binary|neither"),
        ("doc.docx", b"PK\x03\x04", "not a supported type"),
        ("fake.pdf", b"hello, I am not a PDF", "not a PDF"),
        ("broken.pdf", b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF", "malformed|no text"),
        ("page.html", b"<html><script>alert(1)</script><style>p{}</style></html>", "no visible"),
    ],
)
def test_bad_input_is_refused_clearly(name, data, match):
    with pytest.raises(DocumentError, match=match):
        read_document(name, data)


def test_over_the_limit():
    with pytest.raises(DocumentError, match="limit"):
        read_document("big.txt", b"a" * 2048, max_bytes=1024)


def test_pdf_text_layer_is_read():
    assert "Hello harbour" in read_document("ok.pdf", make_pdf("Hello harbour")).text


def test_pdf_without_text_layer():
    with pytest.raises(DocumentError, match="no text layer"):
        read_document("scan.pdf", make_pdf(None))


def test_encryptedmake_pdf():
    with pytest.raises(DocumentError, match="password|encrypted"):
        read_document("secret.pdf", make_pdf("Hidden", password="s3cret"))


def test_html_keeps_visible_text_and_headings_only():
    html = (
        b"<html><head><title>T</title><style>body{color:red}</style></head><body>"
        b"<h1>Rules</h1><p>Visible <b>text</b>.</p><script>window.x=1</script>"
        b"<h2>Exceptions</h2><ul><li>one</li><li>two</li></ul></body></html>"
    )
    doc = read_document("p.html", html)
    assert "window.x" not in doc.text and "color:red" not in doc.text
    assert "Visible text." in doc.text
    assert [s.path for s in doc.sections][-1] == ("Rules", "Exceptions")


def test_load_path_missing_file(tmp_path):
    with pytest.raises(DocumentError, match="Cannot read"):
        load_path(tmp_path / "nope.txt")
