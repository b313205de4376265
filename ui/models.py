"""The models a visitor names in the app (an embedding model, a second model, a cross-encoder),
held to the operator's models root (:mod:`scar_viz.runtime.models_root`): every name is resolved
there before anything loads, and every refusal or failed load is the same one message.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from scar_viz.embeddings import (
    DEFAULT_MODEL,
    EMBEDDERS,
    Embedder,
    ModelSpecError,
    SentenceTransformerEmbedder,
    StaticEmbedder,
    embedder_kind,
    make_embedder,
)
from scar_viz.policies.rerank import RerankerStatus, reranker_status
from scar_viz.runtime.devices import DeviceChoice
from scar_viz.runtime.models_root import (
    ROOT_ENV,
    ROOT_SECRET,
    ModelRefused,
    models_under,
    refusal,
    resolve_model,
)
from ui.operator import operator_folder


def models_root() -> Path | None:
    """The folder local models may load from (environment first, then ``st.secrets``);
    None when the operator named none (then only cached hub models load)."""
    return operator_folder(ROOT_ENV, ROOT_SECRET)


def models_help() -> str:
    """What a model field takes on this server: the folders under the models root (named),
    or hub models already in the local cache."""
    root = models_root()
    cached = "a hub name (org/model) already in this machine's Hugging Face cache"
    if root is None or not root.is_dir():
        return (
            f"Give {cached}; nothing is downloaded. Local folders load only under the models "
            f"root the operator names ({ROOT_ENV}, or {ROOT_SECRET} in .streamlit/secrets.toml)."
        )
    here = models_under(root)
    listed = f" Folders there: {', '.join(here)}." if here else " It holds no folder yet."
    return f"A folder under the models root, or {cached}; nothing is downloaded.{listed}"


def app_embedder(
    spec: str,
    base_url: str,
    api_key: str,
    root: Path | None,
    device: DeviceChoice | None = None,
) -> Embedder:
    """The embedder for a spec from the sidebar or a page: ``default``, ``static``, ``hash``
    and ``openai:`` as :func:`~scar_viz.embeddings.make_embedder` makes them; any other (a
    sentence-transformers name or path, ``static:PATH``, a bare folder) only from a folder
    under ``root`` or the local hub cache, named by what was typed. ``device`` places a local
    model (default: the choice in force, :func:`scar_viz.runtime.devices.current`).

    Raises:
        ModelRefused: the name resolves to nothing this server loads (:func:`refusal`).
        ModelSpecError: a malformed ``hash:`` spec.
    """
    spec = (spec or "").strip() or DEFAULT_MODEL
    kind = embedder_kind(spec)
    typed = spec if kind is None else kind.local_name(spec)
    if typed is None:  # names no model on this machine
        return make_embedder(
            spec, base_url=base_url or None, api_key=api_key or None, device=device
        )
    static = kind is EMBEDDERS["static"]
    folder, under_root = resolve_model(typed, root)
    name = _shown_id(typed, folder, root) if under_root else typed
    if static:
        try:
            embedder = StaticEmbedder(folder, device=device)
        except ModelSpecError:
            raise ModelRefused(refusal(typed)) from None
        # its id names the folder by the root, never by the server's path (the id is shown)
        embedder.model_id = embedder.model_id.replace(str(embedder.path), name)
        return embedder
    return SentenceTransformerEmbedder(
        str(folder),
        label=f"sentence-transformers: {typed}",
        model_id=f"st:{name}",
        failure=refusal(typed),
        device=device,
    )


def _shown_id(typed: str, folder: Path, root: Path | None) -> str:
    """How a model under the root is named in its id (ids are shown on some pages and key
    the disk cache): its path below the root, and a digest of its files' names, sizes and
    modification times, so a different model later at the same place gets another id."""
    base = root.resolve() if root is not None else folder.parent
    relative = folder.relative_to(base).as_posix() if folder.is_relative_to(base) else typed
    stamp = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        info = path.stat()
        stamp.update(f"{path.relative_to(folder)}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return f"models-root/{relative}#{stamp.hexdigest()[:12]}"


def app_reranker(typed: str) -> tuple[RerankerStatus, str]:
    """Whether the cross-encoder a visitor typed loads here, and the folder it loads from
    ("" when it does not). A refusal and a failed load read the same (:func:`refusal`)."""
    typed = (typed or "").strip()
    try:
        folder, _ = resolve_model(typed, models_root())
    except ModelRefused as exc:
        return RerankerStatus(typed, False, str(exc)), ""
    status = reranker_status(typed, load=True, path=str(folder))
    if not status.available:
        return RerankerStatus(typed, False, refusal(typed)), ""
    return status, str(folder)
