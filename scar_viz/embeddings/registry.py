"""Every kind of embedder, listed once in the order the sidebar offers them, and the one call
that builds an embedder from a user-facing spec (the sidebar's choice, ``--model``).

Each adapter module declares its :class:`~scar_viz.embeddings.base.EmbedderKind` entries (id,
spec, how it matches, how it builds, what the sidebar says); :data:`EMBEDDERS` collects them
here, and the sidebar's options (:func:`sidebar_models`), the command line's ``--model`` help
(:data:`SPEC_HELP`) and :func:`make_embedder` all read it.
"""

from __future__ import annotations

from scar_viz.embeddings import hashing, openai_compat, sentence_transformers, static
from scar_viz.embeddings.base import Embedder, EmbedderKind, ModelSpecError
from scar_viz.embeddings.prompts import Prompts, with_prompts
from scar_viz.runtime.devices import DeviceChoice

DEFAULT_MODEL = "default"

EMBEDDERS: dict[str, EmbedderKind] = {
    k.key: k
    for k in (
        sentence_transformers.DEFAULT,
        static.STATIC,
        hashing.HASH,
        sentence_transformers.NAMED,
        openai_compat.OPENAI,
        sentence_transformers.FOLDER,
    )
}
"""Kind id -> its entry, in the sidebar's order; a spec is matched against them in this order
(a bare folder last)."""

SPEC_HELP = " | ".join(k.spec for k in EMBEDDERS.values())
"""What ``--model`` takes: ``default | static | hash | st:NAME_OR_PATH | openai:MODEL | a
folder``."""


def sidebar_models() -> dict[str, str]:
    """Kind id -> the short name the sidebar's model select shows, for the kinds it offers."""
    return {k.key: k.name for k in EMBEDDERS.values() if k.name}


def embedder_kind(spec: str) -> EmbedderKind | None:
    """The kind a stripped ``spec`` names, or None when it names none."""
    return next((k for k in EMBEDDERS.values() if k.matches(spec)), None)


def make_embedder(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    device: DeviceChoice | None = None,
    query_prompt: str | None = None,
    doc_prompt: str | None = None,
) -> Embedder:
    """Build an embedder from a user-facing spec.

    ``default`` (embedded all-MiniLM-L6-v2), ``hash`` or ``hash:DIM``, ``st:NAME_OR_PATH``,
    ``openai:MODEL`` (``base_url``/``api_key`` apply), ``static`` or ``static:PATH``
    (model2vec), or a bare local folder path. ``device`` places a local transformer (and the
    static model's distillation); default: the choice in force
    (:func:`scar_viz.runtime.devices.current`). ``query_prompt`` and ``doc_prompt`` go before each
    question and each chunk (:mod:`scar_viz.embeddings.prompts`); None keeps the model's own (a
    sentence-transformers config's ``prompts``), "" sets none.

    Raises:
        ModelSpecError: (a ValueError) when the spec names no embedder.
    """
    spec = (spec or DEFAULT_MODEL).strip()
    kind = embedder_kind(spec)
    if kind is None:
        named = ", ".join(f"'{k.spec}'" for k in EMBEDDERS.values() if k.key != "folder")
        raise ModelSpecError(f"Unknown model '{spec}'. Use {named} or a local model folder.")
    embedder = kind.build(spec, base_url=base_url, api_key=api_key, device=device)
    own = getattr(embedder, "config_prompts", None)
    prompts = own() if callable(own) else Prompts()
    return with_prompts(embedder, prompts.merged(query_prompt, doc_prompt))
