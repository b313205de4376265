"""A BM25 index over chunk texts, with ``bm25s`` (docs/method.md §8).

Tokens are :mod:`scar_viz.common.terms`' (``bm25s.tokenize`` with its defaults, shared with the
gate's lexical term μ), and so is the chunk set's index they come from. The query is tokenised the
same way; each distinct query term counts once (the sum in §8 runs over the terms of q as a
set) and terms absent from every chunk are dropped.

Scoring is bm25s's default, the Lucene variant, with k1 = 1.5 and b = 0.75:

    score(q, c) = Σ_{t ∈ q} idf(t) · tf(t, c) / (tf(t, c) + k1 · (1 − b + b · |c| / avgdl))
    idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

which is §8's formula without the constant factor (k1 + 1), so the ranking is the same, and
idf is :func:`scar_viz.common.terms.idf` (bm25s computes it inside its index); |c| is c's token
count after stop words are removed and avgdl the mean over the N chunks. A corpus ranks all its
files' chunks together: N, df and avgdl are over every chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scar_viz.common.memo import Memo
from scar_viz.common.terms import TermIndex, term_index, texts_digest

K1 = 1.5
"""BM25's term-frequency saturation (bm25s's default)."""
B = 0.75
"""BM25's length normalisation (bm25s's default; not SCAR's boundary penalty)."""
_CACHE: Memo[Bm25Index] = Memo(8)
"""The last indexes built, by content (sessions share the process: :mod:`scar_viz.common.memo`)."""


@dataclass(frozen=True)
class Bm25Index:
    """BM25 over N chunk texts; :meth:`scores` gives one float64 score per chunk."""

    digest: str
    n: int
    terms: TermIndex = field(repr=False, compare=False)
    _model: Any = field(default=None, repr=False, compare=False)

    def scores(self, query: str) -> np.ndarray:
        """(N,) the BM25 score of each chunk for ``query`` (0 where no query term occurs)."""
        terms = self.terms.query_terms(query)
        if not terms or self._model is None:
            return np.zeros(self.n)
        return np.asarray(self._model.get_scores(list(terms)), dtype=np.float64)


def _build(texts: Sequence[str], digest: str) -> Bm25Index:
    import bm25s

    terms = term_index(texts)
    if not terms.postings:
        return Bm25Index(digest, len(texts), terms)
    model = bm25s.BM25(k1=K1, b=B, dtype="float64")
    model.index([list(t) for t in terms.tokens], show_progress=False)
    return Bm25Index(digest, len(texts), terms, model)


def bm25_index(texts: Sequence[str]) -> Bm25Index:
    """The index over ``texts`` (chunk texts in corpus order), built once per content: the last
    few are kept in memory, keyed by :func:`texts_digest`."""
    texts = [str(t) for t in texts]
    digest = texts_digest(texts)
    return _CACHE.get_or_build(digest, lambda: _build(texts, digest))
