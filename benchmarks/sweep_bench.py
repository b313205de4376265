"""Benchmark: the vectorised λ×τ sweep against a fair loop over the gate.

Synthetic, seeded data shaped like a real corpus: ~800 chunks whose embeddings drift along the
document (so neighbours are similar, as in real text), 160 queries aimed at random chunks, one
to three consecutive gold chunks each.

Both sides start from the same raw vectors and are timed the same way, in one run: the sweep
(normalise, similarities, candidates, grid) against a loop that normalises the chunk and query
vectors once, computes each query's similarities once, and calls ``select_from_sims`` for
every (λ, τ, query): what a careful person would write without the vectorised sweep.
``--naive`` also times the loop over ``scar_select`` (which re-normalises the chunk matrix on
every call), for reference only. Prints the times and the ratio (target: the sweep under 1 s
and at least 50× faster than the fair loop) and writes them to ``--out``
(``benchmarks/results/sweep_bench.json``), which the README cites.

    python benchmarks/sweep_bench.py [--chunks 800] [--queries 160] [--grid 41] [--radius 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from scar_viz.common.edges import one_file
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import normalize, scar_select, select_from_sims
from scar_viz.scoring.sweep import build_candidates, sweep
from scripts.bench_smoke import parse

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results" / "sweep_bench.json"


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


def _grid_loop(select, queries, golds, lams, taus):
    recall = np.zeros((len(lams), len(taus)))
    mean_chunks = np.zeros((len(lams), len(taus)))
    for i, lam in enumerate(lams):
        for j, tau in enumerate(taus):
            rs, cs = [], []
            for q, gold in zip(queries, golds, strict=True):
                chosen = select(q, float(lam), float(tau))
                rs.append(len(set(chosen) & set(gold)) / len(gold))
                cs.append(len(chosen))
            recall[i, j], mean_chunks[i, j] = np.mean(rs), np.mean(cs)
    return recall, mean_chunks


def fair_loop(chunks, queries, golds, k, lams, taus, radius):
    """The reference: vectors normalised once, each query's similarities computed once, then
    one ``select_from_sims`` call per (λ, τ, query)."""
    unit = normalize(chunks)
    sims = normalize(queries) @ unit.T

    def select(row, lam, tau):
        return select_from_sims(
            row, unit, GateParams(k, lam, tau, radius), doc_of=one_file(len(unit))
        ).selected

    return _grid_loop(select, sims, golds, lams, taus)


def naive_loop(chunks, queries, golds, k, lams, taus, radius):
    """One ``scar_select`` call per (λ, τ, query), re-normalising the chunks every time."""

    def select(q, lam, tau):
        return scar_select(q, chunks, GateParams(k, lam, tau, radius)).selected

    return _grid_loop(select, queries, golds, lams, taus)


def vectorised(chunks, queries, golds, k, lams, taus, radius):
    """The sweep from raw vectors: (result, seconds spent on similarities and candidates)."""
    t0 = time.perf_counter()
    unit = normalize(chunks)
    sims = normalize(queries) @ unit.T
    cands = build_candidates(sims, unit, golds, k, radius, doc_of=one_file(len(unit)))
    t1 = time.perf_counter()
    return sweep(cands, lams, taus), t1 - t0


def timed(fn, *args):
    """(fn(*args), wall seconds)."""
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def save(results: dict, path: Path) -> None:
    """Write ``results`` as JSON with the time and the machine they were measured on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "benchmark": "benchmarks/sweep_bench.py",
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "platform": platform.platform(),
        },
        **results,
    }
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> dict:
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
    parser.add_argument("--naive", action="store_true", help="also time the scar_select loop")
    parser.add_argument("--out", default=str(RESULTS), help="the JSON file to write")
    args = parse(parser, argv, chunks=60, queries=6, dim=16, grid=3)

    chunks, queries, golds = synthesise(args.chunks, args.queries, args.dim, args.seed)
    lams = np.round(np.linspace(0.0, 2.0, args.grid), 4)
    taus = np.round(np.linspace(0.0, 1.5, args.grid), 4)
    print(
        f"{args.chunks} chunks × {args.dim}-d, {args.queries} queries, k={args.k}, "
        f"r={args.radius}, grid {args.grid}×{args.grid} = {args.grid**2} points"
    )
    inputs = (chunks, queries, golds, args.k, lams, taus, args.radius)
    (result, prep_s), fast = timed(vectorised, *inputs)
    print(
        f"vectorised sweep: {fast:.3f} s (similarities + candidates {prep_s:.3f} s, "
        f"grid {fast - prep_s:.3f} s)"
    )
    calls = args.grid**2 * args.queries
    (recall, mean_chunks), slow = timed(fair_loop, *inputs)
    print(f"fair loop (normalised once, select_from_sims): {slow:.1f} s ({calls:,} calls)")
    same = np.array_equal(recall, result.recall) and np.array_equal(mean_chunks, result.mean_chunks)
    print(f"identical results: {same}")
    print(f"ratio: {slow / fast:.0f}× faster than the fair loop")
    ok = fast < 1.0 and slow / fast >= 50 and same
    print("target (< 1 s, ≥ 50×, identical): " + ("met" if ok else "NOT met"))
    results: dict = {
        "setting": {
            "chunks": args.chunks,
            "dim": args.dim,
            "queries": args.queries,
            "k": args.k,
            "radius": args.radius,
            "grid": [args.grid, args.grid],
            "seed": args.seed,
        },
        "vectorised_s": round(fast, 4),
        "vectorised_candidates_s": round(prep_s, 4),
        "fair_loop_s": round(slow, 3),
        "fair_loop_calls": calls,
        "ratio_vs_fair_loop": round(slow / fast, 1),
        "identical": bool(same),
        "target_met": bool(ok),
    }
    if args.naive:
        (naive_recall, naive_chunks), naive = timed(naive_loop, *inputs)
        print(f"naive loop over scar_select (re-normalises on each call): {naive:.1f} s")
        results["naive_loop_s"] = round(naive, 2)
        results["ratio_vs_naive_loop"] = round(naive / fast, 1)
        results["naive_identical"] = bool(
            np.array_equal(naive_recall, result.recall)
            and np.array_equal(naive_chunks, result.mean_chunks)
        )
    save(results, Path(args.out))
    print(f"written to {args.out}")
    return results


if __name__ == "__main__":
    main()
