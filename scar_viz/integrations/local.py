"""The gate on the part of a store an adapter has fetched: the retrieved chunks and the
neighbours within r of each.

A vector store hands back chunks, not a document: the adapter fetches each retrieved chunk's
neighbours (by id, or through a node's PREVIOUS/NEXT links) and lays what it fetched out as
*runs*, each a stretch of consecutive chunks of one file in reading order. Runs play the part
files play in a corpus (:mod:`scar_viz.edges`): no neighbour step crosses from one run into
the next. Since a run holds every chunk within r of each retrieved chunk in it (up to its
file's edges), the walk of :func:`~scar_viz.scoring.scar.select_from_sims` on the runs sees
exactly the candidates it sees on the whole file, with the same vectors, so it takes the same
decisions: the gate is never re-implemented here.

Ties: the top k are taken by cos(q, c) with :func:`~scar_viz.scoring.scar.top_k`, over the
store's candidates laid out in reading order (file, then position), so an exact tie goes to
the earlier chunk, as it does on the command line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scar_viz.scoring.lexical import QuestionLex, question_lex
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import Selection, select_from_sims, top_k
from scar_viz.vectors import normalize

Order = tuple[str, float]
"""A chunk's place in reading order: (its file, its position in the file)."""


def closest(
    query_vec: np.ndarray, vectors: np.ndarray, order: Sequence[Order], k: int
) -> list[int]:
    """The ``k`` rows of ``vectors`` (n, d) closest to ``query_vec`` by cosine, best first; an
    exact tie goes to the row earlier in ``order``.

    Returns:
        Row indices into ``vectors``.
    """
    if not len(order):
        return []
    layout = sorted(range(len(order)), key=lambda i: order[i])
    sims = normalize(np.asarray(vectors)[layout]) @ normalize(np.asarray(query_vec).reshape(-1))
    return [layout[i] for i in top_k(sims, k)]


@dataclass(frozen=True)
class Runs:
    """Fetched chunks laid out in runs: ``keys`` (M,) in layout order, their unit vectors
    (M, d), ``run_of`` (M,) the run of each (non-decreasing)."""

    keys: tuple[Any, ...]
    unit: np.ndarray
    run_of: np.ndarray

    def position(self) -> dict[Any, int]:
        return {key: i for i, key in enumerate(self.keys)}


def runs_of(chains: Sequence[Sequence[Any]], vectors: Mapping[Any, Sequence[float]]) -> Runs:
    """:class:`Runs` from ``chains``, each a list of keys of consecutive chunks of one file in
    reading order (given in reading order of their first chunks), with each key's vector."""
    keys = tuple(key for chain in chains for key in chain)
    run_of = np.repeat(np.arange(len(chains)), [len(c) for c in chains]).astype(np.int64)
    rows = np.asarray([vectors[key] for key in keys], dtype=np.float64)
    return Runs(keys, normalize(rows) if len(keys) else np.zeros((0, 1)), run_of)


def chains_of_positions(keys: Sequence[tuple[str, int]]) -> list[list[tuple[str, int]]]:
    """(file, chunk index) keys grouped into chains of consecutive indices, in reading order."""
    chains: list[list[tuple[str, int]]] = []
    for key in sorted(set(keys)):
        last = chains[-1][-1] if chains else None
        if last is not None and last[0] == key[0] and last[1] + 1 == key[1]:
            chains[-1].append(key)
        else:
            chains.append([key])
    return chains


def gate_runs(
    runs: Runs,
    query_vec: np.ndarray,
    retrieved: Sequence[Any],
    params: GateParams,
    lexical: QuestionLex | None = None,
) -> Selection:
    """SCAR (:func:`~scar_viz.scoring.scar.select_from_sims`) from ``retrieved`` (keys in rank
    order, all in ``runs``) with radius and λ, τ, μ of ``params``; its k is
    ``len(retrieved)``. ``lexical`` (over the runs' chunks) is needed when μ > 0.

    Returns:
        The selection, in positions of ``runs.keys``.
    """
    at = runs.position()
    rank = np.full(len(runs.keys), -np.inf)
    for r, key in enumerate(retrieved):
        rank[at[key]] = len(retrieved) - r
    sims = runs.unit @ normalize(np.asarray(query_vec).reshape(-1))
    params = params.with_(k=len(retrieved))
    return select_from_sims(sims, runs.unit, params, runs.run_of, lexical, rank=rank)


def lexical_of(query: str, keys: Sequence[Any], texts: Mapping[Any, str] | None) -> QuestionLex:
    """The question's lexical evidence over every chunk of the store (``texts``: the idf is
    the whole chunk set's, as on the command line), restricted to ``keys``.

    Raises:
        ValueError: without ``texts`` (μ > 0 needs every chunk's text).
    """
    if texts is None:
        raise ValueError(
            "μ > 0 weighs the question's words by their idf over every chunk of the store, "
            "and this store does not list its chunks; use μ = 0."
        )
    every = list(texts)
    whole = question_lex([texts[key] for key in every], query)
    at = {key: i for i, key in enumerate(every)}
    return QuestionLex(whole.terms, whole.weights, whole.member[:, [at[key] for key in keys]])


@dataclass(frozen=True)
class Picked:
    """A chunk the gate put in the context: ``role`` ``retrieved`` (its rank, cos(q, c)) or
    ``admitted`` (S and the bar τ·cos(q, c) of the first gate that admitted it, and that
    retrieved chunk ``by``)."""

    key: Any
    role: str
    cos_q: float
    rank: int | None = None
    score: float | None = None
    bar: float | None = None
    by: Any | None = None

    def metadata(self, by_id: str | None = None) -> dict[str, object]:
        """The decision as flat metadata: ``scar_role``, ``scar_cos_q``, and ``scar_rank``
        or ``scar_score``, ``scar_bar``, ``scar_by``."""
        out: dict[str, object] = {"scar_role": self.role, "scar_cos_q": self.cos_q}
        if self.role == "retrieved":
            out["scar_rank"] = self.rank
        else:
            out.update(scar_score=self.score, scar_bar=self.bar, scar_by=by_id)
        return out


def picked(runs: Runs, selection: Selection) -> list[Picked]:
    """The selection's chunks in reading order (the runs' order), each with its decision."""
    rank = {c: r for r, c in enumerate(selection.retrieved)}
    first: dict[int, Any] = {}  # the first admitting decision of each neighbour
    for d in selection.decisions:
        if d.outcome == "admitted":
            first.setdefault(d.neighbour, d)
    out = []
    for i in selection.selected:
        key, cos_q = runs.keys[i], float(selection.sims[i])
        if i in rank:
            out.append(Picked(key, "retrieved", cos_q, rank=rank[i]))
        else:
            d = first[i]
            by = runs.keys[d.chunk]
            out.append(Picked(key, "admitted", cos_q, score=d.score, bar=d.bar, by=by))
    return out
