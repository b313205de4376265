"""Fixtures of the pages that open an index: the operator's index root and what the hash
model embeds."""

from __future__ import annotations

import pytest

from scar_viz.embeddings import HashEmbedder
from ui import store_open


@pytest.fixture
def root(tmp_path, monkeypatch, hash_model):
    """An empty index root, the one the server names."""
    folder = tmp_path / "root"
    folder.mkdir()
    monkeypatch.setenv(store_open.ROOT_ENV, str(folder))
    return folder


@pytest.fixture
def embedded(monkeypatch) -> list[str]:
    """Every text the hash model embeds while the app runs."""
    texts: list[str] = []
    original = HashEmbedder.embed

    def counting(self, batch, progress=None):
        texts.extend(batch)
        return original(self, batch, progress)

    monkeypatch.setattr(HashEmbedder, "embed", counting)
    return texts
