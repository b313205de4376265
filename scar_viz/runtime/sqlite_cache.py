"""The cache folder and the small SQLite file every on-disk cache (embeddings, LLM replies,
sentence spans) is built on, and what happens when that file breaks.

A cache only saves work: when its file cannot be opened, or turns out corrupt in the middle of
a run, a cache made with ``degrade=True`` (the app's) turns itself off for the process, says so
in one line (:attr:`SqliteCache.problem`, also logged once) and moves a corrupt file aside, so
that the next start builds a fresh one; every read then finds nothing and every write is
dropped. A cache made without it (the command line's) moves a corrupt file aside only when
it is the cache's own file (``embeddings.sqlite``: the default, or in a folder given, or a path
of that name), starts a fresh one there and says so in :attr:`SqliteCache.note` (printed as a
``note:`` line); any other file the user named that is no cache is left where it is, and is
:class:`CacheFileError`, one sentence, as is a file that breaks in the middle of a run.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from scar_viz.common.errors import UserError

T = TypeVar("T")
_log = logging.getLogger("scar_viz")
ASIDE = ".unreadable-"
"""A corrupt cache file is renamed ``NAME.unreadable-<unix time>`` beside where it was."""


def default_cache_dir() -> Path:
    """``$SCAR_VIZ_CACHE_DIR``, else ``~/.cache/scar-viz``."""
    return Path(os.environ.get("SCAR_VIZ_CACHE_DIR") or Path.home() / ".cache" / "scar-viz")


class CacheFileError(UserError):
    """A cache path that cannot be opened or created as a SQLite file."""


class SqliteCache:
    """One SQLite file (``path``, default ``default_cache_dir() / name``) holding one table,
    created by ``schema`` on first use; write-ahead logging so readers do not block writers.

    Subclasses do their reads and writes in :meth:`_run`, which gives ``fallback`` when the
    cache is off or breaks (``degrade``), or raises :class:`CacheFileError` (without).
    """

    def __init__(self, path: str | Path | None, name: str, schema: str, degrade: bool = False):
        self.path = Path(path) if path else default_cache_dir() / name
        if self.path.is_dir():  # a cache folder given: the file in it, as the default is
            self.path = self.path / name
        self.degrade = degrade
        self.problem = ""
        """"" while the cache works; else the one line saying it is off."""
        self.note = ""
        """"" unless a corrupt file of the cache's own name was moved aside at the start and a
        fresh one started (without ``degrade``): the one line saying so."""
        self._off_lock = threading.Lock()
        try:
            self._create(schema)
        except (sqlite3.Error, OSError) as exc:
            if not degrade and _corrupt(exc) and self.path.name == name:
                moved = self._move_aside()
                try:
                    if not moved:
                        raise exc
                    self._create(schema)
                    self.note = (
                        f"The cache file {self.path} was unreadable: moved to {moved}, and a "
                        "fresh cache started."
                    )
                    return
                except (sqlite3.Error, OSError) as again:
                    exc = again
            if not degrade:
                raise CacheFileError(
                    f"The cache file {self.path} cannot be opened as a cache ({exc}); give a "
                    "writable file or folder, or turn the cache off."
                ) from exc
            self._turn_off(exc)

    def _create(self, schema: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.closing(self._connect()) as db, db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(schema)

    @property
    def off(self) -> bool:
        """Whether the cache was turned off (reads find nothing, writes are dropped)."""
        return bool(self.problem)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def _run(self, action: Callable[[sqlite3.Connection], T], fallback: T) -> T:
        """``action(connection)`` in one transaction; ``fallback`` when the cache is off or
        breaks now (it is then turned off).

        Raises:
            CacheFileError: the file broke and the cache was made without ``degrade``.
        """
        if self.problem:
            return fallback
        try:
            # closed at once: a connection left to the garbage collector checkpoints its
            # write-ahead log into whatever file then lies at the path
            with contextlib.closing(self._connect()) as db, db:
                return action(db)
        except (sqlite3.DatabaseError, OSError) as exc:
            if not self.degrade:
                raise CacheFileError(
                    f"The cache file {self.path} cannot be read ({exc}); delete it, or turn "
                    "the cache off."
                ) from exc
            self._turn_off(exc)
            return fallback

    def _turn_off(self, exc: BaseException) -> None:
        """Off for the process: one line in :attr:`problem` and the log; a corrupt file (one
        that exists but is no database) moved aside for the next start to rebuild."""
        with self._off_lock:
            if self.problem:
                return
            self.problem = f"The cache at {self.path.name} is unreadable: working without it."
            # corrupt (not a database, malformed): aside; locked or unopenable: left as it is
            moved = self._move_aside() if _corrupt(exc) else ""
            _log.warning(
                "%s (%s%s)",
                self.problem,
                type(exc).__name__,
                f"; moved to {moved}" if moved else "",
            )

    def _move_aside(self) -> str:
        """Rename the file (and its write-ahead log) out of the way; the new name, or ""."""
        if not self.path.is_file():
            return ""
        aside = self.path.with_name(f"{self.path.name}{ASIDE}{int(time.time())}")
        try:
            self.path.rename(aside)
        except OSError:
            return ""
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                with contextlib.suppress(OSError):
                    side.rename(aside.with_name(aside.name + suffix))
        return aside.name


def _corrupt(exc: BaseException) -> bool:
    """Whether ``exc`` says the file is no database or a damaged one (not locked, not
    unopenable: those leave the file as it is)."""
    return isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError)
