"""A BM25 index over chunk texts, with ``bm25s`` (docs/method.md §8).

Tokenisation: ``bm25s.tokenize`` with its defaults: lower-cased, tokens are runs of two or more
word characters (regex ``(?u)\\b\\w\\w+\\b``), English stop words removed (bm25s's list), no
stemmer. The query is tokenised the same way; each distinct query term counts once (the sum in
§8 runs over the terms of q as a set) and terms absent from every chunk are dropped.

Scoring is bm25s's default, the Lucene variant, with k1 = 1.5 and b = 0.75:

    score(q, c) = Σ_{t ∈ q} idf(t) · tf(t, c) / (tf(t, c) + k1 · (1 − b + b · |c| / avgdl))
    idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

which is §8's formula without the constant factor (k1 + 1), so the ranking is the same; |c| is
c's token count after stop words are removed and avgdl the mean over the N chunks. A corpus
ranks all its files' chunks together: N, df and avgdl are over every chunk.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import bm25s
import numpy as np

K1 = 1.5
"""BM25's term-frequency saturation (bm25s's default)."""
B = 0.75
"""BM25's length normalisation (bm25s's default; not SCAR's boundary penalty)."""
STOPWORDS = "en"
"""bm25s's English stop-word list."""
_CACHE_SIZE = 8
_CACHE: OrderedDict[str, Bm25Index] = OrderedDict()
_CACHE_LOCK = threading.Lock()
"""Sessions share the process: every look-up and change of :data:`_CACHE` holds this lock
(``move_to_end`` after another thread evicted the key raised ``KeyError``)."""


def tokenize(text: str) -> list[str]:
    """The tokens of ``text`` as the index sees them (module docstring)."""
    out = bm25s.tokenize([text], return_ids=False, show_progress=False, stopwords=STOPWORDS)
    return list(out[0])


def texts_digest(texts: Sequence[str]) -> str:
    """A digest of the chunk texts (their order and boundaries included)."""
    h = hashlib.sha256()
    for t in texts:
        data = t.encode("utf-8")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


@dataclass(frozen=True)
class Bm25Index:
    """BM25 over N chunk texts; :meth:`scores` gives one float64 score per chunk."""

    digest: str
    n: int
    vocab: frozenset[str]
    _model: object = field(default=None, repr=False, compare=False)

    def scores(self, query: str) -> np.ndarray:
        """(N,) the BM25 score of each chunk for ``query`` (0 where no query term occurs)."""
        terms = [t for t in dict.fromkeys(tokenize(query)) if t in self.vocab]
        if not terms or self._model is None:
            return np.zeros(self.n)
        return np.asarray(self._model.get_scores(terms), dtype=np.float64)


def _build(texts: Sequence[str], digest: str) -> Bm25Index:
    tokens = [tokenize(t) for t in texts]
    vocab = frozenset(t for doc in tokens for t in doc)
    if not vocab:
        return Bm25Index(digest, len(texts), vocab)
    model = bm25s.BM25(k1=K1, b=B, dtype="float64")
    model.index(tokens, show_progress=False)
    return Bm25Index(digest, len(texts), vocab, model)


def bm25_index(texts: Sequence[str]) -> Bm25Index:
    """The index over ``texts`` (chunk texts in corpus order), built once per content: the last
    few are kept in memory, keyed by :func:`texts_digest`."""
    texts = [str(t) for t in texts]
    digest = texts_digest(texts)
    with _CACHE_LOCK:
        hit = _CACHE.get(digest)
        if hit is not None:
            _CACHE.move_to_end(digest)
            return hit
    index = _build(texts, digest)  # outside the lock: two threads may build the same one
    with _CACHE_LOCK:
        _CACHE[digest] = index
        _CACHE.move_to_end(digest)
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return index
