"""File edges in a chunk sequence: which file each chunk belongs to, and how far a neighbour
step may go.

A document keeps every file's chunks in one sequence (one matrix of vectors), and
``doc_of[i]`` is the file (the part) of chunk i: all zeros for a document of one file. A
neighbour of chunk c exists only inside c's file, so every policy that reaches past a
retrieved chunk asks :func:`reach` for c's bounds. Every function that takes ``doc_of``
requires it: a caller with bare arrays of one file (the lesson's, the tests') passes
:func:`one_file`.
"""

from __future__ import annotations

import numpy as np


def doc_of_starts(part_starts: np.ndarray, chunk_starts: np.ndarray) -> np.ndarray:
    """(N,) part index of each chunk, from the parts' and the chunks' start offsets."""
    return (np.searchsorted(part_starts, chunk_starts, side="right") - 1).astype(np.int64)


def one_file(n: int) -> np.ndarray:
    """(n,) the ``doc_of`` of ``n`` chunks of one file: file 0 for all (a read-only view of
    one zero, so it costs nothing however large ``n``)."""
    return np.broadcast_to(np.zeros(1, dtype=np.int64), (n,))


def chunk_files(doc_of: np.ndarray, n: int) -> np.ndarray:
    """(n,) the file of each of ``n`` chunks: ``doc_of`` as integers.

    Raises:
        ValueError: when ``doc_of`` does not hold ``n`` chunks (a ``doc_of`` of another
            chunking).
    """
    of = np.asarray(doc_of, dtype=np.int64)
    if of.shape != (n,):
        raise ValueError(f"doc_of holds {of.size:,} chunks where {n:,} were expected.")
    return of


def bounds(doc_of: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi): chunk i's neighbours j satisfy lo[i] <= j < hi[i] (its file's chunk range)."""
    change = np.flatnonzero(np.diff(chunk_files(doc_of, n))) + 1
    starts = np.concatenate(([0], change)).astype(np.int64)
    ends = np.concatenate((change, [n])).astype(np.int64)
    run = np.repeat(np.arange(len(starts)), ends - starts)
    return starts[run], ends[run]


def reach(doc_of: np.ndarray, n: int, c: int) -> tuple[int, int]:
    """(lo, hi) of chunk ``c``'s file: its neighbours j satisfy lo <= j < hi."""
    of = chunk_files(doc_of, n)
    lo = int(np.searchsorted(of, of[c], side="left"))
    hi = int(np.searchsorted(of, of[c], side="right"))
    return lo, hi


def same_file(doc_of: np.ndarray, a: int, b: int) -> bool:
    """True when chunks ``a`` and ``b`` are in one file."""
    return bool(doc_of[a] == doc_of[b])


def file_edges(doc_of: np.ndarray, n: int) -> np.ndarray:
    """(N-1,) bool: True where chunks i and i+1 are in different files."""
    return np.diff(chunk_files(doc_of, n)) != 0
