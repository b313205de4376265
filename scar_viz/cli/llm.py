"""The LLM sub-commands: ``make-queries`` and ``answer`` (registered by :mod:`scar_viz.cli.main`).

    python -m scar_viz make-queries DOC|--store STORE [--n 40] [--fragmented-share 0.5] [--seed 0]
        [--model M --base-url URL] [chunking options] > queries.jsonl
    python -m scar_viz answer DOC|--store STORE QUERIES [--policies topk window1 scar ...]
        [gate, chunking and embedding options] [--llm-model M --llm-base-url URL]
        [--judge-model M] [--json]

``make-queries`` embeds nothing, so there ``--model``/``--base-url`` name the language model
(``--llm-model``/``--llm-base-url`` are the same options). ``answer`` retrieves, so there, as
in ``select`` and ``eval``, ``--model``/``--base-url`` name the embedding model and the
language model is ``--llm-model``/``--llm-base-url``. The key comes from the environment
only (``SCAR_VIZ_LLM_API_KEY``, else ``OPENAI_API_KEY``): a key on a command line would
show in the process list and the shell history.
"""

from __future__ import annotations

import argparse
import json
import sys

from scar_viz.chunking.config import chunk_document
from scar_viz.cli.common import (
    EXIT_FAILED,
    AddParser,
    add_chunking_options,
    add_common_options,
    add_device_options,
    add_doc_argument,
    add_query_set_arguments,
    add_report_options,
    chunking_config,
    embedding_cache,
    gate_params,
    load_document,
    load_labelled,
    number_option,
    retriever_of,
)
from scar_viz.cli.index import add_store_option, store_or_document, store_or_setup
from scar_viz.cli.settings import (
    add_settings_option,
    apply_to_args,
    setting_runners,
    settings_of,
    settings_policies,
)
from scar_viz.embeddings import SPEC_HELP
from scar_viz.llm.client import (
    DEFAULT_CONCURRENCY,
    DEFAULT_LLM_MODEL,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    ChatModel,
)
from scar_viz.llm.judge import DEFAULT_QUESTIONS
from scar_viz.llm.querygen import DEFAULT_FRAGMENTED_SHARE, DEFAULT_N
from scar_viz.pipeline import embed_function
from scar_viz.runtime.endpoints import EMBEDDING_KEY_NAMES, LLM_KEY_NAMES, server_key


def _llm_options(
    p: argparse.ArgumentParser, model_flags: tuple[str, ...], url_flags: tuple[str, ...]
) -> None:
    p.add_argument(
        *model_flags,
        dest="llm_model",
        default=DEFAULT_LLM_MODEL,
        help=f"chat model name at the endpoint (default {DEFAULT_LLM_MODEL})",
    )
    p.add_argument(
        *url_flags,
        dest="llm_base_url",
        default=None,
        help="base URL of an OpenAI-compatible chat endpoint (default OpenAI); e.g. "
        "http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM)",
    )
    number_option(p, "--timeout", DEFAULT_TIMEOUT, "seconds per request")
    number_option(
        p,
        "--retries",
        DEFAULT_RETRIES,
        "the openai client's retries after a 429, 5xx, timeout or lost connection",
    )
    number_option(p, "--concurrency", DEFAULT_CONCURRENCY, "parallel requests")
    p.add_argument(
        "--no-llm-cache", action="store_true", help="do not read or write the reply cache"
    )


def _chat(args: argparse.Namespace, model: str | None = None, base_url: str | None = None):
    return ChatModel(
        model or args.llm_model,
        base_url=base_url or args.llm_base_url,
        api_key=server_key(LLM_KEY_NAMES),
        timeout=args.timeout,
        max_retries=args.retries,
        concurrency=args.concurrency,
        cache=False if args.no_llm_cache else None,
    )


def _progress(label: str):
    """Progress on stderr when it is a terminal, else nothing."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        print(f"\r{label}: {done}/{total} calls", end=end, file=sys.stderr, flush=True)

    return show


def register(add_parser: AddParser) -> None:
    """Add the ``make-queries`` and ``answer`` sub-commands to ``python -m scar_viz``."""
    mq = add_parser(
        "make-queries",
        help="generate labelled queries for a document with a language model (JSON Lines)",
    )
    add_doc_argument(mq)
    number_option(mq, "--n", DEFAULT_N, "queries to generate")
    number_option(
        mq, "--fragmented-share", DEFAULT_FRAGMENTED_SHARE, "share made across chunk boundaries"
    )
    number_option(mq, "--seed", 0, "sampling seed")
    _llm_options(mq, ("--model", "--llm-model"), ("--base-url", "--llm-base-url"))
    add_chunking_options(mq)
    mq.add_argument(
        "--embed-model",
        default="default",
        help=f"embedding model for the semantic chunker only ({SPEC_HELP})",
    )
    add_device_options(mq)  # where --embed-model runs
    add_store_option(mq)
    mq.set_defaults(func=cmd_make_queries)

    an = add_parser(
        "answer", help="answer a labelled query set with each policy's context and score it"
    )
    add_query_set_arguments(an, "a reference 'answer' is optional")
    _llm_options(an, ("--llm-model",), ("--llm-base-url",))
    an.add_argument("--judge-model", default=None, help="the judge's model (default --llm-model)")
    an.add_argument(
        "--judge-base-url", default=None, help="the judge's endpoint (default --llm-base-url)"
    )
    number_option(
        an, "--n-questions", DEFAULT_QUESTIONS, "answer relevancy: questions from each answer"
    )
    an.add_argument("--limit", type=int, default=None, help="only the first N queries")
    add_report_options(an)
    add_common_options(an)
    add_store_option(an)
    add_settings_option(an)
    an.set_defaults(func=cmd_answer)


def cmd_make_queries(args: argparse.Namespace) -> int:
    from scar_viz.llm.querygen import generate_queries

    stored = store_or_document(args)
    if stored is not None:
        document, chunks, config = stored
    else:
        document, chunks, config = _chunked_document(args)
    model = _chat(args)
    out = generate_queries(
        document,
        chunks,
        model,
        n=args.n,
        fragmented_share=args.fragmented_share,
        seed=args.seed,
        progress=_progress("make-queries"),
    )
    for note in out.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"{document.name} ({config.label}, {model.label}): {out.report()}", file=sys.stderr)
    if not out.queries:
        print("error: no generated query was kept; see the reasons above.", file=sys.stderr)
        return EXIT_FAILED
    sys.stdout.write(out.jsonl())
    return 0


def _chunked_document(args: argparse.Namespace):
    """(document, chunks, config) of DOC under the chunking options."""
    config = chunking_config(args)
    document = load_document(args.doc)
    embed = None
    if config.needs_embed:
        from scar_viz.embeddings import make_embedder

        embedder = make_embedder(args.embed_model, api_key=server_key(EMBEDDING_KEY_NAMES))
        embed = embed_function(embedder, embedding_cache())
    return document, chunk_document(document, config, embed), config


def cmd_answer(args: argparse.Namespace) -> int:
    from scar_viz.evaluation import default_policies, parse_policy_list
    from scar_viz.evaluation.report import significance_lines
    from scar_viz.llm.answer_json import answer_json
    from scar_viz.llm.check import check_answers
    from scar_viz.llm.scores import SCORES

    chosen = settings_of(args)
    if chosen is not None:
        apply_to_args(chosen, args)
        policies = settings_policies(chosen, args.policies)
    else:
        policies = parse_policy_list(args.policies) if args.policies else default_policies()
    if args.boot < 0 or (args.limit is not None and args.limit < 1):
        raise ValueError("--boot must be 0 or more and --limit at least 1.")
    retriever = retriever_of(args)
    chat = _chat(args)
    judge = None
    if args.judge_model or args.judge_base_url:
        judge = _chat(args, args.judge_model, args.judge_base_url)
    embedder, cache, prep = store_or_setup(args)
    runners = setting_runners(chosen, prep)
    qset, run = load_labelled(
        args.queries, prep, embedder, cache, args.limit, args.max_queries, retriever
    )
    check = check_answers(
        run,
        chat,
        embed_function(embedder, cache),
        policies=policies,
        params=gate_params(args),
        judge=judge,
        references=qset.references,
        n_questions=args.n_questions,
        n_boot=args.boot,
        seed=args.seed,
        progress=_progress("answer"),
        runners=runners,
    )
    for name, pa in check.policies.items():
        if pa.error:
            print(f"warning: policy {name} did not run: {pa.error}", file=sys.stderr)
    if check.unparseable:
        print(
            f"warning: {len(check.unparseable)} judge replies could not be parsed; "
            "those scores are left empty (listed under 'unparseable' in --json).",
            file=sys.stderr,
        )
    u = check.usage
    print(
        f"{u.calls} calls ({u.cached} from the cache), {u.prompt_tokens} prompt + "
        f"{u.completion_tokens} completion tokens",
        file=sys.stderr,
    )
    if args.json:
        out = answer_json(check, per_query=not args.no_per_query)
        if chosen is not None:
            out["settings"] = chosen.as_json()
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    print(
        f"{check.settings.document}: {check.n_queries} queries · {check.settings.chunking} · "
        f"answers {check.answer_model} · judge {check.judge_model}"
    )
    if chosen is not None:
        print(chosen.line())
    heads = ["faithful", "relevancy", "recall", "correct"]
    print(f"{'policy':<10} " + " ".join(f"{h:>9}" for h in heads) + f" {'tokens':>8} {'bad':>4}")
    bad = check.unparseable_counts
    for name, pa in check.policies.items():
        if pa.error:
            continue
        cells = [pa.mean(s) for s in SCORES]
        shown = " ".join(f"{'—' if c is None else f'{c:.3f}':>9}" for c in cells)
        print(f"{name:<10} {shown} {pa.mean_context_tokens:>8.1f} {bad.get(name, 0):>4}")
    for line in significance_lines(check.comparisons):
        print(line)
    return 0
