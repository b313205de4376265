"""The store on the command line: ``index CORPUS --store PATH`` fills a store, and
``--store`` lets ``select``, ``eval``, ``fit-gate``, ``answer`` and ``make-queries`` read one
instead of a document (docs/scale.md); ``--store`` also opens another tool's index as it is, a
LlamaIndex storage folder or a LangChain dump (:mod:`scar_viz.store.foreign`,
docs/integrations.md).

The store's extras (LanceDB, Ray) are imported only when one of these runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from scar_viz.cli.common import (
    AddParser,
    add_chunking_options,
    add_model_options,
    chunking_config,
    embedding_cache,
    gate_params,
    model_of,
    setup,
)
from scar_viz.common.errors import SettingsError
from scar_viz.documents.collect import collect_path, describe_skipped
from scar_viz.documents.reading import Document
from scar_viz.embeddings import Embedder, EmbeddingCache, embed_cached
from scar_viz.pipeline import PreparedDoc
from scar_viz.store.engines import INDEX_BATCH_CPU, INDEX_BATCH_GPU

PROGRESS_SECONDS = 2.0
"""Least time between two progress lines."""


def register(add_parser: AddParser) -> None:
    """Add the ``index`` sub-command."""
    p = add_parser(
        "index", help="chunk and embed a corpus into a store (LanceDB), in process or on Ray"
    )
    p.add_argument("corpus", help="a document, or a corpus: a folder, a quoted glob or a .zip")
    p.add_argument("--store", required=True, help="the store: a folder or a URI (s3://…)")
    p.add_argument(
        "--engine",
        default="local",
        choices=("local", "ray"),
        help="local: chunk and embed in this process (default); ray: on Ray Data actors",
    )
    p.add_argument(
        "--ray-address", default=None, help="the Ray cluster (default: start a local one)"
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help=f"texts per engine batch (default {INDEX_BATCH_CPU} on the CPU, {INDEX_BATCH_GPU} "
        "on a GPU)",
    )
    p.add_argument("--concurrency", type=int, default=1, help="Ray actors, one model each (1)")
    p.add_argument(
        "--num-gpus",
        type=float,
        default=0.0,
        help="GPUs per Ray actor (0); each actor's model runs on its GPU",
    )
    p.add_argument("--name", default="corpus", help="the corpus' name (default corpus)")
    add_chunking_options(p)
    add_model_options(
        p, "embed each chunk with its section path", "embedding cache file (local engine)"
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_index)


def add_store_option(p: argparse.ArgumentParser) -> None:
    """``--store``: read the corpus, chunks and vectors from a store; DOC (optional,
    :func:`~scar_viz.cli.common.add_doc_argument`) is then left out."""
    p.add_argument(
        "--store",
        default=None,
        help="read a store instead of DOC (no embedding): one made by 'index', a LlamaIndex "
        "storage folder or a LangChain InMemoryVectorStore dump (docs/integrations.md)",
    )


def store_or_setup(args: argparse.Namespace):
    """(embedder, cache, prepared document): from ``--store`` when given (a LanceDB store, a
    LlamaIndex storage folder or a LangChain dump), else from DOC."""
    if getattr(args, "store", None) is None:
        if args.doc is None:
            raise SettingsError("Give a document (DOC) or a store (--store).")
        return setup(args)
    if args.doc is not None:
        raise SettingsError("Give a document (DOC) or a store (--store), not both.")
    from scar_viz.store import open_store
    from scar_viz.store.other_tools import foreign_kind

    gate_params(args)  # k, r and μ out of range say so before the store is opened
    config = chunking_config(args)
    embedder = model_of(args)
    cache = None if args.no_cache else embedding_cache(args.cache)
    if foreign_kind(args.store):
        return embedder, cache, open_foreign(args.store, embedder, cache)
    prep = open_store(args.store, embedder.model_id, config, args.prepend)
    return embedder, cache, prep


def open_foreign(path: str, embedder: Embedder, cache: EmbeddingCache | None) -> PreparedDoc:
    """Another tool's index at ``path`` (its chunks and vectors as stored), for questions
    embedded by ``embedder``: the store's model by the name it records, and by dimension.

    Raises:
        StoreError: another model than the store's (one sentence naming it).
    """
    from scar_viz.store.other_tools import read_foreign

    store = read_foreign(path)
    for line in store.skipped:
        print(f"note: {path}: skipped {line}", file=sys.stderr)
    store.check_model(embedder.model_id)
    prep = store.prepared(embedder.model_id, embedder.label)
    probe = embed_cached(embedder, [prep.chunks[0].text], cache).vectors
    store.check_dimension(probe.shape[1], embedder.label)
    return prep


def store_or_document(args: argparse.Namespace):
    """(document, chunks) for ``make-queries``: from ``--store`` when given (the store's own
    chunks, no model loaded: the chunking asked must be the store's), else DOC chunked here.

    Returns:
        (document, chunks, config), or None when DOC is given (the caller chunks it).
    """
    if getattr(args, "store", None) is None:
        if args.doc is None:
            raise SettingsError("Give a document (DOC) or a store (--store).")
        return None
    if args.doc is not None:
        raise SettingsError("Give a document (DOC) or a store (--store), not both.")
    from scar_viz.store import open_store, store_meta
    from scar_viz.store.other_tools import foreign_kind, read_foreign

    config = chunking_config(args)
    if foreign_kind(args.store):
        store = read_foreign(args.store)
        prep = store.prepared(store.model or "", "")
        return prep.document, prep.chunks, prep.config
    meta = store_meta(args.store)
    prep = open_store(args.store, meta.model, config, meta.prepend)
    return prep.document, prep.chunks, config


def cmd_index(args: argparse.Namespace) -> int:
    from scar_viz.store import EmbedderSpec, EngineOptions, index_corpus

    options = EngineOptions(
        args.engine, args.ray_address, args.batch_size, args.concurrency, args.num_gpus
    )
    options.validate()
    config = chunking_config(args)
    documents = _documents(args.corpus)
    spec = EmbedderSpec(args.model, args.base_url)
    embedder = spec if args.engine == "ray" else spec.build()
    cache = None if args.no_cache or args.engine == "ray" else embedding_cache(args.cache)
    report = index_corpus(
        documents,
        args.store,
        embedder,
        config,
        args.prepend,
        options,
        name=args.name,
        cache=cache,
        progress=_progress(),
    )
    if args.json:
        print(json.dumps(report.__dict__ | {"store": args.store}, indent=2))
    else:
        print(f"{args.store}: {report.line}")
    return 0


def _documents(arg: str) -> list[Document]:
    """CORPUS as its documents: a file, a folder, a glob or a ``.zip`` (skips noted on stderr)."""
    collected = collect_path(arg)
    for line in describe_skipped(collected):
        print(f"note: {line}", file=sys.stderr)
    return list(collected.documents)


def _progress():
    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - last[0] >= PROGRESS_SECONDS:
            last[0] = now
            print(f"embedded {done}/{total} chunks", file=sys.stderr, flush=True)

    return report
