"""Files cut exactly as scar-viz cuts them, as records a framework's chunk can be made from.

A document, a folder, a glob or a ``.zip`` is read and chunked by the same functions the
command line uses (:func:`~scar_viz.documents.collect.collect_path`,
:func:`~scar_viz.documents.corpus.join_documents`,
:func:`~scar_viz.chunking.config.chunk_document`): every file is cut on its own, and each chunk
keeps its file (``source``), its index within that file and its offsets in the file's own text.
A chunk's id is ``f"{source}:{index}"`` (:func:`chunk_id`), which is how the adapters fetch a
neighbour from a vector store. No framework is imported here.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.common.errors import SettingsError
from scar_viz.documents.collect import collect_path, describe_skipped
from scar_viz.documents.corpus import join_documents, local_span, part_document
from scar_viz.documents.reading import Document, document_from_text
from scar_viz.embeddings import Embedder, EmbeddingCache
from scar_viz.integrations.models import ScarModel
from scar_viz.pipeline import embed_function

MODEL_KEY = "embedding_model"
"""The chunk metadata that names the model embedding it (read back by
:mod:`scar_viz.store.foreign` when scar-viz opens the store)."""

TEXT_NAME = "text"
"""The source name of a text given as a string rather than a file."""


@dataclass(frozen=True)
class FileChunk:
    """One chunk: ``text == file_text[start:end]`` of file ``source``, the ``index``-th chunk
    of that file."""

    source: str
    index: int
    start: int
    end: int
    text: str

    @property
    def id(self) -> str:
        return chunk_id(self.source, self.index)


def chunk_id(source: str, index: int) -> str:
    """The id of chunk ``index`` of file ``source``: ``f"{source}:{index}"``."""
    return f"{source}:{index}"


def read_files(path_or_text: str | Path) -> Document:
    """The document or corpus named by ``path_or_text``.

    A :class:`~pathlib.Path` (a file, a folder, a ``.zip`` or a glob such as
    ``Path("docs/**/*.md")``) or a string naming an existing file or folder is read as the
    command line reads DOC; any other string is the text itself, named :data:`TEXT_NAME`.
    Files skipped in a folder are named in one warning each.

    Raises:
        DocumentError: nothing readable there (one sentence).
    """
    if isinstance(path_or_text, Path) or Path(path_or_text).exists():
        collected = collect_path(str(path_or_text))
        for line in describe_skipped(collected):
            warnings.warn(line, stacklevel=3)
        return join_documents(collected.documents)
    return document_from_text(TEXT_NAME, str(path_or_text))


def file_texts(document: Document) -> dict[str, str]:
    """Each file's own text by its source name, in corpus order."""
    return {p.path: part_document(document, i).text for i, p in enumerate(document.parts)}


def split_files(
    document: Document,
    config: ChunkingConfig,
    embedder: Embedder | None = None,
    cache: EmbeddingCache | None = None,
) -> list[FileChunk]:
    """``document``'s chunks under ``config``, file by file, in corpus order.

    Args:
        embedder: the model, for a chunker that needs one (``semantic``), embedding through
            ``cache``.

    Raises:
        SettingsError: an invalid chunking, or the semantic chunker without a model.
    """
    config.validate()
    if config.needs_embed and embedder is None:
        raise SettingsError(f"The {config.chunker} chunker needs a model: give model=….")
    embed = embed_function(embedder, cache) if embedder is not None else None
    chunks = chunk_document(document, config, embed)
    out: list[FileChunk] = []
    seen: dict[str, int] = {}
    for chunk in chunks:
        path, (start, end) = local_span(document, (chunk.start, chunk.end))
        source = path or document.name
        index = seen.get(source, 0)
        seen[source] = index + 1
        out.append(FileChunk(source, index, start, end, chunk.text))
    return out


def split_for(
    path_or_text: str | Path, config: ChunkingConfig, model: ScarModel | None
) -> tuple[list[FileChunk], dict[str, str]]:
    """The adapters' splitters' common part: :func:`read_files` cut by :func:`split_files`
    (with ``model``'s embedder and cache for a chunker that needs one), and the metadata every
    chunk carries to name ``model`` (``{MODEL_KEY: id}``; empty without a model)."""
    model_args = (model.embedder, model.cache) if model else ()
    chunks = split_files(read_files(path_or_text), config, *model_args)
    return chunks, ({MODEL_KEY: model.model_id} if model else {})
