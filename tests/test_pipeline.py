"""The pipeline's embed function: a repeated text list is embedded (or read) once."""

from __future__ import annotations

import numpy as np
import pytest

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


def test_a_models_vectors_are_costed_before_anything_is_embedded(monkeypatch):
    from scar_viz.common.errors import SettingsError
    from scar_viz.documents import samples
    from scar_viz.embeddings.hashing import HashEmbedder
    from scar_viz.pipeline import BYTES_A_DIMENSION, prepare_document

    embedded: list[int] = []
    monkeypatch.setattr(
        HashEmbedder, "embed", lambda self, texts, progress=None: embedded.append(1)
    )
    doc = samples.load_sample()
    with pytest.raises(SettingsError) as err:
        prepare_document(doc, make_embedder("hash:4096"), max_vector_bytes=2**20)
    message = str(err.value)
    assert message.startswith("hash:4096 on ") and "allows 1 MiB a document" in message
    assert embedded == []
    n = int(message.split(" on ")[1].split(" chunks")[0].replace(",", ""))
    assert n * 4096 * BYTES_A_DIMENSION > 2**20
