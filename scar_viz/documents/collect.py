"""Collecting a corpus: uploaded files, a folder, a glob or a zip archive to documents in order.

A document's ``name`` is its relative path with POSIX separators, its id in the corpus:

- a folder: the path below the folder; a glob: the path below its fixed prefix (the part
  before the first component holding a wildcard, ``docs`` for ``docs/**/*.md``); a single file:
  its file name, as for one document today;
- a zip archive: the entry's path inside the archive. Among several uploaded files, a zip's
  entries are prefixed with the archive's stem (``kb.zip`` → ``kb/notes/a.md``) so they cannot
  collide with the other files; a zip given alone keeps the bare paths, so a folder, a glob over
  it and a zip of its contents give the same names.

Documents are sorted by name (code-point order). Every file is read as text unless it is a
``.pdf`` or ``.html``/``.htm`` (see :func:`~scar_viz.documents.reading.read_document`); what
cannot be read is listed in ``skipped`` with a short reason, and the rest still loads. Hidden
files and folders (a name starting with ``.``, and ``__MACOSX``) are listed once per hidden
folder, never entered; symbolic links are never followed. Nothing is written to disk: a zip is
read entry by entry in memory, each read bounded, after its declared size and compression ratio
are checked against the limits of :mod:`scar_viz.documents.gather`, and the whole archive's
expansion against its own ratio before any entry is read.
"""

from __future__ import annotations

import glob
import io
import os
import re
import stat
import zipfile
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from pathlib import Path, PurePosixPath

from scar_viz.documents.gather import (
    ARCHIVE_IN_FOLDER,
    CORRUPT_ENTRY,
    DUPLICATE,
    ENCRYPTED,
    HIDDEN,
    LEAVES,
    LIMITS,
    MAX_ARCHIVE_RATIO,
    MAX_ENTRIES,
    MAX_FILE_BYTES,
    MAX_FILES,
    MAX_RATIO,
    MAX_TOTAL_BYTES,
    NESTED,
    NOT_REGULAR,
    NOT_ZIP,
    RATIO_FLOOR_BYTES,
    SYMLINK,
    UNREADABLE,
    Collected,
    CorpusError,
    Entry,
    Gather,
    Limits,
    Skipped,
    describe_skipped,
)
from scar_viz.documents.reading import load_path
from scar_viz.runtime.cancel import ShouldStop

__all__ = [
    "ARCHIVE_IN_FOLDER",
    "CORRUPT_ENTRY",
    "DUPLICATE",
    "ENCRYPTED",
    "HIDDEN",
    "LEAVES",
    "LIMITS",
    "MAX_ARCHIVE_RATIO",
    "MAX_ENTRIES",
    "MAX_FILE_BYTES",
    "MAX_FILES",
    "MAX_RATIO",
    "MAX_TOTAL_BYTES",
    "NESTED",
    "NOT_REGULAR",
    "NOT_ZIP",
    "RATIO_FLOOR_BYTES",
    "SYMLINK",
    "UNREADABLE",
    "Collected",
    "CorpusError",
    "Limits",
    "Skipped",
    "collect_files",
    "collect_path",
    "collect_zip",
    "describe_skipped",
]


# --- paths ---------------------------------------------------------------------------------


_ARCHIVE_SUFFIXES = frozenset((".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar"))


def _clean(raw: str) -> tuple[str, str]:
    """(POSIX relative path, "") or ("", reason); ``""`` for a path naming no file."""
    path = raw.replace("\\", "/")
    if path.startswith("/") or re.match(r"[A-Za-z]:", path):
        return "", LEAVES
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        return "", LEAVES
    return "/".join(parts), ""


def _hidden_part(name: str) -> str:
    """The path up to its first hidden component, or ""."""
    parts = name.split("/")
    for i, part in enumerate(parts):
        if part.startswith(".") or part == "__MACOSX":
            return "/".join(parts[: i + 1])
    return ""


def _is_archive(name: str) -> bool:
    return PurePosixPath(name).suffix.lower() in _ARCHIVE_SUFFIXES


# --- zip archives --------------------------------------------------------------------------


def _open_zip(source: str | Path | bytes, what: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except (zipfile.BadZipFile, EOFError, ValueError, OSError) as exc:
        raise CorpusError(f"'{what}' is {NOT_ZIP} (or it is corrupt).", reason=NOT_ZIP) from exc


def _zip_entries(
    zf: zipfile.ZipFile, prefix: str, gather: Gather, what: str, archive_bytes: int
) -> list[Entry]:
    """The entries of an open archive of ``archive_bytes`` (hidden, unsafe and link entries
    noted as skipped).

    Raises:
        CorpusError: too many entries, or the whole archive expands past the archive ratio.
    """
    infos = zf.infolist()
    if len(infos) > gather.limits.entries:
        raise CorpusError(
            f"'{what}' holds {len(infos):,} entries; the limit is {gather.limits.entries:,}.",
            reason=f"over {gather.limits.entries:,} entries",
        )
    entries, hidden = [], set()
    for info in infos:
        name, problem = _clean(info.filename)
        if problem:
            gather.skip(prefix + info.filename, problem)
            continue
        if not name or info.is_dir():
            continue
        secret = _hidden_part(name)
        if secret:
            if secret not in hidden:
                hidden.add(secret)
                gather.skip(prefix + secret, HIDDEN)
            continue
        problem = ""
        if stat.S_ISLNK(info.external_attr >> 16):
            problem = SYMLINK
        elif info.flag_bits & 0x1:
            problem = ENCRYPTED
        elif _is_archive(name):
            problem = NESTED
        entries.append(
            Entry(prefix + name, info.file_size, _zip_reader(zf, info), info.compress_size, problem)
        )
    gather.check_archive(entries, archive_bytes, what)
    return entries


def _zip_reader(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> Callable[[int], bytes]:
    def read(limit: int) -> bytes:
        # zipfile stops at the declared size and checks the CRC, so a header that understates
        # the size fails here; ``limit`` bounds the read whatever the header says.
        with zf.open(info) as stream:
            return stream.read(min(limit, info.file_size + 1))

    return read


def collect_zip(
    name: str, data: bytes, limits: Limits = LIMITS, should_stop: ShouldStop | None = None
) -> Collected:
    """The documents of a zip archive in memory, named by their paths inside it;
    ``should_stop`` is asked before each file and between a PDF's pages.

    Raises:
        CorpusError: not a zip archive, too many entries, or no entry could be read.
        Cancelled: ``should_stop`` said stop.
    """
    gather = Gather(limits, should_stop)
    with _open_zip(data, name) as zf:
        gather.take(_zip_entries(zf, "", gather, name, len(data)))
    return gather.result(name)


# --- uploaded files ------------------------------------------------------------------------


def _bytes_reader(data: bytes) -> Callable[[int], bytes]:
    return lambda limit: data[:limit]


def collect_files(
    items: Iterable[tuple[str, bytes]],
    limits: Limits = LIMITS,
    should_stop: ShouldStop | None = None,
) -> Collected:
    """The documents of uploaded files, ``(name, bytes)`` each; a ``.zip`` is expanded.

    A zip given alone keeps its entries' bare paths (as :func:`collect_zip`); among several
    files its entries are prefixed with the zip's stem, and a corrupt zip is skipped.
    ``should_stop`` is asked before each file and between a PDF's pages.

    Raises:
        CorpusError: no file given, or none could be read (a lone zip: not a zip archive).
        Cancelled: ``should_stop`` said stop.
    """
    items = list(items)
    if not items:
        raise CorpusError("No file was given.", reason="no file")
    if len(items) == 1 and PurePosixPath(items[0][0]).suffix.lower() == ".zip":
        return collect_zip(*items[0], limits=limits, should_stop=should_stop)
    gather = Gather(limits, should_stop)
    with ExitStack() as zips:
        entries = []
        for raw, data in items:
            name, problem = _clean(raw)
            if problem or not name:
                gather.skip(raw, problem or NOT_REGULAR)
            elif PurePosixPath(name).suffix.lower() == ".zip":
                try:
                    zf = zips.enter_context(_open_zip(data, name))
                    prefix = f"{PurePosixPath(name).stem}/"
                    entries += _zip_entries(zf, prefix, gather, name, len(data))
                except CorpusError as exc:
                    gather.skip(name, exc.reason)
            else:
                problem = ARCHIVE_IN_FOLDER if _is_archive(name) else ""
                entries.append(Entry(name, len(data), _bytes_reader(data), None, problem))
        gather.take(entries)
    return gather.result(f"the {len(items)} files")


# --- paths on disk (the CLI) ---------------------------------------------------------------


def _file_reader(path: Path) -> Callable[[int], bytes]:
    def read(limit: int) -> bytes:
        with path.open("rb") as fh:
            return fh.read(limit)

    return read


def _file_entry(name: str, path: Path) -> Entry:
    """An entry for a file found in a folder or by a glob (never followed if a link)."""
    try:
        info = path.lstat()
    except OSError:
        return Entry(name, 0, _file_reader(path), None, UNREADABLE)
    problem = ""
    if stat.S_ISLNK(info.st_mode):
        problem = SYMLINK
    elif not stat.S_ISREG(info.st_mode):
        problem = NOT_REGULAR
    elif _is_archive(name):
        problem = ARCHIVE_IN_FOLDER
    return Entry(name, info.st_size, _file_reader(path), None, problem)


def _walk(root: Path, gather: Gather) -> list[Entry]:
    entries = []

    def unreadable(exc: OSError) -> None:
        where = Path(exc.filename).relative_to(root).as_posix() if exc.filename else "."
        gather.skip(where, "unreadable folder")

    for folder, subfolders, files in os.walk(root, onerror=unreadable):
        here = Path(folder).relative_to(root)
        kept = []
        for sub in sorted(subfolders):
            rel = (here / sub).as_posix()
            if _hidden_part(sub):
                gather.skip(rel, HIDDEN)
            elif (Path(folder) / sub).is_symlink():
                gather.skip(rel, SYMLINK)
            else:
                kept.append(sub)
        subfolders[:] = kept
        for file in files:
            rel = (here / file).as_posix()
            if _hidden_part(file):
                gather.skip(rel, HIDDEN)
            else:
                entries.append(_file_entry(rel, Path(folder) / file))
    return entries


def _through_link(root: Path, rel: Path) -> bool:
    """Whether a folder between ``root`` and ``root / rel`` is a symbolic link."""
    here = root
    for part in rel.parts[:-1]:
        here = here / part
        if here.is_symlink():
            return True
    return False


def _glob_entries(pattern: str) -> list[Entry]:
    root = _glob_root(pattern)
    entries = []
    for match in map(Path, glob.glob(pattern, recursive=True)):
        if not (match.is_file() or match.is_symlink()):
            continue
        rel = match.relative_to(root)
        entry = _file_entry(rel.as_posix(), match)
        if _through_link(root, rel):
            entry = Entry(entry.name, entry.size, entry.read, None, SYMLINK)
        entries.append(entry)
    return entries


def _glob_root(pattern: str) -> Path:
    """The fixed prefix of a glob: its components before the first one with a wildcard."""
    fixed = []
    for part in Path(pattern).parts:
        if re.search(r"[*?\[]", part):
            break
        fixed.append(part)
    return Path(*fixed) if fixed else Path(".")


def collect_path(arg: str, limits: Limits = LIMITS) -> Collected:
    """The documents named by the CLI's DOC argument: a file, a folder, a glob or a ``.zip``.

    A folder is walked recursively; a glob (``docs/**/*.md``, ``**`` spanning folders) matches
    files, never hidden ones; names are relative to the folder or the glob's fixed prefix.

    Raises:
        DocumentError: a single file that cannot be read (the single-document message).
        CorpusError: nothing at ``arg``, no match, not a zip archive, or nothing readable.
    """
    path = Path(arg)
    gather = Gather(limits)
    if path.is_dir():
        gather.take(_walk(path, gather))
    elif path.is_file() and path.suffix.lower() == ".zip":
        with _open_zip(path, path.name) as zf:
            gather.take(_zip_entries(zf, "", gather, path.name, path.stat().st_size))
    elif path.is_file():
        document = load_path(path, limits.file_bytes, any_suffix=True)
        return Collected((document,), ())
    elif path.exists():
        raise CorpusError(f"'{arg}' is {NOT_REGULAR}.", reason=NOT_REGULAR)
    elif re.search(r"[*?\[]", arg):
        entries = _glob_entries(arg)
        if not entries:
            raise CorpusError(f"'{arg}' matches no file.", reason="no match")
        gather.take(entries)
    else:
        raise CorpusError(f"Cannot read '{arg}': no such file or folder.", reason="no such path")
    return gather.result(arg)
