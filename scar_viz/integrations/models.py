"""scar-viz's models as the adapters use them: one embedder from a ``--model`` spec, behind the
same disk cache the command line uses, returning plain float lists for the frameworks.

The vectors are :func:`~scar_viz.embeddings.embed_cached`'s, so a chunk embedded here and by
``python -m scar_viz`` (with the same cache) is the same vector, bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scar_viz.embeddings import Embedder, EmbeddingCache, embed_cached, make_embedder
from scar_viz.embeddings.prompts import query_side
from scar_viz.runtime.endpoints import EMBEDDING_KEY_NAMES, server_key

CacheSpec = bool | str | Path | EmbeddingCache | None
"""True: the default cache file (as the command line); a path: that file or folder; False or
None: no cache; or a cache already open."""


class ScarModel:
    """An embedder and its cache.

    Args:
        model: a ``--model`` spec (``default``, ``hash``, ``static``, ``st:NAME``,
            ``openai:MODEL``, a folder) or an embedder already built. An endpoint's key is read
            from the environment (``OPENAI_API_KEY``), never passed in.
        base_url: an OpenAI-compatible endpoint's base URL.
        cache: :data:`CacheSpec`.
    """

    def __init__(
        self,
        model: str | Embedder = "default",
        base_url: str | None = None,
        cache: CacheSpec = True,
    ) -> None:
        if isinstance(model, str):
            model = make_embedder(model, base_url=base_url, api_key=server_key(EMBEDDING_KEY_NAMES))
        self.embedder: Embedder = model
        self.cache = open_cache(cache)

    @property
    def model_id(self) -> str:
        return self.embedder.model_id

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """(n, d) float32, as the command line embeds ``texts``."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return embed_cached(self.embedder, list(texts), self.cache).vectors

    def lists(self, texts: Sequence[str]) -> list[list[float]]:
        """:meth:`vectors` as lists of Python floats (exact: every float32 is a float)."""
        return self.vectors(texts).astype(np.float64).tolist()

    def query_list(self, question: str) -> list[float]:
        """A question's vector as a list, through the model's query prompt
        (:func:`scar_viz.embeddings.prompts.query_side`)."""
        vector = embed_cached(query_side(self.embedder), [question], self.cache).vectors[0]
        return vector.astype(np.float64).tolist()


def open_cache(cache: CacheSpec) -> EmbeddingCache | None:
    """The cache :data:`CacheSpec` names."""
    if cache is None or cache is False:
        return None
    if isinstance(cache, EmbeddingCache):
        return cache
    return EmbeddingCache(None if cache is True else cache)
