"""Other tools' indexes: which format a path holds, and reading it with that format's reader
(:mod:`~scar_viz.store.llamaindex_json`, :mod:`~scar_viz.store.langchain_json`) into the
:class:`~scar_viz.store.foreign.ForeignStore` both yield."""

from __future__ import annotations

from pathlib import Path

from scar_viz.store import langchain_json, llamaindex_json
from scar_viz.store.foreign import ForeignStore
from scar_viz.store.meta import StoreError


def foreign_kind(path: str | Path) -> str | None:
    """The format of another tool's index at ``path`` (``LlamaIndex storage``, ``LangChain
    dump``), or None when it is neither (a LanceDB store, or nothing)."""
    p = Path(path)
    if llamaindex_json.is_storage(p):
        return llamaindex_json.KIND
    if langchain_json.is_dump(p):
        return langchain_json.KIND
    return None


def foreign_version(path: str | Path) -> tuple[tuple[str, int, int], ...]:
    """(name, size, modification time) of the files another tool's index at ``path`` is read
    from: they change with every write, so a reader can key what it holds on them."""
    p = Path(path)
    files = sorted(f for f in p.iterdir() if f.suffix == ".json") if p.is_dir() else [p]
    return tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files)


def read_foreign(path: str | Path) -> ForeignStore:
    """Another tool's index at ``path``, read.

    Raises:
        StoreError: not such an index, or one that cannot be read (one sentence).
    """
    kind = foreign_kind(path)
    if kind == llamaindex_json.KIND:
        return llamaindex_json.read_storage(Path(path))
    if kind == langchain_json.KIND:
        return langchain_json.read_dump(Path(path))
    raise StoreError(
        f"'{path}' is neither a LlamaIndex storage folder (docstore.json) nor a LangChain "
        "InMemoryVectorStore dump (.json)."
    )
