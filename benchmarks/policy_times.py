"""Time per query of every retrieval policy on one document (default: RFC 9293, 40 queries).

    .venv/bin/python benchmarks/policy_times.py [--doc PATH] [--queries PATH] [--model default]

Chunk, query and sentence embeddings are cached first (on disk, the app's cache), so the times
are query time only: what each policy costs on top of the shared chunk embeddings. The rerank
policy uses ``--reranker`` (default BAAI/bge-reranker-large) when it loads offline; otherwise
it says why and measures a tiny random local CrossEncoder instead, labelled as such (its scores
are meaningless; only its cost is of interest, and a real reranker is far slower).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.chunking.tokens import TOKENIZER_NAME
from scar_viz.documents.reading import load_path
from scar_viz.documents.sentences import sentence_spans
from scar_viz.embeddings import EmbeddingCache, make_embedder
from scar_viz.pipeline import embed_query, prepare_document, query_inputs
from scar_viz.policies import ORDER, run_policy
from scar_viz.policies.rerank import (
    DEFAULT_RERANKER,
    RerankerError,
    load_reranker,
)
from scar_viz.scoring.params import GateParams
from scripts.bench_smoke import SAMPLE, SAMPLE_QUERIES, parse
from scripts.tiny_models import tiny_cross_encoder

ROOT = Path(__file__).resolve().parent.parent

CORPUS = ROOT.parent / "shared" / "corpora"


def _ms(values: list[float]) -> dict[str, float]:
    ms = sorted(v * 1000 for v in values)
    return {
        "mean_ms": statistics.fmean(ms),
        "median_ms": statistics.median(ms),
        "p95_ms": ms[min(len(ms) - 1, int(0.95 * len(ms)))],
        "max_ms": ms[-1],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--doc", default=str(CORPUS / "rfc9293.txt"))
    p.add_argument("--queries", default=str(CORPUS / "rfc9293.queries.jsonl"))
    p.add_argument("--model", default="default")
    p.add_argument("--limit", type=int, default=0, help="first N queries only (0 = all)")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--reranker", default=DEFAULT_RERANKER)
    p.add_argument("--cache", default=None, help="embedding cache file (default the app's)")
    p.add_argument("--out", default=None, help="also write the results as JSON here")
    args = parse(p, argv, doc=str(SAMPLE), queries=str(SAMPLE_QUERIES), model="hash", limit=3)

    t0 = time.perf_counter()
    document = load_path(args.doc)
    queries = [json.loads(x) for x in Path(args.queries).read_text().splitlines() if x.strip()]
    if args.limit:
        queries = queries[: args.limit]
    embedder = make_embedder(args.model)
    cache = EmbeddingCache(args.cache)
    prep = prepare_document(document, embedder, ChunkingConfig(), False, cache)
    print(
        f"{document.name}: {len(document.text):,} chars, {len(prep.chunks)} chunks, "
        f"{prep.n_encoded} newly encoded, {prep.seconds:.1f} s · {embedder.label}"
    )
    split_t = time.perf_counter()
    sentences = sentence_spans(document.text)
    split_t = time.perf_counter() - split_t
    qvecs = [embed_query(embedder, q["query"], cache) for q in queries]

    reranker, reranker_note = args.reranker, f"{args.reranker} (loaded offline)"
    try:
        load_reranker(reranker)
    except RerankerError as exc:
        print(f"reranker: {exc}")
        tiny = tiny_cross_encoder(Path(tempfile.mkdtemp(prefix="tiny_ce_")))
        load_reranker(str(tiny))
        reranker = str(tiny)
        reranker_note = (
            f"{args.reranker} could not be loaded offline; measured with a tiny "
            "random local CrossEncoder (1 layer, 32-d BERT) instead"
        )
    settings = {name: {} for name in ORDER}
    settings["window"] = {"w": 1}
    settings["rerank"] = {"reranker": reranker}

    def inputs_for(i: int):
        return query_inputs(
            prep,
            queries[i]["query"],
            qvecs[i],
            GateParams(k=args.k),
            embedder=embedder,
            cache=cache,
        )

    warm = time.perf_counter()
    run_policy("qasc", inputs_for(0))  # encodes the sentences once (cached on disk after)
    warm = time.perf_counter() - warm
    print(
        f"{len(sentences)} sentences (split in {split_t:.2f} s); QASC warm-up "
        f"(sentence vectors) {warm:.1f} s"
    )

    times: dict[str, list[float]] = {n: [] for n in ORDER}
    walls: dict[str, list[float]] = {n: [] for n in ORDER}
    cost: dict[str, list[tuple[int, int, int]]] = {n: [] for n in ORDER}
    for i in range(len(queries)):
        inputs = inputs_for(i)
        for name in ORDER:
            w0 = time.perf_counter()
            res = run_policy(name, inputs, **settings[name])
            walls[name].append(time.perf_counter() - w0)
            times[name].append(res.seconds)
            cost[name].append(
                (None if res.chunk_ids is None else len(res.chunk_ids), res.chars, res.tokens)
            )

    rows = []
    for name in ORDER:
        stats = _ms(times[name])
        rows.append(
            {
                "policy": name
                if name != "rerank" or reranker == args.reranker
                else "rerank (tiny local CrossEncoder, not bge)",
                **stats,
                "wall_mean_ms": statistics.fmean(walls[name]) * 1000,
                "mean_chunks": None
                if cost[name][0][0] is None
                else statistics.fmean(c[0] for c in cost[name]),
                "mean_chars": statistics.fmean(c[1] for c in cost[name]),
                "mean_tokens": statistics.fmean(c[2] for c in cost[name]),
            }
        )
    print(
        f"\n{len(queries)} queries, k = {args.k}, window ±1, SCAR λ=0.5 τ=0.1 r=1, "
        f"QASC defaults (p75, m=2); tokens {TOKENIZER_NAME}; reranker: {reranker_note}\n"
    )
    print("| policy | mean ms | median ms | p95 ms | wall mean ms | chunks | chars | tokens |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        chunks = "—" if r["mean_chunks"] is None else f"{r['mean_chunks']:.1f}"
        print(
            f"| {r['policy']} | {r['mean_ms']:.2f} | {r['median_ms']:.2f} | {r['p95_ms']:.2f} "
            f"| {r['wall_mean_ms']:.2f} | {chunks} | {r['mean_chars']:,.0f} "
            f"| {r['mean_tokens']:,.0f} |"
        )
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    if args.out:
        Path(args.out).write_text(
            json.dumps(
                {
                    "document": document.name,
                    "queries": len(queries),
                    "model": embedder.model_id,
                    "reranker": reranker_note,
                    "rows": rows,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
