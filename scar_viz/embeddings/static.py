"""A fast static embedder: a model2vec model, e_x = normalise(mean of x's token vectors).

``static`` is all-MiniLM-L6-v2 distilled locally by model2vec
(:mod:`scar_viz.embeddings.distill`, once, cached on disk); ``static:PATH`` loads any existing
model2vec folder. No transformer runs at encode time, only a tokenizer and a table lookup. How
much faster and how much recall it costs is measured by ``benchmarks/static_model.py`` into
:data:`MEASURED_FIGURES`, which the model picker shows when present.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from scar_viz.embeddings.base import (
    BaseEmbedder,
    Embedder,
    EmbedderKind,
    EmbeddingError,
    LoadProgress,
    ModelSpecError,
)
from scar_viz.embeddings.distill import (
    BASE_NAME,
    DEFAULT_SETTINGS,
    REQUIRED_FILES,
    DistillSettings,
    bundled_base_id,
    ensure_static_model,
    is_distilled,
    is_model2vec_folder,
)
from scar_viz.runtime import devices
from scar_viz.runtime.devices import DeviceChoice

MEASURED_FIGURES = Path(__file__).resolve().parents[2] / "benchmarks/results/static_model.json"
"""Where ``python benchmarks/static_model.py`` writes what it measured."""

MEASURE_COMMAND = "python benchmarks/static_model.py"


def _folder_digest(path: Path) -> str:
    h = hashlib.sha256()
    for name in REQUIRED_FILES:
        with open(path / name, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()[:16]


def load_static_model(path: str | Path):
    """``model2vec.StaticModel`` from a local folder (never the network).

    Raises:
        EmbeddingError: when the folder is missing or not a readable model2vec model.
    """
    p = Path(path)
    if not is_model2vec_folder(p):
        raise EmbeddingError(
            f"'{p}' is not a model2vec folder (it needs {', '.join(REQUIRED_FILES)})."
        )
    try:
        from model2vec import StaticModel
    except ImportError as exc:
        raise EmbeddingError("The model2vec package is not installed.") from exc
    try:
        return StaticModel.from_pretrained(p, force_download=False)
    except Exception as exc:  # safetensors, tokenizers and JSON errors have no common base
        raise EmbeddingError(
            f"Could not load the static model in '{p}' ({type(exc).__name__})."
        ) from exc


class StaticEmbedder(BaseEmbedder):
    """A model2vec static model.

    With ``path=None`` the model is the distilled default (distilled on first :meth:`load`, on
    the device ``device`` resolves to); otherwise an existing model2vec folder. Encoding is a
    table lookup in numpy, on the CPU. Loading is lazy and thread-safe.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        settings: DistillSettings = DEFAULT_SETTINGS,
        batch_size: int = 1024,
        device: DeviceChoice | None = None,
    ) -> None:
        super().__init__()
        self.path = Path(path).expanduser().resolve() if path is not None else None
        self.settings = settings
        self.batch_size = batch_size
        self.device = device or devices.current()
        if self.path is None:
            dims = settings.pca_dims or 384
            self.model_id = f"static:{bundled_base_id()}:{settings.tag}"
            self.label = f"Fast static model (model2vec from {BASE_NAME}, {dims}-d)"
        else:
            if not is_model2vec_folder(self.path):
                raise ModelSpecError(
                    f"'{path}' is not a model2vec folder (it needs {', '.join(REQUIRED_FILES)})."
                )
            self.model_id = f"static:{self.path}#{_folder_digest(self.path)}"
            self.label = f"Static model2vec: {self.path.name}"

    @property
    def needs_distillation(self) -> bool:
        """True when the first :meth:`load` will distil (minutes, once)."""
        return self.path is None and self.needs_loading and not is_distilled(self.settings)

    @property
    def model(self):
        """The loaded ``StaticModel`` (distils and loads it on first access)."""
        return self.load()

    def _load(self, progress: LoadProgress | None) -> object:
        folder = self.path or ensure_static_model(
            progress, settings=self.settings, device=self.device
        )
        return load_static_model(folder)

    def _encode(self, model, batch: list[str]) -> np.ndarray:
        return model.encode(
            batch, show_progress_bar=False, normalize=True, use_multiprocessing=False
        )

    def _dim(self, model) -> int:
        return model.dim


def static_embedder(spec: str, device: DeviceChoice | None = None) -> StaticEmbedder:
    """``static`` (the distilled default, distilled on ``device``) or ``static:PATH`` (an
    existing model2vec folder).

    Raises:
        ModelSpecError: for an empty path or a folder that is not a model2vec model.
    """
    spec = spec.strip()
    if spec == "static":
        return StaticEmbedder(device=device)
    if not spec.startswith("static:"):
        raise ModelSpecError(f"'{spec}' is not a static model spec; use 'static' or 'static:PATH'.")
    path = spec[len("static:") :].strip()
    if not path:
        raise ModelSpecError("Give the path of a model2vec folder after 'static:'.")
    return StaticEmbedder(path)


def _build(spec: str, *, device: DeviceChoice | None = None, **_: object) -> Embedder:
    return static_embedder(spec, device)


STATIC = EmbedderKind(
    "static",
    "static",
    lambda spec: spec == "static" or spec.startswith("static:"),
    _build,
    name="Static (model2vec)",
    label="Fast static model (model2vec, distilled locally from the default)",
    local_name=lambda spec: None if spec == "static" else spec.removeprefix("static:").strip(),
)
"""``static`` (the distilled default) or ``static:PATH`` (a model2vec folder)."""


def measured_figures(path: str | Path | None = None) -> dict[str, object] | None:
    """What ``benchmarks/static_model.py`` last measured, or None when it has not been run."""
    try:
        figures = json.loads(Path(path or MEASURED_FIGURES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return figures if isinstance(figures, dict) else None


def static_model_summary(figures: dict[str, object] | None = None) -> str:
    """One sentence for the model picker: the measured speed-up and recall cost, or where to
    measure them when nothing was measured."""
    f = figures if figures is not None else measured_figures()
    try:
        if f is None:
            raise KeyError("no figures")
        return (
            f"Measured {f['measured']} on {f['corpus']}: "
            f"{f['throughput_ratio']:,.0f}× faster to embed than the default "
            f"({f['throughput_static']:,.0f} against {f['throughput_default']:,.1f} chunks/s), "
            f"at a recall cost: Recall@{f['k']} {f['recall_topk_static']:.2f} against "
            f"{f['recall_topk_default']:.2f} (top-k) and {f['recall_scar_static']:.2f} against "
            f"{f['recall_scar_default']:.2f} (SCAR). Distilled locally on first use, then "
            "cached on disk."
        )
    except (TypeError, KeyError, ValueError):
        return (
            "Distilled locally on first use, then cached on disk. No measured speed or recall "
            f"figures on this installation: run `{MEASURE_COMMAND}` to measure them."
        )
