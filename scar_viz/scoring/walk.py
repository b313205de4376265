"""The neighbour walk every gate shares, and the one signature of a gate's judge.

For each retrieved chunk c (the top-k in rank order) and each side, the walk offers the
candidates n = c ± 1 … c ± r to a *judge* and stops on that side at the document's edge (in a
corpus, the edge of c's file: :mod:`scar_viz.common.edges`) or after a rejection (docs/method.md
§2). A neighbour that is itself retrieved is still offered, so its decision reads ``retrieved``: it
is in the context already, counted once, and the walk goes on past it. SCAR
(:func:`scar_viz.scoring.scar.select_from_sims`) and the learned gate
(:func:`scar_viz.scoring.learned.select.learned_select`) are this walk with different judges.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from scar_viz.common.edges import reach

OUTCOMES = ("admitted", "rejected", "retrieved")
"""What a decision may say about its candidate."""


@dataclass(frozen=True)
class Neighbour:
    """Neighbour ``neighbour`` of retrieved chunk ``chunk`` (rank ``rank``, 0 = top hit), on
    ``side`` at ``distance``; ``retrieved`` when the neighbour is itself in the top-k."""

    chunk: int
    neighbour: int
    rank: int
    side: str  # "left" | "right"
    distance: int
    retrieved: bool

    def verdict(self, score: float, bar: float, passes: bool, blocked_by: str) -> dict:
        """The :class:`GateDecision` fields of a judge's verdict on this candidate.

        ``outcome`` is ``retrieved`` for a retrieved neighbour whatever the score, else
        ``admitted`` or ``rejected`` by ``passes``; ``blocked_by`` is kept for rejections only.
        """
        if self.retrieved:
            outcome, blocked = "retrieved", ""
        elif passes:
            outcome, blocked = "admitted", ""
        else:
            outcome, blocked = "rejected", blocked_by
        return {
            "chunk": self.chunk,
            "neighbour": self.neighbour,
            "side": self.side,
            "distance": self.distance,
            "score": score,
            "bar": bar,
            "margin": score - bar,
            "passes": passes,
            "outcome": outcome,
            "blocked_by": blocked,
        }


@dataclass(frozen=True, kw_only=True)
class GateDecision:
    """What any gate's evaluation of one candidate says: retrieved chunk ``chunk``, candidate
    ``neighbour`` on ``side`` at ``distance``; admitted iff ``score`` > ``bar`` (``passes``),
    ``margin`` = score − bar.

    ``outcome`` is one of :data:`OUTCOMES` (:meth:`Neighbour.verdict`); ``blocked_by`` names
    what failed a rejection ("" otherwise).
    """

    chunk: int
    neighbour: int
    side: str  # "left" | "right"
    distance: int
    score: float
    bar: float
    margin: float
    passes: bool
    outcome: str
    blocked_by: str

    def _where(self) -> dict[str, object]:
        """The first columns of a decision's table row: which candidate of which chunk."""
        return {
            "retrieved": self.chunk,
            "neighbour": self.neighbour,
            "side": self.side,
            "distance": self.distance,
        }


D = TypeVar("D", bound=GateDecision)
"""The decisions one gate makes (SCAR's :class:`~scar_viz.scoring.scar.Decision`, the learned
gate's :class:`~scar_viz.scoring.learned.select.LearnedDecision`)."""

Judge = Callable[[Neighbour], D]
"""A gate: judges one candidate (c, n) of the walk; build the decision from
:meth:`Neighbour.verdict` so every gate names outcomes the same way."""


def walk_neighbours(
    retrieved: list[int],
    n_chunks: int,
    radius: int,
    judge: Judge[D],
    doc_of: np.ndarray,
) -> tuple[list[int], list[int], tuple[D, ...]]:
    """Walk outward from each of ``retrieved`` (rank order) to ``radius`` in a document of
    ``n_chunks`` chunks, asking ``judge`` about each candidate; in a corpus (``doc_of``, the
    file of each chunk) the walk stops at the retrieved chunk's file edge.

    Returns:
        (selected = retrieved ∪ admitted, sorted; admitted neighbours that are not retrieved,
        sorted; every decision in walk order).
    """
    is_retrieved = set(retrieved)
    decisions: list[D] = []
    admitted: set[int] = set()
    for rank, c in enumerate(retrieved):
        lo, hi = reach(doc_of, n_chunks, c)
        for side, step in (("left", -1), ("right", 1)):
            for d in range(1, radius + 1):
                j = c + step * d
                if not lo <= j < hi:
                    break
                decision = judge(Neighbour(c, j, rank, side, d, j in is_retrieved))
                decisions.append(decision)
                if decision.outcome == "admitted":
                    admitted.add(j)
                elif decision.outcome == "rejected":
                    break
    return sorted(is_retrieved | admitted), sorted(admitted - is_retrieved), tuple(decisions)
