"""Benchmark: does the verdict's figure hold on queries it did not see? (docs/method.md §9)

On the development benchmark (:mod:`pgdocs`: 80 pages of the PostgreSQL 15 manual, 213
hand-written questions), the held-out-half protocol: for each split, the verdict
(:func:`~scar_viz.evaluation.recommend.recommend`, 180 candidates, 5 folds × 3 repeats) is
chosen on one part of the questions and its setting (the one *Apply* would set: tuned on all of
that part, the learned gate refitted on it) is read on the rest, against the reference (window
±1 at k = 3, dense) read on the same rest. Per split:

- **claimed**: the chosen candidate's out-of-fold recall minus the reference's on the choosing
  part (the best of 180 figures);
- **expected**: the nested estimate the verdict now reports (``verdict.expected_gain``);
- **held out**: the chosen setting's recall minus the reference's on the rest;

and their differences from the held-out gain. Splits: halves (a seeded random half, the
other half read), and small subsets (a seeded random ``--small`` questions, the rest read).

Run: ``.venv/bin/python benchmarks/verdict_heldout.py [--model hash|default] [--halves 4]
[--small-splits 6] [--small 30]``. Writes ``benchmarks/results/verdict_heldout.json``
(``verdict_heldout_default.json`` for the default model).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from scar_viz.cli.common import load_document
from scar_viz.embeddings import EmbeddingCache, embed_cached, make_embedder
from scar_viz.evaluation.apply import ChunkSet, setting_runner
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.recommend import recommend
from scar_viz.evaluation.run import evaluate
from scar_viz.evaluation.settings import ChosenSettings
from scar_viz.pipeline import prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.views.verdict_words import candidate_label
from scripts.bench_smoke import parse

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results"
DATA = ROOT / "benchmarks" / "data" / "pgdocs15"
N_BOOT = 2000
TARGET_POINTS = 3.0


def read_setting(run: LabelledRun, setting: ChosenSettings) -> np.ndarray:
    """(Q,) recall of ``setting`` on ``run``'s queries, run as ``eval --settings`` and *Apply*
    run it (:func:`~scar_viz.evaluation.apply.setting_runner`)."""
    runner = setting_runner(setting, ChunkSet.of(run.prep))
    return evaluate(run, [setting.policy], runners={setting.policy: runner}).values(
        setting.policy, "recall"
    )


def one_split(prep, gold, vecs, choose: np.ndarray, read: np.ndarray) -> dict[str, object]:
    g_choose = [gold[i] for i in choose]
    g_read = [gold[i] for i in read]
    t = time.perf_counter()
    v = recommend(LabelledRun(prep, g_choose, vecs[choose]), n_boot=N_BOOT)
    seconds = time.perf_counter() - t
    run = LabelledRun(prep, g_read, vecs[read])
    chosen = read_setting(run, v.settings())
    ref = read_setting(run, v.reference.setting(v.k_rrf))
    held = float(chosen.mean() - ref.mean())
    expected = None if v.nested is None else float(v.nested.gain)
    return {
        "n_choose": len(choose),
        "n_read": len(read),
        "chosen": candidate_label(v.chosen),
        "decided": v.decided,
        "claimed": round(v.claimed_gain, 4),
        "expected": None if expected is None else round(expected, 4),
        "expected_ci": None
        if v.nested is None
        else [round(v.nested.ci_low, 4), round(v.nested.ci_high, 4)],
        "held_out": round(held, 4),
        "claimed_minus_held": round(v.claimed_gain - held, 4),
        "expected_minus_held": None if expected is None else round(expected - held, 4),
        "seconds": round(seconds, 1),
    }


def summary(rows: list[dict[str, object]]) -> dict[str, object]:
    c = [r["claimed_minus_held"] for r in rows]
    e = [r["expected_minus_held"] for r in rows if r["expected_minus_held"] is not None]
    return {
        "splits": len(rows),
        "mean_claimed_minus_held_points": round(100 * float(np.mean(c)), 2),
        "mean_expected_minus_held_points": round(100 * float(np.mean(e)), 2) if e else None,
        "mean_abs_expected_minus_held_points": round(100 * float(np.mean(np.abs(e))), 2)
        if e
        else None,
        "target_points": TARGET_POINTS,
        "met": bool(e) and abs(100 * float(np.mean(e))) <= TARGET_POINTS,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="hash")
    parser.add_argument("--halves", type=int, default=4)
    parser.add_argument("--small-splits", type=int, default=6)
    parser.add_argument("--small", type=int, default=30)
    parser.add_argument("--out", default=None)
    parser.add_argument("--limit", type=int, default=0, help="the first N questions (0: all)")
    args = parse(parser, argv, halves=1, small_splits=1, small=20, limit=40)
    suffix = "" if args.model == "hash" else "_" + args.model
    out_path = Path(args.out or RESULTS / f"verdict_heldout{suffix}.json")
    embedder = make_embedder(args.model)
    cache = EmbeddingCache()
    document = load_document(str(DATA / "pages.zip"))
    prep = prepare_document(document, embedder, cache=cache)
    qset = parse_queries((DATA / "queries.jsonl").read_text(encoding="utf-8"), document)
    gold = label_queries(qset, document, prep.chunks)
    gold = gold[: args.limit] if args.limit else gold
    vecs = embed_cached(embedder, [g.query.query for g in gold], cache).vectors
    n = len(gold)
    halves, small = [], []
    for s in range(args.halves):
        perm = np.random.default_rng(100 + s).permutation(n)
        row = one_split(prep, gold, vecs, np.sort(perm[: n // 2]), np.sort(perm[n // 2 :]))
        halves.append(row)
        print("half", s, json.dumps(row, ensure_ascii=False), flush=True)
    for s in range(args.small_splits):
        perm = np.random.default_rng(200 + s).permutation(n)
        choose, read = np.sort(perm[: args.small]), np.sort(perm[args.small :])
        row = one_split(prep, gold, vecs, choose, read)
        small.append(row)
        print("small", s, json.dumps(row, ensure_ascii=False), flush=True)
    result = {
        "what": "held-out-half protocol on benchmarks/data/pgdocs15 (PostgreSQL 15 manual, "
        "80 pages, hand-written questions): verdict chosen on one part, its setting read on "
        "the rest; gains are recall differences from window ±1 at k = 3 (dense)",
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.python_version()}",
        "load_average": round(os.getloadavg()[0], 2),
        "model": prep.embedder_label,
        "chunks": len(prep.chunks),
        "queries": n,
        "bootstrap": N_BOOT,
        "halves": {"summary": summary(halves), "splits": halves},
        f"small_{args.small}": {"summary": summary(small), "splits": small},
    }
    out_path.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for name, rows in (("halves", halves), (f"{args.small} questions", small)):
        s = summary(rows)
        print(
            f"{name}: claimed − held out {s['mean_claimed_minus_held_points']:+.1f} points, "
            f"expected − held out {s['mean_expected_minus_held_points']:+.1f} points "
            f"(target ±{TARGET_POINTS:g}: {'met' if s['met'] else 'MISSED'})"
        )
    return result


if __name__ == "__main__":
    main()
