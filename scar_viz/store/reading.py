"""Read a store back as a :class:`~scar_viz.pipeline.PreparedDoc`: the joined corpus from the
``documents`` table, the chunks and the unit matrix from the ``chunks`` table in stored order
(files by path, chunks by index), so every policy and the evaluation run on it unchanged.
"""

from __future__ import annotations

import time

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import Document
from scar_viz.pipeline import PreparedDoc
from scar_viz.scoring.scar import boundary_penalties, normalize
from scar_viz.store import tables
from scar_viz.store.meta import StoreError, StoreMeta, check_setting


def store_meta(uri: str) -> StoreMeta:
    """The setting the store at ``uri`` was made under.

    Raises:
        StoreError: when ``uri`` holds no store.
    """
    meta = tables.read_meta(tables.connect(uri))
    if meta is None:
        raise StoreError(f"'{uri}' holds no store; make one with 'python -m scar_viz index'.")
    return meta


def section_paths(document: Document, offsets: np.ndarray) -> list[tuple[str, ...]]:
    """The section path at each of ``offsets`` as a chunk starting there is labelled
    (:func:`~scar_viz.chunking.config.chunk_document`: the document's ``shown_sections``), by
    one search over the section starts."""
    sections = document.shown_sections
    if not sections:
        return [() for _ in range(len(offsets))]
    starts = np.fromiter((s.start for s in sections), dtype=np.int64, count=len(sections))
    found = np.maximum(0, np.searchsorted(starts, offsets, side="right") - 1)
    return [sections[i].path for i in found.tolist()]


def store_version(uri: str) -> tuple[int, ...]:
    """The versions of the store's tables: they change with every write, so a reader can key
    what it holds from the store on them.

    Raises:
        StoreError: when ``uri`` holds no store.
    """
    db = tables.connect(uri)
    names = tables.table_names(db)
    if tables.META not in names:
        raise StoreError(f"'{uri}' holds no store; make one with 'python -m scar_viz index'.")
    return tuple(
        int(db.open_table(t).version)
        for t in (tables.META, tables.DOCUMENTS, tables.CHUNKS)
        if t in names
    )


def open_store(
    uri: str, embedder_id: str, config: ChunkingConfig, prepend: bool = False
) -> PreparedDoc:
    """The corpus stored at ``uri``, prepared as the in-memory path prepares it.

    Raises:
        StoreError: no store at ``uri``, a store made under another model, chunking or
            prepending than asked, or chunks that do not match their file's text.
    """
    t0 = time.perf_counter()
    db = tables.connect(uri)
    meta = tables.read_meta(db)
    if meta is None:
        raise StoreError(f"'{uri}' holds no store; make one with 'python -m scar_viz index'.")
    check_setting(meta, uri, embedder_id, config, prepend)
    docs = [tables.document_of(r) for r in db.open_table(tables.DOCUMENTS).to_arrow().to_pylist()]
    if not docs:
        raise StoreError(f"The store '{uri}' holds no document.")
    corpus = join_documents(docs, meta.name)
    order = {d.name: i for i, d in enumerate(sorted(docs, key=lambda d: d.name))}
    arrow = db.open_table(tables.CHUNKS).to_arrow()
    paths = arrow.column("path").to_pylist()
    local = np.asarray(arrow.column("index").to_numpy(), dtype=np.int64)
    keep = np.array([p in order for p in paths], dtype=bool)
    file_of = np.array([order.get(p, -1) for p in paths], dtype=np.int64)
    rows = np.lexsort((local, file_of))
    rows = rows[keep[rows]]
    offsets = np.array([p.start for p in corpus.parts], dtype=np.int64)
    begin = offsets[file_of[rows]] + arrow.column("start").to_numpy()[rows]
    end = offsets[file_of[rows]] + arrow.column("end").to_numpy()[rows]
    texts = arrow.column("text").take(rows).to_pylist()
    vectors = arrow.column("vector").combine_chunks()
    dim = vectors.type.list_size
    flat = vectors.values.to_numpy(zero_copy_only=False).reshape(-1, dim)
    chunks: list[Chunk] = []
    for i, (s, e, text, section) in enumerate(
        zip(begin.tolist(), end.tolist(), texts, section_paths(corpus, begin), strict=True)
    ):
        if corpus.text[s:e] != text:
            raise StoreError(
                f"The store '{uri}' is damaged: a chunk of '{paths[int(rows[i])]}' does "
                "not match its file; index it again."
            )
        chunks.append(Chunk(i, s, e, text, section))
    unit = normalize(flat[rows]) if len(chunks) else np.zeros((0, 1))
    return PreparedDoc(
        corpus,
        config,
        prepend,
        chunks,
        unit,
        boundary_penalties(unit),
        meta.model,
        meta.label,
        0,
        time.perf_counter() - t0,
    )
