"""``python -m scar_viz fit-gate``, and the ``--gate`` / ``--p`` options of select and eval.

    python -m scar_viz fit-gate DOC QUERIES [--k 4] [--features base|lexical] [...] --out gate.json
    python -m scar_viz fit-gate --store STORE QUERIES [...] --out gate.json

fits a learned neighbour gate (:mod:`scar_viz.scoring.learned`) on a labelled query set and
writes it as JSON; ``select --policy learned`` and ``eval --policies learned`` use it with
``--gate`` (the default gate shipped with the package without it) and ``--p``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from scar_viz.cli.common import (
    AddParser,
    Noted,
    add_common_options,
    add_doc_argument,
    add_max_queries_option,
    load_labelled,
    retriever_of,
)
from scar_viz.cli.index import add_store_option, store_or_setup
from scar_viz.evaluation.learned import fit_gate_on, p_curve_on
from scar_viz.scoring.learned import (
    DEFAULT_L2,
    DEFAULT_P,
    FEATURE_SETS,
    LearnedGate,
    LearnedSelection,
    fitted_k,
    k_note,
    rank_changes,
    resolve_gate,
    setting_notes,
    threshold_logit,
)

FIT_K = 4
"""Default k for fit-gate (the setting the default gate was fitted at)."""


def add_gate_options(p: argparse.ArgumentParser) -> None:
    """``--gate`` and ``--p`` for the learned policy."""
    p.add_argument(
        "--gate",
        default=None,
        action=Noted,
        help="learned policy: gate JSON written by fit-gate (default: the gate shipped "
        "with the package)",
    )
    p.add_argument(
        "--p",
        type=float,
        default=DEFAULT_P,
        action=Noted,
        help=f"learned policy: admit a neighbour iff its probability > p (default {DEFAULT_P:g})",
    )


def gate_knobs(args: argparse.Namespace) -> dict[str, object]:
    """The learned policy's knobs from ``--gate`` and ``--p`` (raises ValueError when bad)."""
    threshold_logit(args.p)
    return {"gate": resolve_gate(args.gate), "p": float(args.p)}


def gate_label(args: argparse.Namespace) -> str:
    return args.gate or "default"


def eval_knobs(args: argparse.Namespace, policies: Sequence[str]) -> dict[str, dict] | None:
    """``evaluate``'s knobs: the learned gate and p when ``learned`` is among ``policies``."""
    return {"learned": gate_knobs(args)} if "learned" in policies else None


def eval_json(args: argparse.Namespace, knobs: dict[str, dict] | None) -> dict[str, object]:
    """``{"learned": {"gate", "p", "weights"}}`` for eval's JSON when ``learned`` ran, else {}."""
    if not knobs or "learned" not in knobs:
        return {}
    gate = knobs["learned"]["gate"]
    return {"learned": {"gate": gate_label(args), "p": args.p, "weights": gate.to_dict()}}


def print_eval_gate(args: argparse.Namespace, knobs: dict[str, dict] | None) -> None:
    """One line naming the learned gate and p, when ``learned`` ran."""
    if knobs and "learned" in knobs:
        print(f"learned: gate {gate_label(args)}, p = {args.p:g}")


def print_setting_notes(knobs: dict[str, object], prep) -> None:
    """A ``note:`` line on stderr per difference between the gate's fitting (model,
    chunking) and this run."""
    gate = knobs.get("gate")
    if isinstance(gate, LearnedGate):
        for note in setting_notes(gate, prep.embedder_id, prep.config.label):
            print(f"note: {note}", file=sys.stderr)


def print_k_note(knobs: dict[str, object], k: int, features) -> None:
    """A ``note:`` line on stderr when ``k`` is not the gate's fitted k and that changes one
    of its decisions on ``features`` (the candidates it judged), naming the --k to use."""
    gate = knobs.get("gate")
    if not isinstance(gate, LearnedGate):
        return
    p = knobs.get("p", DEFAULT_P)
    note = k_note(
        gate,
        k,
        rank_changes(gate, features, float(p if isinstance(p, (int, float)) else DEFAULT_P)),
    )
    if note:
        print(f"note: {note} Run with --k {fitted_k(gate)} to use it as fitted.", file=sys.stderr)


def print_decisions(sel: LearnedSelection) -> None:
    """Text table of a learned selection: features, score, probability against p."""
    print(f"retrieved (rank order): {sel.retrieved}")
    print(f"admitted: {sel.admitted}")
    print(f"selected: {sel.selected}")
    print(
        f"{'c':>5} {'n':>5} {'side':>5} {'d':>2} {'rank':>4} {'cos(q,n)':>9} {'cos(q,c)':>9} "
        f"{'cos(c,n)':>9} {'score':>7} {'prob':>7} {'p':>6}  outcome"
    )
    for d in sel.decisions:
        f = d.features
        print(
            f"{d.chunk:>5} {d.neighbour:>5} {d.side:>5} {d.distance:>2} {d.rank:>4} "
            f"{f['cos_qn']:>9.3f} {f['cos_qc']:>9.3f} {f['cos_cn']:>9.3f} {d.score:>+7.3f} "
            f"{d.probability:>7.4f} {d.p:>6.3g}  {d.outcome}"
        )


def register(add_parser: AddParser) -> None:
    """Add the ``fit-gate`` sub-command to ``python -m scar_viz``."""
    fit = add_parser("fit-gate", help="fit a learned neighbour gate on labelled queries")
    add_doc_argument(fit)
    fit.add_argument(
        "queries", help="labelled queries, JSON Lines (format: docs/cli.md, Query files)"
    )
    add_max_queries_option(fit)
    fit.add_argument("--out", required=True, help="where to write the gate (JSON)")
    fit.add_argument(
        "--l2", type=float, default=DEFAULT_L2, help=f"L2 penalty (default {DEFAULT_L2:g})"
    )
    fit.add_argument(
        "--p",
        type=float,
        default=DEFAULT_P,
        help=f"report the in-sample recall and chunks at this p (default {DEFAULT_P:g})",
    )
    fit.add_argument(
        "--features",
        choices=FEATURE_SETS,
        default="base",
        help="base: the five similarity and position features; lexical: plus the question's "
        "words in n, in c and in n but not c (docs/method.md §8) (default base)",
    )
    add_common_options(fit)
    add_store_option(fit)
    fit.set_defaults(func=cmd_fit_gate, k=FIT_K)


def cmd_fit_gate(args: argparse.Namespace) -> int:

    if args.l2 < 0:
        raise ValueError("--l2 must be 0 or more.")
    threshold_logit(args.p)
    retriever = retriever_of(args)
    embedder, cache, prep = store_or_setup(args)
    _, run = load_labelled(
        args.queries, prep, embedder, cache, max_queries=args.max_queries, retriever=retriever
    )
    radius = max(1, args.radius)
    gate = fit_gate_on(
        run,
        args.k,
        radius=radius,
        l2=args.l2,
        features=args.features,
    )
    gate = LearnedGate(
        gate.feature_names,
        gate.weights,
        gate.intercept,
        gate.mean,
        gate.std,
        {**gate.fitted_on, "queries": str(args.queries)},
    )
    gate.save(args.out)
    curve = p_curve_on(run, gate, args.k, radius, [args.p])
    if args.json:
        out = {
            "out": str(args.out),
            "gate": gate.to_dict(),
            "in_sample": {"p": args.p, **curve.rows()[0]},
        }
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    meta = gate.fitted_on
    print(
        f"fitted on {meta['n_queries']} queries of {prep.document.name}: "
        f"{meta['n_candidates']} candidates, {meta['n_gold']} gold ({meta['gold_share']:.1%}); "
        f"k={args.k} · {prep.config.label} · {prep.embedder_label}"
    )
    for row in gate.describe():
        print(f"  {row['feature']:<9} w = {row['weight']:+.3f}   {row['meaning']}")
    print(f"  intercept b = {gate.intercept:+.3f}")
    point = curve.rows()[0]
    print(
        f"in sample at p = {args.p:g}: recall {point['recall']:.3f}, "
        f"{point['mean_chunks']:.2f} chunks per query"
    )
    print(f"wrote {args.out}")
    return 0
