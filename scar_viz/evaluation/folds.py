"""Cross-validation folds of a labelled query set, assigned from the query ids (docs/method.md §9).

For a seed s, the queries of each type (fragmented, atomic, scattered) are ordered by

    h(q, s) = sha256("s:id(q)")

and dealt to the K folds in turn, each type starting where the previous type left off, so every
fold gets its share of each type (stratified) and the fold sizes differ by at most one. The
assignment depends on the ids and the seed only: reordering the query file changes nothing.
R seeds give R independent assignments (repeats).

A fold needs enough queries to say something: K is lowered to ⌊Q / 5⌋ when Q < 5K (at least
two folds, so at least 10 queries).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.common.errors import SettingsError
from scar_viz.queries.gold import GoldQuery
from scar_viz.queries.reading import QUERY_TYPES

DEFAULT_FOLDS = 5
DEFAULT_REPEATS = 3
MIN_PER_FOLD = 5
"""Queries a fold needs at least (Q ≥ 5K, docs/method.md §9)."""


def _order_key(qid: str, seed: int) -> tuple[str, str]:
    return hashlib.sha256(f"{seed}:{qid}".encode()).hexdigest(), qid


@dataclass(frozen=True)
class Folds:
    """``fold`` (R, Q): the fold of query q under repeat r, for queries in the order given;
    ``k`` folds (after :data:`MIN_PER_FOLD` lowered it), ``asked`` the folds asked for."""

    fold: np.ndarray
    k: int
    asked: int

    @property
    def repeats(self) -> int:
        return self.fold.shape[0]

    @property
    def n_queries(self) -> int:
        return self.fold.shape[1]

    def training(self) -> np.ndarray:
        """(R·K, Q) booleans: row r·K + f marks the queries fold f of repeat r trains on (all
        but its own)."""
        held = self.fold[:, None, :] == np.arange(self.k)[None, :, None]
        return ~held.reshape(self.repeats * self.k, self.n_queries)

    def held_row(self) -> np.ndarray:
        """(R, Q): the row of :meth:`training` whose fold holds query q out, per repeat."""
        return np.arange(self.repeats)[:, None] * self.k + self.fold

    @property
    def nestable(self) -> bool:
        """Whether the choice itself can be held out: an inner training set needs a third
        fold (K ≥ 3)."""
        return self.k >= 3

    def inner_training(self) -> np.ndarray:
        """(R·K·(K−1), Q) booleans, the nested choice's inner training sets: row
        (r·K + f)·(K−1) + j marks the queries of repeat r that neither fold f nor fold g holds,
        g the j-th fold other than f (fold g held out inside fold f's training set). Empty
        when K < 3."""
        if not self.nestable:
            return np.zeros((0, self.n_queries), dtype=bool)
        k = self.k
        rows = []
        for r in range(self.repeats):
            for f in range(k):
                for g in range(k):
                    if g != f:
                        rows.append((self.fold[r] != f) & (self.fold[r] != g))
        return np.array(rows, dtype=bool).reshape(-1, self.n_queries)

    def nested_row(self) -> np.ndarray:
        """(R, K, Q): for outer fold f of repeat r, the training set query q is read at: the
        row of :meth:`training` (fold f's own) when fold f holds q, else the row of
        :meth:`inner_training`, offset by R·K, whose inner fold holds q out (rows of
        ``vstack([training(), inner_training()])``). Needs K ≥ 3."""
        k, reps = self.k, self.repeats
        f = np.arange(k)[None, :, None]
        g = self.fold[:, None, :]
        r = np.arange(reps)[:, None, None]
        inner = reps * k + (r * k + f) * (k - 1) + np.where(g < f, g, g - 1)
        return np.where(g == f, r * k + f, inner)


def assign_folds(
    queries: Sequence[GoldQuery],
    k: int = DEFAULT_FOLDS,
    repeats: int = DEFAULT_REPEATS,
    seed: int = 0,
) -> Folds:
    """The folds of ``queries`` under seeds ``seed`` … ``seed + repeats − 1`` (module docstring).

    Raises:
        SettingsError: for K < 2, R < 1, fewer than 10 queries or duplicate ids.
    """
    if k < 2 or repeats < 1:
        raise SettingsError("Cross-validation needs at least 2 folds and 1 repeat.")
    n = len(queries)
    ids = [q.id for q in queries]
    if len(set(ids)) != n:
        raise SettingsError("Every labelled query needs its own id to be assigned a fold.")
    folds = min(int(k), n // MIN_PER_FOLD)
    if folds < 2:
        raise SettingsError(
            f"The verdict needs at least {2 * MIN_PER_FOLD} labelled queries ({MIN_PER_FOLD} "
            f"a fold, 2 folds); this set has {n}."
        )
    out = np.zeros((repeats, n), dtype=np.int64)
    for r in range(repeats):
        start = 0
        for kind in QUERY_TYPES:
            rows = [i for i, q in enumerate(queries) if q.type == kind]
            rows.sort(key=lambda i: _order_key(ids[i], seed + r))
            for j, i in enumerate(rows):
                out[r, i] = (start + j) % folds
            start = (start + len(rows)) % folds
    return Folds(out, folds, int(k))
