"""How close the sentence switch's stated cost is to the real one, on the synthetic 90-file
corpus of ``page_times.py --corpus`` with the default model.

In one process, as a page does: the model embeds the corpus' first 300 chunks (uncached: the
speed this process measures), ``ui.sentences.sentence_cost`` states the cost of the sentence
policies (regex count, the split included), then the real work runs and is timed: the pysbd
split of every file and the embedding of every sentence not yet cached. The cache is a fresh
temporary folder.

Run: ``.venv/bin/python benchmarks/sentence_estimate.py [--model default]``. Writes
``benchmarks/results/sentence_estimate.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from scripts.bench_smoke import parse
from scripts.synthetic_corpus import (
    CORPUS_CHUNKS_PER_FILE,
    CORPUS_FILES,
    CORPUS_OVERLAP,
    CORPUS_SIZE,
    build_corpus,
)

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results" / "sentence_estimate.json"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="default")
    ap.add_argument("--files", type=int, default=None, help="corpus files (default: page_times')")
    ap.add_argument("--out", default=str(RESULTS))
    args = parse(ap, argv, model="hash", files=3)
    os.environ["SCAR_VIZ_CACHE_DIR"] = tempfile.mkdtemp(prefix="sentence-estimate-")
    from scar_viz.chunking.config import ChunkingConfig, chunk_document
    from scar_viz.documents.sentences import part_sentence_spans
    from scar_viz.embeddings import EmbeddingCache, embed_cached, make_embedder, speed
    from ui.sentences import sentence_cost

    files = args.files or CORPUS_FILES
    doc = build_corpus(files, CORPUS_CHUNKS_PER_FILE)
    chunks = chunk_document(doc, ChunkingConfig(size=CORPUS_SIZE, overlap=CORPUS_OVERLAP))
    embedder = make_embedder(args.model)
    embedder.embed([c.text for c in chunks[:4]])  # load the model (not measured)
    cache = EmbeddingCache()
    embed_cached(embedder, [c.text for c in chunks[:300]], cache)
    cost, exact = sentence_cost(doc, embedder)
    measured = speed.chars_per_second(embedder.model_id)  # what the estimate used
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    spans = part_sentence_spans(doc.text, tuple(doc.part_bounds))
    split = time.perf_counter() - t0
    result = embed_cached(embedder, [doc.text[s:e] for s, e in spans], cache)
    actual = time.perf_counter() - t0
    out = {
        "benchmark": "benchmarks/sentence_estimate.py",
        "model": args.model,
        "document": f"synthetic corpus, {files} files, {len(doc.text):,} characters",
        "chunk_speed_chars_per_s": round(measured, 1),
        "sentence_speed_chars_per_s": round(sum(e - s for s, e in spans) / (actual - split), 1),
        "stated_sentences": cost.texts,
        "stated_exact": exact,
        "stated_seconds": round(cost.seconds, 2),
        "actual_sentences": len(spans),
        "actual_sentences_embedded": result.n_encoded,
        "actual_split_seconds": round(split, 2),
        "actual_seconds": round(actual, 2),
        "ratio_actual_to_stated": round(actual / cost.seconds, 2),
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    print(json.dumps(out, indent=2))
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
