"""What every sub-command of the command line shares: the common options, the setup from them
(document, chunking, model, cache), the exit code of a failure.

``cli`` (select, eval), ``cli_gate`` (fit-gate) and ``cli_llm`` (make-queries, answer) build
on this module; it imports none of them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from scar_viz.chunking.base import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP
from scar_viz.chunking.config import ChunkingConfig
from scar_viz.common.errors import SettingsError
from scar_viz.common.knobs import cli_fields, field_default, field_type, knob_fields, option_dest
from scar_viz.documents.collect import collect_path, describe_skipped
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import Document
from scar_viz.embeddings import (
    DEFAULT_MODEL,
    SPEC_HELP,
    Embedder,
    EmbeddingCache,
    embed_cached,
    make_embedder,
)
from scar_viz.embeddings.prompts import query_side
from scar_viz.evaluation.bootstrap import DEFAULT_BOOT, DEFAULT_SEED
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.pipeline import PreparedDoc, prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import QuerySet, load_queries
from scar_viz.retrieval import DEFAULT_K_RRF, DEFAULT_RETRIEVER, DENSE, RETRIEVERS, Retriever
from scar_viz.runtime.devices import (
    DEVICE_ENV,
    DEVICE_HELP,
    PRECISION_ENV,
    PRECISION_HELP,
    DeviceChoice,
)
from scar_viz.runtime.endpoints import EMBEDDING_KEY_NAMES, server_key
from scar_viz.scoring.params import DEFAULT_PARAMS, GateParams
from scar_viz.views.model_language import model_language_note

EXIT_FAILED = 1
CLI_MAX_QUERIES = 20_000
"""Queries the command line reads from one file unless ``--max-queries`` says otherwise
(the app reads at most :data:`~scar_viz.queries.reading.MAX_QUERIES`)."""

DOC_HELP = (
    "a document (.txt, .md, .pdf, .html, any text file), or a corpus: a folder (walked "
    "recursively), a quoted glob ('docs/**/*.md') or a .zip"
)
"""The DOC argument's help, shared by every sub-command."""

AddParser = Callable[..., argparse.ArgumentParser]
"""``add_parser(name, **kwargs)``: adds a sub-command's parser (the ``add_parser`` of
``ArgumentParser.add_subparsers()``); each module's ``register`` takes it."""


class Noted(argparse.Action):
    """Stores an option's value as ``store`` does and notes that it was given (``--settings``
    names the options given beside it, which override the file: :func:`given_dests`)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values)
        given = set(getattr(namespace, GIVEN, ()))
        given.add(self.dest)
        setattr(namespace, GIVEN, given)


GIVEN = "given_options"
"""Where :class:`Noted` keeps the destinations of the options given on the command line."""


def given_dests(args: argparse.Namespace) -> set[str]:
    """The destinations of the :class:`Noted` options given on the command line."""
    return set(getattr(args, GIVEN, ()))


def add_doc_argument(p: argparse.ArgumentParser) -> None:
    """DOC, optional: every command that reads a document reads a store instead with
    ``--store`` (:func:`scar_viz.cli.index.add_store_option`), and says which it needs."""
    p.add_argument("doc", nargs="?", default=None, help=DOC_HELP)


def add_common_options(p: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Options shared by every sub-command: retrieval, gate, chunking, model. Returns the
    gate's and the retriever's options by destination, for a command to reword their help."""
    d = DEFAULT_PARAMS
    reworded = [
        number_option(p, "--k", d.k, "chunks the retriever returns"),
        number_option(p, "--lam", d.lam, "λ"),
        number_option(p, "--tau", d.tau, "τ"),
        number_option(p, "--radius", d.radius, "r, neighbours per side"),
        number_option(
            p, "--mu", d.mu, "μ, SCAR's lexical weight", "0 is the paper's gate, docs/method.md §8"
        ),
        p.add_argument(
            "--retriever",
            action=Noted,
            choices=RETRIEVERS,
            default=DEFAULT_RETRIEVER,
            help="what ranks the chunks before any policy: dense cos(q,c), bm25, or hybrid "
            f"(reciprocal rank fusion of the two) (default {DEFAULT_RETRIEVER})",
        ),
        number_option(p, "--rrf-k", DEFAULT_K_RRF, "the hybrid retriever's RRF constant k_rrf"),
    ]
    add_chunking_options(p)
    add_model_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    return {a.dest: a for a in reworded}


def add_model_options(
    p: argparse.ArgumentParser,
    prepend_help: str = "contextual prepending: embed each chunk with its section path first",
    cache_help: str = "embedding cache file, or a folder to keep it in (default ~/.cache/...)",
) -> None:
    """``--model``, ``--base-url``, ``--query-prompt``, ``--doc-prompt``, ``--prepend``,
    ``--cache`` and ``--no-cache``: what embeds
    the chunks and where the vectors are kept (every command that embeds, ``index`` too); and
    :func:`add_device_options`."""
    p.add_argument(
        "--model",
        default=DEFAULT_MODEL,
        help=SPEC_HELP,
    )
    p.add_argument("--base-url", default=None, help="base URL of an OpenAI-compatible endpoint")
    p.add_argument(
        "--query-prompt",
        default=None,
        help="text put before each question, e.g. 'query: ' (default: the model's own, if any)",
    )
    p.add_argument(
        "--doc-prompt",
        default=None,
        help="text put before each chunk, e.g. 'passage: ' (default: the model's own, if any)",
    )
    p.add_argument("--prepend", action="store_true", help=prepend_help)
    p.add_argument("--cache", default=None, help=cache_help)
    p.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    add_device_options(p)


def add_device_options(p: argparse.ArgumentParser) -> None:
    """``--device`` and ``--precision``: where every model the command loads runs (embedder,
    cross-encoder, the static model's distillation; :mod:`scar_viz.runtime.devices`)."""
    p.add_argument(
        "--device",
        default=None,
        help=f"where models run: {DEVICE_HELP} (default ${DEVICE_ENV}, else auto)",
    )
    p.add_argument(
        "--precision",
        default=None,
        help=f"{PRECISION_HELP} (default ${PRECISION_ENV}, else auto)",
    )


def device_choice(args: argparse.Namespace) -> DeviceChoice | None:
    """The device choice of ``--device`` and ``--precision`` over the environment's, checked
    for spelling; None for a command without these options.

    Raises:
        DeviceError: a malformed device or precision (one line).
    """
    if not hasattr(args, "device"):
        return None
    env = DeviceChoice.from_env()
    choice = DeviceChoice(
        (args.device or env.device).strip().lower(),
        (args.precision or env.precision).strip().lower(),
    )
    choice.validate()
    return choice


def number_option(
    p: argparse.ArgumentParser, flag: str, default: int | float, help: str, note: str = ""
) -> argparse.Action:
    """``flag`` typed as its default, with the default (and ``note``) written into the help, so
    the two cannot drift apart."""
    shown = f"{default:g}" if isinstance(default, float) else str(default)
    extra = f"; {note}" if note else ""
    return p.add_argument(
        flag,
        type=type(default),
        default=default,
        action=Noted,
        help=f"{help} (default {shown}{extra})",
    )


def add_query_set_arguments(p: argparse.ArgumentParser, queries_note: str = "") -> argparse.Action:
    """The document, its labelled query set, and the policies to run on it (``eval``,
    ``answer``, ``recommend``). Returns ``--policies``, for a command to reword its help."""
    add_doc_argument(p)
    note = f" ({queries_note})" if queries_note else ""
    p.add_argument("queries", help=f"labelled queries, JSON Lines{note}")
    add_max_queries_option(p)
    return p.add_argument(
        "--policies",
        nargs="+",
        default=None,
        help="policy names, space- or comma-separated (default topk window1 "
        "window2 scar, and parent when available; also rerank, qasc, qasc-hybrid, "
        "rse, automerge, sentence-window, learned, windowN)",
    )


def add_max_queries_option(p: argparse.ArgumentParser) -> None:
    """``--max-queries``: how many queries one query file may hold (a file with more is
    refused before any is read)."""
    p.add_argument(
        "--max-queries",
        type=int,
        default=CLI_MAX_QUERIES,
        help=f"refuse a query file of more queries than this (default {CLI_MAX_QUERIES:,}; "
        "0: no limit)",
    )


def add_report_options(p: argparse.ArgumentParser) -> None:
    """What ``eval`` and ``answer`` share about their report: the paired bootstrap's resamples
    and seed, and leaving the per-query rows out of ``--json``."""
    number_option(p, "--boot", DEFAULT_BOOT, "paired bootstrap resamples B", "0 skips it")
    number_option(p, "--seed", DEFAULT_SEED, "bootstrap seed")
    p.add_argument(
        "--no-per-query", action="store_true", help="leave the per-query rows out of --json"
    )


def add_chunking_options(p: argparse.ArgumentParser) -> None:
    """The chunking options: size, overlap, chunker, the semantic chunker's percentile."""
    number_option(
        p, "--chunk-size", DEFAULT_CHUNK_SIZE, "chunk size in characters", "tokens for 'tokens'"
    )
    number_option(p, "--overlap", DEFAULT_OVERLAP, "overlap between chunks, in the same unit")
    p.add_argument(
        "--chunker",
        default="recursive",
        help="recursive (default), fixed, tokens, sentence, semantic or section",
    )
    p.add_argument(
        "--chunk-percentile",
        type=float,
        default=None,
        help="semantic chunker: cut below this percentile of consecutive-sentence "
        "similarity (default 10)",
    )


def add_knob_options(p: argparse.ArgumentParser, settings: type, prefix: str) -> None:
    """One option per knob field of ``settings`` (``--window-m`` for ``window_m``), unset by
    default so the policy's own default applies; a bool field is a flag."""
    for f, k in knob_fields(settings):
        flag = "--" + f.name.replace("_", "-")
        default = field_default(f)
        shown = f"{default:g}" if isinstance(default, float) else str(default)
        hint = f"{prefix}: {k.label} (default {shown})"
        if field_type(f) is bool:
            hint = f"{prefix}: {k.label}"
            p.add_argument(flag, action="store_true", default=None, help=hint)
        else:
            p.add_argument(flag, type=field_type(f), default=None, help=hint)


def given_knobs(args: argparse.Namespace, settings: type) -> dict[str, object]:
    """The values of :func:`add_knob_options`' options given on the command line, by field."""
    values = {f.name: getattr(args, f.name) for f, _ in knob_fields(settings)}
    return {name: value for name, value in values.items() if value is not None}


def add_cli_options(p: argparse.ArgumentParser, settings: type, policies: Sequence[str]) -> None:
    """One option per field of ``settings`` with a command-line option that ``policies`` take
    (:func:`scar_viz.common.knobs.cli_fields`), unset by default so each policy keeps its own
    default; a bool field is a flag that sets the opposite of the field's default."""
    for f, option in cli_fields(settings, policies):
        if field_type(f) is bool:
            kind: dict[str, Any] = {"action": "store_false" if f.default else "store_true"}
        else:
            kind = {"type": field_type(f)}
        hint = f"{option.policy}: {option.help}"
        p.add_argument(option.flag, dest=option_dest(f), default=None, help=hint, **kind)


def given_options(
    args: argparse.Namespace, settings: type, policies: Sequence[str], policy: str
) -> dict[str, object]:
    """The values of :func:`add_cli_options`' options given on the command line, by keyword,
    that reach ``policy`` (an option with ``only`` reaches those policies alone)."""
    values: dict[str, object] = {}
    for f, option in cli_fields(settings, policies):
        value = getattr(args, option_dest(f))
        if value is not None and (not option.only or policy in option.only):
            values[option_dest(f)] = value
    return values


def retriever_of(args: argparse.Namespace) -> Retriever:
    """The retriever setting of ``--retriever`` and ``--rrf-k``."""
    return Retriever(args.retriever, args.rrf_k)


def gate_params(args: argparse.Namespace) -> GateParams:
    """k, λ, τ, r and μ from the common options (:class:`GateParams` checks their ranges)."""
    return GateParams(k=args.k, lam=args.lam, tau=args.tau, radius=args.radius, mu=args.mu)


def chunking_config(args: argparse.Namespace) -> ChunkingConfig:
    """The validated chunking from the chunking options (the percentile only when given)."""
    config = ChunkingConfig(args.chunker, args.chunk_size, args.overlap)
    if args.chunk_percentile is not None:
        config = ChunkingConfig(args.chunker, args.chunk_size, args.overlap, args.chunk_percentile)
    config.validate()
    return config


def setup(args: argparse.Namespace):
    """(embedder, cache, prepared document) from the common options."""
    gate_params(args)  # k, r and μ out of range say so before the document is read
    config = chunking_config(args)
    document = load_document(args.doc)
    embedder = model_of(args)
    note = model_language_note(document.text, embedder.model_id)
    if note:
        print(f"note: {note}", file=sys.stderr)
    cache = None if args.no_cache else embedding_cache(args.cache)
    prep = prepare_document(document, embedder, config, args.prepend, cache)
    return embedder, cache, prep


def model_of(args: argparse.Namespace) -> Embedder:
    """The embedder of ``--model``, ``--base-url`` and the prompts (:func:`add_model_options`)."""
    return make_embedder(
        args.model,
        base_url=args.base_url,
        api_key=server_key(EMBEDDING_KEY_NAMES),
        query_prompt=args.query_prompt,
        doc_prompt=args.doc_prompt,
    )


def embedding_cache(path: str | None = None) -> EmbeddingCache:
    """The embedding cache at ``path`` (default: the cache folder's); a corrupt cache file
    there is moved aside and a fresh one started, said in one ``note:`` line on stderr, as
    the app does (:class:`~scar_viz.runtime.sqlite_cache.SqliteCache`).

    Raises:
        CacheFileError: the path cannot be a cache (a file of the user's that is none, a
            folder that cannot be written).
    """
    cache = EmbeddingCache(path)
    if cache.note:
        print(f"note: {cache.note}", file=sys.stderr)
    return cache


def load_document(arg: str) -> Document:
    """The DOC argument as one Document: a file, or a corpus (a folder, a glob, a ``.zip``)
    joined in path order. Each reason files were skipped for is one line on stderr.

    Raises:
        DocumentError: when nothing usable is found (one line, from the collector).
    """
    collected = collect_path(arg)
    for line in describe_skipped(collected):
        print(f"note: {line}", file=sys.stderr)
    return join_documents(collected.documents)


def load_query_set(path: str, prep: PreparedDoc, max_queries: int = CLI_MAX_QUERIES) -> QuerySet:
    """The query file ``path`` checked against the document: each issue is one line on stderr
    (``warning:`` for a skipped line, ``note:`` otherwise).

    Raises:
        SettingsError: when the file holds no valid query, or more than ``max_queries``.
    """
    if max_queries < 0:
        raise SettingsError("--max-queries must be 0 (no limit) or more.")
    qset = load_queries(
        path,
        prep.document,
        max_queries=max_queries,
        limit_hint=" (--max-queries raises the limit)",
    )
    for issue in qset.issues:
        print(f"{'warning' if issue.level == 'error' else 'note'}: {issue}", file=sys.stderr)
    if not qset.queries:
        raise SettingsError(f"'{path}' holds no valid query ({len(qset.errors)} invalid lines).")
    return qset


def load_labelled(
    path: str,
    prep: PreparedDoc,
    embedder: Embedder,
    cache: EmbeddingCache | None,
    limit: int | None = None,
    max_queries: int = CLI_MAX_QUERIES,
    retriever: Retriever = DENSE,
) -> tuple[QuerySet, LabelledRun]:
    """:func:`load_query_set` and the labelled run of its queries (the first ``limit`` when
    given): their gold chunks and vectors, ranked by ``retriever``."""
    qset = load_query_set(path, prep, max_queries)
    queries = qset.queries[:limit] if limit else qset.queries
    labelled = label_queries(queries, prep.document, prep.chunks)
    vecs = embed_cached(query_side(embedder), [q.query.query for q in labelled], cache).vectors
    return qset, LabelledRun(prep, labelled, vecs, retriever)
