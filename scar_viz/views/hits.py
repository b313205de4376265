"""The hits list: one row per retrieved chunk, best first, beside the document overview.

The overview shows where the hits fall but, when many land close together, shares marks and
leaves rank labels out (:mod:`scar_viz.charts.marks`); this list names every hit: its rank,
its chunk, how far through the document it starts, its section and cos(q, c), and, when
given, its rank under the dense and the BM25 retriever (:mod:`scar_viz.retrieval`) and
whether it holds a labelled question's gold evidence (★).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.documents.sections import FRONT_MATTER
from scar_viz.retrieval import ranks

GOLD_MARK = "★"
"""A hit holding the labelled question's evidence."""


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk. ``position`` is the share of the document's text before its start
    (0 = the first character, 1 = past the end); ``section`` the innermost heading it starts
    under (the whole path repeats the document's title on every row)."""

    rank: int
    chunk: int
    position: float
    section: str
    cos: float
    dense_rank: int | None = None
    bm25_rank: int | None = None
    bm25: float | None = None
    gold: bool | None = None
    """Whether the chunk holds a labelled question's evidence (None: the question has none)."""

    def as_row(self) -> dict:
        row = {
            "rank": self.rank,
            "chunk": self.chunk,
            "position": 100.0 * self.position,
            "section": self.section,
            "cos(q,c)": self.cos,
        }
        if self.dense_rank is not None:
            row["dense rank"] = self.dense_rank
        if self.bm25_rank is not None:
            row["BM25 rank"] = self.bm25_rank
            row["BM25"] = self.bm25
        if self.gold is not None:
            row["gold"] = GOLD_MARK if self.gold else ""
        return row


def hits(
    chunks: Sequence[Chunk],
    sims: np.ndarray,
    retrieved: Sequence[int],
    bm25: np.ndarray | None = None,
    gold: Sequence[int] | None = None,
) -> list[Hit]:
    """The ``retrieved`` chunks (in rank order) as :class:`Hit` rows; with ``bm25`` (N,), the
    chunks' BM25 scores, each row also holds its 1-based dense and BM25 ranks (ties to the
    lower index); with ``gold`` (a labelled question's gold chunks), whether it is one."""
    golden = None if gold is None else set(gold)
    length = max((c.end for c in chunks), default=0) or 1
    dense_ranks = bm25_ranks = None
    if bm25 is not None:
        dense_ranks, bm25_ranks = ranks(sims), ranks(bm25)
    return [
        Hit(
            rank=r,
            chunk=int(c),
            position=chunks[c].start / length,
            section=chunks[c].section[-1] if chunks[c].section else FRONT_MATTER,
            cos=float(sims[c]),
            dense_rank=None if dense_ranks is None else int(dense_ranks[c]),
            bm25_rank=None if bm25_ranks is None else int(bm25_ranks[c]),
            bm25=None if bm25 is None else float(bm25[c]),
            gold=None if golden is None else int(c) in golden,
        )
        for r, c in enumerate(retrieved, 1)
    ]
