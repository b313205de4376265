"""Which models a visitor of a shared server may name: folders under the operator's models root,
and hub names whose files are already in this machine's Hugging Face cache.

The app lets a visitor type a model (a sentence-transformers model, a static model2vec folder, a
cross-encoder for reranking), and a link or a session file can type one for them. Without a
rule, any folder of the server loads (a bi-encoder folder was loaded as a reranker), and the
different messages for a missing and an existing folder tell a stranger which server paths
exist. So the app resolves every name here first:

- a path (relative to the root, or absolute) that resolves, symbolic links followed, to a
  folder under the root (:data:`ROOT_ENV`, or ``models_root`` in the secrets) is loaded from
  there; nothing else on the disk is;
- a hub name (``org/name`` or ``name``) is looked up in the local Hugging Face cache only, and
  its snapshot folder loaded: nothing is downloaded, and a folder of the working directory
  that happens to carry the same name is never what loads;
- anything else, and any load that then fails, is one message (:func:`refusal`), word for word
  the same whether the path exists or not.

The command line is run by its own user on their own files and takes no part in this rule.
"""

from __future__ import annotations

import re
from pathlib import Path

from scar_viz.common.errors import UserError

ROOT_ENV = "SCAR_VIZ_MODELS_ROOT"
ROOT_SECRET = "models_root"
_HUB_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*(/[A-Za-z0-9][A-Za-z0-9_.\-]*)?$")


class ModelRefused(UserError, ValueError):
    """A model name the server will not load; the message is :func:`refusal`'s."""


def refusal(typed: str) -> str:
    """The one message for a model that is refused or fails to load: it names what was typed
    (cut short), never a resolved path, and is the same whatever is on the disk."""
    shown = " ".join(str(typed).split())
    shown = shown if len(shown) <= 80 else shown[:77] + "…"
    return (
        f"The model '{shown}' cannot be loaded on this server. Give a folder under the models "
        f"root the operator names ({ROOT_ENV}), or the name of a model already in this "
        "machine's Hugging Face cache (nothing is downloaded)."
    )


def hub_name(typed: str) -> bool:
    """Whether ``typed`` has the shape of a hub repository name (``org/name`` or ``name``)."""
    return bool(_HUB_NAME.match(typed)) and ".." not in typed


def _under_root(typed: str, root: Path) -> Path | None:
    """The folder ``typed`` names under ``root`` (resolved, links followed), or None."""
    if "://" in typed or typed.startswith("~"):
        return None
    try:
        base = root.resolve()
        path = (base / typed).resolve()
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL byte
        return None
    if path == base or not path.is_relative_to(base) or not path.is_dir():
        return None
    return path


def _cached_hub_folder(name: str) -> Path | None:
    """The local snapshot folder of hub model ``name``, or None; never a network request."""
    try:
        from huggingface_hub import snapshot_download

        folder = snapshot_download(name, local_files_only=True)
    except Exception:  # not cached, not a valid name, the library missing: not available
        return None
    path = Path(str(folder))
    return path if path.is_dir() else None


def resolve_model(typed: str, root: Path | None) -> tuple[Path, bool]:
    """The folder to load for the model a visitor typed, and whether it lies under ``root``
    (False: a hub model's snapshot in the local cache).

    Raises:
        ModelRefused: nothing under ``root`` (or no root) and no cached hub model by that
            name; the message is :func:`refusal`'s.
    """
    typed = (typed or "").strip()
    if typed and root is not None:
        found = _under_root(typed, root)
        if found is not None:
            return found, True
    if typed and hub_name(typed):
        cached = _cached_hub_folder(typed)
        if cached is not None:
            return cached, False
    raise ModelRefused(refusal(typed))


def models_under(root: Path, limit: int = 12) -> list[str]:
    """Folders directly under ``root`` (relative names, sorted), at most ``limit``: what the
    picker may suggest (the operator put them there to be used)."""
    try:
        names = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []
    return names[:limit]
