"""Embedding on a GPU: raw sentence-transformers against scar-viz's embedder, ``index`` in
process and ``index --engine ray --num-gpus 1``, all on the same chunks, with the default model.

    .venv/bin/python benchmarks/gpu_embed.py                   # on a machine with a CUDA GPU
    .venv/bin/python benchmarks/gpu_embed.py --cpu --min-chunks 300 --rounds 1   # a CPU check

What is timed (each on the same chunk texts, nothing cached, the model loaded and warmed up
before any timing, the paths in a rotating order from one round to the next, medians):

- ``raw``: ``SentenceTransformer.encode`` alone at each ``--batch-sizes``, on the device and
  in the precision scar-viz picks (fp16 on a GPU);
- ``project``: scar-viz's embedder through ``embed_cached`` (token counts for the ordering,
  the costliest-first batches), with no cache; its tokenising is also timed alone;
- ``index_local``: the whole ``index`` in process (chunk, embed, write a fresh LanceDB store);
- ``index_ray``: the whole ``index --engine ray --num-gpus 1 --concurrency 1`` on a Ray
  started once before timing: each run starts its actor and loads the model in it, as every
  ``index`` does (``--skip-ray`` leaves it out).

The ratios against ``raw`` at the GPU batch (:data:`scar_viz.runtime.devices.GPU_BATCH`) are the
issue's targets: the embedder at least 0.9×, ``index`` in process at least 0.8×. And the
agreement of fp16 with fp32 vectors of the same model on the same device: the cosine of each
chunk's two vectors, the largest change of an adjacent-chunk cosine (the gate's b), and how
many of the bundled samples' labelled questions get another top-k or SCAR selection (the
reason fp16 vectors are cached apart, docs/models.md).

The corpus is ``--corpus`` (a file, folder, glob or zip) or the bundled samples (the harbour
manual and the kestrel corpus); when it cuts into fewer than ``--min-chunks`` chunks, copies
are added whose lines have their words shuffled (each copy by its own seed), so that no two
chunks are alike and nothing is embedded twice.

Without a CUDA GPU the script stops with one line, unless ``--cpu``: then everything runs on
the CPU in fp32 (the agreement's fp16 in torch's CPU kernels) and is written to
``benchmarks/results/gpu_embed_cpu_check.json``: a check that the script works, never GPU
figures. On a GPU the results go to ``benchmarks/results/gpu_embed.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from scar_viz.chunking.config import ChunkingConfig, chunk_document, embedding_texts
from scar_viz.common.errors import UserError, user_message
from scar_viz.documents import samples
from scar_viz.documents.collect import collect_path
from scar_viz.documents.reading import Document, document_from_text
from scar_viz.embeddings import (
    BaseEmbedder,
    default_model_path,
    embed_cached,
    make_embedder,
)
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.runtime.devices import GPU_BATCH, DeviceChoice, Placement
from scripts.bench_smoke import parse

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results"
OUT_GPU = RESULTS / "gpu_embed.json"
OUT_CPU = RESULTS / "gpu_embed_cpu_check.json"
CONFIG = ChunkingConfig()
TARGETS = {"project_vs_raw": 0.9, "index_local_vs_raw": 0.8}
PATHS = ("raw", "project", "index_local", "index_ray")


def bundled_documents() -> list[Document]:
    """The harbour manual and the kestrel corpus' files."""
    files = samples.sample_files("harbor") + [
        (f"kestrel/{p}", t) for p, t in samples.sample_files("kestrel")
    ]
    return [document_from_text(path, text) for path, text in files]


def shuffled_copy(doc: Document, seed: int) -> Document:
    """``doc`` with the words of each line shuffled by ``seed``: lines (and so chunk cuts and
    lengths) stay about the same, every chunk's text differs."""
    rng = random.Random(seed)
    lines = []
    for line in doc.text.splitlines():
        words = line.split(" ")
        rng.shuffle(words)
        lines.append(" ".join(words))
    return document_from_text(f"copy{seed:04d}/{doc.name}", "\n".join(lines) + "\n")


def corpus(source: str | None, min_chunks: int) -> tuple[list[Document], list[str], int]:
    """(documents, the texts ``index`` embeds for them, copies added)."""
    base = list(collect_path(source).documents) if source else bundled_documents()
    docs, copies = list(base), 0
    texts = chunk_texts(docs)
    while len(texts) < min_chunks:
        copies += 1
        extra = [shuffled_copy(d, copies) for d in base]
        docs += extra
        texts += chunk_texts(extra)
    return docs, texts, copies


def chunk_texts(docs: list[Document]) -> list[str]:
    """Each file cut on its own, as ``index`` cuts it."""
    return [t for d in docs for t in embedding_texts(chunk_document(d, CONFIG))]


def raw_model(placement: Placement, precision: str | None = None):
    from sentence_transformers import SentenceTransformer

    dtype = {"fp16": "float16", "fp32": "float32"}[precision or placement.precision]
    return SentenceTransformer(
        default_model_path(), device=placement.device, model_kwargs={"dtype": dtype}
    )


def encode(model, texts: list[str], batch: int) -> np.ndarray:
    return model.encode(
        texts,
        batch_size=batch,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )


def synchronise(placement: Placement) -> None:
    """Wait for the GPU's queued work, so a timing ends when the work does."""
    if placement.device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def timed(fn, placement: Placement) -> float:
    synchronise(placement)
    t0 = time.perf_counter()
    fn()
    synchronise(placement)
    return time.perf_counter() - t0


def run_index(docs, embedder, options, store: Path) -> dict[str, object]:
    from scar_viz.store import index_corpus

    marks: list[float] = []
    t0 = time.perf_counter()
    report = index_corpus(
        docs,
        str(store),
        embedder,
        CONFIG,
        options=options,
        progress=lambda d, n: marks.append(time.perf_counter() - t0),
    )
    return {
        "seconds": time.perf_counter() - t0,
        "first_piece": marks[0] if marks else None,
        "chunks": report.chunks_embedded,
        "devices": list(report.devices),
    }


class _Raw(BaseEmbedder):
    """A raw model behind the embedder interface (for the agreement's evaluations)."""

    def __init__(self, model, model_id: str) -> None:
        super().__init__()
        self._model, self.model_id, self.label = model, model_id, model_id

    def _encode(self, model, batch: list[str]) -> np.ndarray:
        return encode(model, batch, len(batch))

    def _dim(self, model) -> int:
        return model.get_sentence_embedding_dimension() or 0


def agreement(placement: Placement, texts: list[str]) -> dict[str, object]:
    """fp16 against fp32 vectors of the default model on ``placement``'s device: per chunk,
    per adjacent pair, and in the selections of the samples' labelled questions."""
    from scar_viz.evaluation.run import evaluate
    from scar_viz.pipeline import prepare_document, query_inputs
    from scar_viz.policies import run_policy
    from scar_viz.queries.gold import label_queries
    from scar_viz.queries.reading import parse_queries

    models = {p: raw_model(placement, p) for p in ("fp32", "fp16")}
    batch = placement.batch_size
    vecs = {p: encode(m, texts, batch).astype(np.float32) for p, m in models.items()}
    vecs = {p: v / np.linalg.norm(v, axis=1, keepdims=True) for p, v in vecs.items()}
    cos = np.sum(vecs["fp32"] * vecs["fp16"], axis=1)
    adjacent = {p: np.sum(v[:-1] * v[1:], axis=1) for p, v in vecs.items()}
    b_change = np.abs(adjacent["fp32"] - adjacent["fp16"])
    differ = {"topk": 0, "scar": 0}
    n_queries = 0
    margins: list[float] = []  # |margin| of every fp32 SCAR decision: how near the bar
    for key in ("harbor", "kestrel"):
        doc = samples.load_sample(key)
        selected = {}
        for p, m in models.items():
            embedder = _Raw(m, f"bench:{p}")
            prep = prepare_document(doc, embedder, CONFIG)
            labelled = label_queries(
                parse_queries(samples.sample_queries_text(key), doc).queries, doc, prep.chunks
            )
            qvecs = embedder.embed([q.query.query for q in labelled])
            ev = evaluate(LabelledRun(prep, labelled, qvecs), ["topk", "scar"])
            selected[p] = {n: [o.selected for o in ev.policies[n].outcomes] for n in differ}
            if p == "fp32":
                for q, v in zip(labelled, qvecs, strict=True):
                    result = run_policy("scar", query_inputs(prep, q.query.query, v))
                    margins += [abs(d.margin) for d in result.detail.decisions]
        n_queries += len(selected["fp32"]["topk"])
        for name in differ:
            pairs = zip(selected["fp32"][name], selected["fp16"][name], strict=True)
            differ[name] += sum(1 for a, b in pairs if a != b)
    return {
        "device": placement.device,
        "chunks": len(texts),
        "cosine_min": float(cos.min()),
        "cosine_p01": float(np.percentile(cos, 1)),
        "cosine_mean": float(cos.mean()),
        "adjacent_b_change_max": float(b_change.max()),
        "adjacent_b_change_mean": float(b_change.mean()),
        "questions": n_queries,
        "selections_that_differ": differ,
        "scar_decisions": len(margins),
        "scar_decisions_within": {
            str(t): int(sum(m < t for m in margins)) for t in (0.001, 0.002, 0.005)
        },
    }


def summary(seconds: list[float], chunks: int) -> dict[str, object]:
    median = statistics.median(seconds)
    return {"seconds": seconds, "median": median, "chunks_per_s": chunks / median}


def machine(placement: Placement) -> dict[str, object]:
    import torch

    info = {
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
    }
    if placement.device.startswith("cuda"):
        info["gpu"] = torch.cuda.get_device_name(placement.device)
    return info


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default=None, help="a file, folder, glob or .zip (default: samples)")
    p.add_argument("--min-chunks", type=int, default=20_000, help="at least this many chunks")
    p.add_argument("--rounds", type=int, default=3, help="timed rounds (medians)")
    p.add_argument("--batch-sizes", default="256,1024", help="raw encode batch sizes")
    p.add_argument("--skip-ray", action="store_true", help="leave index --engine ray out")
    p.add_argument("--cpu", action="store_true", help="run on the CPU: a check, not GPU figures")
    p.add_argument("--out", type=Path, default=None)
    args = parse(p, argv, min_chunks=40, rounds=1, batch_sizes="16", skip_ray=True, cpu=True)
    try:
        placement = DeviceChoice("cpu" if args.cpu else "auto").resolve()
    except UserError as exc:
        print(f"error: {user_message(exc)}", file=sys.stderr)
        return 1
    if not args.cpu and not placement.device.startswith("cuda"):
        print(
            f"error: no CUDA GPU here (the device would be {placement.device}); pass --cpu to "
            "check the script on the CPU (its figures are not GPU figures).",
            file=sys.stderr,
        )
        return 1
    choice = DeviceChoice(placement.device if args.cpu else "auto")
    batches = [int(b) for b in args.batch_sizes.split(",")]
    docs, texts, copies = corpus(args.corpus, args.min_chunks)
    n = len(texts)
    print(f"{n:,} chunks ({len(docs)} files, {copies} shuffled copies) on {placement.label}")

    raw = raw_model(placement)
    embedder = make_embedder("default", device=choice)
    embedder.load()
    encode(raw, texts[:512], batches[0])  # warm up: CUDA context, kernels, allocator
    embed_cached(embedder, texts[:512], None)
    runs: dict[str, list[float]] = {f"raw_{b}": [] for b in batches}
    runs |= {"project": [], "tokenise": [], "index_local": [], "index_ray": []}
    ray_first: list[float] = []
    loads: list[float] = []  # the 1-minute load average after each round
    devices_seen: dict[str, list[str]] = {}

    from scar_viz.store import EmbedderSpec, EngineOptions
    from scar_viz.store import extras as store_extras

    ray_paths = () if args.skip_ray else ("index_ray",)
    if ray_paths:
        ray = store_extras.ray()
        t0 = time.perf_counter()
        ray.init(include_dashboard=False, log_to_driver=False)
        print(f"Ray started in {time.perf_counter() - t0:.1f} s: {ray.cluster_resources()}")
    num_gpus = 0 if args.cpu else 1
    order = ["raw", "project", "index_local", *ray_paths]
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            turn = order[r % len(order) :] + order[: r % len(order)]
            for path in turn:
                store = Path(tmp) / f"{path}-{r}.lance"
                if path == "raw":
                    for b in batches:
                        runs[f"raw_{b}"].append(timed(lambda b=b: encode(raw, texts, b), placement))
                elif path == "project":
                    runs["project"].append(
                        timed(lambda: embed_cached(embedder, texts, None), placement)
                    )
                    runs["tokenise"].append(timed(lambda: embedder.lengths(texts), placement))
                elif path == "index_local":
                    out = run_index(docs, embedder, EngineOptions("local"), store)
                    runs["index_local"].append(out["seconds"])
                    devices_seen["index_local"] = out["devices"]
                else:
                    spec = EmbedderSpec("default", device=choice)
                    options = EngineOptions("ray", num_gpus=num_gpus)
                    out = run_index(docs, spec, options, store)
                    runs["index_ray"].append(out["seconds"])
                    ray_first.append(out["first_piece"])
                    devices_seen["index_ray"] = out["devices"]
            loads.append(round(os.getloadavg()[0], 2))
            print(
                f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.1f} s" for k, v in runs.items() if v)
            )

    results: dict[str, object] = {
        "measured": datetime.date.today().isoformat(),
        "command": "python benchmarks/gpu_embed.py " + " ".join(argv or sys.argv[1:]),
        "placement": placement.label,
        "gpu_figures": placement.gpu,
        "machine": machine(placement),
        "corpus": {
            "source": args.corpus or "bundled samples (harbor_manual.md, kestrel/)",
            "files": len(docs),
            "shuffled_copies": copies,
            "chunks": n,
            "mean_chars": round(sum(map(len, texts)) / n, 1),
            "chunking": CONFIG.label,
        },
        "rounds": args.rounds,
        "load_average_after_rounds": loads,
        "paths": {k: summary(v, n) for k, v in runs.items() if v and k != "tokenise"},
        "project_tokenise_seconds": statistics.median(runs["tokenise"]),
        "index_devices": devices_seen,
    }
    if ray_first:
        results["index_ray_first_vectors_s"] = statistics.median(ray_first)
    ref = f"raw_{GPU_BATCH}" if f"raw_{GPU_BATCH}" in runs else f"raw_{batches[0]}"
    rate = {k: v["chunks_per_s"] for k, v in results["paths"].items()}
    results["reference"] = ref
    results["ratios"] = {
        f"{k}_vs_raw": rate[k] / rate[ref] for k in rate if not k.startswith("raw")
    }
    results["targets"] = TARGETS
    if placement.gpu:
        results["targets_met"] = {k: results["ratios"][k] >= v for k, v in TARGETS.items()}
    else:
        results["note"] = "A check of the script on the CPU (fp32): not GPU figures."
    sample_texts = chunk_texts(bundled_documents())
    results["fp16_against_fp32"] = agreement(placement, sample_texts)
    out = args.out or (OUT_GPU if placement.gpu else OUT_CPU)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
