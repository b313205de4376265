"""The hits list: one row per retrieved chunk, best first, beside the document overview.

The overview shows where the hits fall but, when many land close together, shares marks and
leaves rank labels out (:mod:`scar_viz.charts.marks`); this list names every hit: its rank,
its chunk, how far through the document it starts, its section and cos(q, c).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.documents.sections import FRONT_MATTER


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

    def as_row(self) -> dict:
        return {
            "rank": self.rank,
            "chunk": self.chunk,
            "position": 100.0 * self.position,
            "section": self.section,
            "cos(q,c)": self.cos,
        }


def hits(chunks: Sequence[Chunk], sims: np.ndarray, retrieved: Sequence[int]) -> list[Hit]:
    """The ``retrieved`` chunks (in rank order) as :class:`Hit` rows."""
    length = max((c.end for c in chunks), default=0) or 1
    return [
        Hit(
            rank=r,
            chunk=int(c),
            position=chunks[c].start / length,
            section=chunks[c].section[-1] if chunks[c].section else FRONT_MATTER,
            cos=float(sims[c]),
        )
        for r, c in enumerate(retrieved, 1)
    ]
