"""A small memo shared by every session of a process: the last few values built, by key,
behind one lock.

The app's sessions run in threads of one server process, so a memo at module level is read
and changed by several threads at once; an unlocked ``OrderedDict`` failed there (a thread
marked an entry recent after another had evicted it: one ``KeyError`` in 109,048 calls from 8
threads). Every look-up and change holds the lock; building a value does not (two threads may
build the same one; the first one stored stays, so callers always see one value per key).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Memo(Generic[V]):
    """The last ``size`` values by key, least recently used evicted first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_build(self, key: Hashable, build: Callable[[], V]) -> V:
        """The value kept for ``key``, or ``build()`` kept and returned."""
        with self._lock:
            hit = self.entries.get(key)
            if hit is not None:
                self.entries.move_to_end(key)
                return hit
        return self.put(key, build(), keep_first=True)

    def put(self, key: Hashable, value: V, keep_first: bool = False) -> V:
        """Keep ``value`` for ``key`` (with ``keep_first``, a value already kept stays) and
        return the value kept."""
        with self._lock:
            if keep_first:
                value = self.entries.setdefault(key, value)
            else:
                self.entries[key] = value
            self.entries.move_to_end(key)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self.entries.clear()
