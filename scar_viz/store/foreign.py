"""Another tool's index opened as it is: its chunks and vectors, read from its own files, as the
:class:`~scar_viz.pipeline.PreparedDoc` every command and page takes (docs/integrations.md).

Two formats are read, as plain JSON (neither framework is imported):

- a LlamaIndex persisted storage folder (``storage_context.persist``:
  :mod:`~scar_viz.store.llamaindex_json`);
- a LangChain ``InMemoryVectorStore.dump`` file whose chunks carry ``start_index``
  (:mod:`~scar_viz.store.langchain_json`).

This module holds what both readers yield; :mod:`~scar_viz.store.other_tools` tells the formats
apart and reads either.

Each yields :class:`StoredChunk` s: a file (``source``), the chunk's place in it, its offsets in
the file's text when stored, its text and vector. A file's chunks are adjacent in the order
the store gives (PREVIOUS/NEXT links, or offsets); a file's text is the store's copy when it
keeps one (a LlamaIndex ``Document`` in the docstore), else rebuilt from its chunks at their
offsets, characters no chunk covers becoming line breaks (said, for all files at once, in the
corpus' note). The
vectors are used as stored; a question is embedded by the model asked, which must be the
store's: one the store names (``embedding_model`` metadata, written by scar-viz's splitters)
is checked by name, and any by the vectors' dimension.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import ChunkingConfig
from scar_viz.common.bounded_json import JsonInputError, read_json
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import (
    MAX_TEXT_CHARS,
    MAX_UPLOAD_CHARS,
    Document,
    DocumentError,
    document_from_text,
)
from scar_viz.pipeline import PreparedDoc
from scar_viz.scoring.scar import boundary_penalties, normalize
from scar_viz.store.meta import StoreError
from scar_viz.store.reading import section_paths

MAX_JSON_BYTES = 4 * 2**30
"""Largest file of another tool's index read (4 GiB: a dump holds every chunk's vector)."""

MODEL_KEY = "embedding_model"
"""The chunk metadata that names the model (its scar-viz id) in stores scar-viz's splitters
made (:mod:`scar_viz.integrations`)."""

JOINED = "\n\n"
"""Between two chunks of a file rebuilt from chunks that have no offsets."""

GAP = "\n"
"""What a character of a file no chunk covers becomes."""

MAX_FILE_CHARS = MAX_TEXT_CHARS
"""Largest offset a stored chunk may name (20 Mi characters, a document's text limit): a file
is rebuilt from its chunks at their offsets, so an offset sizes what is built and is checked
before anything is."""

MAX_STORE_CHARS = MAX_UPLOAD_CHARS
"""Characters of text all of one store's files may come to (200 Mi, an upload's)."""

MAX_DIM = 65_536
"""Longest vector a stored chunk may hold."""


def as_dict(value: object) -> dict:
    """``value`` when it is a JSON object, else an empty one (a store's optional fields)."""
    return value if isinstance(value, dict) else {}


def _whole(value: object) -> int | None:
    """``value`` when it is a JSON integer (not a boolean), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def stored_chunk(
    where: str,
    key: object,
    *,
    source: str,
    position: float,
    start: object,
    end: object,
    text: object,
    vector: object,
    model: object = None,
) -> StoredChunk:
    """One chunk of another tool's index, every field checked before anything is sized from
    it: the text a string, the offsets whole numbers with ``0 <= start <= end <=``
    :data:`MAX_FILE_CHARS` (both or neither), the vector a flat list of at most
    :data:`MAX_DIM` finite numbers (integers beyond a float's range included).

    Raises:
        StoreError: one sentence naming the chunk (``key``) and what is wrong.
    """
    name = f"'{where}': chunk {str(key)[:80]!r}"
    if not isinstance(text, str):
        raise StoreError(f"{name} holds no text.")
    first, last = _whole(start), _whole(end)
    if first is None or last is None:
        first = last = None
    elif not 0 <= first <= last <= MAX_FILE_CHARS:
        raise StoreError(
            f"{name} spans {str(start)[:20]}–{str(end)[:20]}: offsets run from 0 to "
            f"{MAX_FILE_CHARS:,}, the start first."
        )
    if not isinstance(vector, list) or len(vector) > MAX_DIM:
        raise StoreError(f"{name}: its vector is not a list of at most {MAX_DIM:,} numbers.")
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector):
        raise StoreError(f"{name}: its vector holds something other than numbers.")
    try:
        finite = bool(np.isfinite(np.asarray(vector, dtype=np.float64)).all())
    except OverflowError:
        finite = False
    if not finite:
        raise StoreError(f"{name}: its vector holds a number beyond a float's range.")
    return StoredChunk(
        source,
        position,
        first,
        last,
        text,
        vector,
        str(key),
        model if isinstance(model, str) else None,
    )


@dataclass(frozen=True)
class StoredChunk:
    """One chunk as another tool stored it: ``text`` (its file's ``[start:end]`` when the
    offsets are stored), at ``position`` in file ``source``, with its ``vector``."""

    source: str
    position: float
    start: int | None
    end: int | None
    text: str
    vector: list[float] = field(repr=False)
    id: str = ""
    model: str | None = None


@dataclass(frozen=True)
class ForeignStore:
    """Another tool's index: ``kind`` names the format (``LlamaIndex storage``), ``files`` the
    files' own texts where the store keeps them, ``skipped`` what was not read and why."""

    kind: str
    path: str
    chunks: tuple[StoredChunk, ...]
    files: dict[str, str] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()

    @property
    def model(self) -> str | None:
        """The model the store names for its vectors (one for all chunks), else None."""
        named = {c.model for c in self.chunks}
        return named.pop() if len(named) == 1 else None

    @property
    def dim(self) -> int:
        return len(self.chunks[0].vector) if self.chunks else 0

    def check_model(self, model_id: str) -> None:
        """Refuse a model other than the one the store names.

        Raises:
            StoreError: one sentence naming both.
        """
        if self.model is not None and self.model != model_id:
            raise StoreError(
                f"The {self.kind} '{self.path}' was embedded with {self.model}, not {model_id}: "
                "a question must be embedded by the model that embedded the chunks; open it "
                "with that model."
            )

    def check_dimension(self, dim: int, model_label: str) -> None:
        """Refuse a model whose vectors have another dimension than the store's.

        Raises:
            StoreError: one sentence naming the model the store needs where it names one.
        """
        if dim != self.dim:
            needs = f"it needs {self.model}" if self.model else "it does not say which model"
            raise StoreError(
                f"The {self.kind} '{self.path}' holds {self.dim}-dimensional vectors, but "
                f"{model_label} makes {dim}-dimensional ones ({needs}): open it with the "
                "model that embedded it."
            )

    def prepared(self, embedder_id: str, embedder_label: str) -> PreparedDoc:
        """The store as a prepared corpus: files in path order, each file's chunks in the
        store's order, the vectors as stored (unit rows).

        Raises:
            StoreError: no chunk, chunks that disagree with their file's text, or files
                longer than :data:`MAX_STORE_CHARS` in all.
        """
        t0 = time.perf_counter()
        if not self.chunks:
            raise StoreError(f"The {self.kind} '{self.path}' holds no text chunk with a vector.")
        if len({len(c.vector) for c in self.chunks}) != 1 or not self.dim:
            raise StoreError(
                f"The {self.kind} '{self.path}': its vectors are missing or of different lengths."
            )
        by_file: dict[str, list[StoredChunk]] = {}
        for chunk in self.chunks:
            by_file.setdefault(chunk.source, []).append(chunk)
        total = sum(self._size(source, own) for source, own in by_file.items())
        if total > MAX_STORE_CHARS:
            raise StoreError(
                f"The {self.kind} '{self.path}' would make {total:,} characters of text; an "
                f"index may make at most {MAX_STORE_CHARS:,}."
            )
        docs, spans = [], {}
        joined = rebuilt = gapped = gaps = 0
        for source, own in by_file.items():
            own.sort(key=lambda c: (c.position, c.start or 0, c.end or 0, c.id))
            doc, spans[source], missing = self._file(source, own)
            docs.append(doc)
            joined += missing is None
            rebuilt += source not in self.files and missing is not None
            gapped += bool(missing)
            gaps += missing or 0
        note = _note(len(docs), joined, rebuilt, gapped, gaps)
        corpus = replace(join_documents(docs), note=note)
        starts = {p.path: p.start for p in corpus.parts}
        placed: list[tuple[int, int, StoredChunk]] = []
        for source in sorted(by_file):
            offset = starts[source]
            placed.extend(
                (s + offset, e + offset, c)
                for (s, e), c in zip(spans[source], by_file[source], strict=True)
            )
        at = np.array([s for s, _, _ in placed], dtype=np.int64)
        chunks = [
            Chunk(i, s, e, c.text, section)
            for i, ((s, e, c), section) in enumerate(
                zip(placed, section_paths(corpus, at), strict=True)
            )
        ]
        unit = normalize(np.asarray([c.vector for _, _, c in placed], dtype=np.float64))
        return PreparedDoc(
            corpus,
            ChunkingConfig(stored=self.kind),
            False,
            chunks,
            unit,
            boundary_penalties(unit),
            embedder_id,
            embedder_label,
            0,
            time.perf_counter() - t0,
        )

    def _size(self, source: str, own: list[StoredChunk]) -> int:
        """The characters file ``source`` will have, before it is built."""
        if any(c.start is None for c in own):
            return sum(len(c.text) for c in own) + len(JOINED) * (len(own) - 1)
        if source in self.files:
            return len(self.files[source])
        return max(_offsets(c)[1] for c in own)

    def _file(
        self, source: str, own: list[StoredChunk]
    ) -> tuple[Document, list[tuple[int, int]], int | None]:
        """File ``source``, its chunks' spans in its text, and the characters of it no chunk
        holds that the store did not keep (None: no offsets, the file is its chunks joined)."""
        missing: int | None = 0
        if any(c.start is None for c in own):
            spans, pieces, at = [], [], 0
            for c in own:
                spans.append((at, at + len(c.text)))
                pieces.append(c.text)
                at += len(c.text) + len(JOINED)
            text, missing = JOINED.join(pieces), None
        else:
            spans = [_offsets(c) for c in own]
            kept = self.files.get(source)
            text, missing = (kept, 0) if kept is not None else _rebuilt(source, own, self.path)
        for (s, e), c in zip(spans, own, strict=True):
            if text[s:e] != c.text:
                raise StoreError(
                    f"The {self.kind} '{self.path}' is damaged: chunk {c.id or c.position!r} of "
                    f"'{source}' does not match the file's text at {s}–{e}."
                )
        try:
            doc = document_from_text(source, text)
        except DocumentError as exc:
            raise StoreError(f"The {self.kind} '{self.path}': {exc}") from None
        return doc, spans, missing


def _note(files: int, joined: int, rebuilt: int, gapped: int, gaps: int) -> str:
    """One line on how the files' texts were had, for all files (empty when the index kept
    them, or its chunks cover them whole)."""
    notes = []
    if gaps:
        where = "" if files == 1 else f" (in {gapped:,} of {files:,} files)"
        some = "the file" if files == 1 else f"{rebuilt:,} files"
        notes.append(
            f"The index keeps no copy of {some}: rebuilt from its chunks, {gaps:,} characters "
            f"between chunks{where} were not stored (shown as line breaks)."
        )
    if joined:
        some = "The index keeps" if files == 1 else f"For {joined:,} files the index keeps"
        notes.append(f"{some} no offsets: a file is its chunks, joined by a blank line.")
    return " ".join(notes)


def _offsets(c: StoredChunk) -> tuple[int, int]:
    """(start, end) of a chunk whose store gave offsets (the caller checked)."""
    assert c.start is not None and c.end is not None
    return int(c.start), int(c.end)


def _rebuilt(source: str, own: list[StoredChunk], path: str) -> tuple[str, int]:
    """(file text, characters no chunk covers) from chunks at their offsets: code points in
    one array of the file's length (4 bytes a character; the offsets were bounded by
    :data:`MAX_FILE_CHARS` when read)."""
    size = max(_offsets(c)[1] for c in own)
    codes = np.zeros(size, dtype=np.uint32)
    filled = np.zeros(size, dtype=bool)
    for c in own:
        start, end = _offsets(c)
        if end - start != len(c.text):
            raise StoreError(
                f"'{path}': chunk {c.id!r} of '{source}' spans {c.start}–{c.end} but holds "
                f"{len(c.text)} characters."
            )
        new = np.frombuffer(c.text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        clash = filled[start:end] & (codes[start:end] != new)
        if clash.any():
            raise StoreError(
                f"'{path}': two chunks of '{source}' disagree about its text at offset "
                f"{start + int(clash.argmax())}."
            )
        codes[start:end] = new
        filled[start:end] = True
    gaps = int(size - filled.sum())
    codes[~filled] = ord(GAP)
    return codes.tobytes().decode("utf-32-le", "surrogatepass"), gaps


def read_store_json(path: Path) -> dict:
    """The JSON object in ``path``, one of another tool's index files, read with bounds
    (:mod:`scar_viz.common.bounded_json`: a nesting bomb is one sentence, not a ``RecursionError``).

    Raises:
        StoreError: unreadable, too large, not JSON, nested too deep, or not an object.
    """
    try:
        if path.stat().st_size > MAX_JSON_BYTES:
            raise StoreError(f"'{path}' is over {MAX_JSON_BYTES // 2**30} GiB, too large to read.")
        data = read_json(path.read_bytes(), f"'{path}'", max_bytes=MAX_JSON_BYTES)
    except OSError as exc:
        raise StoreError(f"Cannot read '{path}': {exc}") from None
    except JsonInputError as exc:
        raise StoreError(str(exc)) from None
    if not isinstance(data, dict):
        raise StoreError(f"'{path}' does not hold a JSON object.")
    return data
