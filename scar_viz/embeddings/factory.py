"""Choosing an embedder from a user-facing spec (the sidebar's choice, ``--model``)."""

from __future__ import annotations

from pathlib import Path

from scar_viz.devices import DeviceChoice
from scar_viz.embeddings.base import Embedder, ModelSpecError
from scar_viz.embeddings.hashing import HashEmbedder
from scar_viz.embeddings.openai_compat import OPENAI_DEFAULT_MODEL, OpenAIEmbedder
from scar_viz.embeddings.sentence_transformers import SentenceTransformerEmbedder, default_embedder
from scar_viz.embeddings.static import static_embedder

DEFAULT_MODEL = "default"


def make_embedder(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    device: DeviceChoice | None = None,
) -> Embedder:
    """Build an embedder from a user-facing spec.

    ``default`` (embedded all-MiniLM-L6-v2), ``hash`` or ``hash:DIM``, ``st:NAME_OR_PATH``,
    ``openai:MODEL`` (``base_url``/``api_key`` apply), ``static`` or ``static:PATH``
    (model2vec), or a bare local folder path. ``device`` places a local transformer (and the
    static model's distillation); default: the choice in force (:func:`scar_viz.devices.current`).

    Raises:
        ModelSpecError: (a ValueError) when the spec names no embedder.
    """
    spec = (spec or DEFAULT_MODEL).strip()
    if spec == DEFAULT_MODEL:
        return default_embedder(device)
    if spec == "hash" or spec.startswith("hash:"):
        _, _, dim = spec.partition(":")
        if dim and not dim.isdigit():
            raise ModelSpecError(f"'{spec}': the hash embedder takes a whole number of dimensions.")
        return HashEmbedder(int(dim) if dim else 256)
    if spec.startswith("st:"):
        name = spec[3:].strip()
        if not name:
            raise ModelSpecError("Give a sentence-transformers model name or path after 'st:'.")
        return SentenceTransformerEmbedder(name, device=device)
    if spec.startswith("openai:"):
        return OpenAIEmbedder(
            spec[7:].strip() or OPENAI_DEFAULT_MODEL, base_url=base_url, api_key=api_key
        )
    if spec == "static" or spec.startswith("static:"):
        return static_embedder(spec, device)
    if Path(spec).expanduser().is_dir():
        return SentenceTransformerEmbedder(str(Path(spec).expanduser()), device=device)
    raise ModelSpecError(
        f"Unknown model '{spec}'. Use 'default', 'hash', 'static', 'st:NAME_OR_PATH', "
        "'openai:MODEL' or a local model folder."
    )
