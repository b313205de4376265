"""The setup the answer-check tests share: the bundled sample with the hashing embedder, its
first five labelled queries, and chat models on the loopback fake server."""

from __future__ import annotations

from functools import cache

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents import samples
from scar_viz.embeddings import HashEmbedder, embed_cached
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.llm.check import AnswerCheck, check_answers
from scar_viz.llm.client import ChatModel
from scar_viz.pipeline import prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.params import GateParams

SECRET = "sk-test-SECRET0123456789abcdef"
POLICIES = ("topk", "window1", "scar")


@cache
def answer_setting():
    """(prepared sample, five labelled queries, their vectors, embed function)."""
    doc = samples.load_sample()
    embedder = HashEmbedder()
    prep = prepare_document(doc, embedder, ChunkingConfig())
    qset = parse_queries(samples.sample_queries_text(), doc)
    labelled = label_queries(qset.queries[:5], doc, prep.chunks)

    def embed(texts):
        return embed_cached(embedder, texts, None).vectors

    vecs = embed([q.query.query for q in labelled])
    return prep, labelled, vecs, embed


def chat(server, name="fake-model", **kw) -> ChatModel:
    return ChatModel(name, base_url=server.base_url, api_key=SECRET, timeout=5, **kw)


def run(server, setting, **kw) -> AnswerCheck:
    """The answer check on ``setting`` with POLICIES at k = 2, 500 resamples, unless given."""
    prep, labelled, vecs, embed = setting
    kw.setdefault("policies", POLICIES)
    kw.setdefault("n_boot", 500)
    kw.setdefault("params", GateParams(k=2))
    return check_answers(
        LabelledRun(prep, labelled, vecs), kw.pop("chat", None) or chat(server), embed, **kw
    )
