"""Index a corpus into a store: chunk every file, embed the chunks of new or changed files
(by content hash), drop removed files, record the setting.

The chunks and the texts embedded are exactly those of the in-memory path
(:func:`scar_viz.pipeline.prepare_document` on :func:`~scar_viz.documents.corpus.join_documents`
of the same files), so a store read back (:func:`scar_viz.store.open_store`) gives the same
evaluation.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import ChunkingConfig, chunk_document, embedding_texts
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import Document
from scar_viz.embeddings import Embedder, EmbeddingCache, Progress
from scar_viz.pipeline import embed_function
from scar_viz.store import tables
from scar_viz.store.engines import (
    EmbedderSpec,
    EngineOptions,
    embed_local,
    embed_ray,
    ray_session,
)
from scar_viz.store.meta import StoreError, StoreMeta, check_setting
from scar_viz.store.reading import section_paths

FLUSH_ROWS = 20_000
"""Chunk rows written to the store at a time."""


@dataclass(frozen=True)
class IndexReport:
    """What one run did: files added, changed, removed and kept; chunks embedded and stored;
    where the model embedded them (``devices``: ``cuda:0, fp16`` as each engine's model or
    Ray actor named it; empty when nothing was embedded or the model has no device)."""

    added: int
    changed: int
    removed: int
    unchanged: int
    chunks_embedded: int
    chunks_total: int
    seconds: float
    devices: tuple[str, ...] = ()

    @property
    def line(self) -> str:
        where = f" on {'; '.join(self.devices)}" if self.devices else ""
        return (
            f"{self.added} added, {self.changed} changed, {self.removed} removed, "
            f"{self.unchanged} unchanged files; embedded {self.chunks_embedded} of "
            f"{self.chunks_total} chunks in {self.seconds:.1f} s{where}"
        )


def index_corpus(
    documents: Sequence[Document],
    store_uri: str,
    embedder: Embedder | EmbedderSpec,
    config: ChunkingConfig | None = None,
    prepend: bool = False,
    options: EngineOptions | None = None,
    *,
    name: str = "corpus",
    cache: EmbeddingCache | None = None,
    progress: Progress | None = None,
) -> IndexReport:
    """Write ``documents`` into the store at ``store_uri`` (created when absent).

    Args:
        embedder: a ready embedder (local engine only) or the spec every worker builds one from.
        options: the engine and its batch size, concurrency and GPUs (default local).
        name: the corpus' name, as the joined document's.
        cache: the embedding cache of the local engine.
        progress: called as progress(done, total) with chunks embedded.

    Raises:
        StoreError: a store made under another setting, or a Ray engine without a spec.
        ExtrasMissing: LanceDB (or Ray for ``engine="ray"``) is not installed.
    """
    t0 = time.perf_counter()
    config = config or ChunkingConfig()
    config.validate()
    options = options or EngineOptions()
    options.validate()
    if options.engine == "ray" and not isinstance(embedder, EmbedderSpec):
        raise StoreError("The ray engine builds the model on each worker: give its spec.")
    if isinstance(embedder, EmbedderSpec):
        options.check_device(embedder.device)
    model = embedder.build() if isinstance(embedder, EmbedderSpec) else embedder
    joined = join_documents(documents, name)
    files = sorted(documents, key=lambda d: d.name)  # the joined document's parts, in order
    labels_name_files = bool(joined.shown_paths)  # what a prepended section path starts with
    meta = StoreMeta(model.model_id, model.label, config, prepend, joined.name, labels_name_files)
    db = tables.connect(store_uri)
    old = tables.read_meta(db)
    if old is not None:
        check_setting(old, store_uri, meta.model, config, prepend)
    stored = _stored_hashes(db) if old is not None else {}
    all_stale = old is not None and prepend and old.joined != meta.joined
    hashes = {d.name: tables.content_hash(d) for d in files}
    todo = [d for d in files if all_stale or stored.get(d.name) != hashes[d.name]]
    removed = sorted(set(stored) - set(hashes))
    rewrite = {d.name for d in todo} | set(removed)
    _drop(db, rewrite)
    embed = embed_function(model, cache) if config.needs_embed else None
    # on Ray, Ray starts (seconds, when not running yet) while the files are chunked beside it
    session = ray_session(options) if options.engine == "ray" and todo else nullcontext()
    with ThreadPoolExecutor(1) as pool:
        cut = pool.submit(_chunk_rows, joined, todo, config, embed, prepend)
        with session:
            rows = cut.result()
            total, where = _write_chunks(db, rows, model, embedder, options, cache, progress)
    if todo:
        _add(db, tables.DOCUMENTS, tables.documents_table(todo))
    names = tables.table_names(db)
    mode = "overwrite" if tables.META in names else "create"
    db.create_table(tables.META, tables.meta_table(meta), mode=mode)
    n_chunks = db.open_table(tables.CHUNKS).count_rows() if tables.CHUNKS in names else 0
    kept = len(files) - len(todo)
    added = sum(1 for d in todo if d.name not in stored)
    changed, seconds = len(todo) - added, time.perf_counter() - t0
    return IndexReport(added, changed, len(removed), kept, total, n_chunks, seconds, where)


@dataclass(frozen=True)
class _Rows:
    paths: list[str]
    index: list[int]
    start: list[int]
    end: list[int]
    text: list[str]
    embed_text: list[str]


def _chunk_rows(
    joined: Document,
    files: list[Document],
    config: ChunkingConfig,
    embed: Callable | None,
    prepend: bool,
) -> _Rows:
    """The chunk rows of ``files`` (cut one by one, as the corpus' chunking does), with the
    text embedded for each (the section path as the joined document names it, when
    prepending)."""
    rows = _Rows([], [], [], [], [], [])
    offset_of = {p.path: p.start for p in joined.parts}
    spans: list[tuple[int, int]] = []
    for doc in files:
        offset = offset_of.get(doc.name, 0)
        own = chunk_document(doc, config, embed)
        rows.paths.extend([doc.name] * len(own))
        rows.index.extend(c.index for c in own)
        rows.start.extend(c.start for c in own)
        rows.end.extend(c.end for c in own)
        rows.text.extend(c.text for c in own)
        spans.extend((c.start + offset, c.end + offset) for c in own)
    at = np.array([s for s, _ in spans], dtype=np.int64)
    placed = [
        Chunk(i, s, e, text, path)
        for i, ((s, e), text, path) in enumerate(
            zip(spans, rows.text, section_paths(joined, at), strict=True)
        )
    ]
    rows.embed_text.extend(embedding_texts(placed, prepend))
    return rows


def _write_chunks(
    db, rows: _Rows, model, embedder, options, cache, progress
) -> tuple[int, tuple[str, ...]]:
    """(chunks written, where they were embedded)."""
    n = len(rows.text)
    if not n:
        return 0, ()
    if options.engine == "ray":
        pieces = embed_ray(embedder, rows.embed_text, options, progress)
    else:
        placement = getattr(model, "placement", None)
        batch_size = options.batch_for(placement is not None and placement.gpu)
        pieces = embed_local(model, rows.embed_text, batch_size, cache, progress)
    pending_ids: list[np.ndarray] = []
    pending_vecs: list[np.ndarray] = []
    held = 0
    where: set[str] = set()
    for ids, vectors, device in pieces:
        where.update(d for d in device.split("; ") if d)
        pending_ids.append(ids)
        pending_vecs.append(vectors)
        held += len(ids)
        if held >= FLUSH_ROWS:
            _flush(db, rows, pending_ids, pending_vecs)
            pending_ids, pending_vecs, held = [], [], 0
    if held:
        _flush(db, rows, pending_ids, pending_vecs)
    return n, tuple(sorted(where))


def _flush(db, rows: _Rows, ids_list: list[np.ndarray], vecs_list: list[np.ndarray]) -> None:
    ids = np.concatenate(ids_list)
    vectors = np.concatenate(vecs_list)
    order = np.argsort(ids, kind="stable")
    ids, vectors = ids[order], vectors[order]
    table = tables.chunks_table(
        [rows.paths[i] for i in ids],
        [rows.index[i] for i in ids],
        [rows.start[i] for i in ids],
        [rows.end[i] for i in ids],
        [rows.text[i] for i in ids],
        vectors,
    )
    _add(db, tables.CHUNKS, table)


def _add(db, name: str, table) -> None:
    if name in tables.table_names(db):
        db.open_table(name).add(table)
    else:
        db.create_table(name, table)


def _stored_hashes(db) -> dict[str, str]:
    if tables.DOCUMENTS not in tables.table_names(db):
        return {}
    t = db.open_table(tables.DOCUMENTS).to_arrow().select(["path", "hash"])
    return dict(zip(t.column("path").to_pylist(), t.column("hash").to_pylist(), strict=True))


def _drop(db, paths: set[str]) -> None:
    """Delete the rows of ``paths``: the document first, so an interrupted run re-embeds it."""
    if not paths:
        return
    names = tables.table_names(db)
    for table in (tables.DOCUMENTS, tables.CHUNKS):
        if table in names:
            for lo in range(0, len(paths), 500):
                batch = sorted(paths)[lo : lo + 500]
                db.open_table(table).delete(f"path IN ({tables.quoted(batch)})")
