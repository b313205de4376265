"""Benchmark: the static model2vec embedder against the default model, speed and recall.

On the development corpus (RFC 9293, recursive 600/60 chunks, its labelled queries):

- throughput in chunks/s of each model's ``embed`` over every chunk (models loaded and warmed
  up first; the static model is timed before and after the default one, so both see the same
  machine load), and their ratio;
- Recall@k (k = 5) of top-k and of SCAR (λ 0.5, τ 0.1, r 1) with each model, gold chunks as in
  METHODS.md §4 (:func:`scar_viz.queries.label_queries`), with a paired bootstrap of the
  recall difference static − default over the queries.

The static model is distilled first if it is not in the cache yet (the time is printed).

    python benchmarks/static_model.py [--corpus PATH] [--queries PATH] [--k 5] [--json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scar_viz.bootstrap import paired_bootstrap  # noqa: E402
from scar_viz.chunking import ChunkingConfig, chunk_document, embedding_texts  # noqa: E402
from scar_viz.documents import load_path  # noqa: E402
from scar_viz.embeddings import default_embedder  # noqa: E402
from scar_viz.queries import label_queries, load_queries  # noqa: E402
from scar_viz.scoring import normalize, select_from_sims, top_k  # noqa: E402
from scar_viz.static_model import StaticEmbedder, ensure_static_model  # noqa: E402

CORPORA = ROOT.parent / "shared" / "corpora"
LAM, TAU, RADIUS = 0.5, 0.1, 1


def throughput(embedder, texts: list[str], min_seconds: float) -> list[float]:
    """chunks/s of full passes over ``texts``, repeated until ``min_seconds`` have passed."""
    rates: list[float] = []
    spent = 0.0
    while not rates or spent < min_seconds:
        t0 = time.perf_counter()
        embedder.embed(texts)
        dt = time.perf_counter() - t0
        spent += dt
        rates.append(len(texts) / dt)
    return rates


def recalls(unit: np.ndarray, queries: np.ndarray, golds, k: int) -> dict[str, np.ndarray]:
    """Per-query Recall@k of top-k and of SCAR: |selected ∩ gold| / |gold|."""
    out: dict[str, list[float]] = {"topk": [], "scar": [], "scar_chunks": []}
    for qvec, gold in zip(queries, golds, strict=True):
        sims = unit @ qvec
        gold_set = set(gold)
        out["topk"].append(len(gold_set & set(top_k(sims, k))) / len(gold_set))
        sel = select_from_sims(sims, unit, k, LAM, TAU, RADIUS)
        out["scar"].append(len(gold_set & set(sel.selected)) / len(gold_set))
        out["scar_chunks"].append(len(sel.selected))
    return {name: np.asarray(values) for name, values in out.items()}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", default=str(CORPORA / "rfc9293.txt"))
    parser.add_argument("--queries", default=str(CORPORA / "rfc9293.queries.jsonl"))
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument(
        "--min-seconds",
        type=float,
        default=3.0,
        help="least time spent timing the static model on each side (default 3)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    for path in (args.corpus, args.queries):
        if not Path(path).is_file():
            print(
                f"error: {path} not found (the development corpus is in ../shared/corpora)",
                file=sys.stderr,
            )
            return 1

    document = load_path(args.corpus)
    config = ChunkingConfig("recursive", 600, 60)
    chunks = chunk_document(document, config)
    texts = embedding_texts(chunks, prepend_section=False)
    query_set = load_queries(args.queries, document.text)
    golds = label_queries(query_set, document.text, chunks)
    query_texts = [g.query.query for g in golds]

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    distilled = []

    def on_distill(done: int, total: int, stage: str) -> None:
        if done < total:
            distilled.append(stage)
        if done in (1, total) or done % 20 == 0:
            log(f"  distil {done}/{total}: {stage}")

    folder = ensure_static_model(on_distill)
    distill_s = time.perf_counter() - t0 if distilled else None
    marker = json.loads((folder / "scar_viz_static.json").read_text(encoding="utf-8"))
    static, default = StaticEmbedder(), default_embedder()
    log(f"loading models; {len(chunks)} chunks, {len(golds)} queries")
    static.load()
    _ = default.model
    static.embed(texts[:64])
    default.embed(texts[:16])

    log("timing the static model …")
    static_rates = throughput(static, texts, args.min_seconds)
    log("timing the default model (one pass) …")
    t1 = time.perf_counter()
    default_vecs = default.embed(texts)
    default_rate = len(texts) / (time.perf_counter() - t1)
    log("timing the static model again …")
    static_rates += throughput(static, texts, args.min_seconds)
    static_rate = statistics.median(static_rates)

    static_vecs = static.embed(texts)
    rows = {}
    for name, embedder, vecs in (
        ("default", default, default_vecs),
        ("static", static, static_vecs),
    ):
        qv = normalize(embedder.embed(query_texts))
        rows[name] = recalls(normalize(vecs), qv, [g.gold for g in golds], args.k)
    frag = np.array([g.fragmented for g in golds])

    def pct(x: np.ndarray) -> float:
        return round(float(np.mean(x)), 3)

    cost = {m: paired_bootstrap(rows["static"][m], rows["default"][m]) for m in ("topk", "scar")}
    facts = {
        "throughput_default": round(default_rate, 1),
        "throughput_static": round(static_rate, 0),
        "throughput_ratio": round(static_rate / default_rate, 0),
        "recall_top5_default": pct(rows["default"]["topk"]),
        "recall_top5_static": pct(rows["static"]["topk"]),
        "recall_scar_default": pct(rows["default"]["scar"]),
        "recall_scar_static": pct(rows["static"]["scar"]),
        "recall_scar_fragmented_default": pct(rows["default"]["scar"][frag]),
        "recall_scar_fragmented_static": pct(rows["static"]["scar"][frag]),
        "scar_chunks_default": pct(rows["default"]["scar_chunks"]),
        "scar_chunks_static": pct(rows["static"]["scar_chunks"]),
        "recall_cost_scar_ci95": [round(cost["scar"].ci_low, 3), round(cost["scar"].ci_high, 3)],
        "recall_cost_scar_p": round(cost["scar"].p_value, 4),
        "distill_seconds": round(distill_s if distill_s is not None else marker["seconds"], 0),
        "corpus": f"{Path(args.corpus).name}, recursive 600/60 ({len(chunks)} chunks), "
        f"{len(golds)} labelled queries, k = {args.k}",
        "measured": datetime.date.today().isoformat(),
        "command": "python benchmarks/static_model.py",
    }
    if args.json:
        print(json.dumps(facts, indent=2))
        return 0
    n_frag = int(frag.sum())
    print(
        f"{Path(args.corpus).name}: {len(chunks)} chunks; {len(golds)} queries "
        f"({n_frag} fragmented); k = {args.k}; SCAR λ {LAM}, τ {TAU}, r {RADIUS}"
    )
    if distill_s is not None:
        print(f"distillation: {distill_s:.0f} s (now cached in {folder})")
    else:
        print(f"distillation: cached in {folder} (took {marker['seconds']:.0f} s when made)")
    print(
        f"throughput   default {default_rate:8.1f} chunks/s   static {static_rate:9.0f} chunks/s"
        f"   ratio {static_rate / default_rate:6.0f}x   "
        f"(static passes: {min(static_rates):.0f}–{max(static_rates):.0f} chunks/s)"
    )
    print(
        f"{'Recall@' + str(args.k):<14}{'default':>9}{'static':>9}{'static−default':>16}"
        f"{'95% CI':>18}{'p':>8}"
    )
    for label, m in (("top-k", "topk"), ("SCAR", "scar")):
        b = cost[m]
        print(
            f"{label:<14}{b.mean_b:9.3f}{b.mean_a:9.3f}{b.mean_diff:+16.3f}"
            f"{f'[{b.ci_low:+.3f}, {b.ci_high:+.3f}]':>18}{b.p_value:8.3f}"
        )
    print(
        f"{'SCAR, fragm.':<14}{facts['recall_scar_fragmented_default']:9.3f}"
        f"{facts['recall_scar_fragmented_static']:9.3f}"
    )
    print(
        f"{'SCAR chunks':<14}{facts['scar_chunks_default']:9.2f}{facts['scar_chunks_static']:9.2f}"
        "   (mean unique chunks per query)"
    )
    print("\nSTATIC_MODEL_FACTS =", json.dumps(facts, indent=4, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
