"""Cross-encoder reranking: widen the candidates by cosine, rerank them pointwise, keep k.

The reranker is a sentence-transformers ``CrossEncoder`` loaded on first use, from a local
folder or from the local Hugging Face cache only (this app never downloads at run time), on
the device and in the precision of the choice in force (:mod:`scar_viz.runtime.devices`).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from scar_viz.common.errors import SettingsError, UserError
from scar_viz.policies.base import PolicyResult, QueryInputs, chunk_result, policy_entry
from scar_viz.runtime import devices
from scar_viz.runtime.devices import DeviceChoice, DeviceError

DEFAULT_RERANKER = "BAAI/bge-reranker-large"
_LOCK = threading.Lock()
_WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json")

RERANK_HINT = (
    "To add a cross-encoder, run `hf download BAAI/bge-reranker-large` once on a "
    "machine with network (or copy any CrossEncoder folder here) and give its name or folder."
)
"""One line on how to make the rerank policy available."""


class RerankerError(UserError, RuntimeError):
    """The cross-encoder cannot be loaded or run; the message is meant for the user."""


@dataclass(frozen=True)
class RerankDetail:
    """The cosine candidates (rank order), their cross-encoder scores, and the k kept."""

    candidates: tuple[int, ...]
    scores: tuple[float, ...]
    kept: tuple[int, ...]
    model: str


@dataclass(frozen=True)
class RerankerStatus:
    """Whether cross-encoder ``name`` can be used offline; ``message`` says why (not)."""

    name: str
    available: bool
    message: str
    hint: str = RERANK_HINT


def _has_files(name: str) -> bool:
    local = Path(name).expanduser()
    if local.is_dir():
        return (local / "config.json").is_file() and any((local / w).is_file() for w in _WEIGHTS)
    try:
        from huggingface_hub import try_to_load_from_cache

        def cached(filename: str) -> bool:
            return isinstance(try_to_load_from_cache(name, filename), str)

        return cached("config.json") and any(cached(w) for w in _WEIGHTS)
    except Exception:  # not a valid repo id, or huggingface_hub missing: not available
        return False


def reranker_status(
    name: str = DEFAULT_RERANKER, load: bool = False, path: str = ""
) -> RerankerStatus:
    """Whether the cross-encoder ``name`` (hub name or folder) can be loaded offline; from
    ``path`` when given (a folder the caller resolved; messages still say ``name``).

    Cheap by default: it only looks for the config and weights in the folder or the local
    Hugging Face cache (no import of torch); ``load=True`` also loads it (once per process).
    Never raises.
    """
    name = (name or "").strip()
    if not name:
        return RerankerStatus(name, False, "No cross-encoder is configured.")
    if not _has_files(path or name):
        return RerankerStatus(name, False, f"The cross-encoder '{name}' is not available offline.")
    if load:
        try:
            load_reranker(name, path)
        except RerankerError as exc:
            return RerankerStatus(name, False, " ".join(str(exc).split()))
    return RerankerStatus(name, True, f"The cross-encoder '{name}' is available.")


@lru_cache(maxsize=2)
def _load(name: str, device: str, dtype: str):
    from sentence_transformers import CrossEncoder

    local = Path(name).expanduser()
    source = str(local) if local.is_dir() else name
    return CrossEncoder(source, device=device, local_files_only=True, model_kwargs={"dtype": dtype})


def load_reranker(name: str = DEFAULT_RERANKER, path: str = "", device: DeviceChoice | None = None):
    """The ``CrossEncoder`` ``name`` (hub name in the local cache, or a folder), loaded once
    per device and precision, where ``device`` (default: the choice in force) puts it; from
    ``path`` when given (a folder the caller resolved; messages still say ``name``).

    Raises:
        RerankerError: when it cannot be loaded offline, or the device is not available, with
            what to do about it.
    """
    name = (name or "").strip()
    if not name:
        raise RerankerError("Give a cross-encoder name or a local folder path.")
    try:
        placement = (device or devices.current()).resolve()
    except DeviceError as exc:
        raise RerankerError(str(exc)) from exc
    with _LOCK:
        try:
            return _load(path or name, placement.device, placement.dtype)
        except ImportError as exc:
            raise RerankerError("sentence-transformers is not installed.") from exc
        except Exception as exc:  # hub, OSError, config and weight errors all land here
            raise RerankerError(
                f"The reranker '{name}' cannot be loaded offline ({type(exc).__name__}): it is "
                "neither a local folder nor in the local Hugging Face cache. Download it once "
                "on a machine with network (huggingface-cli download NAME) or give a folder."
            ) from exc


def rerank_policy(
    inputs: QueryInputs,
    n_candidates: int | None = None,
    reranker: str = DEFAULT_RERANKER,
    batch_size: int = 16,
    reranker_path: str = "",
) -> PolicyResult:
    """Top ``n_candidates`` chunks by cos(q, c) (default 4k), reranked by the cross-encoder's
    score of (query, chunk text); the k best are kept. Time counts the reranker's scoring, not
    loading the model. ``reranker_path``: the folder to load it from when the caller resolved
    one (the notes still name ``reranker``).

    Raises:
        RerankerError: when the reranker cannot be loaded or fails.
        ValueError: when ``n_candidates`` < 1.
    """
    k = max(1, int(inputs.params.k))
    wanted = 4 * k if n_candidates is None else int(n_candidates)
    if wanted < 1:
        raise SettingsError("The number of reranking candidates must be at least 1.")
    model = load_reranker(reranker, reranker_path)
    t0 = time.perf_counter()
    candidates = inputs.top(max(wanted, k))
    pairs = [(inputs.query, inputs.chunks[i].text) for i in candidates]
    try:
        scores = (
            np.asarray(
                model.predict(pairs, batch_size=batch_size, show_progress_bar=False), dtype=float
            ).reshape(len(pairs), -1)[:, -1]
            if pairs
            else np.zeros(0)
        )
    except Exception as exc:  # tokenizer or model errors from a user-supplied folder
        raise RerankerError(f"The reranker '{reranker}' failed ({type(exc).__name__}).") from exc
    order = np.argsort(-scores, kind="stable")[:k]
    kept = [candidates[j] for j in order]
    detail = RerankDetail(tuple(candidates), tuple(float(s) for s in scores), tuple(kept), reranker)
    source = "cosine" if inputs.ranking is None else inputs.retriever
    notes = [f"reranked {len(candidates)} {source} candidates with {reranker}; kept {len(kept)}."]
    if wanted < k:
        notes.append(f"n_candidates ({wanted}) is below k; {k} candidates were used.")
    return chunk_result("rerank", inputs, kept, t0, notes=notes, detail=detail)


POLICY = policy_entry("rerank", rerank_policy)
