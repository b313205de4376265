"""Benchmark: ``eval --store`` over stores of 100,000 to 1,000,000 chunks, against the same
chunks and vectors held in memory, and a re-index after one file of 1,000 changes.

    .venv/bin/python benchmarks/store_scale.py [--sizes 100000 300000 1000000] [--queries 500]
    .venv/bin/python benchmarks/store_scale.py --repeat 6 --sizes 300000 --queries 300

How the stores are built: chunking and embedding a million chunks through ``index`` would
take most of an hour on the 2-core machine, so the rows are written directly. A corpus of
files of 100 chunks each is generated from a fixed seed (each file mixes a topic vocabulary of
its own with common words, as ``corpus_scale.py`` does); a file's chunks are its fixed
200-character windows (no overlap), their vectors the ``hash:64`` model's of the chunk text,
embedded once for the largest size (smaller stores hold a prefix of its files). Each store
holds the three tables ``index`` writes, its record saying ``fixed 200/0`` and ``hash:64``,
so ``eval --store`` reads it as any other store (``open_store`` checks every chunk against its
file's text).

Measured, each in a fresh process (peak resident memory is ``ru_maxrss`` of that process):

- **store**: what ``eval --store S QUERIES --policies topk window1 scar`` does — open the
  store (read the tables, build the chunks and the unit matrix), label and embed the queries,
  evaluate; read and evaluation timed apart;
- **memory**: the same chunks and vectors built in memory (what ``eval DOC`` holds after it
  has chunked and embedded; the embedding itself is not timed), the same evaluation; the
  metrics must equal the store's;
- **re-index**: 1,000 files indexed in process (``index_corpus``, hash model), one file
  changed, indexed again: the texts embedded the second time are counted.

The same queries (quoting passages of the first 1,000 files) run at every size.
Results: ``benchmarks/results/store_scale.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import Document, document_from_text
from scar_viz.embeddings import HashEmbedder
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.run import evaluate
from scar_viz.pipeline import PreparedDoc
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.params import DEFAULT_PARAMS
from scar_viz.scoring.scar import boundary_penalties, normalize
from scripts.bench_smoke import parse
from scripts.synthetic_corpus import COMMON as WORDS

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results" / "store_scale.json"
COMMON = np.array(WORDS)
CONFIG = ChunkingConfig("fixed", 200, 0)
CHUNK = 200
PER_FILE = 100
DIM = 64
POLICIES = ("topk", "window1", "scar")
SYLLABLES = ["ka", "to", "ri", "me", "su", "lo", "na", "vi", "de", "pa", "gu", "zo"]


def files(n_files: int, seed: int = 7) -> list[Document]:
    """``n_files`` files of exactly ``PER_FILE`` × ``CHUNK`` characters (the first files of a
    larger call are the same)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_files):
        topic = np.array(
            [
                "".join(SYLLABLES[int(j)] for j in rng.integers(len(SYLLABLES), size=3))
                for _ in range(40)
            ]
        )
        n_words = PER_FILE * CHUNK // 5
        use_topic = rng.random(n_words) < 0.45
        words = np.where(
            use_topic,
            topic[rng.integers(len(topic), size=n_words)],
            COMMON[rng.integers(len(COMMON), size=n_words)],
        )
        text = " ".join(words.tolist())
        while len(text) < PER_FILE * CHUNK:
            text += " " + text
        text = text[: PER_FILE * CHUNK - 1] + "."
        out.append(document_from_text(f"kb/{i // 1000:02d}/file{i:05d}.md", text))
    return out


def chunk_texts(docs: list[Document]) -> list[str]:
    return [d.text[j * CHUNK : (j + 1) * CHUNK] for d in docs for j in range(PER_FILE)]


def prepared(docs: list[Document], vectors: np.ndarray) -> PreparedDoc:
    """The in-memory corpus of ``docs`` under fixed 200/0 with ``vectors`` (one per chunk)."""
    from scar_viz.store.reading import section_paths

    corpus = join_documents(docs, "synthetic")
    starts = np.array(
        [p.start + j * CHUNK for p in corpus.parts for j in range(PER_FILE)], dtype=np.int64
    )
    chunks = [
        Chunk(i, s, s + CHUNK, corpus.text[s : s + CHUNK], path)
        for i, (s, path) in enumerate(
            zip(starts.tolist(), section_paths(corpus, starts), strict=True)
        )
    ]
    unit = normalize(np.asarray(vectors, dtype=np.float32))
    embedder = HashEmbedder(DIM)
    return PreparedDoc(
        corpus, CONFIG, False, chunks, unit, boundary_penalties(unit), embedder.model_id,
        embedder.label, 0, 0.0,
    )  # fmt: skip


def write_store(uri: str, docs: list[Document], vectors: np.ndarray) -> None:
    """The three tables ``index`` writes, rows written directly."""
    from scar_viz.store import tables
    from scar_viz.store.meta import StoreMeta

    embedder = HashEmbedder(DIM)
    db = tables.connect(uri)
    db.create_table(tables.DOCUMENTS, tables.documents_table(docs))
    step = 1000  # files per write
    for lo in range(0, len(docs), step):
        part = docs[lo : lo + step]
        n = len(part) * PER_FILE
        table = tables.chunks_table(
            [d.name for d in part for _ in range(PER_FILE)],
            list(range(PER_FILE)) * len(part),
            [j * CHUNK for _ in part for j in range(PER_FILE)],
            [(j + 1) * CHUNK for _ in part for j in range(PER_FILE)],
            chunk_texts(part),
            vectors[lo * PER_FILE : lo * PER_FILE + n],
        )
        if lo == 0:
            db.create_table(tables.CHUNKS, table)
        else:
            db.open_table(tables.CHUNKS).add(table)
    meta = StoreMeta(embedder.model_id, embedder.label, CONFIG, False, "synthetic", True)
    db.create_table(tables.META, tables.meta_table(meta))


def make_queries(docs: list[Document], n: int, seed: int = 11) -> str:
    """JSON Lines: ``n`` queries, each quoting a 160-character passage of one file (``doc``)."""
    rng = np.random.default_rng(seed)
    common = set(COMMON.tolist())
    lines = []
    for qi in range(n):
        doc = docs[int(rng.integers(len(docs)))]
        start = doc.text.find(" ", int(rng.integers(0, len(doc.text) - 200))) + 1
        passage = doc.text[start : start + 160].strip()
        words = [w.strip(".") for w in passage.split() if w.strip(".") not in common]
        query = " ".join(words[:8]) or passage[:40]
        evidence = {"doc": doc.name, "text": passage, "start": start, "end": start + len(passage)}
        lines.append(json.dumps({"id": f"q{qi:04d}", "query": query, "evidence": [evidence]}))
    return "\n".join(lines) + "\n"


def _evaluate(prep: PreparedDoc, queries_text: str) -> tuple[dict, float, int]:
    embedder = HashEmbedder(DIM)
    qset = parse_queries(queries_text, prep.document)
    gold = label_queries(qset.queries, prep.document, prep.chunks)
    vecs = embedder.embed([g.query.query for g in gold])
    evaluate(
        LabelledRun(prep, gold[:2], vecs[:2]), list(POLICIES), DEFAULT_PARAMS
    )  # warm up (tokenizer)
    t = time.perf_counter()
    ev = evaluate(LabelledRun(prep, gold, vecs), list(POLICIES), DEFAULT_PARAMS)
    seconds = time.perf_counter() - t
    metrics = {
        name: {
            "recall": round(float(np.mean([o.recall for o in pe.outcomes])), 6),
            "chunks": round(float(np.mean([o.chunks for o in pe.outcomes])), 6),
            "selections": hashlib.sha256(
                repr([o.selected for o in pe.outcomes]).encode()
            ).hexdigest()[:16],
        }
        for name, pe in ev.policies.items()
    }
    return metrics, seconds, len(gold)


def _peak_mib() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def phase_build(work: Path, sizes: list[int], n_queries: int) -> dict:
    t0 = time.perf_counter()
    docs = files(max(sizes) // PER_FILE)
    gen_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    vectors = HashEmbedder(DIM).embed(chunk_texts(docs)).astype(np.float32)
    embed_s = time.perf_counter() - t0
    np.save(work / "vectors.npy", vectors)
    (work / "queries.jsonl").write_text(make_queries(docs[:1000], n_queries), encoding="utf-8")
    out = {"generate_seconds": round(gen_s, 1), "embed_seconds": round(embed_s, 1), "write": {}}
    for size in sizes:
        t0 = time.perf_counter()
        write_store(str(work / f"s{size}"), docs[: size // PER_FILE], vectors[:size])
        out["write"][size] = round(time.perf_counter() - t0, 1)
    return out


def phase_store(work: Path, size: int) -> dict:
    t0 = time.perf_counter()
    from scar_viz.store import extras, open_store

    extras.lancedb()
    import_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    prep = open_store(str(work / f"s{size}"), HashEmbedder(DIM).model_id, CONFIG)
    read_s = time.perf_counter() - t0
    assert len(prep.chunks) == size
    metrics, eval_s, n = _evaluate(prep, (work / "queries.jsonl").read_text(encoding="utf-8"))
    return {
        "import_seconds": round(import_s, 2),
        "read_seconds": read_s,
        "eval_seconds": eval_s,
        "queries": n,
        "metrics": metrics,
        "peak_rss_mib": _peak_mib(),
    }


def phase_memory(work: Path, size: int) -> dict:
    docs = files(size // PER_FILE)
    vectors = np.load(work / "vectors.npy", mmap_mode="r")[:size]
    prep = prepared(docs, np.array(vectors))
    metrics, eval_s, n = _evaluate(prep, (work / "queries.jsonl").read_text(encoding="utf-8"))
    return {"eval_seconds": eval_s, "queries": n, "metrics": metrics, "peak_rss_mib": _peak_mib()}


class _Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(DIM)
        self.n = 0

    def embed(self, texts, progress=None):
        self.n += len(texts)
        return super().embed(texts, progress)


def phase_reindex(work: Path) -> dict:
    from scar_viz.store import index_corpus

    docs = [
        document_from_text(d.name, d.text[: 10 * CHUNK])
        for d in files(1000, seed=3)
    ]  # fmt: skip
    config = ChunkingConfig(size=300, overlap=30)
    first = _Counting()
    r1 = index_corpus(docs, str(work / "reindex"), first, config)
    changed = list(docs)
    changed[500] = document_from_text(docs[500].name, docs[500].text + " One sentence more.")
    second = _Counting()
    r2 = index_corpus(changed, str(work / "reindex"), second, config)
    from scar_viz.chunking.config import chunk_document

    own = len(chunk_document(changed[500], config))
    return {
        "files": len(docs),
        "chunks": r1.chunks_total,
        "first_embedded": first.n,
        "first_seconds": round(r1.seconds, 2),
        "second": r2.line,
        "second_embedded": second.n,
        "changed_file_chunks": own,
        "second_seconds": round(r2.seconds, 2),
    }


PHASES = {"store": phase_store, "memory": phase_memory}


def _run(phase: str, work: Path, size: int) -> dict:
    proc = subprocess.run(
        [sys.executable, __file__, "--phase", phase, "--work", str(work), "--size", str(size)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if proc.returncode:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


REPEAT_RESULTS = ROOT / "benchmarks" / "results" / "store_repeat.json"


def repeat(size: int, n_queries: int, rounds: int) -> None:
    """Store and memory evaluations alternated ``rounds`` times each at ``size`` chunks (store
    first on even rounds), every one in a fresh process: whether the store path's evaluation
    is slower, or single runs on a shared machine only looked so."""
    import statistics

    runs: dict[str, list[float]] = {"store": [], "memory": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        phase_build(work, [size], n_queries)
        for r in range(rounds):
            for phase in ("store", "memory") if r % 2 == 0 else ("memory", "store"):
                runs[phase].append(round(_run(phase, work, size)["eval_seconds"], 2))
                print(phase, runs[phase][-1], flush=True)
    out = {
        "what": f"eval of {n_queries} queries (topk window1 scar) over {size:,} chunks, from "
        "the store and in memory, alternated, each run in a fresh process",
        "machine": f"{platform.machine()}, {platform.python_version()}, 2 cores",
        "eval_seconds": runs,
        "median_store": statistics.median(runs["store"]),
        "median_memory": statistics.median(runs["memory"]),
        "ratio_of_medians": round(
            statistics.median(runs["store"]) / statistics.median(runs["memory"]), 2
        ),
    }
    REPEAT_RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--no-memory", action="store_true", help="skip the in-memory runs")
    ap.add_argument("--phase", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--work", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument(
        "--repeat",
        type=int,
        default=0,
        help="only compare: N alternating store and memory evaluations at the first size "
        "(results to store_repeat.json)",
    )
    args = parse(ap, argv, sizes=[300], queries=5)
    if args.phase:
        print(json.dumps(PHASES[args.phase](Path(args.work), args.size)))
        return
    if args.repeat:
        repeat(args.sizes[0], args.queries, args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        build = phase_build(work, args.sizes, args.queries)
        print(f"built: {build}", flush=True)
        rows = []
        for size in args.sizes:
            row = {"chunks": size, "files": size // PER_FILE, "store": _run("store", work, size)}
            s = row["store"]
            s["queries_per_second"] = round(s["queries"] / s["eval_seconds"], 1)
            s["queries_per_second_with_read"] = round(
                s["queries"] / (s["eval_seconds"] + s["read_seconds"]), 1
            )
            if not args.no_memory:
                m = row["memory"] = _run("memory", work, size)
                m["queries_per_second"] = round(m["queries"] / m["eval_seconds"], 1)
                row["same_metrics"] = m["metrics"] == s["metrics"]
            for part in ("store", "memory"):
                for key in ("read_seconds", "eval_seconds"):
                    if key in row.get(part, {}):
                        row[part][key] = round(row[part][key], 2)
            print(json.dumps(row), flush=True)
            rows.append(row)
        reindex = phase_reindex(work)
        print(f"re-index: {reindex}", flush=True)
    out = {
        "what": "eval --store over synthetic stores (rows written directly: fixed 200/0 chunks, "
        "hash:64 vectors of each chunk's text), topk window1 scar, k=3 r=1 λ=0.5 τ=0.1; memory = "
        "the same chunks and vectors in memory (embedding not timed); each run in a fresh "
        "process",
        "machine": f"{platform.machine()}, {platform.python_version()}, 2 cores",
        "build": build,
        "sizes": rows,
        "reindex": reindex,
    }
    Path(args.out).write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
