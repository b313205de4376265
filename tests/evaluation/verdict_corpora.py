"""Made-up inputs for the verdict's tests: small documents (one paragraph a chunk, queries aimed
at chosen chunks, the hashing embedder), and made-up candidates (fixed ones: the same figures on
every training set) with a verdict on them."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.documents.reading import read_document
from scar_viz.embeddings import HashEmbedder, embed_cached
from scar_viz.evaluation.bootstrap import paired_bootstrap
from scar_viz.evaluation.crossval import Candidate, CrossValidation
from scar_viz.evaluation.folds import Folds
from scar_viz.evaluation.nested import nested_estimate
from scar_viz.evaluation.recommend import Scored, Verdict, decide
from scar_viz.pipeline import prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries

FILLER = [
    "module",
    "function",
    "value",
    "returns",
    "list",
    "table",
    "record",
    "field",
    "entry",
    "index",
    "option",
    "handler",
    "buffer",
    "stream",
    "order",
]


def paragraph_doc(paragraphs: Sequence[str], queries: Sequence[tuple[str, str, Sequence[int]]]):
    """(prepared document, labelled queries, query vectors): one chunk per paragraph; each query
    (id, text, target chunks) quotes its targets' text, from the first to the last."""
    text = "\n\n".join(paragraphs)
    doc = read_document("made-up.txt", text.encode())
    chunks, pos = [], 0
    for i, para in enumerate(paragraphs):
        start = doc.text.index(para, pos)
        chunks.append(Chunk(i, start, start + len(para), para))
        pos = start + len(para)
    emb = HashEmbedder(64)
    prep = prepare_document(doc, emb, chunks=chunks)
    lines = []
    for qid, words, targets in queries:
        first, last = chunks[min(targets)], chunks[max(targets)]
        start, end = (
            (first.start, last.end) if len(targets) == 1 else (first.end - 20, last.start + 20)
        )
        evidence = {"text": doc.text[start:end], "start": start, "end": end}
        lines.append(json.dumps({"id": qid, "query": words, "evidence": [evidence]}))
    qset = parse_queries("\n".join(lines), doc)
    assert not qset.errors, qset.errors
    labelled = label_queries(qset, doc, prep.chunks)
    vecs = embed_cached(emb, [q.query.query for q in labelled], None).vectors
    return prep, labelled, vecs


def rare_identifiers(n_chunks: int = 60, n_queries: int = 30, seed: int = 0):
    """Every paragraph is every common word, more of some (its own proportions), and one
    identifier found nowhere else; every query is common words and its evidence's identifier.
    Cosine over word counts is dominated by the common words; BM25 gives words found in every
    chunk almost no weight (idf ≈ 0.008) and the identifier a large one."""
    rng = np.random.default_rng(seed)
    paragraphs = []
    for i in range(n_chunks):
        weights = rng.dirichlet(np.full(len(FILLER), 0.3))
        extra = rng.choice(FILLER, size=30, p=weights)
        words = [*FILLER, *extra, f"ident{i:02d}zq"]
        rng.shuffle(words)
        paragraphs.append(" ".join(words) + ".")
    targets = rng.choice(n_chunks, size=n_queries, replace=False)
    queries = []
    for qi, t in enumerate(targets):
        words = [*rng.choice(FILLER, size=20), f"ident{int(t):02d}zq"]
        rng.shuffle(words)
        queries.append((f"rare-{qi:02d}", " ".join(words), [int(t)]))
    return paragraph_doc(paragraphs, queries)


def everyone_finds_it(n_chunks: int = 12, n_queries: int = 12):
    """Every paragraph has words of its own; every query is its target paragraph's words, so
    every retriever ranks the target first and every candidate finds it at every k."""
    paragraphs = [" ".join(f"w{i}x{j}" for j in range(10)) + "." for i in range(n_chunks)]
    queries = [
        (f"same-{i:02d}", " ".join(f"w{i}x{j}" for j in range(10)), [i]) for i in range(n_queries)
    ]
    return paragraph_doc(paragraphs, queries)


def made_up(recalls, tokens, options) -> tuple[Candidate, ...]:
    """Candidates with given per-query recall, constant tokens and (retriever, expansion, k);
    SCAR ones at λ = τ = μ = 0."""
    out = []
    for (retriever, expansion, k), r, t in zip(options, recalls, tokens, strict=True):
        scar = expansion == "scar"
        out.append(
            Candidate(
                retriever,
                expansion,
                k,
                0.0 if scar else None,
                0.0 if scar else None,
                0.0 if scar else None,
                None,
                None,
                np.asarray(r, float),
                np.ones(len(r)),
                np.full(len(r), float(t)),
                nested_recall=np.broadcast_to(np.asarray(r, float), (3, 5, len(r))),
                nested_tokens=np.full((3, 5, len(r)), float(t)),
            )
        )
    return tuple(out)


def made_up_folds(n: int, seed: int = 0) -> Folds:
    """5 folds × 3 repeats of n made-up queries: each repeat deals a random permutation of the
    queries to the folds in turn."""
    rng = np.random.default_rng(seed)
    fold = np.empty((3, n), dtype=np.int64)
    for r in range(3):
        fold[r, rng.permutation(n)] = np.arange(n) % 5
    return Folds(fold, 5, 5)


def made_up_verdict(cands, budget, ref=0) -> Verdict:
    """The verdict on made-up candidates at ``budget`` (intervals left at 0)."""
    n = len(cands[0].recall)
    folds = made_up_folds(n)
    cv = CrossValidation(cands, ref, folds, tuple(f"q{i}" for i in range(n)))
    best, runner = decide(cands, budget)
    versus = (
        None if runner is None else paired_bootstrap(cands[best].recall, cands[runner].recall, 2000)
    )
    scored = tuple(Scored(c, 0.0, 0.0, 0.0) for c in cands)
    nested = nested_estimate(cands, ref, folds, budget, 2000)
    return Verdict(cv, scored, best, runner, budget, True, versus, nested=nested)
