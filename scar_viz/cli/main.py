"""Command line: ``python -m scar_viz select DOC --query TEXT [...]``.

Errors print one line on stderr and exit non-zero; never a traceback.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence

from scar_viz.chunking.qasc import QascParams
from scar_viz.cli import gate as cli_gate
from scar_viz.cli import index as cli_index
from scar_viz.cli import recommend as cli_recommend
from scar_viz.cli.common import (
    EXIT_FAILED,
    Noted,
    add_cli_options,
    add_common_options,
    add_doc_argument,
    add_knob_options,
    add_query_set_arguments,
    add_report_options,
    device_choice,
    gate_params,
    given_knobs,
    given_options,
    load_labelled,
    retriever_of,
)
from scar_viz.cli.llm import register as register_llm_commands
from scar_viz.cli.settings import (
    add_settings_option,
    apply_to_args,
    print_chosen_on_notes,
    setting_runners,
    settings_of,
    settings_policies,
)
from scar_viz.common.errors import SettingsError, UserError, user_message
from scar_viz.common.spans import Span
from scar_viz.documents.corpus import local_span
from scar_viz.evaluation.apply import ChunkSet, setting_runner
from scar_viz.evaluation.learned import judged_features
from scar_viz.pipeline import PreparedDoc, embed_function, embed_query, query_inputs
from scar_viz.policies import POLICIES, run_policy
from scar_viz.runtime import devices
from scar_viz.scoring.learned import LearnedGate
from scar_viz.scoring.learned.select import LearnedSelection, decision_features
from scar_viz.scoring.scar import Selection
from scar_viz.views.compare_settings import CompareSettings

APP = "app"
"""The sub-command that serves the app (:mod:`scar_viz.cli.app`)."""

FIRST = ("window", "rerank", "parent")
"""Policies whose options ``select --help`` lists before QASC's and the learned gate's."""

THEN = ("qasc", "qasc-hybrid", "rse", "automerge")
"""Policies whose options it lists after them (every option is in one of the two groups)."""


def build_parser(
    commands: dict[str, argparse.ArgumentParser] | None = None,
    prog: str = "python -m scar_viz",
) -> argparse.ArgumentParser:
    """The parser of ``python -m scar_viz`` (``prog``: the name its help shows); ``commands``,
    when given, receives each sub-command's own parser by name (for tests and documentation of
    the options)."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def add_parser(name: str, **kwargs: object) -> argparse.ArgumentParser:
        command = sub.add_parser(name, **kwargs)  # type: ignore[arg-type]
        if commands is not None:
            commands[name] = command
        return command

    add_parser(
        APP,
        help="serve the app (every further argument goes to streamlit run, e.g. "
        "--server.port 8600)",
        add_help=False,
    )
    register_llm_commands(add_parser)  # make-queries, answer
    sel = add_parser("select", help="select context for one query and explain each decision")
    add_doc_argument(sel)
    sel.add_argument("--query", required=True, help="the question")
    sel.add_argument(
        "--policy", default="scar", action=Noted, help=f"one of {', '.join(sorted(POLICIES))}"
    )
    add_cli_options(sel, CompareSettings, FIRST)
    add_knob_options(sel, QascParams, "qasc")
    cli_gate.add_gate_options(sel)
    add_cli_options(sel, CompareSettings, THEN)
    add_common_options(sel)
    cli_index.add_store_option(sel)
    add_settings_option(sel)
    sel.set_defaults(func=cmd_select)
    ev = add_parser("eval", help="evaluate policies on a labelled query set (JSON Lines)")
    add_query_set_arguments(ev, "format: docs/cli.md, Query files")
    add_report_options(ev)
    cli_gate.add_gate_options(ev)
    add_common_options(ev)
    cli_index.add_store_option(ev)
    add_settings_option(ev)
    ev.set_defaults(func=cmd_eval)
    cli_gate.register(add_parser)
    cli_index.register(add_parser)  # index
    cli_recommend.register(add_parser)  # recommend
    return parser


def policy_knobs(args: argparse.Namespace) -> dict[str, object]:
    """The policy knobs given on the command line (:class:`CompareSettings` and
    :class:`QascParams` fields), by the policy's keyword, in ``--help``'s order; a knob not
    given keeps the policy's default."""
    return {
        **given_options(args, CompareSettings, FIRST, args.policy),
        **given_knobs(args, QascParams),
        **given_options(args, CompareSettings, THEN, args.policy),
    }


def cmd_select(args: argparse.Namespace) -> int:
    if not args.query.strip():
        raise SettingsError("--query is empty.")
    chosen = settings_of(args)
    if chosen is not None:
        apply_to_args(chosen, args)
        setting = chosen.setting
        gate_knobs: dict[str, object] = (
            {"gate": setting.gate, "p": setting.p} if setting.policy == "learned" else {}
        )
    else:
        gate_knobs = cli_gate.gate_knobs(args) if args.policy == "learned" else {}
    retriever = retriever_of(args)
    embedder, cache, prep = cli_index.store_or_setup(args)
    if chosen is not None:
        print_chosen_on_notes(chosen, prep)
    cli_gate.print_setting_notes(gate_knobs, prep)
    qvec = embed_query(embedder, args.query, cache)
    gate = gate_params(args)
    inputs = query_inputs(
        prep, args.query, qvec, gate, embedder=embedder, cache=cache, retriever=retriever
    )
    if chosen is not None:
        params: dict[str, object] = {}
        result = setting_runner(chosen.setting, ChunkSet.of(prep))(inputs)
    else:
        params = policy_knobs(args)
        result = run_policy(args.policy, inputs, **params, **gate_knobs)
    if gate_knobs:
        params.update(gate=cli_gate.gate_label(args), p=args.p)
    sel = result.detail if isinstance(result.detail, Selection) else None
    decisions = [d.as_row() for d in sel.decisions] if sel is not None else []
    if gate_knobs and sel is not None:
        cli_gate.print_k_note(gate_knobs, gate.k, decision_features(sel.decisions))
    out = {
        "document": prep.document.name,
        "n_chunks": len(prep.chunks),
        "model": prep.embedder_id,
        "policy": result.name,
        "params": {
            "k": gate.k,
            "lam": gate.lam,
            "tau": gate.tau,
            "radius": gate.radius,
            **({"mu": gate.mu} if gate.mu else {}),
            "chunker": args.chunker,
            "chunk_size": args.chunk_size,
            "overlap": args.overlap,
            "prepend": args.prepend,
            **params,
        },
        "retrieved": sel.retrieved if sel is not None else None,
        "selected": list(result.chunk_ids) if result.chunk_ids is not None else None,
        "admitted": sel.admitted if sel is not None else None,
        "spans": [list(s) for s in result.spans],
        "chars": result.chars,
        "tokens": result.tokens,
        "seconds": round(result.seconds, 6),
        "notes": list(result.notes),
        "decisions": decisions,
        **_corpus_fields(prep, result.spans, result.chunk_ids),
    }
    if not retriever.dense:
        out["params"]["retriever"] = retriever.as_json()
    if chosen is not None:
        out["settings"] = chosen.as_json()
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    shown = "" if retriever.dense else f" · retriever {retriever.label}"
    print(f"{prep.document.name}: {len(prep.chunks)} chunks · {prep.embedder_label}{shown}")
    if chosen is not None:
        print(chosen.line())
    print(
        f"policy {result.name}: {len(result.chunk_ids or ())} chunks, {result.chars} chars, "
        f"{result.tokens} tokens, {result.seconds * 1000:.1f} ms"
    )
    if gate_knobs:
        assert isinstance(sel, LearnedSelection)  # the learned policy's
        cli_gate.print_decisions(sel)
    elif sel is not None:
        print(f"retrieved (rank order): {sel.retrieved}")
        print(f"admitted: {sel.admitted}")
        print(f"selected: {sel.selected}")
        header = (
            f"{'c':>5} {'n':>5} {'side':>5} {'d':>2} {'cos(q,n)':>9} {'b(c,n)':>7} "
            f"{'S':>7} {'bar':>7} {'margin':>7}  outcome"
        )
        print(header)
        for d in sel.decisions:
            blocked = f" ({d.blocked_by})" if d.blocked_by else ""
            print(
                f"{d.chunk:>5} {d.neighbour:>5} {d.side:>5} {d.distance:>2} {d.cos_qn:>9.3f} "
                f"{d.penalty:>7.3f} {d.score:>7.3f} {d.bar:>7.3f} {d.margin:>+7.3f}  "
                f"{d.outcome}{blocked}"
            )
    else:
        print(f"chunks: {list(result.chunk_ids) if result.chunk_ids is not None else '—'}")
        print(f"spans: {[list(s) for s in result.spans]}")
    for note in result.notes:
        print(f"note: {note}")
    return 0


def _corpus_fields(
    prep: PreparedDoc, spans: Sequence[Span], chunk_ids: Sequence[int] | None
) -> dict[str, object]:
    """On a corpus, the files, and the selection in each file's own terms: ``file_spans``
    (``{"doc", "start", "end"}``, offsets in that file's text) and ``selected_chunks``
    (``{"doc", "index"}``, the index within that file); nothing where no file path is shown
    (a document of one file, :meth:`~scar_viz.documents.reading.Document.shown_path`)."""
    document = prep.document
    if not document.shown_paths:
        return {}
    doc_of = prep.doc_of
    first = {int(d): i for i, d in reversed(list(enumerate(doc_of)))}
    file_spans = []
    for span in spans:
        path, (start, end) = local_span(document, span)
        file_spans.append({"doc": path, "start": start, "end": end})
    selected = [
        {"doc": document.parts[int(doc_of[c])].path, "index": c - first[int(doc_of[c])]}
        for c in chunk_ids or ()
    ]
    return {
        "documents": [p.path for p in document.parts],
        "file_spans": file_spans,
        "selected_chunks": selected if chunk_ids is not None else None,
    }


def cmd_eval(args: argparse.Namespace) -> int:
    from scar_viz.evaluation import default_policies, evaluate, parse_policy_list, significance
    from scar_viz.evaluation.report import evaluation_json, significance_lines, summary_lines

    chosen = settings_of(args)
    if args.boot < 0:
        raise SettingsError("--boot must be 0 or more.")
    if chosen is not None:
        apply_to_args(chosen, args)
        policies = settings_policies(chosen, args.policies)
        setting = chosen.setting
        knobs: dict[str, dict[str, object]] | None = (
            {"learned": {"gate": setting.gate, "p": setting.p}}
            if setting.policy == "learned"
            else cli_gate.eval_knobs(args, policies)
        )
    else:
        policies = parse_policy_list(args.policies) if args.policies else default_policies()
        knobs = cli_gate.eval_knobs(args, policies)
    retriever = retriever_of(args)
    embedder, cache, prep = cli_index.store_or_setup(args)
    runners = setting_runners(chosen, prep)
    learned = (knobs or {}).get("learned", {})
    cli_gate.print_setting_notes(learned, prep)
    qset, labelled = load_labelled(
        args.queries, prep, embedder, cache, max_queries=args.max_queries, retriever=retriever
    )
    fitted = learned.get("gate")
    if isinstance(fitted, LearnedGate):
        cli_gate.print_k_note(
            learned,
            args.k,
            judged_features(
                labelled,
                fitted,
                args.k,
                gate_params(args).radius,
            ),
        )
    ev = evaluate(
        labelled,
        policies,
        gate_params(args),
        embed=embed_function(embedder, cache),
        knobs=knobs,
        issues=qset.issues,
        runners=runners,
    )
    for name, pe in ev.policies.items():
        if pe.error:
            print(f"warning: policy {name} did not run: {pe.error}", file=sys.stderr)
    tests = significance(ev, n_boot=args.boot, seed=args.seed) if args.boot else ()
    if args.json:
        out = evaluation_json(ev, tests, per_query=not args.no_per_query)
        out.update(cli_gate.eval_json(args, knobs))
        if chosen is not None:
            out["settings"] = chosen.as_json()
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    run, gp = ev.settings, ev.settings.params
    print(
        f"{run.document}: {run.n_chunks} chunks ({run.chunking}) · {run.embedder} · "
        f"k={gp.k} λ={gp.lam:g} τ={gp.tau:g} r={gp.radius}"
        + (f" μ={gp.mu:g}" if gp.mu else "")
        + ("" if run.retriever.dense else f" · retriever {run.retriever.label}")
    )
    if chosen is not None:
        print(chosen.line())
    counts = ev.type_counts
    print(
        f"{ev.n_queries} queries: {counts['fragmented']} fragmented, {counts['atomic']} atomic, "
        f"{counts['scattered']} scattered (under this chunking)"
    )
    cli_gate.print_eval_gate(args, knobs)
    for line in (*summary_lines(ev), *significance_lines(tests)):
        print(line)
    return 0


@functools.cache
def _parser(prog: str) -> argparse.ArgumentParser:
    """:func:`build_parser` once a process: a build takes 6.5 ms, and callers in one process
    (the tests, a notebook) run thousands of commands; ``parse_args`` keeps nothing in it (a
    fresh namespace each call, no ``append`` option)."""
    return build_parser(prog=prog)


def main(argv: Sequence[str] | None = None, prog: str = "python -m scar_viz") -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == [APP]:  # its options are Streamlit's: argparse must not read them
        return run_app(argv[1:])
    args = _parser(prog).parse_args(argv)
    try:
        with devices.use(device_choice(args)):  # every model this command loads
            return args.func(args)
    except (UserError, ValueError, OSError) as exc:  # ValueError: modules not yet on UserError
        print(f"error: {user_message(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


def run_app(streamlit_args: Sequence[str]) -> int:
    """``app``: serve the app found beside this package (:func:`scar_viz.cli.app.app_script`)."""
    from scar_viz.cli.app import app_script, serve

    try:
        script = app_script()
    except UserError as exc:
        print(f"error: {user_message(exc)}", file=sys.stderr)
        return EXIT_FAILED
    return serve(script, streamlit_args)


def entry() -> None:
    """The ``scar-viz`` command (pyproject.toml's console script)."""
    sys.exit(main(prog="scar-viz"))
