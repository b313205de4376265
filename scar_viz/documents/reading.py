"""Reading documents (text and source code, pdf, html) into a :class:`Document`: text and
its sections.

The sections come from :func:`scar_viz.documents.sections.detect_sections`.
"""

from __future__ import annotations

import hashlib
import io
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from scar_viz.common.errors import UserError
from scar_viz.documents.sections import Section, detect_sections
from scar_viz.runtime.cancel import ShouldStop, check

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
"""Largest file accepted (20 MiB), the same figure as ``server.maxUploadSize``."""

MAX_PDF_PAGES = 2_000
"""Pages of one PDF. A PDF's page tree may name one page many times (a 1.9 KB file of 32,768
pages), so the count is what is checked, before any page is parsed: the page count the PDF
declares, then the tree walked under pypdf's own entry limit (:data:`_ENTRIES_A_PAGE` a page)."""
MAX_UPLOAD_PAGES = 10_000
"""PDF pages of one upload (a corpus, a zip) in all: 2,000 small PDFs of 2,000 pages each
would each pass :data:`MAX_PDF_PAGES`."""
MAX_TEXT_CHARS = DEFAULT_MAX_BYTES
"""Characters of text one document may give (20 Mi): a PDF's text is not bounded by its bytes."""
MAX_UPLOAD_CHARS = 200 * 2**20
"""Characters of text one upload may give in all (200 Mi, the corpus's byte limit)."""
_ENTRIES_A_PAGE = 32
"""Page-dictionary entries pypdf may copy a page while it walks the page tree (a page holds
5 to 15: type, parent, resources, boxes, contents, annotations…)."""


@dataclass
class Extraction:
    """What one upload may still extract, charged by each document read from it: PDF pages and
    text characters; and the visitor's ``should_stop``, asked between pages. A single file
    gets one of its own."""

    pages: int = MAX_UPLOAD_PAGES
    chars: int = MAX_UPLOAD_CHARS
    should_stop: ShouldStop | None = None


SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".pdf", ".html", ".htm")
"""The prose types, named in messages and offered by the single-file uploader."""

CODE_SUFFIXES = (
    *(".rst", ".tex", ".csv", ".tsv", ".log", ".org", ".adoc"),
    *(".py", ".pyi", ".java", ".c", ".h", ".cpp", ".hpp", ".cc", ".hh", ".cxx", ".rs", ".go"),
    *(".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte", ".css", ".scss"),
    *(".rb", ".php", ".cs", ".kt", ".kts", ".swift", ".scala", ".m", ".r", ".jl", ".lua"),
    *(".pl", ".hs", ".ex", ".exs", ".erl", ".clj", ".dart", ".zig", ".nim", ".f90", ".proto"),
    *(".sh", ".bash", ".zsh", ".ps1", ".bat", ".sql", ".graphql", ".gradle", ".cmake"),
    *(".json", ".jsonl", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".xml"),
    *(".svg", ".ipynb"),
)
"""Other text types, read as plain text like ``.txt``: a knowledge base of code is common."""

TEXT_SUFFIXES = frozenset((".txt", ".md", ".markdown", *CODE_SUFFIXES))
_PARSED_SUFFIXES = frozenset((".pdf", ".html", ".htm"))


class DocumentError(UserError, ValueError):
    """A file that cannot be turned into a document; the message is meant for the user.

    ``reason`` is a short, name-free phrase ("empty", "binary (NUL bytes)") for lists of
    skipped files; it defaults to the message.
    """

    def __init__(self, message: str = "", reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


@dataclass(frozen=True)
class Part:
    """One file of a document: its id (the relative POSIX path; a single file's name) and its
    range ``text[start:end]`` in the document's text (a corpus joins its files' texts,
    :func:`scar_viz.documents.corpus.join_documents`)."""

    path: str
    start: int
    end: int


def whole(name: str, text: str) -> tuple[Part, ...]:
    """The parts of a document of one file: that file, the whole text."""
    return (Part(name, 0, len(text)),)


@dataclass(frozen=True)
class Document:
    """Decoded text with its sections and its files; ``sections`` tile ``[0, len(text))`` in
    order, and ``parts`` (one or more) name each file's range.

    A file is a corpus of one: its one part is the whole text. A corpus joins its files' texts
    and has a part for each. Nothing reaches across a part's edge: chunks, sections, sentences
    and every policy's neighbours stay inside one part. Section paths are the headings inside
    their file; :attr:`shown_sections` puts the file's path in front where there are several.
    """

    name: str
    text: str
    sections: tuple[Section, ...]
    note: str = ""
    parts: tuple[Part, ...] = field(kw_only=True)

    @cached_property
    def _section_starts(self) -> list[int]:
        """Section starts, built once (a chunking asks for the section of every chunk)."""
        return [s.start for s in self.sections]

    @cached_property
    def _part_starts(self) -> list[int]:
        return [p.start for p in self.parts]

    @property
    def part_bounds(self) -> tuple[tuple[int, int], ...]:
        """(start, end) of each part, in order."""
        return tuple((p.start, p.end) for p in self.parts)

    @cached_property
    def digest(self) -> str:
        """The content digest: sha256 of the text, and for several files of their paths and
        ranges too, so two corpora with the same joined text but other files never share an
        entry. A file's is its text's sha256 (``scar_viz.embeddings.cache.text_key``), as it
        always was: saved sessions name their work by it."""
        if not self.several_files:
            return hashlib.sha256(self.text.encode("utf-8")).hexdigest()
        layout = "\n".join(f"{p.start}\t{p.end}\t{p.path}" for p in self.parts)
        return hashlib.sha256(f"corpus\n{layout}\n\0{self.text}".encode()).hexdigest()

    @property
    def several_files(self) -> bool:
        """True when the document joins two or more files."""
        return len(self.parts) > 1

    def shown_path(self, index: int) -> str:
        """Part ``index``'s path as the user is shown it: file paths are shown only where
        there are several files; "" for a document of one file, which its own name names.

        The one rule for what the user sees of files: labels (:attr:`shown_sections`), the
        files listed (:attr:`shown_paths`) and every message or field that names a file
        follow it; the data path never asks."""
        return self.parts[index].path if self.several_files else ""

    @property
    def shown_paths(self) -> tuple[str, ...]:
        """The files' paths as shown (:meth:`shown_path`): none for a document of one file."""
        return tuple(path for i in range(len(self.parts)) if (path := self.shown_path(i)))

    @cached_property
    def shown_sections(self) -> tuple[Section, ...]:
        """The sections as labels show them: each path after its file's shown path, if any
        (so in a corpus every chunk's label names its file)."""
        return tuple(self._shown_section(s) for s in self.sections)

    def _shown_section(self, section: Section) -> Section:
        file = self.shown_path(self.part_index_at(section.start))
        if not file:
            return section
        return Section(section.start, section.end, (file, *section.path), section.level)

    def part_index_at(self, offset: int) -> int:
        """Index of the part holding character ``offset``."""
        return max(0, bisect_right(self._part_starts, offset) - 1)

    def part_range(self, offset: int) -> tuple[int, int]:
        """The (start, end) of the file holding ``offset``."""
        part = self.parts[self.part_index_at(offset)]
        return part.start, part.end

    def section_index_at(self, offset: int) -> int:
        """Index of the section holding character ``offset``."""
        return max(0, bisect_right(self._section_starts, offset) - 1)

    def section_at(self, offset: int) -> Section:
        return self.sections[self.section_index_at(offset)]


# --- decoding ----------------------------------------------------------------------------


def _decode_text(data: bytes) -> tuple[str, str]:
    """Decode bytes of a text file. Returns (text, note); raises DocumentError."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="strict"), ""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "Decoded as UTF-16 (byte-order mark found)."
        except UnicodeDecodeError as exc:
            raise DocumentError(
                "The file starts like UTF-16 but does not decode as UTF-16.",
                reason="undecodable (bad UTF-16)",
            ) from exc
    if b"\x00" in data[:8192]:
        raise DocumentError(
            "This looks like a binary file (it contains NUL bytes), not text. "
            "Upload a .txt, .md, .pdf or .html document.",
            reason="binary (NUL bytes)",
        )
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        pass
    text = data.decode("cp1252", errors="replace")
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\n\r\t\f")
    if controls > 0.01 * len(text) or text.count("\ufffd") > 0.01 * len(text):
        raise DocumentError(
            "The file is neither UTF-8 nor Latin-1 text; it looks binary or uses an unknown "
            "encoding. Save it as UTF-8 and upload it again.",
            reason="undecodable (neither UTF-8 nor Latin-1)",
        )
    return text, "The file is not UTF-8; it was decoded as Latin-1 (Windows-1252)."


UPLOAD_PAGES = "over the PDF pages an upload may have"
UPLOAD_CHARS = "over the text an upload may have"


def _too_many_pages(pages: int, allowed: int) -> DocumentError:
    if allowed < MAX_PDF_PAGES:
        return DocumentError(
            f"This PDF has {pages:,} pages; this upload has {allowed:,} PDF pages left "
            f"(an upload may have {MAX_UPLOAD_PAGES:,} in all).",
            reason=UPLOAD_PAGES,
        )
    return DocumentError(
        f"This PDF has {pages:,} pages; a PDF may have at most {MAX_PDF_PAGES:,}.",
        reason=f"over {MAX_PDF_PAGES:,} PDF pages",
    )


def _declared_pages(reader) -> int:
    """The page count the PDF's page tree declares (``/Count``), read without walking it; 0
    when it declares none that reads as a whole number."""
    try:
        count = reader.root_object["/Pages"].get_object()["/Count"]
        return max(0, int(count))
    except Exception:  # a missing or odd /Count is the tree walk's to judge  # noqa: BLE001
        return 0


def _too_much_text(budget: Extraction) -> DocumentError:
    if budget.chars >= MAX_TEXT_CHARS:
        return DocumentError(
            f"This file's text is longer than the {MAX_TEXT_CHARS:,} characters a document "
            "may have.",
            reason=f"text over {MAX_TEXT_CHARS:,} characters",
        )
    return DocumentError(
        f"This file's text is longer than the {budget.chars:,} characters left of this "
        f"upload's text (an upload may have {MAX_UPLOAD_CHARS:,} in all).",
        reason=UPLOAD_CHARS,
    )


def _page_texts(reader, budget: Extraction) -> list[str]:
    """Each page's text, the page count checked first and the text charged as it comes.

    Raises:
        DocumentError: too many pages declared or found, or too much text.
        LimitReachedError: pypdf's walk of the page tree went over its entries' limit.
        Cancelled: ``budget.should_stop`` said stop between two pages.
    """
    from pypdf import apply_configuration

    allowed = max(0, min(MAX_PDF_PAGES, budget.pages))
    declared = _declared_pages(reader)
    if declared > allowed:
        raise _too_many_pages(declared, allowed)
    # a tree that declares few pages and names many is stopped by pypdf (LimitReachedError)
    with apply_configuration(page_tree_maximum_page_entries=_ENTRIES_A_PAGE * allowed + 64):
        count = len(reader.pages)
    if count > allowed:
        raise _too_many_pages(count, allowed)
    texts, chars = [], 0
    for page in reader.pages:
        check(budget.should_stop)
        text = page.extract_text() or ""
        chars += len(text) + 2
        if chars > min(MAX_TEXT_CHARS, budget.chars):
            raise _too_much_text(budget)
        texts.append(text)
    budget.pages -= count
    return texts


def _pdf_text(data: bytes, budget: Extraction) -> str:
    try:
        from pypdf import PdfReader
        from pypdf.errors import LimitReachedError, PyPdfError
    except ImportError as exc:  # pragma: no cover - pypdf is a requirement
        raise DocumentError("Reading PDF needs the pypdf package.") from exc
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                ok = reader.decrypt("")
            except Exception as exc:  # pypdf raises several types for unsupported crypto
                raise DocumentError(
                    "This PDF is encrypted and cannot be opened.", reason="encrypted PDF"
                ) from exc
            if not ok:
                raise DocumentError(
                    "This PDF is password-protected; remove the password first.",
                    reason="encrypted PDF",
                )
        pages = _page_texts(reader, budget)
    except DocumentError:
        raise
    except LimitReachedError as exc:
        raise DocumentError(
            "This PDF goes past a limit of the PDF reader (its page tree, a stream or an "
            "array is too large) and cannot be read.",
            reason="over a PDF reader limit",
        ) from exc
    except (
        PyPdfError,
        ValueError,
        KeyError,
        TypeError,
        OSError,
        AttributeError,
        RecursionError,
    ) as exc:
        raise DocumentError(
            f"This PDF is malformed and cannot be read ({type(exc).__name__}).",
            reason="malformed PDF",
        ) from exc
    text = "\n\n".join(p.strip("\n") for p in pages)
    if not text.strip():
        raise DocumentError(
            "This PDF has no text layer (it may be a scan); run OCR on it first or upload text.",
            reason="PDF without a text layer",
        )
    return text


_BLOCK_TAGS = {
    "p",
    "div",
    "section",
    "article",
    "li",
    "ul",
    "ol",
    "table",
    "tr",
    "br",
    "pre",
    "blockquote",
    "header",
    "footer",
    "main",
    "aside",
    "nav",
    "dd",
    "dt",
    "dl",
    "figure",
}


def _html_text(data: bytes) -> str:
    from bs4 import BeautifulSoup

    raw, _ = _decode_text(data)
    soup = BeautifulSoup(raw, "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "head", "svg", "iframe", "object"]):
        tag.decompose()
    for level in range(1, 7):
        for tag in soup.find_all(f"h{level}"):
            title = " ".join(tag.get_text(" ").split())
            tag.replace_with(f"\n\n{'#' * level} {title}\n\n" if title else "\n")
    for tag in soup.find_all(_BLOCK_TAGS):
        tag.insert_before(
            "\n\n" if tag.name in {"p", "div", "section", "article", "table"} else "\n"
        )
    lines = [" ".join(line.split()) for line in soup.get_text().splitlines()]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if not text:
        raise DocumentError(
            "This HTML page has no visible text.", reason="HTML without visible text"
        )
    return text


def read_document(
    name: str,
    data: bytes,
    max_bytes: int = DEFAULT_MAX_BYTES,
    *,
    any_suffix: bool = False,
    budget: Extraction | None = None,
) -> Document:
    """Turn an uploaded file into a :class:`Document`.

    Prose (``SUPPORTED_SUFFIXES``) and the text and source-code types of ``CODE_SUFFIXES`` are
    decoded as text; ``.pdf`` and ``.html``/``.htm`` are parsed. With ``any_suffix`` (the corpus
    reader), a file of any other type, or none, is decoded as text too and refused only when
    it is binary or undecodable. ``budget`` is what the upload may still extract (a single
    file: a budget of its own); the document's pages and characters are charged to it.

    Raises:
        DocumentError: with a plain sentence for the user (empty, binary, undecodable,
            malformed or encrypted PDF, no text, over ``max_bytes``, over a PDF's pages or a
            document's or the upload's text, unknown type) and a short ``reason``.
        Cancelled: ``budget.should_stop`` said stop while a PDF's pages were read.
    """
    budget = Extraction() if budget is None else budget
    suffix = Path(name).suffix.lower()
    if suffix not in TEXT_SUFFIXES and suffix not in _PARSED_SUFFIXES and not any_suffix:
        raise DocumentError(
            f"'{name}' is not a supported type; use one of {', '.join(SUPPORTED_SUFFIXES)}, "
            "or a text or source-code file (.rst, .py, .java, .json, …).",
            reason="not a supported type",
        )
    if len(data) > max_bytes:
        raise DocumentError(
            f"'{name}' is {len(data) / 2**20:.1f} MiB; the limit is {max_bytes / 2**20:.0f} MiB.",
            reason=f"larger than {max_bytes / 2**20:.0f} MiB",
        )
    if not data:
        raise DocumentError(f"'{name}' is empty.", reason="empty")
    note = ""
    if suffix == ".pdf":
        if not data.lstrip()[:5] == b"%PDF-":
            raise DocumentError(
                f"'{name}' is not a PDF (it lacks the %PDF- header).", reason="not a PDF"
            )
        text = _pdf_text(data, budget)
    elif suffix in (".html", ".htm"):
        text = _html_text(data)
    else:
        text, note = _decode_text(data)
    if not text.strip():
        raise DocumentError(
            f"'{name}' holds only whitespace; there is nothing to chunk.", reason="empty"
        )
    if len(text) > min(MAX_TEXT_CHARS, budget.chars):
        raise _too_much_text(budget)
    budget.chars -= len(text)
    sections = detect_sections(text)
    return Document(name, text, sections, note, parts=whole(name, text))


def document_from_text(name: str, text: str) -> Document:
    """A document from text already in memory (built-in samples, restored sessions)."""
    if not text.strip():
        raise DocumentError(f"'{name}' holds no text.")
    return Document(name, text, detect_sections(text), parts=whole(name, text))


def load_path(
    path: str | Path, max_bytes: int = DEFAULT_MAX_BYTES, *, any_suffix: bool = False
) -> Document:
    """Read a document from disk (the CLI's entry); ``any_suffix`` as in :func:`read_document`."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > max_bytes:
            raise DocumentError(
                f"'{p.name}' is {size / 2**20:.1f} MiB; the limit is {max_bytes / 2**20:.0f} MiB.",
                reason=f"larger than {max_bytes / 2**20:.0f} MiB",
            )
        data = p.read_bytes()
    except OSError as exc:
        raise DocumentError(
            f"Cannot read '{path}': {exc.strerror or exc}.", reason="unreadable"
        ) from exc
    return read_document(p.name, data, max_bytes=max_bytes, any_suffix=any_suffix)
