"""The store's three LanceDB tables and the rows they hold.

``documents``: one row per file (path, text, note, sections as JSON, content hash).
``chunks``: one row per chunk (path, index within its file, start and end in the file's own
text, text, vector float32). ``meta``: one row, the :class:`~scar_viz.store.meta.StoreMeta`.
Search is exact: readers load the vectors into one matrix (no approximate index is built).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

import numpy as np

from scar_viz.documents.reading import Document, whole
from scar_viz.documents.sections import Section
from scar_viz.store import extras
from scar_viz.store.meta import StoreError, StoreMeta

DOCUMENTS = "documents"
CHUNKS = "chunks"
META = "meta"


def connect(uri: str):
    """The LanceDB connection of ``uri`` (a folder, or an object-storage URI such as s3://…)."""
    lancedb = extras.lancedb()
    try:
        return lancedb.connect(uri)
    except (OSError, ValueError) as exc:
        raise StoreError(f"Cannot open the store '{uri}': {exc}") from exc


def table_names(db) -> set[str]:
    names = db.list_tables() if hasattr(db, "list_tables") else db.table_names()
    names = getattr(names, "tables", names)
    return set(names)


def content_hash(doc: Document) -> str:
    """SHA-256 of what the chunks of ``doc`` depend on: its path, text and sections."""
    h = hashlib.sha256()
    for piece in (doc.name, doc.text, sections_json(doc.sections)):
        h.update(piece.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def sections_json(sections: Iterable[Section]) -> str:
    return json.dumps([[s.start, s.end, list(s.path), s.level] for s in sections])


def document_of(row: dict) -> Document:
    """The file a ``documents`` row holds."""
    sections = tuple(
        Section(start, end, tuple(path), level)
        for start, end, path, level in json.loads(row["sections"])
    )
    return Document(
        row["path"], row["text"], sections, row["note"], parts=whole(row["path"], row["text"])
    )


def documents_table(docs: list[Document]):
    pa = _pyarrow()
    return pa.table(
        {
            "path": pa.array([d.name for d in docs], pa.string()),
            "text": pa.array([d.text for d in docs], pa.large_string()),
            "note": pa.array([d.note for d in docs], pa.string()),
            "sections": pa.array([sections_json(d.sections) for d in docs], pa.large_string()),
            "hash": pa.array([content_hash(d) for d in docs], pa.string()),
        }
    )


def chunks_table(
    paths: list[str],
    index: list[int],
    start: list[int],
    end: list[int],
    text: list[str],
    vectors: np.ndarray,
):
    pa = _pyarrow()
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    dim = vectors.shape[1]
    flat = pa.array(vectors.reshape(-1), pa.float32())
    return pa.table(
        {
            "path": pa.array(paths, pa.string()),
            "index": pa.array(index, pa.int32()),
            "start": pa.array(start, pa.int64()),
            "end": pa.array(end, pa.int64()),
            "text": pa.array(text, pa.large_string()),
            "vector": pa.FixedSizeListArray.from_arrays(flat, dim),
        }
    )


def meta_table(meta: StoreMeta):
    pa = _pyarrow()
    return pa.table({"value": pa.array([meta.to_json()], pa.string())})


def read_meta(db) -> StoreMeta | None:
    """The store's record; None for an empty store."""
    if META not in table_names(db):
        return None
    rows = db.open_table(META).to_arrow().column("value").to_pylist()
    if len(rows) != 1:
        raise StoreError("The store's metadata is unreadable.")
    return StoreMeta.from_json(rows[0])


def quoted(paths: Iterable[str]) -> str:
    """``'a', 'b'`` for a SQL ``IN`` list (quotes doubled)."""
    return ", ".join("'" + p.replace("'", "''") + "'" for p in paths)


def _pyarrow():
    extras.lancedb()  # pyarrow comes with it; say what to install when it is missing
    import pyarrow

    return pyarrow
