"""Benchmark: a large synthetic corpus in memory — one question's work, and an evaluation.

A corpus of ``--files`` files (default 1,000) of about ``--chunks-per-file`` chunks each
(default 52, so at least 50,000 chunks under the default chunking, recursive 600/60) is
generated from a fixed seed: each file mixes a topic vocabulary of its own with common words,
so the ``hash`` embedder (no model weights) sees structure. The queries are taken from the
files: each names its file (``doc``) and quotes one passage that ends across a chunk boundary
(fragmented) or sits inside one chunk (atomic).

Measured, in one process:

- **one question**: ranking all chunks (``unit @ q``), SCAR's selection with the file edges
  (``select_from_sims`` with ``doc_of``) and the corpus view's per-file data
  (:func:`scar_viz.views.corpus.corpus_view`) — the median of ``--questions`` questions
  (target ≤ 100 ms);
- **eval**: :func:`scar_viz.evaluation.run.evaluate` of ``--queries`` queries (default 1,000)
  with topk, window ±1 and SCAR (target ≤ 15 s), after the queries' vectors are embedded;
- the process's peak resident memory (``ru_maxrss``) and the time to build, chunk and embed
  the corpus (not a target: the hash embedder stands in for a model).

Run: ``.venv/bin/python benchmarks/corpus_scale.py [--files 1000] [--queries 1000]``
(about 2–3 minutes on the 2-core machine). Writes ``benchmarks/results/corpus_scale.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import time
from pathlib import Path

import numpy as np

from scar_viz.embeddings import make_embedder
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.run import evaluate
from scar_viz.pipeline import embed_query, prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.params import DEFAULT_PARAMS
from scar_viz.scoring.scar import select_from_sims
from scar_viz.views.corpus import corpus_view
from scripts.bench_smoke import parse
from scripts.synthetic_corpus import build_corpus, make_queries

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results" / "corpus_scale.json"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--chunks-per-file", type=int, default=52)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--out", default=str(RESULTS))
    args = parse(parser, argv, files=3, chunks_per_file=6, queries=6, questions=2)

    t0 = time.perf_counter()
    corpus = build_corpus(args.files, args.chunks_per_file)
    embedder = make_embedder("hash")
    prep = prepare_document(corpus, embedder)
    doc_of = prep.doc_of
    build_s = time.perf_counter() - t0
    n = len(prep.chunks)
    print(f"{args.files} files, {n:,} chunks, {len(corpus.text):,} characters: {build_s:.1f} s")

    qset = parse_queries(make_queries(corpus, args.queries), corpus)
    gold = label_queries(qset, corpus, prep.chunks)
    vecs = np.stack([embed_query(embedder, g.query.query) for g in gold])
    types = {t: sum(g.type == t for g in gold) for t in ("fragmented", "atomic", "scattered")}

    times = []
    for v in vecs[: args.questions]:
        t = time.perf_counter()
        sims = prep.unit @ v
        sel = select_from_sims(sims, prep.unit, DEFAULT_PARAMS, doc_of)
        view = corpus_view(corpus, doc_of, sims, sel)
        times.append(time.perf_counter() - t)
        assert len(view.paths) == args.files
    question_ms = 1000 * statistics.median(times)
    print(f"one question (rank, SCAR, per-file data): median {question_ms:.1f} ms")

    t = time.perf_counter()
    result = evaluate(LabelledRun(prep, gold, vecs), ["topk", "window1", "scar"], DEFAULT_PARAMS)
    eval_s = time.perf_counter() - t
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    recall = {
        label: round(float(np.mean([o.recall for o in ev.outcomes])), 4)
        for label, ev in result.policies.items()
    }
    print(f"eval of {len(gold)} queries (topk, window1, scar): {eval_s:.1f} s; recall {recall}")
    print(f"peak resident memory: {peak_mib:,.0f} MiB")
    out = {
        "what": "synthetic corpus, hash embedder, recursive 600/60, k=3 r=1 λ=0.5 τ=0.1",
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "files": args.files,
        "chunks": n,
        "characters": len(corpus.text),
        "build_chunk_embed_seconds": round(build_s, 1),
        "question_median_ms": round(question_ms, 1),
        "question_target_ms": 100,
        "eval_queries": len(gold),
        "eval_query_types": types,
        "eval_seconds": round(eval_s, 2),
        "eval_target_seconds": 15,
        "recall": recall,
        "peak_rss_mib": round(peak_mib),
    }
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
