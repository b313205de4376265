"""The words of a chunk set as lexical matching sees them: one tokeniser and one idf, shared by
BM25 retrieval (:mod:`scar_viz.retrieval.bm25`) and the gate's lexical term μ
(:mod:`scar_viz.scoring.lexical`) (docs/method.md §8).

- **Tokeniser**: ``bm25s.tokenize`` with its defaults: the text lower-cased, tokens are runs of
  two or more word characters (regex ``(?u)\\b\\w\\w+\\b``: Unicode letters, digits and
  underscore), bm25s's English stop words (:data:`STOP_WORDS`) removed, no stemmer. A caller
  may leave out more words of a query (μ drops function words, :mod:`scar_viz.scoring.lexical`).
- **Scripts written without spaces** (Han, Hiragana, Katakana; Thai, Lao, Khmer, Myanmar) and
  Hangul: a run of such characters is one "word" to that regex, so a Japanese clause would be
  one token that no question shares. Each run is cut into overlapping **character bigrams**
  (a run of one character is itself a token; Han, Hiragana and Katakana form one run, Hangul
  and each Southeast Asian script runs of their own), in place, beside the words of the text's
  other scripts; full-width Latin letters and digits are read as ASCII first
  (:func:`spaceless_tokens`). Bigrams, not a morphological analyser, by measurement
  (``benchmarks/cjk_tokens.py``, docs/method.md §8): on the Japanese sample's 21 questions
  BM25 top-3 recall is 0.95 with bigrams, 0.93 with janome or MeCab (fugashi, unidic-lite),
  0.31 with words, and bigrams need no dictionary (janome installs 212 MB, unidic-lite with
  fugashi 263 MB) and tokenise 2 to 65 times faster. A text with none of these characters
  takes ``bm25s.tokenize`` unchanged, so English tokens (and every English figure) are as
  they were.
- **idf** (Lucene's, the one bm25s scores with): over N chunks, with df(t) the chunks holding t,

      idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5)),   always > 0.

:func:`term_index` holds a chunk set's tokens, each term's chunks and its idf; it is built once
per content and kept for the last few chunk sets (keyed by :func:`texts_digest`). ``bm25s`` is
imported on first use.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from scar_viz.common.memo import Memo

STOP_WORDS = "en"
"""bm25s's English stop-word list (33 words: a, an, and, are, as, at, be, but, by, …)."""
_CACHE: Memo[TermIndex] = Memo(8)
"""The last indexes built, by content (sessions share the process: :mod:`scar_viz.common.memo`)."""


_CJK = (
    "\u3005\u3006\u3040-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f"
)
"""Han (with 々 〆), Hiragana and Katakana (full- and half-width, less the middle dot ・)."""
_HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
_SOUTHEAST = "\u0e00-\u0e7f", "\u0e80-\u0eff", "\u1780-\u17ff", "\u1000-\u109f"
"""Thai, Lao, Khmer, Myanmar: each its own run (their vowel signs are not word characters)."""
_RUNS = (_CJK, _HANGUL, *_SOUTHEAST)
_ALL = "".join(_RUNS)
_FULL_WIDTH = "\uff01-\uff5e"
_NEEDS_OWN = re.compile(f"[{_ALL}{_FULL_WIDTH}]")
_TOKEN = re.compile(
    "|".join(f"[{r}]+" for r in _RUNS) + f"|(?<![^\\W{_ALL}])[^\\W{_ALL}]{{2,}}(?![^\\W{_ALL}])"
)
"""A run of one spaceless script, or a run of two or more other word characters (bm25s's
``\\b\\w\\w+\\b`` with the spaceless scripts taken out of ``\\w``)."""
_ASCII_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}
_SPACELESS_START = re.compile(f"[{_ALL}]")


def _bigrams(run: str) -> list[str]:
    """Overlapping pairs of the run's characters, a combining mark (Thai vowel signs and tone
    marks) kept with the letter before it; a run of one character is its own token."""
    chars: list[str] = []
    for ch in run:
        if chars and unicodedata.category(ch).startswith("M"):
            chars[-1] += ch
        else:
            chars.append(ch)
    if len(chars) == 1:
        return chars
    return [a + b for a, b in zip(chars, chars[1:], strict=False)]


def _mixed_tokens(text: str, stop: frozenset[str]) -> list[str]:
    """Tokens of a text with spaceless-script or full-width characters (module docstring)."""
    out: list[str] = []
    for m in _TOKEN.finditer(text.translate(_ASCII_WIDTH).lower()):
        token = m.group()
        if _SPACELESS_START.match(token):
            out.extend(_bigrams(token))
        elif token not in stop:
            out.append(token)
    return out


def spaceless_tokens(text: str) -> list[str]:
    """The character bigrams of ``text``'s runs of spaceless scripts and Hangul, in order
    (module docstring); [] for a text without them (the hashing model adds these to its words)."""
    if not _NEEDS_OWN.search(text):
        return []
    return [t for t in _mixed_tokens(text, frozenset()) if _SPACELESS_START.match(t)]


def tokenize_all(texts: Sequence[str]) -> list[list[str]]:
    """The tokens of each text, in order (module docstring), in one call of the tokeniser."""
    import bm25s
    from bm25s.stopwords import STOPWORDS_EN

    if not texts:
        return []
    texts = list(texts)
    own = [i for i, text in enumerate(texts) if _NEEDS_OWN.search(text)]
    mixed = set(own)
    plain = [i for i in range(len(texts)) if i not in mixed]
    out: list[list[str]] = [[] for _ in texts]
    if plain:
        words = bm25s.tokenize(
            [texts[i] for i in plain], return_ids=False, show_progress=False, stopwords=STOP_WORDS
        )
        for i, tokens in zip(plain, words, strict=True):
            out[i] = list(tokens)
    stop = frozenset(STOPWORDS_EN)
    for i in own:
        out[i] = _mixed_tokens(texts[i], stop)
    return out


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
    return _CACHE.get_or_build(digest, lambda: _build(texts, digest))
