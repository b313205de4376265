"""Benchmark: the static model2vec embedder against the default model, speed and recall.

On the development corpus (RFC 9293, recursive 600/60 chunks, its labelled queries):

- throughput in chunks/s of each model's ``embed`` over the same chunks, both timed the same
  way in this one run (models loaded and warmed up first; full passes repeated until
  ``--min-seconds`` have passed; the median pass; the two models alternate, so both see the
  same machine load), and their ratio;
- Recall@k of top-k and of SCAR (the default gate parameters of :mod:`scar_viz.scoring.params`)
with each model, gold chunks as in docs/method.md §4
(:func:`scar_viz.queries.gold.label_queries`), with a paired bootstrap of the recall
difference static − default over the queries.

The static model is distilled first (model2vec's distill) if it is not in the cache yet (the
time is printed). The figures are written to ``benchmarks/results/static_model.json``
(``--out``), which docs/models.md cites and the model picker shows. ``--limit N`` keeps the
first N chunks (and the queries whose gold chunks all lie among them) for a quick check; a
limited run writes nothing unless ``--out`` is given.

    python benchmarks/static_model.py [--corpus PATH] [--queries PATH] [--k 5] [--limit N]
        [--min-seconds S] [--out PATH] [--json]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from scar_viz.chunking.config import ChunkingConfig, chunk_document, embedding_texts
from scar_viz.common.edges import one_file
from scar_viz.common.errors import UserError, user_message
from scar_viz.documents.reading import load_path
from scar_viz.embeddings import StaticEmbedder, default_embedder, make_embedder
from scar_viz.embeddings.distill import MARKER, ensure_static_model
from scar_viz.embeddings.static import MEASURED_FIGURES
from scar_viz.evaluation.bootstrap import paired_bootstrap
from scar_viz.evaluation.metrics import chunk_recall
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import load_queries
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import normalize, select_from_sims, top_k
from scripts.bench_smoke import SAMPLE, SAMPLE_QUERIES, parse

ROOT = Path(__file__).resolve().parent.parent

CORPORA = ROOT.parent / "shared" / "corpora"


def throughput(embedder, texts: list[str], min_seconds: float) -> tuple[list[float], np.ndarray]:
    """chunks/s of full passes over ``texts``, repeated until ``min_seconds`` have passed, and
    the vectors of the last pass."""
    rates: list[float] = []
    spent = 0.0
    while not rates or spent < min_seconds:
        t0 = time.perf_counter()
        vecs = embedder.embed(texts)
        dt = time.perf_counter() - t0
        spent += dt
        rates.append(len(texts) / dt)
    return rates, vecs


def recalls(
    unit: np.ndarray, queries: np.ndarray, golds, params: GateParams
) -> dict[str, np.ndarray]:
    """Per-query Recall@k of top-k and of SCAR: |selected ∩ gold| / |gold|."""
    out: dict[str, list[float]] = {"topk": [], "scar": [], "scar_chunks": []}
    for qvec, gold in zip(queries, golds, strict=True):
        sims = unit @ qvec
        out["topk"].append(chunk_recall(gold, top_k(sims, params.k)))
        sel = select_from_sims(sims, unit, params, doc_of=one_file(len(unit)))
        out["scar"].append(chunk_recall(gold, sel.selected))
        out["scar_chunks"].append(len(sel.selected))
    return {name: np.asarray(values) for name, values in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", default=str(CORPORA / "rfc9293.txt"))
    parser.add_argument("--queries", default=str(CORPORA / "rfc9293.queries.jsonl"))
    parser.add_argument("--k", type=int, default=5, help="chunks retrieved (default 5)")
    parser.add_argument(
        "--limit", type=int, default=None, help="keep only the first N chunks (a quick check)"
    )
    parser.add_argument(
        "--min-seconds",
        type=float,
        default=3.0,
        help="least time spent timing each model in each of its two turns (default 3)",
    )
    parser.add_argument(
        "--out",
        default=None,
        help=f"where to write the figures (default {MEASURED_FIGURES.relative_to(ROOT)}; "
        "a --limit run writes only when this is given)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parse(
        parser, argv, corpus=str(SAMPLE), queries=str(SAMPLE_QUERIES), limit=40, min_seconds=0.05
    )
    for path in (args.corpus, args.queries):
        if not Path(path).is_file():
            print(
                f"error: {path} not found (the development corpus is in ../shared/corpora)",
                file=sys.stderr,
            )
            return 1
    if args.limit is not None and args.limit < 1:
        print("error: --limit must be at least 1", file=sys.stderr)
        return 2
    try:
        return run(args)
    except UserError as exc:
        print(f"error: {user_message(exc)}", file=sys.stderr)
        return 1


def run(args: argparse.Namespace) -> int:
    params = GateParams(k=args.k)
    document = load_path(args.corpus)
    config = ChunkingConfig("recursive", 600, 60)
    chunks = chunk_document(document, config)
    golds = label_queries(load_queries(args.queries, document), document, chunks)
    if args.limit is not None:
        chunks = chunks[: args.limit]
        golds = [g for g in golds if g.gold and max(g.gold) < len(chunks)]
    if not golds:
        print("error: no labelled query has its gold chunks in the chunks kept", file=sys.stderr)
        return 1
    texts = embedding_texts(chunks, prepend_section=False)
    query_texts = [g.query.query for g in golds]

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    distilled = []
    logged: set[tuple[int, str]] = set()

    def on_distill(done: int, total: int, stage: str) -> None:
        if done < total:
            distilled.append(stage)
        tenth = (10 * done // max(total, 1), stage.split(":")[0])
        if tenth not in logged:  # each stage, and each tenth of the encoding, once
            logged.add(tenth)
            log(f"  distil {done}/{total}: {stage}")

    if args.smoke:  # the script's path, no model and no distillation: two hashing embedders
        folder, distill_s, marker = Path("(none: --smoke)"), None, {"seconds": 0.0}
        models = {"default": make_embedder("hash"), "static": make_embedder("hash")}
    else:
        folder = ensure_static_model(on_distill)
        distill_s = time.perf_counter() - t0 if distilled else None
        marker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
        models = {"default": default_embedder(), "static": StaticEmbedder()}
    log(f"loading models; {len(chunks)} chunks, {len(golds)} queries")
    for embedder in models.values():
        embedder.load()
        embedder.embed(texts[:16])  # warm-up

    rates: dict[str, list[float]] = {name: [] for name in models}
    vectors: dict[str, np.ndarray] = {}
    for turn in (1, 2):  # alternate, so both models see the same machine load
        for name, embedder in models.items():
            log(f"timing the {name} model (turn {turn}) …")
            passes, vectors[name] = throughput(embedder, texts, args.min_seconds)
            rates[name] += passes
    rate = {name: statistics.median(r) for name, r in rates.items()}

    rows = {}
    for name, embedder in models.items():
        qv = normalize(embedder.embed(query_texts))
        rows[name] = recalls(normalize(vectors[name]), qv, [g.gold for g in golds], params)
    frag = np.array([g.fragmented for g in golds])

    def mean(x: np.ndarray) -> float | None:
        return round(float(np.mean(x)), 3) if len(x) else None

    cost = {m: paired_bootstrap(rows["static"][m], rows["default"][m]) for m in ("topk", "scar")}
    figures = {
        "measured": datetime.date.today().isoformat(),
        "command": "python benchmarks/static_model.py"
        + (f" --limit {args.limit}" if args.limit else ""),
        "corpus": f"{Path(args.corpus).name}, recursive 600/60 ({len(chunks)} chunks), "
        f"{len(golds)} labelled queries",
        "k": params.k,
        "gate": {"lam": params.lam, "tau": params.tau, "radius": params.radius},
        "timing": f"median of full passes, each model timed ≥ {args.min_seconds:g} s in each "
        "of two alternating turns",
        "throughput_default": round(rate["default"], 1),
        "throughput_static": round(rate["static"], 0),
        "throughput_ratio": round(rate["static"] / rate["default"], 0),
        "recall_topk_default": mean(rows["default"]["topk"]),
        "recall_topk_static": mean(rows["static"]["topk"]),
        "recall_scar_default": mean(rows["default"]["scar"]),
        "recall_scar_static": mean(rows["static"]["scar"]),
        "recall_scar_fragmented_default": mean(rows["default"]["scar"][frag]),
        "recall_scar_fragmented_static": mean(rows["static"]["scar"][frag]),
        "scar_chunks_default": mean(rows["default"]["scar_chunks"]),
        "scar_chunks_static": mean(rows["static"]["scar_chunks"]),
        "recall_cost_scar_ci95": [round(cost["scar"].ci_low, 3), round(cost["scar"].ci_high, 3)],
        "recall_cost_scar_p": round(cost["scar"].p_value, 4),
        "distill_seconds": round(distill_s if distill_s is not None else marker["seconds"], 0),
        "distilled_with": f"model2vec {importlib.metadata.version('model2vec')} distill",
    }
    out = args.out or (None if args.limit else str(MEASURED_FIGURES))
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", "utf-8")
        log(f"figures written to {out}")
    if args.json:
        print(json.dumps(figures, indent=2, ensure_ascii=False))
        return 0
    print(
        f"{Path(args.corpus).name}: {len(chunks)} chunks; {len(golds)} queries "
        f"({int(frag.sum())} fragmented); k = {params.k}; SCAR λ {params.lam}, τ {params.tau}, "
        f"r {params.radius}"
    )
    if distill_s is not None:
        print(f"distillation: {distill_s:.0f} s (now cached in {folder})")
    else:
        print(f"distillation: cached in {folder} (took {marker['seconds']:.0f} s when made)")
    print(
        f"throughput   default {rate['default']:8.1f} chunks/s   static {rate['static']:9.0f} "
        f"chunks/s   ratio {rate['static'] / rate['default']:6.0f}x"
    )
    print(
        f"{'Recall@' + str(params.k):<14}{'default':>9}{'static':>9}{'static−default':>16}"
        f"{'95% CI':>18}{'p':>8}"
    )
    for label, m in (("top-k", "topk"), ("SCAR", "scar")):
        b = cost[m]
        print(
            f"{label:<14}{b.mean_b:9.3f}{b.mean_a:9.3f}{b.mean_diff:+16.3f}"
            f"{f'[{b.ci_low:+.3f}, {b.ci_high:+.3f}]':>18}{b.p_value:8.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
