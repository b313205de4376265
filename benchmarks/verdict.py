"""Benchmark: the cross-validated verdict on a 1,152-chunk, 248-query corpus, embeddings cached.

The corpus is :mod:`corpus_scale`'s generator at 16 files (seed 28, so recursive 600/60 cuts it
into exactly 1,152 chunks) and 248 of its queries (each quotes a passage of one file), written
to a temporary folder as a corpus and a JSON Lines file, so the command line reads them as a
user's files. Measured, after one untimed ``recommend`` has filled the embedding cache:

- **recommend**: ``python -m scar_viz recommend CORPUS QUERIES --json`` as a fresh process,
  wall-clock (reading and chunking the files, reading every vector from the cache, the verdict,
  the JSON) — target ≤ 30 s;
- **the app's verdict**: :func:`scar_viz.evaluation.recommend.recommend`, the function the
  Evaluation lab runs once its query vectors are in hand (the page adds the drawing), in this
  process on the document prepared from the same cache — target ≤ 15 s. Timed twice: the first
  run also builds the BM25 index, as the app's first verdict does.

Both run 3 retrievers × 6 expansions × k = 1 … 10 (180 candidates), 5 folds × 3 repeats,
B = 10,000 bootstrap resamples. ``--model`` picks the embedder (default ``hash``; ``default``
is all-MiniLM-L6-v2, about a minute to embed the first time). The load average is kept with
every figure: the machine is shared.

Run: ``.venv/bin/python benchmarks/verdict.py [--model hash|default]``. Writes
``benchmarks/results/verdict.json`` (``verdict_default.json`` for the default model).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scar_viz.cli.common import load_document
from scar_viz.embeddings import EmbeddingCache, embed_cached, make_embedder
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.recommend import recommend
from scar_viz.pipeline import prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.views.verdict_words import verdict_json
from scripts.bench_smoke import parse
from scripts.synthetic_corpus import build_corpus, make_queries

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results"
FILES, CHUNKS_PER_FILE, SEED = 16, 53.6, 28
QUERIES = 248
CLI_TARGET_S, APP_TARGET_S = 30.0, 15.0


def write_corpus(folder: Path, files: int = FILES, n_queries: int = QUERIES) -> tuple[Path, Path]:
    """The corpus' files under ``folder/corpus`` and its queries in ``folder/queries.jsonl``."""
    corpus = build_corpus(files, CHUNKS_PER_FILE, SEED)
    root = folder / "corpus"
    for part in corpus.parts:
        path = root / part.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(corpus.text[part.start : part.end], encoding="utf-8")
    queries = folder / "queries.jsonl"
    queries.write_text(make_queries(corpus, n_queries), encoding="utf-8")
    return root, queries


def cli_seconds(corpus: Path, queries: Path, model: str, env: dict[str, str]) -> tuple[float, dict]:
    command = [sys.executable, "-m", "scar_viz", "recommend", str(corpus), str(queries)]
    t = time.perf_counter()
    proc = subprocess.run(
        [*command, "--model", model, "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    seconds = time.perf_counter() - t
    if proc.returncode:
        raise SystemExit(proc.stderr)
    return seconds, json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="hash")
    parser.add_argument("--out", default=None)
    parser.add_argument("--files", type=int, default=FILES)
    parser.add_argument("--queries", type=int, default=QUERIES)
    args = parse(parser, argv, model="hash", files=2, queries=12)
    out_path = Path(
        args.out or RESULTS / f"verdict{'' if args.model == 'hash' else '_' + args.model}.json"
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        corpus, queries = write_corpus(folder, args.files, args.queries)
        env = {**os.environ, "SCAR_VIZ_CACHE_DIR": str(folder / "cache"), "HF_HUB_OFFLINE": "1"}
        os.environ["SCAR_VIZ_CACHE_DIR"] = env["SCAR_VIZ_CACHE_DIR"]
        t = time.perf_counter()
        cli_seconds(corpus, queries, args.model, env)  # fills the embedding cache
        warm_up = time.perf_counter() - t
        load_cli = os.getloadavg()[0]
        cli_s, out = cli_seconds(corpus, queries, args.model, env)

        embedder = make_embedder(args.model)
        cache = EmbeddingCache()
        document = load_document(str(corpus))
        prep = prepare_document(document, embedder, cache=cache)
        gold = label_queries(
            parse_queries(queries.read_text(encoding="utf-8"), document), document, prep.chunks
        )
        vecs = embed_cached(embedder, [g.query.query for g in gold], cache).vectors
        assert prep.n_encoded == 0, "the chunks should come from the cache"
        load_app = os.getloadavg()[0]
        app_s = []
        for _ in range(2):
            t = time.perf_counter()
            v = recommend(LabelledRun(prep, gold, vecs))
            app_s.append(time.perf_counter() - t)
        assert verdict_json(v) == out, "the app's verdict and the command's differ"
    types = {t: sum(g.type == t for g in gold) for t in ("fragmented", "atomic", "scattered")}
    result = {
        "what": "recommend on a synthetic corpus (corpus_scale's generator, 16 files, seed 28), "
        "recursive 600/60, 180 candidates, 5 folds × 3 repeats, B = 10,000, embeddings cached",
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.python_version()}",
        "model": prep.embedder_label,
        "chunks": len(prep.chunks),
        "files": len(document.parts),
        "queries": len(gold),
        "query_types": types,
        "candidates": len(v.candidates),
        "cli_seconds": round(cli_s, 2),
        "cli_target_seconds": CLI_TARGET_S,
        "cli_load_average": round(load_cli, 2),
        "cli_first_run_seconds_embedding": round(warm_up, 1),
        "app_verdict_seconds": [round(s, 2) for s in app_s],
        "app_target_seconds": APP_TARGET_S,
        "app_load_average": round(load_app, 2),
        "verdict": out["verdict"],
        "budget_tokens": out["budget_tokens"],
    }
    out_path.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    cli_ok = "met" if cli_s <= CLI_TARGET_S else "MISSED"
    app_ok = "met" if max(app_s) <= APP_TARGET_S else "MISSED"
    print(f"{len(prep.chunks):,} chunks, {len(gold)} queries, {prep.embedder_label}")
    print(f"recommend (fresh process): {cli_s:.1f} s · target ≤ {CLI_TARGET_S:g} s: {cli_ok}")
    print(
        f"the app's verdict: {', '.join(f'{s:.1f}' for s in app_s)} s · target ≤ "
        f"{APP_TARGET_S:g} s: {app_ok} (load average {load_app:.2f})"
    )
    print(out["verdict"]["sentence"])
    return result


if __name__ == "__main__":
    main()
