"""First full paint of each heavy page on a real document, with the embedding cache warm.

RFC 9293 (``../shared/corpora/rfc9293.txt``) is put in the session as an upload, chunked
434/43 (about 825 chunks), with its 40 labelled queries as the active query set, under the
default model (or ``--model``). Each measurement runs in a fresh Python process, as a fresh
server would: the app's first page (the Explorer) opens the document — this loads the model and
reads every chunk vector from the disk cache — and then the timed step is the switch to the page
and its whole script run (AppTest ``run()``), i.e. the first time a user opens that page on this
document. Nothing computed in memory by an earlier process helps; the disk embedding cache does.

The reference, measured in the same process right after the page: a bare
``Embedder.embed`` of the first 8 chunk texts, uncached (CPU-bound like the pages). The ratio
page / reference follows the machine's load; the load average is kept with every figure. The
pages alternate their order from round to round.

Targets: Compare ≤ 8 s, Equal budget ≤ 15 s, the Evaluation lab (verdict on top) ≤ 10 s,
Model transfer ≤ 3 s before a second model is named.

Run: ``.venv/bin/python benchmarks/page_times.py [--rounds 3] [--model default|hash]
[--cache-dir DIR] [--pages compare budget]`` (the first round fills a cold cache; pass a
persistent ``--cache-dir`` so reruns start warm). Writes ``benchmarks/results/page_times.json``.

``--corpus``: instead of RFC 9293, a synthetic 90-file corpus (``benchmarks/corpus_scale.py``'s
generator, 10 chunks' worth of text a file, 513,396 characters) chunked 650/65 into 1,151
chunks, with 40 generated queries (each quoting a passage of one file; ``--queries 250`` for
250, where what grows with the questions shows); pages ``compare``, ``chunking``, ``budget``
and ``evaluate`` and the others. Target: each page's first open ≤ 10 s. Writes
``benchmarks/results/page_times_corpus.json`` (the summary keyed by page, mode and questions).

``--cold``: every measurement starts from a copy of a cache that holds only what the
Explorer's first open on the document leaves there (the chunk and question vectors, embedded
once beforehand): no sentence split and no sentence vector on disk, no earlier page's work —
the first time a user opens each page after the corpus is embedded. Without it the warming
pass runs every page once first (the disk caches warm).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
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
    make_queries,
)

ROOT = Path(__file__).resolve().parent.parent

CORPUS = ROOT.parent / "shared" / "corpora" / "rfc9293.txt"
QUERIES = ROOT.parent / "shared" / "corpora" / "rfc9293.queries.jsonl"
RESULTS = ROOT / "benchmarks" / "results" / "page_times.json"
PAGES = {
    "compare": "pages/compare.py",
    "budget": "pages/budget.py",
    "evaluate": "pages/evaluate.py",
    "transfer": "pages/transfer.py",
    "budget_no_sentences": "pages/budget.py",
}
TARGETS = {
    "compare": 8.0,
    "budget": 15.0,
    "evaluate": 10.0,
    "transfer": 3.0,
    "budget_no_sentences": 15.0,
}
CORPUS_PAGES = {
    "compare": "pages/compare.py",
    "chunking": "pages/chunking.py",
    "budget": "pages/budget.py",
    "evaluate": "pages/evaluate.py",
    "sweep": "pages/sweep.py",
    "transfer": "pages/transfer.py",
    "fit_gate": "pages/fit_gate.py",
    "answers": "pages/answers.py",
    "learn": "pages/learn.py",
}
CORPUS_TARGET = 10.0
CORPUS_RESULTS = ROOT / "benchmarks" / "results" / "page_times_corpus.json"
CORPUS_QUERIES = 40
SWITCHED_OFF = {"budget_no_sentences": "bud_sent"}
"""Variants: the page with its sentence policies switched off."""
SIZE, OVERLAP = 434, 43
REFERENCE_TEXTS = 8
QUESTION = "How does TCP decide when to retransmit a segment that was not acknowledged?"


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _document(corpus: bool, n_queries: int = CORPUS_QUERIES):
    """(document, query-set name, its bytes, a question, size, overlap) of the run."""
    from scar_viz.documents.reading import read_document

    if not corpus:
        doc = read_document(CORPUS.name, CORPUS.read_bytes())
        return doc, QUERIES.name, QUERIES.read_bytes(), QUESTION, SIZE, OVERLAP
    from scar_viz.queries.reading import parse_queries

    doc = build_corpus(CORPUS_FILES, CORPUS_CHUNKS_PER_FILE)
    queries = make_queries(doc, n_queries)
    question = parse_queries(queries, doc).queries[0].query
    return doc, "synthetic.jsonl", queries.encode(), question, CORPUS_SIZE, CORPUS_OVERLAP


def measure_page(
    page: str, model: str, corpus: bool = False, n_queries: int = CORPUS_QUERIES
) -> dict:
    """In this process: open the document on the first page, then time the switch to ``page``
    (``explorer``: only the first page, untimed); then the reference encode."""
    os.chdir(ROOT)
    from streamlit.testing.v1 import AppTest

    from scar_viz.chunking.config import ChunkingConfig, chunk_document
    from scar_viz.embeddings import make_embedder, text_key

    doc, qname, qbytes, question, size, overlap = _document(corpus, n_queries)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.session_state["uploaded"] = (text_key(doc.text), doc)
    at.session_state["doc"] = "upload"
    at.session_state["size"] = size
    at.session_state["overlap"] = overlap
    at.session_state["qsets"] = {doc.digest: {"upload": (qname, qbytes)}}
    at.session_state["qs_pick"] = "upload"
    t0 = time.perf_counter()
    at.run()
    at.text_input(key="q").set_value(question)
    at.run()
    opened = time.perf_counter() - t0
    assert not at.exception, at.exception
    if page == "explorer":
        return {"page": page, "explorer_open_seconds": round(opened, 3)}
    load_before = _load()
    at.switch_page((CORPUS_PAGES if corpus else PAGES)[page])
    if page in SWITCHED_OFF:
        at.session_state[SWITCHED_OFF[page]] = False
    first_run = 0.0
    if page == "compare":  # the page opens on an empty question box (it stops there)
        t0 = time.perf_counter()
        at.run()
        first_run = time.perf_counter() - t0
        at.text_input(key="q").set_value(question)
    profile = os.environ.get("PAGE_TIMES_PROFILE")
    if profile:  # cProfile of the page's script run (it runs in the script runner's thread)
        import cProfile

        from streamlit.runtime.scriptrunner import script_runner

        prof = cProfile.Profile()
        real = script_runner.ScriptRunner._run_script

        def profiled(self, *a, **k):
            return prof.runcall(real, self, *a, **k)

        script_runner.ScriptRunner._run_script = profiled
    t0 = time.perf_counter()
    at.run()
    seconds = time.perf_counter() - t0 + first_run  # Compare: both runs, box then question
    if profile:
        script_runner.ScriptRunner._run_script = real
        prof.dump_stats(profile)
    assert not at.exception, at.exception
    extra = {}
    waiting = [b for b in at.button if b.key == "verdict_run"]
    if waiting:  # a large query set: the verdict waits for its button, timed apart
        t0 = time.perf_counter()
        waiting[0].click().run()
        extra["verdict_on_click_seconds"] = round(time.perf_counter() - t0, 3)
        extra["verdict_button"] = waiting[0].label
        assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    chunks = chunk_document(doc, ChunkingConfig(size=size, overlap=overlap))
    texts = [c.text for c in chunks[:REFERENCE_TEXTS]]
    spec = "default" if model == "default" else model
    embedder = make_embedder(spec)
    embedder.embed(texts[:4])  # the model is loaded already in the app; load this one too
    t0 = time.perf_counter()
    embedder.embed(texts)
    reference = time.perf_counter() - t0
    return {
        "page": page,
        "seconds": round(seconds, 3),
        "reference_seconds": round(reference, 3),
        "ratio": round(seconds / reference, 2),
        "explorer_open_seconds": round(opened, 3),
        "first_run_seconds": round(first_run, 3),
        "chunks": len(chunks),
        "load_before": load_before,
        "load_after": _load(),
        "errors": errors,
        "warnings": [w.value for w in at.warning],
        "notes": [i.value for i in at.info],  # a page that stops on a message says so here
        "headers": [h.value for h in at.subheader],
        **extra,
    }


def run_worker(
    page: str, model: str, cache_dir: str, corpus: bool = False, n_queries: int = CORPUS_QUERIES
) -> dict:
    env = {
        **os.environ,
        "SCAR_VIZ_CACHE_DIR": cache_dir,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    if model != "default":
        env["SCAR_VIZ_DEFAULT_MODEL"] = model
    out = subprocess.run(
        [sys.executable, __file__, "--worker", page, "--model", model]
        + (["--corpus", "--queries", str(n_queries)] if corpus else []),
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"{page}: worker failed\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cold_copy(seed_dir: str) -> str:
    """A fresh copy of ``seed_dir`` (the Explorer's vectors only), for one cold measurement."""
    fresh = tempfile.mkdtemp(prefix="page-times-cold-")
    shutil.copytree(seed_dir, fresh, dirs_exist_ok=True)
    return fresh


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--model", default="default")
    ap.add_argument("--cache-dir", default=str(ROOT.parent / "cache-speed"))
    ap.add_argument("--pages", nargs="*", choices=sorted({*PAGES, *CORPUS_PAGES}))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--no-warm", action="store_true", help="the cache is warm already")
    ap.add_argument("--corpus", action="store_true", help="the synthetic 90-file corpus")
    ap.add_argument("--cold", action="store_true", help="each page's first open ever")
    ap.add_argument(
        "--queries", type=int, default=CORPUS_QUERIES, help="labelled questions (--corpus)"
    )
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = parse(ap, argv, rounds=1, model="hash")
    if args.worker:
        print(json.dumps(measure_page(args.worker, args.model, args.corpus, args.queries)))
        return
    pages = args.pages or list(CORPUS_PAGES if args.corpus else PAGES)
    n_q = args.queries if args.corpus else 0
    out_path = args.out or (CORPUS_RESULTS if args.corpus else RESULTS)
    if not args.corpus and (not CORPUS.exists() or not QUERIES.exists()):
        raise SystemExit(f"needs {CORPUS} and {QUERIES}")
    Path(args.cache_dir).mkdir(parents=True, exist_ok=True)
    if args.cold:
        print("embedding the chunks once (the Explorer; not counted) …", flush=True)
        run_worker("explorer", args.model, args.cache_dir, args.corpus, args.queries)
    else:
        print("warming the cache (one pass, not counted) …", flush=True)
        for page in [] if args.no_warm else pages:
            warm = run_worker(page, args.model, args.cache_dir, args.corpus, args.queries)
            print(f"  {page}: {warm['seconds']:.2f} s (warming)", flush=True)
    runs: list[dict] = []
    for r in range(args.rounds):
        order = pages if r % 2 == 0 else pages[::-1]
        for page in order:
            cache = _cold_copy(args.cache_dir) if args.cold else args.cache_dir
            try:
                m = run_worker(page, args.model, cache, args.corpus, args.queries)
            finally:
                if args.cold:
                    shutil.rmtree(cache, ignore_errors=True)
            runs.append({**m, "round": r, "cold": args.cold, "questions": n_q})
            print(
                f"  round {r} {page}: {m['seconds']:.2f} s, reference {m['reference_seconds']:.2f}"
                f" s ({m['ratio']:.2f}×), load {m['load_before']}",
                flush=True,
            )
    mode = "cold" if args.cold else "warm"
    if args.corpus and (n_q != CORPUS_QUERIES or out_path != CORPUS_RESULTS):
        mode += f", {n_q} questions"  # a file of its own names the count at 40 too
    summary = {}
    for page in pages:
        mine = [x for x in runs if x["page"] == page]
        target = CORPUS_TARGET if args.corpus else TARGETS[page]
        summary[f"{page} ({mode})" if args.corpus else page] = {
            "median_seconds": round(statistics.median(x["seconds"] for x in mine), 3),
            "min_seconds": round(min(x["seconds"] for x in mine), 3),
            "median_reference_seconds": round(
                statistics.median(x["reference_seconds"] for x in mine), 3
            ),
            "median_ratio": round(statistics.median(x["ratio"] for x in mine), 2),
            "median_load": round(statistics.median(x["load_before"] for x in mine), 2),
            "target_seconds": target,
            "mode": mode,
        }
        clicks = [x["verdict_on_click_seconds"] for x in mine if "verdict_on_click_seconds" in x]
        if clicks:  # the verdict waited for its button: its own time, after the page's
            summary[list(summary)[-1]]["median_verdict_on_click_seconds"] = round(
                statistics.median(clicks), 3
            )
        print(f"{page} ({mode}): {summary[list(summary)[-1]]}")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for entry in (*summary.values(), *runs):
        entry["measured_at"] = stamp
    old = json.loads(out_path.read_text(encoding="utf-8")) if out_path.exists() else {}
    document = (
        f"synthetic corpus: {CORPUS_FILES} files (benchmarks/corpus_scale.py, "
        f"{CORPUS_CHUNKS_PER_FILE} chunks' worth a file) at {CORPUS_SIZE}/{CORPUS_OVERLAP}, "
        "generated queries (40 unless a summary's key names another count)"
        if args.corpus
        else f"{CORPUS.name} at {SIZE}/{OVERLAP}, {QUERIES.name}"
    )
    kept = [
        r
        for r in old.get("runs", [])
        if (
            r["page"],
            r.get("cold", False),
            r.get("questions", CORPUS_QUERIES if args.corpus else 0),
        )
        not in {(p, args.cold, n_q) for p in pages}
    ]
    out = {  # a run of some pages replaces their figures and keeps the others'
        "benchmark": "benchmarks/page_times.py" + (" --corpus" if args.corpus else ""),
        "document": document,
        "model": args.model,
        "reference": f"Embedder.embed of the first {REFERENCE_TEXTS} chunk texts, same process",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "summary": {**old.get("summary", {}), **summary},
        "runs": kept + runs,
    }
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
