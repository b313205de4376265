"""The words of a chunk set as lexical matching sees them: one tokeniser and one idf, shared by
BM25 retrieval (:mod:`scar_viz.retrieval.bm25`) and the gate's lexical term μ
(:mod:`scar_viz.scoring.lexical`) (docs/method.md §8).

- **Tokeniser**: ``bm25s.tokenize`` with its defaults: the text lower-cased, tokens are runs of
  two or more word characters (regex ``(?u)\\b\\w\\w+\\b``: Unicode letters, digits and
  underscore), bm25s's English stop words (:data:`STOP_WORDS`) removed, no stemmer. A caller
  may leave out more words of a query (μ drops function words, :mod:`scar_viz.scoring.lexical`).
- **idf** (Lucene's, the one bm25s scores with): over N chunks, with df(t) the chunks holding t,

      idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5)),   always > 0.

:func:`term_index` holds a chunk set's tokens, each term's chunks and its idf; it is built once
per content and kept for the last few chunk sets (keyed by :func:`texts_digest`). ``bm25s`` is
imported on first use.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

STOP_WORDS = "en"
"""bm25s's English stop-word list (33 words: a, an, and, are, as, at, be, but, by, …)."""
_CACHE_SIZE = 8
_CACHE: OrderedDict[str, TermIndex] = OrderedDict()
_CACHE_LOCK = threading.Lock()
"""Sessions share the process: every look-up and change of :data:`_CACHE` holds this lock."""


def tokenize_all(texts: Sequence[str]) -> list[list[str]]:
    """The tokens of each text, in order (module docstring), in one call of the tokeniser."""
    import bm25s

    if not texts:
        return []
    out = bm25s.tokenize(list(texts), return_ids=False, show_progress=False, stopwords=STOP_WORDS)
    return [list(tokens) for tokens in out]


def tokenize(text: str) -> list[str]:
    """The tokens of one text, in order (module docstring)."""
    return tokenize_all([text])[0]


def idf(n_chunks: int, df: int) -> float:
    """ln(1 + (N − df + 0.5) / (df + 0.5)): Lucene's idf of a term in ``df`` of N chunks."""
    return math.log1p((n_chunks - df + 0.5) / (df + 0.5))


def texts_digest(texts: Sequence[str]) -> str:
    """A digest of the chunk texts (their order and boundaries included)."""
    h = hashlib.sha256()
    for t in texts:
        data = t.encode("utf-8")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


@dataclass(frozen=True, eq=False)
class TermIndex:
    """The terms of N chunk texts: ``tokens`` of each chunk in order, ``postings`` maps a term to
    the sorted chunk indices holding it, ``idf`` to its weight. Compared and hashed by identity
    (one object per cached chunk set)."""

    digest: str
    n_chunks: int
    tokens: tuple[tuple[str, ...], ...] = field(repr=False)
    postings: dict[str, np.ndarray] = field(repr=False)
    idf: dict[str, float] = field(repr=False)

    def query_terms(self, text: str, leave_out: Collection[str] = ()) -> tuple[str, ...]:
        """The distinct tokens of ``text`` in first-seen order that occur in some chunk, less
        the words of ``leave_out``."""
        return tuple(
            t for t in dict.fromkeys(tokenize(text)) if t in self.postings and t not in leave_out
        )


def _build(texts: Sequence[str], digest: str) -> TermIndex:
    tokens = tuple(tuple(t) for t in tokenize_all(texts))
    holders: dict[str, list[int]] = {}
    for i, chunk in enumerate(tokens):
        for t in dict.fromkeys(chunk):
            holders.setdefault(t, []).append(i)
    n = len(texts)
    postings = {t: np.array(ids, dtype=np.int64) for t, ids in holders.items()}
    return TermIndex(
        digest, n, tokens, postings, {t: idf(n, len(ids)) for t, ids in holders.items()}
    )


def term_index(texts: Sequence[str]) -> TermIndex:
    """The index of ``texts`` (chunk texts in corpus order), built once per content: the last
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
        index = _CACHE.setdefault(digest, index)  # the first one built stays the one
        _CACHE.move_to_end(digest)
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return index
