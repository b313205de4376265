"""Lexical evidence: how much of the question's wording a chunk contains (docs/method.md §8).

An extension of this project, not the paper's. Stated choices:

- **Tokeniser**: BM25's (:mod:`scar_viz.common.terms`): the text lower-cased, runs of two or more
  word characters (Unicode letters, digits, underscore), bm25s's stop words dropped. No
  stemming: "retransmit" and "retransmission" are different terms.
- **Content terms** of a question: its distinct tokens, in first-seen order, that are not
  among the function words of :data:`STOP_WORDS` and occur in at least one chunk of the
  document or corpus (a term found nowhere says nothing about which chunk holds the answer).
- **Weights**: BM25's idf over the chunk set (:func:`scar_viz.common.terms.idf`; N chunks, df(t) the
  chunks containing t), idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5)), always > 0.
- **lex(q, x)** = Σ_{t ∈ q, t ∈ x} idf(t) / Σ_{t ∈ q} idf(t), the idf-weighted share of the
  question's content terms found in chunk x, in [0, 1]; 0 when the question has none.
- **new(q, c, n)** = the weighted share of the question's terms in n but not in c.

The chunk set's index (the terms of each chunk, the idf) is :mod:`scar_viz.common.terms`', the one
BM25 is built from, shared and cached by the texts' content (:func:`chunk_index`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from scar_viz.common import terms as shared
from scar_viz.common.terms import TermIndex

STOP_WORDS: frozenset[str] = frozenset(
    """
    about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each either
    else ever every few for from further had has have having he her here hers herself him
    himself his how however if in into is it its itself just let many may me might more most
    much must my myself no nor not now of off on once one only or other our ours ourselves
    out over own per same shall she should so some such than that the their theirs them
    themselves then there these they this those through thus to too under until up upon us
    very was way we were what when where whether which while who whom whose why will with
    within without would yet you your yours yourself yourselves
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
"""English function words left out of a question's content terms, besides the tokeniser's own
stop words (question words included: "what", "when", "how" say what is asked, not where it is
written)."""


def tokenize(text: str) -> list[str]:
    """The text's content tokens, in order: :func:`scar_viz.common.terms.tokenize`'s, less
    :data:`STOP_WORDS`."""
    return [t for t in shared.tokenize(text) if t not in STOP_WORDS]


@dataclass(frozen=True)
class ChunkIndex:
    """The terms of a chunk set (:class:`scar_viz.common.terms.TermIndex`): ``postings`` maps a
    term to the sorted chunk indices holding it, ``idf`` to its weight; ``n_chunks`` is N."""

    terms: TermIndex = field(repr=False)

    @property
    def n_chunks(self) -> int:
        return self.terms.n_chunks

    @property
    def postings(self) -> dict[str, np.ndarray]:
        return self.terms.postings

    @property
    def idf(self) -> dict[str, float]:
        return self.terms.idf

    def question(self, text: str) -> QuestionLex:
        """The lexical evidence of question ``text`` over this chunk set."""
        terms = self.terms.query_terms(text, leave_out=STOP_WORDS)
        weights = np.array([self.idf[t] for t in terms], dtype=np.float64)
        member = np.zeros((len(terms), self.n_chunks), dtype=bool)
        for row, t in enumerate(terms):
            member[row, self.postings[t]] = True
        total = float(weights.sum())
        share = weights / total if total > 0 else weights
        return QuestionLex(terms, share, member)


@dataclass(frozen=True)
class QuestionLex:
    """A question's content ``terms`` (T,), their ``weights`` (idf normalised to sum 1) and
    ``member`` (T, N), member[t, i] = term t occurs in chunk i."""

    terms: tuple[str, ...]
    weights: np.ndarray = field(repr=False)
    member: np.ndarray = field(repr=False)

    @property
    def share(self) -> np.ndarray:
        """lex(q, x) for every chunk x, shape (N,)."""
        if not len(self.terms):
            return np.zeros(self.member.shape[1])
        return self.weights @ self.member

    def new_share(self, c: np.ndarray | int, n: np.ndarray | int) -> np.ndarray:
        """new(q, c, n): the weighted share of the terms in n but not in c (vectorised)."""
        c, n = np.asarray(c), np.asarray(n)
        if not len(self.terms):
            return np.zeros(np.broadcast(c, n).shape)
        only_n = self.member[:, n] & ~self.member[:, c]
        return np.tensordot(self.weights, only_n.astype(np.float64), axes=(0, 0))

    def features(self, c: np.ndarray | int, n: np.ndarray | int) -> np.ndarray:
        """(lex(q,n), lex(q,c), new(q,c,n)) per candidate, shape (M, 3) (or (3,) for scalars)."""
        share = self.share
        c, n = np.asarray(c), np.asarray(n)
        return np.stack([share[n], share[c], self.new_share(c, n)], axis=-1)


def chunk_index(texts: Sequence[str]) -> ChunkIndex:
    """The index of a chunk set (terms per chunk, idf), cached by the texts' content (one
    object while :func:`scar_viz.common.terms.term_index` keeps the chunk set)."""
    return _index(shared.term_index(texts))


@lru_cache(maxsize=8)
def _index(terms: TermIndex) -> ChunkIndex:
    return ChunkIndex(terms)


def question_lex(texts: Sequence[str], question: str) -> QuestionLex:
    """:meth:`ChunkIndex.question` over the chunk set ``texts`` (index cached by content)."""
    return chunk_index(texts).question(question)


def lex_matrix(texts: Sequence[str], questions: Sequence[str]) -> np.ndarray:
    """lex(q, x) for every question and chunk, shape (Q, N)."""
    index = chunk_index(texts)
    rows = [index.question(q).share for q in questions]
    return np.array(rows, dtype=np.float64).reshape(len(questions), len(texts))
