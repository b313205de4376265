"""In process against Ray Data on one machine: index the same synthetic corpus into a store.

    .venv/bin/python benchmarks/scale.py [--files 200] [--slice-files 8] [--rounds 2]
        [--models hash,static,default] [--concurrency 2] [--batch-size 256]

The corpus is ``--files`` files of the bundled sample's words shuffled (about 205 chunks each
at 300/30, so 200 files give about 41,000 chunks, no two alike). ``hash`` (nearly free: Ray's
pure overhead) and ``static`` (model2vec) index all of it; ``default`` (all-MiniLM-L6-v2,
about 25 chunks/s here) indexes the first ``--slice-files`` files. Each run is the whole
``index`` (chunk, embed, write) into a fresh store with no embedding cache; the engines
alternate which goes first from one round to the next. Ray (``num_cpus=2``, no dashboard) is
started once and its start-up timed apart, and so is a first Ray Data run on two files
(slower than the next); each Ray run still starts its actors and loads the model in them, as
every ``index --engine ray`` does. Every model is loaded once in this process before timing,
so neither side pays the first import of its libraries. Results:
``benchmarks/results/scale.json`` (schema in :func:`main`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents.reading import read_document
from scar_viz.store import EmbedderSpec, EngineOptions, index_corpus
from scripts.bench_smoke import parse

ROOT = Path(__file__).resolve().parent.parent

OUT = ROOT / "benchmarks" / "results" / "scale.json"
CONFIG = ChunkingConfig(size=300, overlap=30)
ENGINES = ("local", "ray")


def corpus(n_files: int) -> list:
    """``n_files`` files of the sample's words, each shuffled by its own seed (twice the
    sample's length), so no two chunks share a text and nothing is embedded twice."""
    text = (ROOT / "scar_viz" / "documents" / "samples" / "harbor_manual.md").read_text()
    words = text.split() * 2
    docs = []
    for i in range(n_files):
        order = random.Random(i).sample(words, len(words))
        paragraphs = [" ".join(order[lo : lo + 120]) for lo in range(0, len(order), 120)]
        body = "\n\n".join(paragraphs)
        docs.append(read_document(f"f{i:05d}.md", f"# File {i}\n\n{body}\n".encode()))
    return docs


def _run(engine: str, docs: list, spec: EmbedderSpec, store: str, args) -> dict[str, float]:
    """One ``index`` into a fresh store; the time to the first and last embedded piece too."""
    marks: list[float] = []
    t0 = time.perf_counter()
    options = EngineOptions(engine, batch_size=args.batch_size, concurrency=args.concurrency)
    embedder = spec if engine == "ray" else spec.build()
    report = index_corpus(
        docs,
        store,
        embedder,
        CONFIG,
        options=options,
        progress=lambda d, n: marks.append(time.perf_counter() - t0),
    )
    seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
        "first_piece": marks[0],
        "last_piece": marks[-1],
        "chunks": report.chunks_total,
        "load": os.getloadavg()[0],
    }


def _row(model: str, n_files: int, runs: dict[str, list[dict]]) -> dict[str, object]:
    chunks = {r["chunks"] for e in ENGINES for r in runs[e]}
    assert len(chunks) == 1, f"the engines stored different numbers of chunks: {chunks}"
    n = chunks.pop()
    med = {e: statistics.median(r["seconds"] for r in runs[e]) for e in ENGINES}
    return {
        "model": model,
        "files": n_files,
        "chunks": n,
        "local_seconds": [round(r["seconds"], 2) for r in runs["local"]],
        "ray_seconds": [round(r["seconds"], 2) for r in runs["ray"]],
        "load_after": [round(r["load"], 2) for e in ENGINES for r in runs[e]],
        "local_chunks_per_s": round(n / med["local"], 1),
        "ray_chunks_per_s": round(n / med["ray"], 1),
        "ray_over_local": round(med["ray"] / med["local"], 2),
        **{
            f"{e}_first_vectors_seconds": round(
                statistics.median(r["first_piece"] for r in runs[e]), 2
            )
            for e in ENGINES
        },
        **{
            f"{e}_last_vectors_seconds": round(
                statistics.median(r["last_piece"] for r in runs[e]), 2
            )
            for e in ENGINES
        },
    }


def main(argv: list[str] | None = None) -> int:
    """Write ``scale.json``: the setting, Ray's start-up, and per model a row with ``files``,
    ``chunks``, the seconds of every round per engine (``local_seconds``, ``ray_seconds``),
    chunks/s from the median of the rounds and ``ray_over_local`` (median Ray over median
    in-process time), the 1-minute load average after each run (local runs first: another
    program on the machine shows there), and the median time from the start of a run to its
    first and to its last embedded piece (``*_first_vectors_seconds``,
    ``*_last_vectors_seconds``: before the first, chunking and (Ray) actors starting; after
    the last, the final write)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--slice-files", type=int, default=8, help="files for the default model")
    ap.add_argument("--models", default="hash,static,default")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--out", type=Path, default=OUT)
    args = parse(ap, argv, files=3, slice_files=1, models="hash", rounds=1, concurrency=1)
    import ray

    models = [m.strip() for m in args.models.split(",") if m.strip()]
    for model in models:  # libraries imported and (static) distilled before any timing
        EmbedderSpec(model).build().embed(["warm up"])
    t0 = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray_start = time.perf_counter() - t0
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()  # Ray Data's first run starts its own machinery
            _run("ray", corpus(2), EmbedderSpec("hash"), f"{tmp}/warm-up", args)
            ray_warm_up = time.perf_counter() - t0
            for model in models:
                n_files = args.slice_files if model == "default" else args.files
                docs = corpus(n_files)
                spec = EmbedderSpec(model)
                runs: dict[str, list[dict]] = {e: [] for e in ENGINES}
                for r in range(args.rounds):
                    for engine in ENGINES if r % 2 == 0 else ENGINES[::-1]:
                        store = f"{tmp}/{model}-{engine}-{r}"
                        runs[engine].append(_run(engine, docs, spec, store, args))
                        print(f"{model} round {r} {engine}: {runs[engine][-1]}", flush=True)
                rows.append(_row(model, n_files, runs))
    finally:
        ray.shutdown()
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    results = {
        "measured": time.strftime("%Y-%m-%d"),
        "machine": machine,
        "chunking": CONFIG.label,
        "concurrency": args.concurrency,
        "batch_size": args.batch_size,
        "rounds": args.rounds,
        "ray_start_seconds": round(ray_start, 2),
        "ray_first_run_seconds": round(ray_warm_up, 2),
        "models": rows,
    }
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
