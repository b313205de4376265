"""Open an index: a store made by ``python -m scar_viz index``, a LlamaIndex storage folder or
a LangChain dump shown as the corpus it is, its chunks and vectors read back without
re-embedding (docs/scale.md, "In the app"; docs/integrations.md).

On a shared server a visitor must not read arbitrary server paths: only folders under the
index root the operator names (:data:`ROOT_ENV`, or ``store_root`` in ``st.secrets``) open,
after the typed path is resolved (symbolic links followed). LanceDB is imported only when a
store opens, never when the app starts; another tool's index is read as plain JSON
(:mod:`scar_viz.store.foreign`), with neither LanceDB nor that tool.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import streamlit as st

from scar_viz.common.errors import UserError
from scar_viz.embeddings import Embedder, EmbeddingError
from scar_viz.pipeline import PreparedDoc
from scar_viz.runtime.devices import model_line
from ui import keys
from ui.alerts import alert
from ui.cache import cached
from ui.loading import get_embedder, load_model
from ui.operator import operator_folder
from ui.state import URL

STORE_CHOICE = "index"
"""The Document select's id for opening an index."""
STORE_NAME = "Open an index"
ROOT_ENV = "SCAR_VIZ_STORE_ROOT"
ROOT_SECRET = "store_root"
SHOWN_STORES = 12
"""Indexes under the root named in the picker's help, at most."""
INSTALL_NOTE = (
    "Opening an index made by 'python -m scar_viz index' needs the scale extras: pip install "
    "-r requirements-scale.txt, then restart the app. LlamaIndex storage folders and LangChain "
    "dumps open without them."
)
ENABLE_NOTE = (
    "Opening an index is off on this server. The operator enables it by naming the folder "
    f"that holds the indexes: the environment variable {ROOT_ENV}, or {ROOT_SECRET} in "
    ".streamlit/secrets.toml; only indexes under it open."
)


class OutsideRoot(ValueError):
    """A typed path that is not an index folder under the root; the message says why."""


def store_root() -> Path | None:
    """The folder indexes may be opened from (environment first, then ``st.secrets``); None
    when the operator named none."""
    return operator_folder(ROOT_ENV, ROOT_SECRET)


def extras_installed() -> bool:
    """Whether LanceDB can be imported (looked up, not imported)."""
    return importlib.util.find_spec("lancedb") is not None


def resolve_under(root: Path, typed: str) -> Path:
    """The folder ``typed`` names (relative to ``root``, or absolute), resolved.

    Raises:
        OutsideRoot: a URI, a path that resolves outside ``root``, or no folder (nor a
            LangChain dump, a ``.json`` file) there.
    """
    typed = typed.strip()
    if "://" in typed:
        raise OutsideRoot("Only folders under the index root open here, not URIs.")
    base = root.resolve()
    path = (base / typed).resolve()
    if not path.is_relative_to(base):
        raise OutsideRoot("Only indexes under the index root this server names open here.")
    if not path.is_dir() and not (path.is_file() and path.suffix.lower() == ".json"):
        raise OutsideRoot(f"There is no folder '{typed}' under the index root.")
    return path


def under_root(message: str, path: str) -> str:
    """``message`` with the resolved folder ``path`` named as the visitor named it: relative
    to the index root ("." for the root itself), never the server's absolute path."""
    root = store_root()
    if root is None:
        return message
    try:
        shown = Path(path).relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        shown = Path(path).name
    return message.replace(path, shown)


def stores_under(root: Path, limit: int = SHOWN_STORES) -> list[str]:
    """Indexes under ``root`` (two levels deep), relative to it: folders that hold a store or a
    LlamaIndex storage, and LangChain dumps."""
    from scar_viz.store.other_tools import foreign_kind

    marks = [p.parent for p in root.glob("meta.lance")] + [
        p.parent for p in root.glob("*/meta.lance")
    ]
    marks += [p.parent for p in root.glob("docstore.json")]
    marks += [p.parent for p in root.glob("*/docstore.json")]
    dumps = sorted(root.glob("*.json")) + sorted(root.glob("*/*.json"))
    marks += [p for p in dumps[: 4 * limit] if foreign_kind(p)]
    found = sorted({str(p.relative_to(root)) if p != root else "." for p in marks})
    return found[:limit]


def store_picker(area) -> str | None:
    """The picker's widgets and messages in ``area`` (the sidebar); the resolved folder of the
    index to open, or None (the reason shown) when none may open."""
    root = store_root()
    if root is None or not root.is_dir():
        note = ENABLE_NOTE if root is None else f"{ROOT_ENV} names no folder on this server."
        alert(note, "caption", area)
        st.info(note)
        return None
    if not extras_installed():
        alert(INSTALL_NOTE, "caption", area)
    here = stores_under(root)
    area.text_input(
        "Index folder (under the index root)",
        key=keys.STORE_PATH,
        bind=URL,  # a link or a session file reopens the same index on this server
        placeholder=here[0] if here else "kb.lance",
        help="A store made by 'python -m scar_viz index CORPUS --store FOLDER', a LlamaIndex "
        "storage folder (storage_context.persist) or a LangChain InMemoryVectorStore dump "
        "(.json), relative to the folder the operator named. "
        + (f"Indexes there: {', '.join(here)}." if here else "It holds no index yet."),
    )
    typed = (st.session_state.get(keys.STORE_PATH) or "").strip()
    if not typed:
        alert("No index opened yet.", "caption", area)
        st.info("Type the folder of an index in the sidebar (Index folder).")
        return None
    try:
        return str(resolve_under(root, typed))
    except OutsideRoot as exc:
        alert(str(exc), "error", area)
        alert(str(exc))
        return None


def open_index(path: str, spec: str, base_url: str, slot) -> tuple[PreparedDoc, Embedder] | None:
    """The index at ``path`` prepared as the in-memory path prepares a corpus (no embedding),
    and the sidebar's embedder; None (the message in ``slot``) when the sidebar's model is
    not the index's, or the index cannot be read.

    The index's own chunking and prepending apply; its vectors mean something only under its
    model, so a question must be embedded by that model: another one is refused, by name (or,
    for another tool's index that names none, by its vectors' dimension).
    """
    from scar_viz.store import StoreError
    from scar_viz.store.other_tools import foreign_kind

    try:
        embedder = get_embedder(spec, base_url)
        t0 = time.perf_counter()
        if foreign_kind(path):
            prepared = _foreign(path, embedder, slot)
        else:
            prepared = _lance(path, embedder, slot)
        if prepared is None:
            return None
    except (UserError, StoreError, EmbeddingError, ValueError, OSError) as exc:
        with slot.container():
            alert(under_root(str(exc), path))
        return None
    st.session_state[keys.ENCODED_NOW] = 0
    st.session_state[keys.ENCODED_SECONDS] = time.perf_counter() - t0
    return prepared, embedder


def _refused(made: str, embedder: Embedder) -> Exception:
    from scar_viz.store import StoreError

    return StoreError(
        f"This index was made with {made}; the sidebar's model is {embedder.label}. Pick the "
        "index's model under Embedding model: a question must be embedded by the model that "
        "embedded the chunks."
    )


def _lance(path: str, embedder: Embedder, slot) -> PreparedDoc | None:
    """A store made by ``index`` (LanceDB), read once per version."""
    from scar_viz.store import open_store, store_meta, store_version

    meta = store_meta(path)
    if meta.model != embedder.model_id:
        raise _refused(meta.label, embedder)  # labels only: a model id may hold a server path
    if not load_model(embedder, slot):
        return None
    version = store_version(path)
    return cached(
        ("index", path, version, meta.model),
        lambda: open_store(path, meta.model, meta.config, meta.prepend),
    )


def _foreign(path: str, embedder: Embedder, slot) -> PreparedDoc | None:
    """Another tool's index (LlamaIndex storage, LangChain dump), read once per version; the
    sidebar's model must be the one it names, and make vectors of its dimension."""
    from scar_viz.store.other_tools import foreign_version, read_foreign

    version = foreign_version(path)
    store = cached(("foreign", path, version), lambda: read_foreign(path))
    if store.model is not None and store.model != embedder.model_id:
        raise _refused(store.model, embedder)
    if not load_model(embedder, slot):
        return None

    def prepare() -> PreparedDoc:
        prepared = store.prepared(embedder.model_id, embedder.label)
        probe = embedder.embed([prepared.chunks[0].text])
        store.check_dimension(probe.shape[1], embedder.label)
        return prepared

    return cached(("foreign-index", path, version, embedder.model_id), prepare)


def index_caption(prepared: PreparedDoc, summary: str, embedder: Embedder | None = None) -> str:
    """The sidebar's line for an opened index: its size, model (where the questions are
    embedded, with ``embedder``) and own chunking."""
    config = prepared.config.label + (" · prepended" if prepared.prepend else "")
    model = model_line(prepared.embedder_label, embedder)
    return (
        f"{summary} · {model} · from the index, nothing embedded (read in "
        f"{st.session_state.get(keys.ENCODED_SECONDS, 0.0):.1f} s). Chunking: the index's "
        f"own, {config}; the Chunking settings above do not apply to it."
    )
