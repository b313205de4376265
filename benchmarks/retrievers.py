"""Benchmark: every retriever × policy — recall and mean chunks, all / fragmented / atomic.

On RFC 9293 (``../shared/corpora``, 40 labelled queries; skipped with a message when absent),
the built-in harbour sample (24 queries) and the built-in Kestrel corpus (20 queries, six
files), chunked recursive 600/60 and embedded with the default model (all-MiniLM-L6-v2) or
``--model``; k = 4, r = 1, SCAR at preset A (λ 0.5, τ 0.1), the learned gate at its default
p, window ±1. The retriever only orders the chunks (docs/method.md §8); nothing here is tuned:
every figure is read with the shipped defaults.

Run: ``.venv/bin/python benchmarks/retrievers.py [--model default]`` (a few minutes the first
time; embeddings are kept in ``SCAR_VIZ_CACHE_DIR``). Writes
``benchmarks/results/retrievers.json`` and prints the table docs/method.md cites.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents import samples
from scar_viz.documents.reading import load_path
from scar_viz.embeddings import EmbeddingCache, embed_cached, make_embedder
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.run import evaluate
from scar_viz.pipeline import prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.retrieval import RETRIEVERS, Retriever
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import normalize
from scripts.bench_smoke import parse

ROOT = Path(__file__).resolve().parent.parent

CORPUS = ROOT.parent / "shared" / "corpora"
OUT = ROOT / "benchmarks" / "results" / "retrievers.json"
K = 4
POLICIES = ("topk", "window1", "scar", "learned", "rse", "automerge")
SUBSETS = ("all", "fragmented", "atomic")


def datasets() -> list[tuple[str, object, str]]:
    """(name, document, queries JSON Lines) of every set measured."""
    out = []
    rfc = CORPUS / "rfc9293.txt"
    if rfc.exists():
        out.append(("RFC 9293", load_path(rfc), (CORPUS / "rfc9293.queries.jsonl").read_text()))
    else:
        print(f"note: {rfc} not found; measuring the built-in samples only", file=sys.stderr)
    out.append(("harbour sample", samples.load_sample("harbor"), samples.sample_queries_text()))
    kestrel = samples.load_sample("kestrel")
    out.append(("Kestrel corpus (6 files)", kestrel, samples.sample_queries_text("kestrel")))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="default")
    parser.add_argument("--out", default=str(OUT))
    args = parse(parser, argv, model="hash")
    embedder = make_embedder(args.model)
    cache = EmbeddingCache()
    params = GateParams(k=K, lam=0.5, tau=0.1, radius=1)
    rows = []
    t0 = time.perf_counter()
    for name, doc, queries in datasets():
        prep = prepare_document(doc, embedder, ChunkingConfig("recursive", 600, 60), False, cache)
        gold = label_queries(parse_queries(queries, doc), doc, prep.chunks)
        vecs = normalize(embed_cached(embedder, [g.query.query for g in gold], cache).vectors)
        for retriever in RETRIEVERS:
            ev = evaluate(
                LabelledRun(prep, gold, np.atleast_2d(vecs), Retriever(retriever)), POLICIES, params
            )
            for policy in POLICIES:
                pe = ev.policies[policy]
                row = {"data": name, "retriever": retriever, "policy": policy}
                for subset in SUBSETS:
                    s = pe.summaries[subset]
                    row[subset] = {"n": s.n, "recall": s.recall, "mean_chunks": s.mean_chunks}
                rows.append(row)
        print(f"{name}: {len(prep.chunks)} chunks, {len(gold)} queries", file=sys.stderr)
    out = {
        "what": f"k={K}, r=1, SCAR λ=0.5 τ=0.1, learned at its default p, recursive 600/60",
        "model": embedder.label,
        "seconds": round(time.perf_counter() - t0, 1),
        "rows": rows,
    }
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print("| data | retriever | policy | recall all | chunks | recall fragmented | recall atomic |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        a, f, t = r["all"], r["fragmented"], r["atomic"]
        pct = lambda x: "—" if x is None else f"{100 * x:.1f} %"  # noqa: E731
        print(
            f"| {r['data']} | {r['retriever']} | {r['policy']} | {pct(a['recall'])} | "
            f"{a['mean_chunks']:.2f} | {pct(f['recall'])} | {pct(t['recall'])} |"
        )
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
