"""Benchmark: the vectorised λ×τ sweep against a straightforward loop calling scar_select.

Synthetic, seeded data shaped like a real corpus: ~800 chunks whose embeddings drift along the
document (so neighbours are similar, as in real text), 160 queries aimed at random chunks, one
to three consecutive gold chunks each. Prints both times and the ratio (target: the sweep
under 1 s and at least 50x faster than the loop).

    python benchmarks/sweep_bench.py [--chunks 800] [--queries 160] [--grid 41] [--radius 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scar_viz.gate import GateParams  # noqa: E402
from scar_viz.scoring import normalize, scar_select  # noqa: E402
from scar_viz.sweep import build_candidates, sweep  # noqa: E402


def synthesise(n_chunks: int, n_queries: int, dim: int, seed: int):
    """(chunk vectors, query vectors, gold sets), seeded."""
    rng = np.random.default_rng(seed)
    drift = np.cumsum(rng.normal(size=(n_chunks, dim)) * 0.35, axis=0)
    chunks = drift + rng.normal(size=(n_chunks, dim))
    targets = rng.integers(0, n_chunks - 3, size=n_queries)
    spans = rng.integers(1, 4, size=n_queries)
    golds = [tuple(range(int(t), int(t) + int(s))) for t, s in zip(targets, spans, strict=True)]
    queries = np.stack([chunks[list(g)].mean(axis=0) + rng.normal(size=dim) * 2.0 for g in golds])
    return chunks, queries, golds


def loop_sweep(chunks, queries, golds, k, lams, taus, radius):
    """The reference: one scar_select call per (λ, τ, query)."""
    recall = np.zeros((len(lams), len(taus)))
    mean_chunks = np.zeros((len(lams), len(taus)))
    for i, lam in enumerate(lams):
        for j, tau in enumerate(taus):
            rs, cs = [], []
            for q, gold in zip(queries, golds, strict=True):
                sel = scar_select(q, chunks, GateParams(k, float(lam), float(tau), radius))
                rs.append(len(set(sel.selected) & set(gold)) / len(gold))
                cs.append(len(sel.selected))
            recall[i, j], mean_chunks[i, j] = np.mean(rs), np.mean(cs)
    return recall, mean_chunks


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--chunks", type=int, default=800)
    parser.add_argument("--queries", type=int, default=160)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--grid", type=int, default=41, help="grid points per axis")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--radius", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    chunks, queries, golds = synthesise(args.chunks, args.queries, args.dim, args.seed)
    lams = np.round(np.linspace(0.0, 2.0, args.grid), 4)
    taus = np.round(np.linspace(0.0, 1.5, args.grid), 4)
    print(
        f"{args.chunks} chunks × {args.dim}-d, {args.queries} queries, k={args.k}, "
        f"r={args.radius}, grid {args.grid}×{args.grid} = {args.grid**2} points"
    )

    t0 = time.perf_counter()
    unit = normalize(chunks)
    sims = unit @ normalize(queries).T
    cands = build_candidates(sims.T, unit, golds, args.k, args.radius)
    t1 = time.perf_counter()
    result = sweep(cands, lams, taus)
    t2 = time.perf_counter()
    fast = t2 - t0
    print(
        f"vectorised: {fast:.3f} s (similarities + candidates {t1 - t0:.3f} s, "
        f"grid {t2 - t1:.3f} s)"
    )

    t3 = time.perf_counter()
    recall, mean_chunks = loop_sweep(chunks, queries, golds, args.k, lams, taus, args.radius)
    slow = time.perf_counter() - t3
    print(f"loop over scar_select: {slow:.1f} s ({args.grid**2 * args.queries:,} calls)")
    same = np.array_equal(recall, result.recall) and np.array_equal(mean_chunks, result.mean_chunks)
    print(f"identical results: {same}")
    print(f"ratio: {slow / fast:.0f}× faster")
    ok = fast < 1.0 and slow / fast >= 50 and same
    print("target (< 1 s, ≥ 50×, identical): " + ("met" if ok else "NOT met"))


if __name__ == "__main__":
    main()
