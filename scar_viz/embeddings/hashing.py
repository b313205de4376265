"""Hashing bag-of-words: lexical, instant, no model (teaching and tests).

Its words are runs of ASCII letters and digits, and, in scripts written without spaces
(Japanese, Chinese, Thai) and Hangul, the character bigrams of
:func:`scar_viz.common.terms.spaceless_tokens` (the tokeniser BM25 uses there): without them a
Japanese text has no words and every cosine is 0. A text in a spaced script hashes exactly as
before.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from scar_viz.common import terms
from scar_viz.embeddings.base import (
    BaseEmbedder,
    Embedder,
    EmbedderKind,
    LoadProgress,
    ModelSpecError,
)

_WORD = re.compile(r"[A-Za-z0-9]+")

MAX_DIM = 4096
"""Most dimensions ``hash:DIM`` takes. The dimensions are what a link's ``hash:DIM`` makes the
server allocate (every chunk's vector, the disk cache's rows), so they are bounded here, before
anything is built: 4,096 is above every embedding model the app offers (384 to 3,072) and keeps
a vector at 16 KiB."""


def check_dim(dim: int, spec: str = "") -> int:
    """``dim`` when it is a number of dimensions from 1 to :data:`MAX_DIM`.

    Raises:
        ModelSpecError: with one sentence naming the range.
    """
    if not 1 <= dim <= MAX_DIM:
        raise ModelSpecError(
            f"'{spec or f'hash:{dim}'}': the hash embedder takes a whole number of dimensions "
            f"from 1 to {MAX_DIM:,}."
        )
    return dim


class HashEmbedder(BaseEmbedder):
    """Lexical embedder: word counts hashed into ``dim`` buckets (signed), then normalised.

    Deterministic across processes, instant, no model; similarity is word overlap only.
    """

    batch_size = 256

    def __init__(self, dim: int = 256) -> None:
        super().__init__()
        self.dim = check_dim(dim)
        self.model_id = f"hash:{dim}"
        self.label = f"Hashing bag-of-words ({dim}-d, lexical, no model)"

    @property
    def needs_loading(self) -> bool:
        return False

    @property
    def vectors_id(self) -> str:
        """The embedding cache's key: :attr:`model_id` and the words' version (``+cjk2``, since
        spaceless scripts hash their bigrams), so a vector cached before that is not reused."""
        return f"{self.model_id}+cjk2"

    def _load(self, progress: LoadProgress | None) -> object:
        return self.dim

    def _bucket(self, word: str) -> tuple[int, float]:
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
        return h % self.dim, 1.0 if (h >> 32) & 1 else -1.0

    def _encode(self, model: object, batch: list[str]) -> np.ndarray:
        out = np.zeros((len(batch), self.dim), dtype=np.float32)
        memo: dict[str, tuple[int, float]] = {}
        for i, text in enumerate(batch):
            for word in _WORD.findall(text.lower()) + terms.spaceless_tokens(text):
                if word not in memo:
                    memo[word] = self._bucket(word)
                j, sign = memo[word]
                out[i, j] += sign
        return out

    def _dim(self, model: object) -> int:
        return self.dim


def _build(spec: str, **_: object) -> Embedder:
    dim = spec.partition(":")[2].strip()
    if not dim:
        return HashEmbedder()
    # isdecimal and a length cap: no "²", no 10,000-digit number converted only to be refused
    if not (dim.isascii() and dim.isdecimal() and len(dim) <= 6):
        check_dim(0, spec)
    return HashEmbedder(check_dim(int(dim), spec))


HASH = EmbedderKind(
    "hash",
    "hash",
    lambda spec: spec == "hash" or spec.startswith("hash:"),
    _build,
    name="Hashing (no model)",
    label="Hashing bag-of-words (lexical, instant, no model)",
)
"""``hash`` (256 dimensions) or ``hash:DIM`` (1 to :data:`MAX_DIM`)."""
