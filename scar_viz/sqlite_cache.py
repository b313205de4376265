"""The cache folder and the small SQLite file every on-disk cache (embeddings, LLM replies)
is built on."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from scar_viz.errors import UserError


def default_cache_dir() -> Path:
    """``$SCAR_VIZ_CACHE_DIR``, else ``~/.cache/scar-viz``."""
    return Path(os.environ.get("SCAR_VIZ_CACHE_DIR") or Path.home() / ".cache" / "scar-viz")


class CacheFileError(UserError):
    """A cache path that cannot be opened or created as a SQLite file."""


class SqliteCache:
    """One SQLite file (``path``, default ``default_cache_dir() / name``) holding one table,
    created by ``schema`` on first use; write-ahead logging so readers do not block writers.

    Subclasses add their reads and writes over :meth:`_connect`.
    """

    def __init__(self, path: str | Path | None, name: str, schema: str) -> None:
        self.path = Path(path) if path else default_cache_dir() / name
        if self.path.is_dir():  # a cache folder given: the file in it, as the default is
            self.path = self.path / name
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(schema)
        except (sqlite3.Error, OSError) as exc:
            raise CacheFileError(
                f"The cache file {self.path} cannot be opened as a cache ({exc}); give a "
                "writable file or folder, or turn the cache off."
            ) from exc

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)
