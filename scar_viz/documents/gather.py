"""Gathering a corpus: the limits, the reasons a file is skipped, and the one place that
claims names, applies the limits in path order and reads what is left.

:mod:`scar_viz.documents.collect` finds the files (uploads, folders, globs, zips) and hands
them here as :class:`Entry` records.
"""

from __future__ import annotations

import lzma
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from scar_viz.documents.reading import (
    DEFAULT_MAX_BYTES,
    MAX_UPLOAD_CHARS,
    MAX_UPLOAD_PAGES,
    Document,
    DocumentError,
    Extraction,
    read_document,
)
from scar_viz.runtime.cancel import ShouldStop, check

MAX_FILES = 2_000
"""Documents in one corpus; files after the 2,000th (in path order) are skipped."""
MAX_TOTAL_BYTES = 200 * 2**20
"""Bytes read in all (200 MiB, uncompressed); a file that would pass it is skipped."""
MAX_FILE_BYTES = DEFAULT_MAX_BYTES
"""One file (20 MiB), the single-document limit."""
MAX_RATIO = 100
"""Compression ratio of one zip entry (100:1), checked above :data:`RATIO_FLOOR_BYTES`."""
RATIO_FLOOR_BYTES = 2**20
"""Entries up to 1 MiB may compress better than :data:`MAX_RATIO` (small repetitive files do)."""
MAX_ENTRIES = 20_000
"""Entries of one zip archive (files and folders); an archive with more is refused whole."""
MAX_ARCHIVE_RATIO = 20
"""What a whole zip archive may expand to: 20 times its own size, once the files it would
give (those that pass the per-file limits) add up to more than :data:`RATIO_FLOOR_BYTES`.
Deflated prose and code come to 3–5:1; a 1 MB archive of 199 files of exactly 1 MiB (each
under the per-file check) comes to 199:1, and is refused whole, before anything is read."""


@dataclass(frozen=True)
class Limits:
    """The limits of one collection; defaults are the module constants."""

    files: int = MAX_FILES
    total_bytes: int = MAX_TOTAL_BYTES
    file_bytes: int = MAX_FILE_BYTES
    ratio: int = MAX_RATIO
    ratio_floor: int = RATIO_FLOOR_BYTES
    entries: int = MAX_ENTRIES
    archive_ratio: int = MAX_ARCHIVE_RATIO
    pdf_pages: int = MAX_UPLOAD_PAGES
    text_chars: int = MAX_UPLOAD_CHARS


LIMITS = Limits()

LEAVES = "path leaves the archive"
HIDDEN = "hidden file or folder"
SYMLINK = "symbolic link (not followed)"
ENCRYPTED = "encrypted"
NESTED = "archive inside an archive"
ARCHIVE_IN_FOLDER = "archive (give it on its own to read it)"
DUPLICATE = "duplicate path"
NOT_REGULAR = "not a regular file"
CORRUPT_ENTRY = "corrupt or unreadable entry"
NOT_ZIP = "not a zip archive"
UNREADABLE = "unreadable"

_ZIP_READ_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    OSError,
    RuntimeError,
    NotImplementedError,
    ValueError,
)
"""What zipfile raises for a corrupt entry, a lying header or an unsupported compression."""


class CorpusError(DocumentError):
    """Nothing usable: no such path, no match, not a zip archive, or every file was skipped."""


@dataclass(frozen=True)
class Skipped:
    """A file left out of the corpus, and why (a short phrase shared by files skipped alike)."""

    path: str
    reason: str


@dataclass(frozen=True)
class Collected:
    """The documents (sorted by ``name``, never empty) and the files left out."""

    documents: tuple[Document, ...]
    skipped: tuple[Skipped, ...]


@dataclass(frozen=True)
class Entry:
    """One file to read: its corpus name, declared size, a bounded reader (at most ``n``
    bytes), its compressed size (archives, for the ratio check) and a reason known before
    reading ("" when none)."""

    name: str
    size: int
    read: Callable[[int], bytes]
    packed: int | None = None
    problem: str = ""


class Gather:
    """Claims names (first wins), applies the limits in path order, reads what is left; what
    the files give (PDF pages, text) is charged to one :class:`Extraction` for the whole
    collection, and ``should_stop`` is asked before each file."""

    def __init__(self, limits: Limits, should_stop: ShouldStop | None = None) -> None:
        self.limits = limits
        self.extraction = Extraction(limits.pdf_pages, limits.text_chars, should_stop)
        self.documents: list[Document] = []
        self.skipped: list[Skipped] = []
        self.names: set[str] = set()
        self.total = 0

    def skip(self, path: str, reason: str) -> None:
        self.skipped.append(Skipped(path, reason))

    def take(self, entries: Iterable[Entry]) -> None:
        claimed = []
        for entry in entries:
            if entry.name in self.names:
                self.skip(entry.name, DUPLICATE)
            else:
                self.names.add(entry.name)
                claimed.append(entry)
        for entry in sorted(claimed, key=lambda e: e.name):
            check(self.extraction.should_stop)
            reason = entry.problem or self._refusal(entry)
            if reason:
                self.skip(entry.name, reason)
                continue
            try:
                data = entry.read(self.limits.file_bytes + 1)
            except _ZIP_READ_ERRORS:
                self.skip(entry.name, CORRUPT_ENTRY)
                continue
            self.total += len(data)
            try:
                doc = read_document(
                    entry.name,
                    data,
                    self.limits.file_bytes,
                    any_suffix=True,
                    budget=self.extraction,
                )
            except DocumentError as exc:
                self.skip(entry.name, exc.reason)
                continue
            self.documents.append(doc)

    def check_archive(self, entries: Iterable[Entry], archive_bytes: int, what: str) -> None:
        """Refuse a whole archive of ``archive_bytes`` whose readable entries (no known problem,
        within the per-file size and ratio limits) would expand past the archive ratio.

        Raises:
            CorpusError: the archive expands more than :attr:`Limits.archive_ratio` to one.
        """
        lim = self.limits
        total = sum(e.size for e in entries if not e.problem and not self._file_refusal(e, lim))
        if total <= lim.ratio_floor or total <= lim.archive_ratio * max(archive_bytes, 1):
            return
        ratio = total / max(archive_bytes, 1)
        raise CorpusError(
            f"'{what}' would expand to {total / 2**20:,.0f} MiB from "
            f"{archive_bytes / 2**20:,.1f} MiB ({ratio:,.0f}:1); an archive may expand to at "
            f"most {lim.archive_ratio}:1 in all. Nothing was read from it.",
            reason=f"the archive expands over {lim.archive_ratio}:1",
        )

    @staticmethod
    def _file_refusal(entry: Entry, lim: Limits) -> str:
        """Why one file may not be read, from its own declared sizes ("" when it may)."""
        if entry.size > lim.file_bytes:
            return f"larger than {lim.file_bytes / 2**20:.0f} MiB"
        packed = entry.packed
        if packed is not None and lim.ratio_floor < entry.size > lim.ratio * max(packed, 1):
            return f"compression ratio over {lim.ratio}:1"
        return ""

    def _refusal(self, entry: Entry) -> str:
        """Why ``entry`` may not be read, from its declared sizes alone ("" when it may)."""
        lim = self.limits
        if len(self.documents) >= lim.files:
            return f"over the limit of {lim.files:,} files"
        if own := self._file_refusal(entry, lim):
            return own
        if self.total + entry.size > lim.total_bytes:
            return f"over the total of {lim.total_bytes / 2**20:.0f} MiB"
        return ""

    def result(self, what: str) -> Collected:
        if not self.documents:
            counts = "; ".join(counted(self.skipped)) or "it holds no file"
            raise CorpusError(f"No document could be read from '{what}': {counts}.")
        docs = sorted(self.documents, key=lambda d: d.name)
        skipped = sorted(self.skipped, key=lambda s: (s.path, s.reason))
        return Collected(tuple(docs), tuple(skipped))


# --- describing what was left out ----------------------------------------------------------


def counted(skipped: Iterable[Skipped]) -> list[str]:
    counts = Counter(s.reason for s in skipped)
    return [f"{n:,} {reason}" for reason, n in sorted(counts.items(), key=lambda kv: -kv[1])]


def describe_skipped(collected: Collected, examples: int = 3) -> list[str]:
    """One line per reason, most frequent first: count, reason and the first few paths.

    Example: ``"3,000 files skipped: empty (e/0000.txt, e/0001.txt, e/0002.txt, …)"``.
    """
    paths: dict[str, list[str]] = {}
    for s in collected.skipped:
        paths.setdefault(s.reason, []).append(s.path)
    lines = []
    for reason, names in sorted(paths.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(names[:examples]) + (", …" if len(names) > examples else "")
        noun = "file" if len(names) == 1 else "files"
        lines.append(f"{len(names):,} {noun} skipped: {reason} ({shown})")
    return lines
