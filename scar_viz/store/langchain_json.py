"""A LangChain ``InMemoryVectorStore.dump(PATH)`` file read as plain JSON.

The layout: ``{id: {"id", "vector", "text", "metadata"}}``. A chunk's file is its ``source``
metadata (one file when none has it); its place is its ``start_index`` metadata (LangChain's
splitters write it with ``add_start_index=True``; scar-viz's ``split_document`` always does),
its end ``end_index`` or the start plus its length. Adjacency is by offset within each file.
"""

from __future__ import annotations

import re
from pathlib import Path

from scar_viz.store.foreign import (
    MAX_FILE_CHARS,
    MODEL_KEY,
    ForeignStore,
    as_dict,
    read_store_json,
    stored_chunk,
)
from scar_viz.store.meta import StoreError

KIND = "LangChain dump"
SNIFF_BYTES = 4096
_DUMP = re.compile(r'^\s*\{\s*(\}|"(?:[^"\\]|\\.)*"\s*:\s*\{\s*"id"\s*:)')
"""The start of a dump: an object whose first value is an object starting with ``"id"``."""
DEFAULT_SOURCE = "document"


def is_dump(path: Path) -> bool:
    """Whether ``path`` is a JSON file that starts as a dump does (its first bytes only)."""
    if not (path.is_file() and path.suffix.lower() == ".json"):
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES).decode("utf-8", "ignore")
    except OSError:
        return False
    return bool(_DUMP.match(head))


def read_dump(path: Path) -> ForeignStore:
    """The dump at ``path``.

    Raises:
        StoreError: unreadable JSON, or a chunk without ``start_index`` (one sentence).
    """
    data = read_store_json(path)
    chunks = []
    for key, entry in data.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            raise StoreError(f"'{path}': entry {str(key)[:80]!r} is not a stored chunk.")
        metadata = as_dict(entry.get("metadata"))
        start = metadata.get("start_index")
        if not isinstance(start, int) or isinstance(start, bool):
            raise StoreError(
                f"'{path}': chunk {str(key)[:80]!r} has no start_index metadata; split with "
                "add_start_index=True (or scar_viz.integrations.langchain.split_document)."
            )
        end = metadata.get("end_index")
        if not isinstance(end, int) or isinstance(end, bool):
            end = start + len(entry["text"])
        source = metadata.get("source")
        chunks.append(
            stored_chunk(
                str(path),
                entry.get("id", key),
                source=source if isinstance(source, str) and source else DEFAULT_SOURCE,
                position=float(min(max(start, 0), MAX_FILE_CHARS)),
                start=start,
                end=end,
                text=entry["text"],
                vector=entry.get("vector") or [],
                model=metadata.get(MODEL_KEY),
            )
        )
    return ForeignStore(KIND, str(path), tuple(chunks))
