"""``python -m scar_viz recommend DOC QUERIES.jsonl [--json] [--save settings.json]``: which
retriever and which expansion, at which k and setting, for how many tokens
(:mod:`scar_viz.evaluation.recommend`, docs/method.md §9).

Every candidate — dense, BM25 and hybrid retrieval × top-k, window ±1, SCAR tuned, SCAR
presets A and B and the learned gate × k = 1 … 10 — is cross-validated (``--folds`` K,
``--repeats`` R, folds from the query ids); the verdict is the most recall within the token
budget (``--budget``, default: window ±1 at ``--k`` under dense retrieval), and says when the
runner-up cannot be told apart. ``--retriever`` and ``--policies`` narrow the candidates;
``--mu`` > 0 lets tuned SCAR choose μ ∈ {0, μ}. ``--save`` writes the verdict's settings
(docs/cli.md, Settings files).
"""

from __future__ import annotations

import argparse
import json
import sys

from scar_viz.cli import index as cli_index
from scar_viz.cli.common import (
    AddParser,
    add_common_options,
    add_query_set_arguments,
    load_labelled,
)
from scar_viz.cli.common import number_option as add_number
from scar_viz.common.errors import SettingsError
from scar_viz.evaluation.bootstrap import DEFAULT_BOOT, DEFAULT_SEED
from scar_viz.evaluation.folds import DEFAULT_FOLDS, DEFAULT_REPEATS
from scar_viz.evaluation.recommend import VERDICT_POLICIES, Verdict, recommend
from scar_viz.retrieval import RETRIEVERS, Retriever
from scar_viz.views.verdict_words import (
    verdict_json,
    verdict_notes,
    verdict_rows,
    verdict_settings,
    verdict_words,
)


def register(add_parser: AddParser) -> None:
    """Add the ``recommend`` sub-command."""
    p = add_parser(
        "recommend",
        help="cross-validate retrievers × expansions × k: which to use, within which budget?",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    policies = add_query_set_arguments(p, "format: docs/cli.md, Query files")
    add_number(p, "--folds", DEFAULT_FOLDS, "cross-validation folds K (at most Q / 5 are used)")
    add_number(p, "--repeats", DEFAULT_REPEATS, "repeats R, each with its own fold seed")
    p.add_argument(
        "--budget",
        type=float,
        default=None,
        help="mean context tokens a query (default: window ±1's at --k, dense retrieval)",
    )
    add_number(p, "--boot", DEFAULT_BOOT, "paired bootstrap resamples B")
    add_number(p, "--seed", DEFAULT_SEED, "seed of the folds (seed … seed+R−1) and the bootstrap")
    p.add_argument("--save", default=None, help="write the verdict's settings to this JSON file")
    common = add_common_options(p)
    cli_index.add_store_option(p)
    # recommend tunes λ and τ and tries every retriever unless told: these are unset by default
    p.set_defaults(func=cmd_recommend, retriever=None, lam=None, tau=None)
    common[
        "retriever"
    ].help = "narrow the candidates to one retriever (default: dense, bm25, hybrid)"
    common["k"].help = "k of the reference, window ±1 under dense retrieval (default 3)"
    common["lam"].help = common["tau"].help = argparse.SUPPRESS
    common["mu"].help = "μ > 0: tuned SCAR also tries this lexical weight (default 0)"
    policies.help = (
        "narrow the candidates to these policies (default: "
        f"{' '.join(VERDICT_POLICIES)}; scar brings the tuned setting and presets A, B)"
    )


def cmd_recommend(args: argparse.Namespace) -> int:
    from scar_viz.evaluation import parse_policy_list

    if args.lam is not None or args.tau is not None:
        raise SettingsError("recommend tunes λ and τ itself; leave out --lam and --tau.")
    if args.boot < 1:
        raise SettingsError("--boot must be at least 1 (the verdict needs the interval).")
    if args.budget is not None and not args.budget > 0:
        raise SettingsError("--budget must be more than 0 tokens.")
    if args.radius < 1:
        raise SettingsError("--radius must be at least 1 for the verdict.")
    policies: tuple[str, ...] = VERDICT_POLICIES
    if args.policies:
        policies = parse_policy_list(args.policies)
        if any(p not in VERDICT_POLICIES for p in policies):
            raise SettingsError(f"recommend compares {', '.join(VERDICT_POLICIES)} (--policies).")
    embedder, cache, prep = cli_index.store_or_setup(args)
    rrf = Retriever(args.retriever or "dense", args.rrf_k)  # its k_rrf: hybrid's constant
    _, run = load_labelled(args.queries, prep, embedder, cache, None, args.max_queries, rrf)
    v = recommend(
        run,
        reference_k=args.k,
        budget=args.budget,
        folds=args.folds,
        repeats=args.repeats,
        retrievers=[args.retriever] if args.retriever else RETRIEVERS,
        policies=policies,
        radius=args.radius,
        mu=args.mu,
        n_boot=args.boot,
        seed=args.seed,
    )
    for note in verdict_notes(v):
        print(f"note: {note}", file=sys.stderr)
    if args.save:
        verdict_settings(v).save(args.save)
        print(f"note: settings written to {args.save}", file=sys.stderr)
    if args.json:
        print(json.dumps(verdict_json(v), ensure_ascii=False, indent=2))
        return 0
    print_verdict(v, prep.document.name, len(prep.chunks), prep.embedder_label)
    return 0


def print_verdict(v: Verdict, document: str, n_chunks: int, model: str) -> None:
    """The text report: a header, the sentence (lead and versus), its details line and the
    table of :func:`verdict_rows`."""
    print(
        f"{document}: {n_chunks} chunks · {model} · {v.n_queries} queries, {v.folds} folds × "
        f"{v.repeats} repeats · {len(v.candidates)} candidates · budget "
        f"{v.budget_tokens:,.0f} tokens"
    )
    words = verdict_words(v)
    print(words.sentence)
    print(words.details)
    head = f"{'role':<20} {'retriever':<9} {'expansion':<44} {'k':>2} {'recall':>6} {'Δ vs ref':>8}"
    print(f"{head} {'95 % CI':>17} {'chunks':>6} {'tokens':>7}")
    for r in verdict_rows(v):
        print(
            f"{r['role']:<20} {r['retriever']:<9} {r['expansion']:<44} {r['k']:>2} "
            f"{r['recall']:>6.3f} {r['Δ recall vs reference']:>+8.3f} {r['95 % CI']:>17} "
            f"{r['chunks']:>6.2f} {r['tokens']:>7.0f}"
        )
