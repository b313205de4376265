"""A small memo shared by every session of a process: the last few values built, by key,
behind one lock.

The app's sessions run in threads of one server process, so a memo at module level is read
and changed by several threads at once; an unlocked ``OrderedDict`` failed there (a thread
marked an entry recent after another had evicted it: one ``KeyError`` in 109,048 calls from 8
threads). Every look-up and change holds the lock; building a value does not (two threads may
build the same one; the first one stored stays, so callers always see one value per key).
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

import numpy as np

V = TypeVar("V")


class Memo(Generic[V]):
    """The last ``size`` values by key, least recently used evicted first.

    With ``weigh`` (a key's weight, e.g. the characters of the text it names), the memo keeps
    entries up to ``size`` in total weight instead of ``size`` entries (always the newest one).
    With ``measure`` (a value's weight, e.g. :func:`held_bytes`), the same, weighed by value.
    """

    def __init__(
        self,
        size: int,
        weigh: Callable[[Hashable], int] | None = None,
        measure: Callable[[V], int] | None = None,
    ) -> None:
        self.size = size
        self.entries: OrderedDict[Hashable, V] = OrderedDict()
        self._weigh = weigh
        self._measure = measure
        self._weights: dict[Hashable, int] = {}
        self._weight = 0
        self._lock = threading.Lock()

    @property
    def weight(self) -> int:
        """The total weight held now (entries, without ``weigh`` or ``measure``)."""
        with self._lock:
            return self._load()

    def _load(self) -> int:
        return self._weight if self._weigh or self._measure else len(self.entries)

    def _weight_of(self, key: Hashable, value: V) -> int:
        if self._measure is not None:
            return self._measure(value)
        return self._weigh(key) if self._weigh is not None else 1

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
        weight = self._weight_of(key, value) if self._measure is not None else 0
        with self._lock:
            if keep_first and key in self.entries:
                value = self.entries[key]
            else:
                if self._measure is None:
                    weight = self._weight_of(key, value)
                self._weight += weight - self._weights.get(key, 0)
                self._weights[key] = weight
                self.entries[key] = value
            self.entries.move_to_end(key)
            while self._load() > self.size and len(self.entries) > 1:
                old, _ = self.entries.popitem(last=False)
                self._weight -= self._weights.pop(old, 0)
        return value

    def clear(self) -> None:
        with self._lock:
            self.entries.clear()
            self._weights.clear()
            self._weight = 0


def held_bytes(value: object) -> int:
    """About how many bytes ``value`` holds: arrays by their buffers, strings and bytes by
    their size, containers and dataclasses by what they hold (each object counted once). The
    weight a bytes-bounded :class:`Memo` keeps its entries by."""
    seen: set[int] = set()
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if id(item) in seen or item is None:
            continue
        seen.add(id(item))
        if isinstance(item, np.ndarray):
            total += item.nbytes + 112
        elif isinstance(item, str | bytes | bytearray | int | float | bool):
            total += sys.getsizeof(item)
        elif isinstance(item, dict):
            total += sys.getsizeof(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            total += sys.getsizeof(item)
            stack.extend(item)
        elif (dataclasses.is_dataclass(item) or _ours(item)) and not isinstance(item, type):
            total += sys.getsizeof(item)
            stack.extend(vars(item).values() if hasattr(item, "__dict__") else ())
            stack.extend(getattr(item, name) for name in getattr(item, "__slots__", ()))
        else:
            total += sys.getsizeof(item)
    return total


def _ours(item: object) -> bool:
    """An instance of one of the package's own classes (followed into; others are counted
    shallow, so a model or a client is never walked)."""
    return type(item).__module__.startswith("scar_viz.")
