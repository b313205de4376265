"""File edges in a chunk sequence: which file each chunk belongs to, and how far a neighbour
step may go.

A corpus keeps every file's chunks in one sequence (one matrix of vectors). A neighbour of
chunk c exists only inside c's file, so every policy that reaches past a retrieved chunk asks
:func:`reach` for c's bounds. ``doc_of`` is None for a single file: then the bounds are the
whole sequence and nothing else changes.
"""

from __future__ import annotations

import numpy as np


def doc_of_starts(part_starts: np.ndarray, chunk_starts: np.ndarray) -> np.ndarray:
    """(N,) part index of each chunk, from the parts' and the chunks' start offsets."""
    return (np.searchsorted(part_starts, chunk_starts, side="right") - 1).astype(np.int64)


def bounds(doc_of: np.ndarray | None, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi): chunk i's neighbours j satisfy lo[i] <= j < hi[i] (its file's chunk range)."""
    if doc_of is None or n == 0:
        return np.zeros(n, dtype=np.int64), np.full(n, n, dtype=np.int64)
    change = np.flatnonzero(np.diff(doc_of)) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [n]))
    run = np.repeat(np.arange(len(starts)), ends - starts)
    return starts[run].astype(np.int64), ends[run].astype(np.int64)


def reach(doc_of: np.ndarray | None, n: int, c: int) -> tuple[int, int]:
    """(lo, hi) of chunk ``c``'s file: its neighbours j satisfy lo <= j < hi."""
    if doc_of is None:
        return 0, n
    d = doc_of[c]
    lo = int(np.searchsorted(doc_of, d, side="left"))
    hi = int(np.searchsorted(doc_of, d, side="right"))
    return lo, hi


def same_file(doc_of: np.ndarray | None, a: int, b: int) -> bool:
    """True when chunks ``a`` and ``b`` are in one file."""
    return doc_of is None or bool(doc_of[a] == doc_of[b])


def file_edges(doc_of: np.ndarray | None, n: int) -> np.ndarray:
    """(N-1,) bool: True where chunks i and i+1 are in different files."""
    if doc_of is None or n < 2:
        return np.zeros(max(n - 1, 0), dtype=bool)
    return np.diff(doc_of) != 0
