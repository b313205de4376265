"""The built-in sample with its own labelled queries, prepared with the hashing embedder: the
setup the evaluation tests share."""

from __future__ import annotations

from scar_viz.documents import samples
from scar_viz.embeddings import HashEmbedder, embed_cached
from scar_viz.evaluation.queries import label_queries, parse_queries
from scar_viz.pipeline import prepare_document


def hash_sample(dim: int = 256):
    """(prepared document, labelled queries, unit query vectors, embedder, query set)."""
    doc = samples.load_sample()
    emb = HashEmbedder(dim)
    prep = prepare_document(doc, emb, cache=None)
    qset = parse_queries(samples.sample_queries_text(), doc.text)
    labelled = label_queries(qset, doc.text, prep.chunks)
    vecs = embed_cached(emb, [q.query.query for q in labelled], None).vectors
    return prep, labelled, vecs, emb, qset
