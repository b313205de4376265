"""Cut rate of the development corpus's evidence spans at 600/60 for every chunker.

    .venv/bin/python benchmarks/cut_rates.py [--model default] [--doc PATH --queries PATH]

A span is cut when no single chunk covers all its non-whitespace characters. ``tokens`` is
measured twice: at 600/60 tokens (its own unit) and at the same length in characters.
The semantic chunker uses ``--model`` (default: the embedded all-MiniLM-L6-v2).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.chunking.fragmentation import chars_per_token, cut_stats
from scar_viz.chunking.registry import CHUNKERS
from scar_viz.documents.reading import load_path
from scar_viz.embeddings import EmbeddingCache, make_embedder
from scar_viz.pipeline import embed_function
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import evidence_units, parse_queries
from scripts.bench_smoke import SAMPLE, SAMPLE_QUERIES, parse

ROOT = Path(__file__).resolve().parent.parent

CORPUS = ROOT.parent / "shared" / "corpora"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--doc", default=str(CORPUS / "rfc9293.txt"))
    p.add_argument("--queries", default=str(CORPUS / "rfc9293.queries.jsonl"))
    p.add_argument("--model", default="default")
    p.add_argument("--size", type=int, default=600)
    p.add_argument("--overlap", type=int, default=60)
    args = parse(p, argv, doc=str(SAMPLE), queries=str(SAMPLE_QUERIES), model="hash")
    doc = load_path(args.doc)
    data = Path(args.queries).read_text(encoding="utf-8")
    units, issues = evidence_units(data, doc)
    queries = parse_queries(data, doc)
    embedder = make_embedder(args.model)
    embed = embed_function(embedder, EmbeddingCache())
    scale = chars_per_token(doc.text)
    configs = [ChunkingConfig(name, args.size, args.overlap) for name in CHUNKERS]
    configs.append(ChunkingConfig("tokens", round(args.size / scale), round(args.overlap / scale)))
    print(
        f"{doc.name}: {len(doc.text):,} chars; {len(units)} distinct evidence spans of "
        f"{len(queries.queries)} queries ({len(issues)} skipped); semantic model "
        f"{embedder.label}; {scale:.2f} chars/token"
    )
    print(
        f"{'chunking':<32} {'chunks':>6} {'mean ch':>7} {'cut':>9} {'rate':>7} "
        f"{'frag. queries':>13} {'s':>6}"
    )
    for config in configs:
        t0 = time.perf_counter()
        stats = cut_stats(doc, config, units, embed)
        chunks = chunk_document(doc, config, embed)
        fragmented = sum(g.fragmented for g in label_queries(queries, doc, chunks))
        print(
            f"{config.label:<32} {stats.n_chunks:>6} {stats.mean_chars:>7.0f} "
            f"{stats.n_cut:>4}/{stats.n_units:<4} {100 * stats.rate:>6.1f}% "
            f"{fragmented:>6}/{len(queries.queries):<6} {time.perf_counter() - t0:>6.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
