"""The pipeline's embed function: a repeated text list is embedded (or read) once."""

from __future__ import annotations

import numpy as np

from scar_viz.embeddings import make_embedder
from scar_viz.pipeline import embed_function


def test_an_embed_function_reads_a_repeated_text_list_once():
    embedder = make_embedder("hash:32")
    calls = []
    real = embedder.embed
    embedder.embed = lambda texts, progress=None: calls.append(len(texts)) or real(texts)
    embed = embed_function(embedder)
    texts = ["one sentence", "another one"]
    first = embed(texts)
    again = embed(list(texts))
    assert calls == [2] and again is first and not first.flags.writeable
    assert np.allclose(embed(["other"]), real(["other"]))
