"""What the question's words add to the gate: recall-vs-chunks fronts, read on held-out queries.

Gate variants (docs/method.md §2, §8; docs/learned-gate.md):

- **learned, five features**: the learned gate on cos(q,n), cos(q,c), cos(c,n), rank, side;
- **learned, lexical**: the same plus lex(q,n), lex(q,c) and new(q,c,n);
- **SCAR μ = 0** (the paper's gate) and **SCAR μ = μ\\***: the λ×τ front at one μ, μ\\* picked
  from :data:`MUS` on the fitting half.

Two readings, both held out:

1. **Alternating split** (``split_alternate``) of each query set: fit on one half (the gates; μ\\*
   for SCAR), read the fronts on the other, then the other way round; the two readings are
   pooled by averaging the per-query figures of each half (every query is read once, by a gate
   that never saw it).
2. **Across documents**: the shipped default's recipe (fitted on the whole built-in sample,
   ``benchmarks/fit_default_gate.py``), five-feature and lexical, read on RFC 9293. This decides
   whether the shipped default gate gains lexical features.

A gate's front is its (mean chunks, recall) as p runs over ``DEFAULT_PS``; SCAR's is the Pareto
front of its λ×τ grid (``LAMS`` × ``TAUS``) — λ and τ picked in hindsight on the read half, for
both μ, so the comparison is μ against μ. Fronts are summarised by the best recall at ≤ B chunks
per query for a few budgets B, per subset (all, fragmented, atomic). k = 4, r = 1, recursive
600/60, the default model (all-MiniLM-L6-v2). RFC 9293 (``../shared/corpora``) is skipped, with a
line saying so, when absent. Writes ``benchmarks/results/lexical_gate.json``.

    SCAR_VIZ_CACHE_DIR=/path/to/cache HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/lexical_gate.py
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.common.edges import one_file
from scar_viz.documents import samples
from scar_viz.documents.reading import load_path
from scar_viz.embeddings import EmbeddingCache, embed_cached, make_embedder
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.learned import fit_gate_on, p_curve_on
from scar_viz.pipeline import prepare_document
from scar_viz.queries.gold import label_queries, split_alternate
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.learned import FitError
from scar_viz.scoring.lexical import lex_matrix
from scar_viz.scoring.scar import normalize
from scar_viz.scoring.sweep import build_candidates, pareto_frontier, sweep
from scripts.bench_smoke import parse

ROOT = Path(__file__).resolve().parent.parent

CORPUS = ROOT.parent / "shared" / "corpora"
OUT = ROOT / "benchmarks" / "results" / "lexical_gate.json"
K = 4
MUS = (0.0, 0.1, 0.2, 0.3, 0.5, 0.8)
"""μ grid for SCAR (0 = the paper's gate)."""
BUDGETS = (5.0, 6.0, 7.0, 8.0)
"""Chunk budgets (mean chunks per query) at which a front's best recall is read."""
SUBSETS = ("all", "fragmented", "atomic")
VARIANTS = ("learned, five features", "learned, lexical", "SCAR μ = 0", "SCAR μ = μ*")


class Data:
    """A prepared document with its labelled queries and their vectors."""

    def __init__(self, name, doc, queries_text, embedder, cache):
        qset = parse_queries(queries_text, doc)
        self.name = name
        self.prep = prepare_document(
            doc, embedder, ChunkingConfig("recursive", 600, 60), False, cache
        )
        self.labelled = tuple(label_queries(qset, doc, self.prep.chunks))
        vecs = embed_cached(embedder, [q.query.query for q in self.labelled], cache).vectors
        self.vecs = normalize(np.atleast_2d(np.asarray(vecs, dtype=np.float64)))

    def part(self, queries):
        idx = [self.labelled.index(q) for q in queries]
        return list(queries), self.vecs[idx]


def _points(query_recall, query_chunks, mask):
    """(recall, chunks) per grid point over the queries in ``mask``; each (P,)."""
    if not mask.any():
        return None
    return query_recall[..., mask].mean(-1).ravel(), query_chunks[..., mask].mean(-1).ravel()


def gate_readings(data, fit_q, read_q, features):
    """Per-query (recall, chunks) of a gate fitted on ``fit_q``, read on ``read_q``: (T, Q)."""
    fq, fv = data.part(fit_q)
    rq, rv = data.part(read_q)
    gate = fit_gate_on(LabelledRun(data.prep, fq, fv), K, features=features)
    curve = p_curve_on(LabelledRun(data.prep, rq, rv), gate, K)
    return curve.query_recall, curve.query_chunks


def scar_readings(data, queries, mu):
    """Per-query (recall, chunks) over the λ×τ grid at μ: (L·T, Q)."""
    qs, vecs = data.part(queries)
    sims = vecs @ data.prep.unit.T
    lex = lex_matrix([c.text for c in data.prep.chunks], [q.query.query for q in qs])
    cands = build_candidates(
        sims,
        data.prep.unit,
        [q.gold for q in qs],
        K,
        1,
        lex=lex,
        doc_of=one_file(len(data.prep.unit)),
    )
    res = sweep(cands, mu=mu)
    n_q = len(qs)
    return res.query_recall.reshape(-1, n_q), res.query_chunks.reshape(-1, n_q)


def best_at(recall, chunks, budget):
    """Best recall of the points with mean chunks ≤ budget (NaN when none)."""
    ok = chunks <= budget + 1e-9
    return float(recall[ok].max()) if ok.any() else float("nan")


def front_summary(recall, chunks):
    front = pareto_frontier(recall, chunks)
    return {
        "at_budget": {f"{b:g}": best_at(recall, chunks, b) for b in BUDGETS},
        "front": [[round(float(chunks[i]), 4), round(float(recall[i]), 4)] for i in front],
    }


def area(recall, chunks):
    """Mean best recall over the budgets (how μ* is picked on the fitting half)."""
    vals = [best_at(recall, chunks, b) for b in BUDGETS]
    return float(np.nanmean(vals)) if not all(np.isnan(vals)) else -1.0


def pick_mu(data, fit_q):
    scores = {}
    for mu in MUS:
        qr, qc = scar_readings(data, fit_q, mu)
        scores[mu] = area(qr.mean(-1), qc.mean(-1))
    return max(MUS, key=lambda m: (scores[m], -m)), scores


def split_study(data):
    """The alternating-split reading of every variant on ``data``."""
    halves = split_alternate(data.labelled)
    pooled = {v: [] for v in VARIANTS}  # per read half: (query recall, query chunks, queries)
    picks = []
    for fit_q, read_q in ((halves[0], halves[1]), (halves[1], halves[0])):
        mu_star, scores = pick_mu(data, fit_q)
        picks.append({"mu_star": mu_star, "fit_half_area": scores})
        for name, run in (
            ("learned, five features", lambda f=fit_q, r=read_q: gate_readings(data, f, r, "base")),
            ("learned, lexical", lambda f=fit_q, r=read_q: gate_readings(data, f, r, "lexical")),
            ("SCAR μ = 0", lambda r=read_q: scar_readings(data, r, 0.0)),
            ("SCAR μ = μ*", lambda r=read_q, m=mu_star: scar_readings(data, r, m)),
        ):
            try:
                qr, qc = run()
            except FitError as exc:
                pooled[name].append(str(exc))
                continue
            pooled[name].append((qr, qc, read_q))
    return summarise(pooled), picks


def summarise(pooled):
    """Fronts of each variant with the two read halves' per-query figures side by side.

    Grid point t of half 1 is paired with grid point t of half 2 (the same p, or the same
    (λ, τ) at the half's μ), so every query is counted once."""
    out = {}
    for name, parts in pooled.items():
        errors = [p for p in parts if isinstance(p, str)]
        if errors:
            out[name] = {"skipped": errors[0]}
            continue
        qr = np.concatenate([p[0] for p in parts], axis=-1)
        qc = np.concatenate([p[1] for p in parts], axis=-1)
        queries = [q for p in parts for q in p[2]]
        out[name] = subsets(qr, qc, queries)
    return out


def subsets(qr, qc, queries):
    frag = np.array([q.fragmented for q in queries])
    atomic = np.array([q.type == "atomic" for q in queries])
    res = {}
    for subset, mask in (("all", np.ones_like(frag)), ("fragmented", frag), ("atomic", atomic)):
        pts = _points(qr, qc, mask)
        res[subset] = {"n": int(mask.sum()), **(front_summary(*pts) if pts else {})}
    return res


def cross_study(sample, rfc):
    """The shipped default's recipe (whole sample), five-feature and lexical, read on RFC 9293."""
    out = {}
    for features in ("base", "lexical"):
        gate = fit_gate_on(
            LabelledRun(sample.prep, list(sample.labelled), sample.vecs), K, features=features
        )
        curve = p_curve_on(LabelledRun(rfc.prep, list(rfc.labelled), rfc.vecs), gate, K)
        label = "learned, five features" if features == "base" else "learned, lexical"
        out[label] = subsets(curve.query_recall, curve.query_chunks, list(rfc.labelled))
    qr, qc = scar_readings(rfc, list(rfc.labelled), 0.0)
    out["SCAR μ = 0 (hindsight λ, τ)"] = subsets(qr, qc, list(rfc.labelled))
    return out


def table(title, study):
    print(f"\n{title}")
    heads = " | ".join(f"≤{b:g}" for b in BUDGETS)
    for subset in SUBSETS:
        print(f"\n{subset}: best recall at ≤ B chunks per query")
        print(f"| variant | n | {heads} |")
        print("|---|---|" + "---|" * len(BUDGETS))
        for name, res in study.items():
            if "skipped" in res:
                print(f"| {name} | skipped: {res['skipped']} |")
                continue
            r = res[subset]
            cells = " | ".join(
                f"{100 * r['at_budget'][f'{b:g}']:.1f}" if "at_budget" in r else "—"
                for b in BUDGETS
            )
            print(f"| {name} | {r['n']} | {cells} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="default")
    ap.add_argument("--out", default=str(OUT))
    args = parse(ap, argv, model="hash")
    embedder = make_embedder(args.model)
    cache = EmbeddingCache()
    t0 = time.perf_counter()
    sample = Data(
        "harbor_manual (built-in sample)",
        samples.load_sample(),
        samples.sample_queries_text(),
        embedder,
        cache,
    )
    sets = [sample]
    rfc = None
    if (CORPUS / "rfc9293.txt").exists() and (CORPUS / "rfc9293.queries.jsonl").exists():
        rfc = Data(
            "rfc9293",
            load_path(CORPUS / "rfc9293.txt"),
            (CORPUS / "rfc9293.queries.jsonl").read_text(encoding="utf-8"),
            embedder,
            cache,
        )
        sets.append(rfc)
    else:
        print(f"skipping RFC 9293: {CORPUS} has no rfc9293.txt and rfc9293.queries.jsonl")
    out = {
        "model": sample.prep.embedder_id,
        "chunking": sample.prep.config.label,
        "k": K,
        "radius": 1,
        "mus": list(MUS),
        "budgets": list(BUDGETS),
        "split": {},
    }
    for data in sets:
        study, picks = split_study(data)
        out["split"][data.name] = {
            "n_queries": len(data.labelled),
            "n_chunks": len(data.prep.chunks),
            "mu_picks": picks,
            "variants": study,
        }
        table(f"{data.name} — alternating split, read on held-out halves", study)
        print("μ* picked on the fitting halves:", [p["mu_star"] for p in picks])
    if rfc is not None:
        out["cross"] = cross_study(sample, rfc)
        table("fitted on the whole sample, read on rfc9293", out["cross"])
    out["seconds"] = round(time.perf_counter() - t0, 1)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", "utf-8")
    print(f"\nwrote {args.out} ({out['seconds']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
