"""Every policy at equal budget: Recall@K against mean context tokens for k = 1 … 10.

    .venv/bin/python benchmarks/equal_budget.py [--doc PATH --queries PATH] [--model default]
        [--html budget.html]

Default: the built-in sample and its labelled questions. First prints what QASC sends for the
sample's default question with every window (the literal steps 1–5) and with its top k QASC
chunks (k = 3); then one row per (policy, k) and the Pareto front over all of them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scar_viz.charts.budget import budget_chart
from scar_viz.documents import samples
from scar_viz.documents.reading import load_path
from scar_viz.embeddings import EmbeddingCache, embed_cached, make_embedder
from scar_viz.evaluation.budget import equal_budget
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.pipeline import (
    embed_function,
    embed_query,
    prepare_document,
    query_inputs,
)
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import load_queries, parse_queries
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import normalize
from scripts.bench_smoke import parse

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--doc", default=None)
    ap.add_argument("--queries", default=None)
    ap.add_argument("--model", default="default")
    ap.add_argument("--html", default=None, help="write the chart to this HTML file")
    args = parse(ap, argv, model="hash")
    embedder, cache = make_embedder(args.model), EmbeddingCache()
    doc = load_path(args.doc) if args.doc else samples.load_sample()
    prep = prepare_document(doc, embedder, cache=cache)
    if args.queries:
        qset = load_queries(args.queries, doc)
    else:
        qset = parse_queries(samples.sample_queries_text(), doc)
    if not args.doc:
        from scar_viz.policies import run_policy

        question = samples.sample_questions()[0]["query"]
        qvec = embed_query(embedder, question, cache)
        inputs = query_inputs(prep, question, qvec, GateParams(k=3), embedder=embedder, cache=cache)
        print(f"QASC on '{question}' ({len(doc.text):,} characters):")
        for label, knobs in (("every window", {"all_windows": True}), ("top k = 3", {})):
            r = run_policy("qasc", inputs, **knobs)
            print(
                f"  {label:<13} {len(r.spans):>3} spans, context {r.chars:>6,} characters "
                f"({100 * r.chars / len(doc.text):.0f} % of the document), {r.tokens:,} tokens"
            )
    labelled = label_queries(qset, doc, prep.chunks)
    vecs = normalize(embed_cached(embedder, [q.query.query for q in labelled], cache).vectors)
    res = equal_budget(LabelledRun(prep, labelled, vecs), embed=embed_function(embedder, cache))
    print(f"\n{len(labelled)} queries, {len(prep.chunks)} chunks, {prep.embedder_label}")
    for name, msg in res.errors.items():
        print(f"  {name} did not run: {msg}")
    front = set(res.on_front())
    print(f"{'policy':<16} {'k':>2} {'recall':>7} {'tokens':>8} {'chunks':>7}  front")
    for name in res.policies:
        for p in res.of(name):
            mark = "◆" if p in front else ""
            print(
                f"{name:<16} {p.k:>2} {p.recall:>7.3f} {p.mean_tokens:>8.1f} "
                f"{p.mean_chunks:>7.2f}  {mark}"
            )
    if args.html:
        budget_chart(res).write_html(args.html)
        print(f"chart: {args.html}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
