"""Benchmark: how to cut Japanese into terms for BM25 and the hashing model (docs/method.md §8).

On the built-in Japanese sample (``reitou``: 5,019 characters, 10 chunks at recursive 600/60,
21 questions in Japanese, 6 of them fragmented), each segmentation is scored by:

- **BM25 recall@1 and recall@3**: bm25s (k1 1.5, b 0.75, the app's) over the chunks' tokens,
  the share of each question's gold chunks in its top k, averaged; "first" is the share of
  questions whose top chunk is a gold chunk;
- **hash recall@3**: the hashing model's 256 signed buckets over the same tokens, cosine;
- the same on the **mixed** questions (those with Latin letters or code in their evidence);
- **speed**: characters a second, tokenising the sample 20 times (after one warm-up);
- **memory**: peak Python allocation while the analyser loads (tracemalloc), and **install
  size** of the package with its dictionary (``--site DIR`` where it was installed).

Segmentations: ``words`` (bm25s's regex, the tokeniser before: a clause is one token),
``bigrams`` (scar_viz.common.terms, what the app uses), ``bigrams+unigrams`` (Han, kana single
characters added), ``janome`` (pure-Python morphological analyser, its IPADIC bundled) and
``mecab`` (fugashi with unidic-lite). The analysers are optional: install them apart from the
app (``pip install --target DIR janome==0.5.0 fugashi==1.5.2 unidic-lite==1.0.8``) and pass
``--site DIR`` (repeatable); a missing one is reported as missing.

Run: ``.venv/bin/python benchmarks/cjk_tokens.py [--site DIR ...]``. Writes
``benchmarks/results/cjk_tokens.json`` and prints the table docs/method.md cites.
"""

from __future__ import annotations

import argparse
import json
import re
import site as site_dirs
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.common import terms
from scar_viz.documents import samples
from scar_viz.embeddings.hashing import HashEmbedder
from scripts.bench_smoke import parse

ROOT = Path(__file__).resolve().parent.parent

SAMPLE = "reitou"
_WORDLIKE = re.compile(r"\w")
_CJK_CHAR = re.compile(f"[{terms._CJK}]")


def _bm25s_words(texts: list[str]) -> list[list[str]]:
    import bm25s

    out = bm25s.tokenize(texts, return_ids=False, show_progress=False, stopwords="en")
    return [list(t) for t in out]


def _with_unigrams(texts: list[str]) -> list[list[str]]:
    return [
        toks + [c for c in text if _CJK_CHAR.match(c)]
        for text, toks in zip(texts, terms.tokenize_all(texts), strict=True)
    ]


def _janome() -> Callable[[list[str]], list[list[str]]]:
    from janome.tokenizer import Tokenizer

    tok = Tokenizer(wakati=True)
    return lambda texts: [
        [w.lower() for w in tok.tokenize(t) if _WORDLIKE.search(w)] for t in texts
    ]


def _mecab() -> Callable[[list[str]], list[list[str]]]:
    import fugashi

    tagger = fugashi.Tagger()
    return lambda texts: [
        [w.surface.lower() for w in tagger(t) if _WORDLIKE.search(w.surface)] for t in texts
    ]


SEGMENTERS: dict[str, Callable[[], Callable[[list[str]], list[list[str]]]]] = {
    "words": lambda: _bm25s_words,
    "bigrams": lambda: terms.tokenize_all,
    "bigrams+unigrams": lambda: _with_unigrams,
    "janome": _janome,
    "mecab": _mecab,
}
PACKAGES = {"janome": ["janome"], "mecab": ["fugashi", "fugashi.libs", "unidic_lite"]}


def _recall(scores: np.ndarray, gold: list[set[int]], k: int) -> float:
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return float(np.mean([len(g & set(t)) / len(g) for g, t in zip(gold, top, strict=True)]))


def _first(scores: np.ndarray, gold: list[set[int]]) -> float:
    return float(np.mean([int(np.argmax(s)) in g for s, g in zip(scores, gold, strict=True)]))


def _bm25(chunk_tokens: list[list[str]], query_tokens: list[list[str]]) -> np.ndarray:
    import bm25s

    model = bm25s.BM25(k1=1.5, b=0.75, dtype="float64")
    model.index(chunk_tokens, show_progress=False)
    vocab = {t for toks in chunk_tokens for t in toks}
    rows = []
    for q in query_tokens:
        q = list(dict.fromkeys(t for t in q if t in vocab))
        rows.append(model.get_scores(q) if q else np.zeros(len(chunk_tokens)))
    return np.asarray(rows)


def _hash(chunk_tokens: list[list[str]], query_tokens: list[list[str]]) -> np.ndarray:
    h = HashEmbedder(256)

    def vec(tokens: list[str]) -> np.ndarray:
        v = np.zeros(256)
        for t in tokens:
            j, s = h._bucket(t)
            v[j] += s
        n = np.linalg.norm(v)
        return v / n if n else v

    c = np.stack([vec(t) for t in chunk_tokens])
    q = np.stack([vec(t) for t in query_tokens])
    return q @ c.T


def _size(sites: list[str], names: list[str]) -> float | None:
    total, found = 0, False
    for site in sites:
        for name in names:
            folder = Path(site) / name
            if folder.exists():
                found = True
                total += sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    return total / 1e6 if found else None


def measure(sites: list[str]) -> dict:
    doc = samples.load_sample(SAMPLE)
    chunks = chunk_document(doc, ChunkingConfig())
    rows = samples.sample_questions(SAMPLE)
    gold = [
        {
            c.index
            for c in chunks
            for e in r["evidence"]
            if c.start < e["end"] and e["start"] < c.end
        }
        for r in rows
    ]
    mixed = [
        i
        for i, r in enumerate(rows)
        if any(re.search(r"[A-Za-z]", e["text"]) for e in r["evidence"])
    ]
    texts = [c.text for c in chunks]
    questions = [r["query"] for r in rows]
    out: dict = {
        "sample": SAMPLE,
        "chunks": len(chunks),
        "questions": len(rows),
        "mixed_questions": len(mixed),
        "chance_recall@3": 3 / len(chunks),
        "segmenters": {},
    }
    for name, make in SEGMENTERS.items():
        tracemalloc.start()
        try:
            segment = make()
            segment(["準備"])  # an analyser loads its dictionary on first use
        except ImportError:
            tracemalloc.stop()
            out["segmenters"][name] = {"missing": True}
            continue
        load_peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        ct, qt = segment(texts), segment(questions)
        bm, hs = _bm25(ct, qt), _hash(ct, qt)
        t0 = time.perf_counter()
        for _ in range(20):
            segment(texts)
        seconds = time.perf_counter() - t0
        out["segmenters"][name] = {
            "bm25_recall@1": _recall(bm, gold, 1),
            "bm25_recall@3": _recall(bm, gold, 3),
            "bm25_first_is_gold": _first(bm, gold),
            "hash_recall@3": _recall(hs, gold, 3),
            "bm25_recall@3_mixed": _recall(bm[mixed], [gold[i] for i in mixed], 3),
            "chars_per_s": 20 * len(doc.text) / seconds,
            "load_peak_mb": load_peak,
            "install_mb": _size(sites, PACKAGES.get(name, [])),
        }
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", action="append", default=[], help="where analysers live")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "cjk_tokens.json"))
    args = parse(parser, argv)  # the sample is already small: --smoke only moves --out
    for folder in args.site:  # a site-packages folder of its own (its .pth files read too)
        site_dirs.addsitedir(folder)
    result = measure(args.site)
    path = Path(args.out)
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"{result['sample']}: {result['chunks']} chunks, {result['questions']} questions "
        f"({result['mixed_questions']} mixed), chance recall@3 {result['chance_recall@3']:.2f}"
    )
    print(
        "| segmentation | BM25 R@1 | BM25 R@3 | top chunk gold | hash R@3 | BM25 R@3 mixed "
        "| chars/s | load MB | install MB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, m in result["segmenters"].items():
        if m.get("missing"):
            print(f"| {name} | not installed | | | | | | | |")
            continue
        size = "—" if m["install_mb"] is None else f"{m['install_mb']:.0f}"
        print(
            f"| {name} | {m['bm25_recall@1']:.2f} | {m['bm25_recall@3']:.2f} "
            f"| {m['bm25_first_is_gold']:.2f} | {m['hash_recall@3']:.2f} "
            f"| {m['bm25_recall@3_mixed']:.2f} | {m['chars_per_s']:,.0f} "
            f"| {m['load_peak_mb']:.1f} | {size} |"
        )


if __name__ == "__main__":
    main()
