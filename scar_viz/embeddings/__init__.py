"""Stage 3: embedders behind one small interface, and the on-disk embedding cache.

One adapter a module over :mod:`~scar_viz.embeddings.base` (the protocol, the error, the
batch loop): the embedded offline default and any sentence-transformers model
(``sentence_transformers``), an OpenAI-compatible endpoint (``openai_compat``), a static
model2vec model (``static``, distilled by ``distill``) and a hashing bag-of-words embedder
(``hashing``), each declaring its entry in the registry (``registry``, which also builds an
embedder from a spec); the disk cache (``cache``). The one normaliser
(:mod:`scar_viz.common.vectors`) and the speed each model showed (:mod:`scar_viz.runtime.speed`,
also the sentence splitter's) sit below the stages, since chunking and documents use them too;
``speed`` is reachable from here as well. Heavy imports happen inside the adapters, on first use.
"""

from __future__ import annotations

from scar_viz.embeddings.base import (
    BaseEmbedder,
    Embedder,
    EmbeddingError,
    LoadProgress,
    ModelSpecError,
    Progress,
)
from scar_viz.embeddings.cache import EmbeddingCache, EmbedResult, embed_cached, text_key
from scar_viz.embeddings.hashing import HashEmbedder
from scar_viz.embeddings.openai_compat import OPENAI_DEFAULT_MODEL, OpenAIEmbedder
from scar_viz.embeddings.registry import (
    DEFAULT_MODEL,
    EMBEDDERS,
    SPEC_HELP,
    embedder_kind,
    make_embedder,
    sidebar_models,
)
from scar_viz.embeddings.sentence_transformers import (
    SentenceTransformerEmbedder,
    default_embedder,
    default_model_path,
)
from scar_viz.embeddings.static import StaticEmbedder, static_embedder
from scar_viz.runtime import speed
from scar_viz.runtime.sqlite_cache import default_cache_dir

__all__ = [
    "DEFAULT_MODEL",
    "EMBEDDERS",
    "SPEC_HELP",
    "OPENAI_DEFAULT_MODEL",
    "BaseEmbedder",
    "EmbedResult",
    "Embedder",
    "EmbeddingCache",
    "EmbeddingError",
    "HashEmbedder",
    "LoadProgress",
    "ModelSpecError",
    "OpenAIEmbedder",
    "Progress",
    "SentenceTransformerEmbedder",
    "StaticEmbedder",
    "default_cache_dir",
    "default_embedder",
    "default_model_path",
    "embed_cached",
    "embedder_kind",
    "make_embedder",
    "sidebar_models",
    "speed",
    "static_embedder",
    "text_key",
]
