"""A labelled run: a prepared document, its gold queries, their unit vectors and the retriever
that ranks them, as one object, which every evaluation of labelled queries takes (the run,
the budget curve, the learned gate's table and curves, the verdict, the answer check)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from scar_viz.common.errors import SettingsError
from scar_viz.pipeline import PreparedDoc
from scar_viz.queries.gold import GoldQuery
from scar_viz.retrieval import DENSE, Retriever


@dataclass(frozen=True)
class LabelledRun:
    """``vecs`` (Q, d): the unit vectors of ``queries``, in their order (float64); the
    queries are kept as a tuple."""

    prep: PreparedDoc
    queries: Sequence[GoldQuery]
    vecs: np.ndarray
    retriever: Retriever = DENSE

    def __post_init__(self) -> None:
        """Raises SettingsError when the vectors do not match the queries and the chunks."""
        vecs = np.atleast_2d(np.asarray(self.vecs, dtype=np.float64))
        n, d = len(self.queries), self.prep.unit.shape[1]
        if n and vecs.shape != (n, d):
            raise SettingsError(
                f"{n} queries need {n} vectors of {d} dimensions; got shape {vecs.shape}."
            )
        object.__setattr__(self, "queries", tuple(self.queries))
        object.__setattr__(self, "vecs", vecs)

    @property
    def questions(self) -> list[str]:
        return [q.query.query for q in self.queries]

    @property
    def golds(self) -> list[Sequence[int]]:
        return [q.gold for q in self.queries]

    def ranked_by(self, retriever: Retriever) -> LabelledRun:
        return replace(self, retriever=retriever)

    def by_id(self) -> LabelledRun:
        """The queries (and their vectors) in id order, so a file's order changes nothing."""
        order = sorted(range(len(self.queries)), key=lambda i: self.queries[i].id)
        return replace(self, queries=tuple(self.queries[i] for i in order), vecs=self.vecs[order])
