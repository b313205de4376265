"""``python -m scar_viz recommend DOC QUERIES.jsonl [--json]``: should SCAR replace window ±1
on this query set, and at which k, λ, τ (:mod:`scar_viz.evaluation.recommend`).

It takes ``eval``'s options. ``--k`` is the reference: the tuned setting must keep window ±1's
recall at that k (within a point); the tuned k itself runs over 1 … 10. ``--policies`` are the
rivals of the equal-budget check; with ``--gate`` the learned gate runs beside SCAR.
"""

from __future__ import annotations

import argparse
import json

from scar_viz.cli import gate as cli_gate
from scar_viz.cli import index as cli_index
from scar_viz.cli.common import (
    add_common_options,
    add_query_set_arguments,
    add_report_options,
    load_labelled,
)
from scar_viz.errors import SettingsError
from scar_viz.evaluation.recommend import recommend, verdict_rows
from scar_viz.pipeline import embed_function


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``recommend`` sub-command."""
    p = sub.add_parser(
        "recommend",
        help="tune k, λ, τ on half the queries, check on the other half: SCAR or the window?",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_query_set_arguments(p, "format: docs/cli.md, Query files")
    add_report_options(p)
    cli_gate.add_gate_options(p)
    add_common_options(p)
    cli_index.add_store_option(p)
    p.set_defaults(func=cmd_recommend)


def cmd_recommend(args: argparse.Namespace) -> int:
    from scar_viz.evaluation import parse_policy_list

    if args.boot < 1:
        raise SettingsError("--boot must be at least 1 (the verdict needs the interval).")
    rivals = parse_policy_list(args.policies) if args.policies else None
    with_gate = args.gate is not None or (rivals is not None and "learned" in rivals)
    knobs = {"learned": cli_gate.gate_knobs(args)} if with_gate else None
    embedder, cache, prep = cli_index.store_or_setup(args)
    _, labelled, vecs = load_labelled(
        args.queries, prep, embedder, cache, max_queries=args.max_queries
    )
    v = recommend(
        prep,
        labelled,
        vecs,
        reference_k=args.k,
        radius=max(1, args.radius),
        budget_policies=rivals,
        knobs=knobs,
        embed=embed_function(embedder, cache),
        n_boot=args.boot,
        seed=args.seed,
    )
    if args.json:
        out = {"document": prep.document.name, "model": prep.embedder_id, **v.as_json()}
        out.update(cli_gate.eval_json(args, knobs))
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    print(
        f"{prep.document.name}: {len(prep.chunks)} chunks · {prep.embedder_label} · "
        f"tuned on {len(v.tune_ids)} queries, checked on {len(v.check_ids)}"
    )
    print(v.sentence())
    print(f"{'policy':<13} {'k':>3} {'recall':>7} {'chunks':>7} {'tokens':>8}")
    for row in verdict_rows(v):
        print(
            f"{row['policy']:<13} {row['k']:>3} {row['recall']:>7.3f} "
            f"{row['chunks']:>7.2f} {row['tokens']:>8.1f}"
        )
    if v.penalty_off:
        print("note: λ = 0, the boundary penalty is off: SCAR reduces to a relative bar.")
    return 0
