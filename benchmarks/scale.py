"""In process against Ray Data on one machine: index the same synthetic corpus into a store.

    .venv/bin/python benchmarks/scale.py [--files 200] [--model hash] [--concurrency 2]

The corpus is ``--files`` files cut from the bundled sample (about 100 chunks each at 300/30,
so 200 files give about 20,000 chunks). Each engine indexes it into a fresh store
(chunk, embed, write); Ray's start-up is timed apart (a cluster is started once, not per
run). Results: ``benchmarks/results/scale.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scar_viz.chunking.config import ChunkingConfig  # noqa: E402
from scar_viz.documents.reading import read_document  # noqa: E402
from scar_viz.store import EmbedderSpec, EngineOptions, index_corpus  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "scale.json"


def corpus(n_files: int) -> list:
    text = (ROOT / "scar_viz" / "documents" / "samples" / "harbor_manual.md").read_text()
    words = text.split()
    docs = []
    for i in range(n_files):
        rotated = " ".join(words[(i * 37) % len(words) :] + words[: (i * 37) % len(words)])
        body = (rotated + "\n\n") * 2
        docs.append(read_document(f"f{i:05d}.md", f"# File {i}\n\n{body}".encode()))
    return docs


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--model", default="hash")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=256)
    args = ap.parse_args()
    import ray

    docs = corpus(args.files)
    config = ChunkingConfig(size=300, overlap=30)
    spec = EmbedderSpec(args.model)
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        local = index_corpus(
            docs,
            f"{tmp}/local",
            spec.build(),
            config,
            options=EngineOptions(batch_size=args.batch_size),
        )
        results["local_seconds"] = round(time.perf_counter() - t0, 2)
        t0 = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        results["ray_start_seconds"] = round(time.perf_counter() - t0, 2)
        t0 = time.perf_counter()
        options = EngineOptions("ray", batch_size=args.batch_size, concurrency=args.concurrency)
        remote = index_corpus(docs, f"{tmp}/ray", spec, config, options=options)
        results["ray_seconds"] = round(time.perf_counter() - t0, 2)
        ray.shutdown()
    chunks = local.chunks_total
    assert remote.chunks_total == chunks
    results.update(
        chunks=chunks,
        files=args.files,
        model=args.model,
        concurrency=args.concurrency,
        batch_size=args.batch_size,
        local_chunks_per_s=round(chunks / results["local_seconds"], 1),
        ray_chunks_per_s=round(chunks / results["ray_seconds"], 1),
        ray_over_local=round(results["ray_seconds"] / results["local_seconds"], 2),
        machine=f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
    )
    OUT.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
