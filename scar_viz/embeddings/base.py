"""The embedder interface, its error, the :class:`EmbedderKind` entry each adapter module
declares for the registry, and the one batch-encode loop every adapter shares.

``Embedder.embed(texts) -> np.ndarray`` of shape (len(texts), d), rows L2-normalised.
``load()`` loads the model (lazily, once, thread-safe); ``needs_loading`` says whether the
first ``embed`` would load something slow enough for a spinner.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from scar_viz.common.errors import UserError
from scar_viz.common.vectors import normalize

Progress = Callable[[int, int], None]
"""Called as progress(done, total) while embedding."""

LoadProgress = Callable[[int, int, str], None]
"""Called as progress(done, total, stage) while loading (the static model's distillation)."""


class EmbeddingError(UserError, RuntimeError):
    """An embedder failed; the message is meant for the user and never holds a secret."""


class ModelSpecError(UserError, ValueError):
    """A model spec or path that names no usable embedder."""


class Embedder(Protocol):
    """Anything with a stable ``model_id`` (the cache key), a ``label``, ``load`` and ``embed``."""

    model_id: str
    label: str

    @property
    def needs_loading(self) -> bool: ...

    @property
    def needs_distillation(self) -> bool: ...

    def load(self, progress: LoadProgress | None = None) -> object: ...

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...


Build = Callable[..., Embedder]
"""``build(spec, *, base_url=None, api_key=None, device=None) -> Embedder``: the embedder a
spec names (``base_url`` and ``api_key`` reach an endpoint's adapter, ``device`` a local
model's)."""


def _names_no_model(spec: str) -> str | None:
    return None


@dataclass(frozen=True)
class EmbedderKind:
    """One kind of embedder as the registry lists it (:mod:`scar_viz.embeddings.registry`).

    Attributes:
        key: the id the sidebar's model select keeps in the address (``sentence-transformers``).
        spec: how a ``--model`` spec names it, as the command line's help writes it
            (``st:NAME_OR_PATH``).
        matches: whether a (stripped) spec names this kind.
        build: the embedder of a spec of this kind (:data:`Build`).
        name: the short name the sidebar's select shows ("": not offered there).
        label: the longer description the sidebar shows under the select.
        local_name: the part of a spec that names a model on this machine (a folder or a hub
            name, to be looked up where the server allows), or None when the spec names none
            (the embedded default, hashing, an endpoint).
    """

    key: str
    spec: str
    matches: Callable[[str], bool] = field(repr=False)
    build: Build = field(repr=False)
    name: str = ""
    label: str = ""
    local_name: Callable[[str], str | None] = field(default=_names_no_model, repr=False)


def batches(n: int, size: int) -> list[tuple[int, int]]:
    """[(lo, hi), …] covering range(n) in steps of ``size``."""
    return [(i, min(n, i + size)) for i in range(0, n, size)]


class BaseEmbedder:
    """Lazy, thread-safe loading and the batch-encode loop; adapters fill in three methods.

    ``_load(progress)`` returns the model, ``_encode(model, batch)`` the rows of one batch,
    ``_dim(model)`` the embedding size (for an empty input).
    """

    model_id: str
    label: str
    batch_size: int = 32

    def __init__(self) -> None:
        self._model: object | None = None
        self._lock = threading.Lock()

    @property
    def needs_loading(self) -> bool:
        """True until the model is loaded."""
        return self._model is None

    @property
    def needs_distillation(self) -> bool:
        """True when the first :meth:`load` builds the model first (the static default)."""
        return False

    def load(self, progress: LoadProgress | None = None) -> object:
        """The model, loaded on first call; ``progress`` sees slow loading steps."""
        with self._lock:
            if self._model is None:
                self._model = self._load(progress)
            return self._model

    def lengths(self, texts: Sequence[str]) -> list[int]:
        """What each text costs to encode, for grouping texts of like cost into one batch
        (a batch is padded to its longest member). Characters here, as
        ``SentenceTransformer.encode`` orders its input; an adapter that can count its model's
        tokens counts those."""
        return [len(t) for t in texts]

    def _load(self, progress: LoadProgress | None) -> object:
        raise NotImplementedError

    def _encode(self, model: object, batch: list[str]) -> np.ndarray:
        raise NotImplementedError

    def _dim(self, model: object) -> int:
        raise NotImplementedError

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Rows of unit-norm float32 embeddings, encoded in batches of ``batch_size``."""
        return self._embed(texts, progress, self._encode)

    def _embed(
        self,
        texts: Sequence[str],
        progress: Progress | None,
        encode: Callable[[object, list[str]], np.ndarray],
    ) -> np.ndarray:
        model = self.load()
        parts: list[np.ndarray] = []
        for lo, hi in batches(len(texts), self.batch_size):
            part = np.asarray(encode(model, list(texts[lo:hi])), dtype=np.float32)
            if parts and part.shape[1] != parts[0].shape[1]:
                raise EmbeddingError("The model changed the embedding size between batches.")
            parts.append(part)
            if progress:
                progress(hi, len(texts))
        if not parts:
            return np.zeros((0, self._dim(model)), dtype=np.float32)
        return normalize(np.concatenate(parts), np.float32)
