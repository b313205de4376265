"""Query and document prompts: one model, two sides.

Many retrieval models (E5, BGE, GTE, nomic, multilingual-e5) are trained with a prompt before
each text, one for questions and one for passages ("query: " and "passage: " for E5).
sentence-transformers keeps them in the model's ``config_sentence_transformers.json``
(``prompts``); a model used without them is used wrong, silently.

:func:`with_prompts` wraps an embedder in a :class:`PromptedEmbedder`: its ``embed`` gives the
document side (chunks, sentences: the document prompt), and :func:`query_side` of it the
question side (the query prompt). A sentence-transformers model receives the prompt as
``encode(..., prompt=...)`` (so a model whose pooling leaves the prompt out does so); any other
embedder receives ``prompt + text``. Both sides carry one name, the model's with its prompts
(:func:`prompted_id`), shown wherever the model is named; each side's vectors are cached under
the model's cache key and the prompt that side applies (:attr:`PromptedEmbedder.vectors_id`),
so a chunk embedded as a passage is never read back as a question, nor a vector without its
prompt as one with it. Without prompts the embedder is returned as it is.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scar_viz.embeddings.base import Embedder, LoadProgress, Progress

DOCUMENT_NAMES = ("document", "passage", "corpus")
"""The names a sentence-transformers config gives its document prompt, in the order tried."""


@dataclass(frozen=True)
class Prompts:
    """The text put before each question (``query``) and each chunk (``document``)."""

    query: str = ""
    document: str = ""

    def __bool__(self) -> bool:
        return bool(self.query or self.document)

    def merged(self, query: str | None, document: str | None) -> Prompts:
        """These prompts with ``query`` / ``document`` put in where given (None: keep)."""
        return Prompts(
            self.query if query is None else query,
            self.document if document is None else document,
        )


def config_prompts(prompts: dict[str, Any] | None) -> Prompts:
    """The query and document prompts in a sentence-transformers ``prompts`` mapping: ``query``,
    and the first of :data:`DOCUMENT_NAMES` present."""
    found = {str(k): str(v) for k, v in (prompts or {}).items() if isinstance(v, str)}
    document = next((found[n] for n in DOCUMENT_NAMES if n in found), "")
    return Prompts(found.get("query", ""), document)


def prompted_id(model_id: str, prompts: Prompts) -> str:
    """The model's name with its prompts, e.g. ``st:e5 [query "query: ", document "passage: "]``."""
    if not prompts:
        return model_id
    shown = [
        f"{side} {json.dumps(text, ensure_ascii=False)}"
        for side, text in (("query", prompts.query), ("document", prompts.document))
        if text
    ]
    return f"{model_id} [{', '.join(shown)}]"


class PromptedEmbedder:
    """One side of a model with prompts: ``embed`` puts :attr:`prompt` before each text.

    Attributes:
        inner: the embedder without prompts (both sides share it, and its loaded model).
        prompts: both prompts; ``side`` is "document" or "query".
    """

    def __init__(self, inner: Embedder, prompts: Prompts, side: str = "document") -> None:
        self.inner = inner
        self.prompts = prompts
        self.side = side
        self.prompt = prompts.query if side == "query" else prompts.document
        self.model_id = prompted_id(inner.model_id, prompts)
        self.label = prompted_id(inner.label, prompts)

    def __getattr__(self, name: str) -> Any:  # device, placement, batch_size, name_or_path…
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def queries(self) -> PromptedEmbedder:
        """The question side of this model (the query prompt)."""
        return PromptedEmbedder(self.inner, self.prompts, "query")

    @property
    def vectors_id(self) -> str:
        """The cache's key for this side's vectors: the model's own and the prompt applied."""
        base = getattr(self.inner, "vectors_id", None) or self.inner.model_id
        return (
            f"{base}+prompt:{json.dumps(self.prompt, ensure_ascii=False)}" if self.prompt else base
        )

    @property
    def needs_loading(self) -> bool:
        return self.inner.needs_loading

    @property
    def needs_distillation(self) -> bool:
        return self.inner.needs_distillation

    def load(self, progress: LoadProgress | None = None) -> object:
        return self.inner.load(progress)

    def lengths(self, texts: Sequence[str]) -> list[int]:
        measure = getattr(self.inner, "lengths", None)
        shown = [self.prompt + t for t in texts]
        return measure(shown) if callable(measure) else [len(t) for t in shown]

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """(n, d) unit rows of ``texts`` with this side's prompt."""
        if not self.prompt:
            return self.inner.embed(texts, progress)
        prompted = getattr(self.inner, "embed_prompted", None)
        if callable(prompted):
            return prompted(texts, self.prompt, progress)
        return self.inner.embed([self.prompt + t for t in texts], progress)


def with_prompts(embedder: Embedder, prompts: Prompts) -> Embedder:
    """``embedder`` as its document side with ``prompts``; itself when there are none."""
    if isinstance(embedder, PromptedEmbedder):
        embedder = embedder.inner
    return PromptedEmbedder(embedder, prompts) if prompts else embedder


def set_prompts(embedder: Embedder, query: str | None, document: str | None) -> Embedder:
    """``embedder`` with its prompts (the model's own, or none) overridden where ``query`` /
    ``document`` are given (None: keep; "": none)."""
    own = embedder.prompts if isinstance(embedder, PromptedEmbedder) else Prompts()
    return with_prompts(embedder, own.merged(query, document))


def query_side(embedder: Embedder) -> Embedder:
    """The embedder questions go through: the query side of a :class:`PromptedEmbedder`, any
    other embedder itself."""
    return embedder.queries if isinstance(embedder, PromptedEmbedder) else embedder
