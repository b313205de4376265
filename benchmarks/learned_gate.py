"""Transfer of the default learned gate (fitted on the built-in sample) to the development corpus.

The gate shipped in ``scar_viz/data/default_gate.json`` was fitted on the sample's 24 labelled
queries only (``benchmarks/fit_default_gate.py``); nothing here is tuned on the corpus. On
``../shared/corpora/rfc9293`` (40 queries; k = 4, all-MiniLM-L6-v2, recursive 600/60, r = 1) it
reports recall and mean unique chunks per query (all / fragmented / atomic) for the learned gate
at a few p, SCAR presets A and B, top-k and window ±1, and, for reference, the recall SCAR's
λ×τ front reaches at the learned gate's chunk counts when λ and τ are picked in hindsight on the
corpus itself. Writes ``benchmarks/results/learned_gate.json``.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/learned_gate.py [--model default] [--gate PATH]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents.reading import load_path
from scar_viz.embeddings import EmbeddingCache, embed_cached, make_embedder
from scar_viz.evaluation import candidates_for, evaluate
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.learned import p_curve_on
from scar_viz.pipeline import prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.learned import resolve_gate
from scar_viz.scoring.params import PRESETS, GateParams
from scar_viz.scoring.sweep import pareto_frontier, sweep
from scripts.bench_smoke import SAMPLE, SAMPLE_QUERIES, parse

ROOT = Path(__file__).resolve().parent.parent

CORPUS = ROOT.parent / "shared" / "corpora"
OUT = ROOT / "benchmarks" / "results" / "learned_gate.json"
K = 4
PS = (0.02, 0.04, 0.08, 0.15)
SUBSETS = ("all", "fragmented", "atomic")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--doc", default=str(CORPUS / "rfc9293.txt"))
    ap.add_argument("--queries", default=str(CORPUS / "rfc9293.queries.jsonl"))
    ap.add_argument("--model", default="default")
    ap.add_argument("--gate", default=None, help="gate file (default: the shipped gate)")
    ap.add_argument("--out", default=str(OUT))
    args = parse(ap, argv, doc=str(SAMPLE), queries=str(SAMPLE_QUERIES), model="hash")
    gate = resolve_gate(args.gate)
    doc = load_path(args.doc)
    qset = parse_queries(Path(args.queries).read_text(encoding="utf-8"), doc)
    embedder = make_embedder(args.model)
    cache = EmbeddingCache()
    t0 = time.perf_counter()
    prep = prepare_document(doc, embedder, ChunkingConfig("recursive", 600, 60), False, cache)
    labelled = label_queries(qset, doc, prep.chunks)
    vecs = embed_cached(embedder, [q.query.query for q in labelled], cache).vectors
    seconds = time.perf_counter() - t0

    rows: list[dict[str, object]] = []

    def add(label: str, ev, name: str) -> None:
        pe = ev.policies[name]
        row = {"policy": label}
        for subset in SUBSETS:
            s = pe.summaries[subset]
            row[subset] = {"n": s.n, "recall": s.recall, "mean_chunks": s.mean_chunks}
        rows.append(row)

    base = evaluate(LabelledRun(prep, labelled, vecs), ["topk", "window1"], GateParams(k=K))
    add("top-k", base, "topk")
    add("window ±1", base, "window1")
    for preset in ("A", "B"):
        lam, tau = PRESETS[preset]["lam"], PRESETS[preset]["tau"]
        ev = evaluate(
            LabelledRun(prep, labelled, vecs), ["scar"], GateParams(k=K, lam=lam, tau=tau)
        )
        add(f"SCAR preset {preset} (λ={lam:g}, τ={tau:g})", ev, "scar")
    curve = p_curve_on(LabelledRun(prep, labelled, vecs), gate, K, ps=PS)
    for t, p in enumerate(PS):
        ev = evaluate(
            LabelledRun(prep, labelled, vecs),
            ["learned"],
            GateParams(k=K),
            knobs={"learned": {"gate": gate, "p": p}},
        )
        add(f"learned, p > {p:g}", ev, "learned")
        s = ev.policies["learned"].summaries["all"]
        # the vectorised curve and the per-query policy agree
        assert abs(curve.recall[t] - s.recall) < 1e-12, (curve.recall[t], s.recall)
        assert abs(curve.mean_chunks[t] - s.mean_chunks) < 1e-12

    res = sweep(candidates_for(LabelledRun(prep, labelled, vecs), K))
    front = pareto_frontier(res.recall, res.mean_chunks)
    f_recall, f_chunks = res.recall.ravel()[front], res.mean_chunks.ravel()[front]
    hindsight = []
    for t, p in enumerate(PS):
        ok = f_chunks <= curve.mean_chunks[t] + 1e-9
        best = float(f_recall[ok].max()) if ok.any() else float("nan")
        hindsight.append(
            {
                "p": p,
                "learned_chunks": float(curve.mean_chunks[t]),
                "learned_recall": float(curve.recall[t]),
                "scar_front_recall": best,
            }
        )

    out = {
        "document": prep.document.name,
        "model": prep.embedder_id,
        "chunking": prep.config.label,
        "k": K,
        "radius": 1,
        "n_queries": len(labelled),
        "n_fragmented": sum(q.fragmented for q in labelled),
        "gate": gate.to_dict(),
        "rows": rows,
        "scar_hindsight_front_at_learned_chunks": hindsight,
        "prepare_seconds": round(seconds, 1),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, ensure_ascii=False, indent=2) + "\n", "utf-8")

    print(
        f"{out['document']}: {len(prep.chunks)} chunks ({out['chunking']}) · {prep.embedder_label}"
        f" · k={K} · {out['n_queries']} queries ({out['n_fragmented']} fragmented)"
    )
    heads = " | ".join(f"recall {s} | chunks {s}" for s in SUBSETS)
    print(f"| gate | {heads} |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        cells = " | ".join(
            f"{100 * row[s]['recall']:.1f} % | {row[s]['mean_chunks']:.2f}" for s in SUBSETS
        )
        print(f"| {row['policy']} | {cells} |")
    print()
    for h in hindsight:
        print(
            f"learned p > {h['p']:g}: {100 * h['learned_recall']:.1f} % at "
            f"{h['learned_chunks']:.2f} chunks; SCAR's hindsight front at ≤ those chunks: "
            f"{100 * h['scar_front_recall']:.1f} %"
        )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
