"""A LlamaIndex persisted storage folder (``storage_context.persist(DIR)``) read as plain JSON.

The layout: ``docstore.json`` holds ``{"docstore/data": {id: {"__type__", "__data__"}}}``,
``__type__`` ``"1"`` a text node (``text``, ``start_char_idx``, ``end_char_idx``,
``metadata``, ``relationships`` ``{"1": SOURCE, "2": PREVIOUS, "3": NEXT}``) and ``"4"`` a
document (its text in ``text_resource`` or ``text``); ``default__vector_store.json`` holds
``{"embedding_dict": {node id: vector}}``. A node's file is its SOURCE; its place in the file
is its offset when every node of the file has one, else its place along PREVIOUS/NEXT. Nodes
of other kinds, and nodes the index holds no vector for (an auto-merging hierarchy's parents),
are skipped and counted.
"""

from __future__ import annotations

from pathlib import Path

from scar_viz.common.bounded_json import JsonInputError, read_json
from scar_viz.store.foreign import (
    MAX_JSON_BYTES,
    MODEL_KEY,
    ForeignStore,
    as_dict,
    read_store_json,
    stored_chunk,
)
from scar_viz.store.meta import StoreError

KIND = "LlamaIndex storage"
DOCSTORE = "docstore.json"
VECTORS = "default__vector_store.json"
TEXT_NODE, DOCUMENT = "1", "4"
SOURCE, PREVIOUS, NEXT = "1", "2", "3"
NAME_KEYS = ("source", "file_name", "file_path")
"""Metadata that may name a node's file, tried in order: the first that names every file
apart wins, else the files' ids."""


def is_storage(path: Path) -> bool:
    return path.is_dir() and (path / DOCSTORE).is_file()


def read_storage(path: Path) -> ForeignStore:
    """The storage at ``path``.

    Raises:
        StoreError: unreadable JSON, or no docstore there (one sentence).
    """
    data = read_store_json(path / DOCSTORE).get("docstore/data")
    if not isinstance(data, dict):
        raise StoreError(f"'{path / DOCSTORE}' holds no 'docstore/data'.")
    vectors = as_dict(
        read_store_json(path / VECTORS).get("embedding_dict", {})
        if (path / VECTORS).is_file()
        else {}
    )
    files: dict[str, str] = {}
    nodes: dict[str, dict] = {}
    other = unembedded = 0
    for node_id, entry in data.items():
        body = entry.get("__data__") if isinstance(entry, dict) else None
        if isinstance(body, str):  # a node's fields, serialised once more
            try:
                body = read_json(body, f"node {node_id!r}", max_bytes=MAX_JSON_BYTES)
            except JsonInputError as exc:
                raise StoreError(f"'{path / DOCSTORE}': {exc}") from None
        kind = entry.get("__type__") if isinstance(entry, dict) else None
        if kind == DOCUMENT and isinstance(body, dict):
            text = as_dict(body.get("text_resource")).get("text") or body.get("text")
            if isinstance(text, str):
                files[node_id] = text
        elif kind == TEXT_NODE and isinstance(body, dict) and isinstance(body.get("text"), str):
            vector = body.get("embedding") or vectors.get(node_id)
            if vector:
                nodes[node_id] = {**body, "embedding": vector, "metadata": _metadata(body)}
            else:
                unembedded += 1
        else:
            other += 1
    skipped = []
    if unembedded:
        skipped.append(f"{unembedded:,} text nodes the index holds no vector for")
    if other:
        skipped.append(f"{other:,} nodes that are not text")
    names = _file_names(nodes)
    chunks = []
    for source, members in _by_file(nodes).items():
        for position, node_id in enumerate(_ordered(members, nodes)):
            body = nodes[node_id]
            metadata = body["metadata"]
            chunks.append(
                stored_chunk(
                    str(path / DOCSTORE),
                    node_id,
                    source=names[source],
                    position=float(position),
                    start=body.get("start_char_idx"),
                    end=body.get("end_char_idx"),
                    text=body["text"],
                    vector=body["embedding"],
                    model=metadata.get(MODEL_KEY),
                )
            )
    own_text = {names[s]: files[s] for s in names if s in files}
    return ForeignStore(KIND, str(path), tuple(chunks), own_text, tuple(skipped))


def _metadata(body: dict) -> dict:
    return as_dict(body.get("metadata"))


def _offset(body: dict, key: str) -> int | None:
    value = body.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _source(body: dict) -> str:
    link = as_dict(body.get("relationships")).get(SOURCE)
    return str(link.get("node_id")) if isinstance(link, dict) and link.get("node_id") else ""


def _by_file(nodes: dict[str, dict]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for node_id, body in nodes.items():
        out.setdefault(_source(body), []).append(node_id)
    return out


def _file_names(nodes: dict[str, dict]) -> dict[str, str]:
    """Each file id's name: the first of :data:`NAME_KEYS` that names every file apart."""
    meta: dict[str, dict] = {}
    for body in nodes.values():
        meta.setdefault(_source(body), _metadata(body))
    for key in NAME_KEYS:
        names = {source: m.get(key) for source, m in meta.items()}
        values = list(names.values())
        if all(isinstance(v, str) and v for v in values) and len(set(values)) == len(values):
            return {source: str(name) for source, name in names.items()}
    return {source: source or "document" for source in meta}


def _ordered(members: list[str], nodes: dict[str, dict]) -> list[str]:
    """A file's node ids in reading order: by offset when all have one, else along NEXT from
    the nodes with no PREVIOUS among them, else as stored."""
    starts = {i: _offset(nodes[i], "start_char_idx") for i in members}
    if all(v is not None for v in starts.values()):
        return sorted(members, key=lambda i: (starts[i], _offset(nodes[i], "end_char_idx") or 0))
    inside = set(members)

    def link(node_id: str, kind: str) -> str | None:
        target = as_dict(as_dict(nodes[node_id].get("relationships")).get(kind)).get("node_id")
        return target if isinstance(target, str) and target in inside else None

    out: list[str] = []
    seen: set[str] = set()
    for head in [i for i in members if link(i, PREVIOUS) is None] + members:
        node_id: str | None = head
        while node_id is not None and node_id not in seen:
            out.append(node_id)
            seen.add(node_id)
            node_id = link(node_id, NEXT)
    return out
