"""File edges in a chunk sequence: which file each chunk belongs to, and how far a neighbour
step may go.

A document keeps every file's chunks in one sequence (one matrix of vectors), and
``doc_of[i]`` is the file (the part) of chunk i: all zeros for a document of one file. A
neighbour of chunk c exists only inside c's file, so every policy that reaches past a
retrieved chunk asks :func:`reach` for c's bounds. The pure functions that take ``doc_of``
may be called on bare arrays without one (the lesson's, the tests'): :func:`chunk_files`
reads that as one file.
"""

from __future__ import annotations

import numpy as np


def doc_of_starts(part_starts: np.ndarray, chunk_starts: np.ndarray) -> np.ndarray:
    """(N,) part index of each chunk, from the parts' and the chunks' start offsets."""
    return (np.searchsorted(part_starts, chunk_starts, side="right") - 1).astype(np.int64)


def chunk_files(doc_of: np.ndarray | None, n: int) -> np.ndarray:
    """(n,) the file of each of ``n`` chunks: ``doc_of``, or file 0 for all when it is not
    given (a read-only view of one zero, so asking costs nothing however large ``n``)."""
    if doc_of is None:
        return np.broadcast_to(np.zeros(1, dtype=np.int64), (n,))
    return np.asarray(doc_of, dtype=np.int64)


def bounds(doc_of: np.ndarray | None, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi): chunk i's neighbours j satisfy lo[i] <= j < hi[i] (its file's chunk range)."""
    change = np.flatnonzero(np.diff(chunk_files(doc_of, n))) + 1
    starts = np.concatenate(([0], change)).astype(np.int64)
    ends = np.concatenate((change, [n])).astype(np.int64)
    run = np.repeat(np.arange(len(starts)), ends - starts)
    return starts[run], ends[run]


def reach(doc_of: np.ndarray | None, n: int, c: int) -> tuple[int, int]:
    """(lo, hi) of chunk ``c``'s file: its neighbours j satisfy lo <= j < hi."""
    of = chunk_files(doc_of, n)
    lo = int(np.searchsorted(of, of[c], side="left"))
    hi = int(np.searchsorted(of, of[c], side="right"))
    return lo, hi


def same_file(doc_of: np.ndarray | None, a: int, b: int) -> bool:
    """True when chunks ``a`` and ``b`` are in one file."""
    of = chunk_files(doc_of, max(a, b) + 1)
    return bool(of[a] == of[b])


def file_edges(doc_of: np.ndarray | None, n: int) -> np.ndarray:
    """(N-1,) bool: True where chunks i and i+1 are in different files."""
    return np.diff(chunk_files(doc_of, n)) != 0
