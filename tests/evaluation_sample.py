"""The built-in sample with its own labelled queries, prepared with the hashing embedder: the
setup the evaluation tests share."""

from __future__ import annotations

from scar_viz.documents import samples
from scar_viz.embeddings import HashEmbedder, embed_cached
from scar_viz.pipeline import prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries

CANDIDATE_KEYS = [
    "retriever",
    "policy",
    "k",
    "lam",
    "tau",
    "mu",
    "p",
    "radius",
    "recall",
    "recall_ci",
    "mean_chunks",
    "mean_tokens",
]
"""A verdict candidate's keys, in order: its JSON (``recommend --json``) and its table row."""

VERDICT_KEYS = [
    *CANDIDATE_KEYS[:8],
    "decided",
    "expected_gain",
    "expected_gain_ci",
    "sentence",
    "details",
]
"""The verdict's keys in ``recommend --json``, in order."""


def hash_sample(dim: int = 256):
    """(prepared document, labelled queries, unit query vectors, embedder, query set)."""
    doc = samples.load_sample()
    emb = HashEmbedder(dim)
    prep = prepare_document(doc, emb, cache=None)
    qset = parse_queries(samples.sample_queries_text(), doc)
    labelled = label_queries(qset, doc, prep.chunks)
    vecs = embed_cached(emb, [q.query.query for q in labelled], None).vectors
    return prep, labelled, vecs, emb, qset


def labelled_sample(key: str = "kestrel", model: str = "hash"):
    """A built-in sample (a document or the sample corpus) prepared with ``model``, its own
    queries labelled on its chunks, and their unit vectors: (prepared, gold, vectors, embedder)."""
    import numpy as np

    from scar_viz.embeddings import make_embedder
    from scar_viz.pipeline import embed_query

    document = samples.load_sample(key)
    embedder = make_embedder(model)
    prep = prepare_document(document, embedder)
    qset = parse_queries(samples.sample_queries_text(key), document)
    gold = label_queries(qset, document, prep.chunks)
    vecs = np.stack([embed_query(embedder, g.query.query) for g in gold])
    return prep, gold, vecs, embedder
