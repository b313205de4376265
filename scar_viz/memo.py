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
    """The last ``size`` values by key, least recently used evicted first.

    With ``weigh`` (a key's weight, e.g. the characters of the text it names), the memo keeps
    entries up to ``size`` in total weight instead of ``size`` entries (always the newest one).
    """

    def __init__(self, size: int, weigh: Callable[[Hashable], int] | None = None) -> None:
        self.size = size
        self.entries: OrderedDict[Hashable, V] = OrderedDict()
        self._weigh = weigh
        self._weight = 0
        self._lock = threading.Lock()

    def _load(self) -> int:
        return self._weight if self._weigh else len(self.entries)

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
            if self._weigh and key not in self.entries:
                self._weight += self._weigh(key)
            if keep_first:
                value = self.entries.setdefault(key, value)
            else:
                self.entries[key] = value
            self.entries.move_to_end(key)
            while self._load() > self.size and len(self.entries) > 1:
                old, _ = self.entries.popitem(last=False)
                if self._weigh:
                    self._weight -= self._weigh(old)
        return value

    def clear(self) -> None:
        with self._lock:
            self.entries.clear()
            self._weight = 0
