"""A small corpus for the store's tests: four files cut from the bundled sample, and queries
whose evidence sits in one file (some at its end)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents.reading import Document, read_document
from scar_viz.embeddings import HashEmbedder

SAMPLE = Path(__file__).resolve().parents[2] / "scar_viz" / "documents" / "samples"
CONFIG = ChunkingConfig(size=300, overlap=30)

lancedb = pytest.importorskip(
    "lancedb", reason="the scale extras are not installed (pip install -r requirements-scale.txt)"
)


def sample_files(n: int = 4, size: int = 1800) -> list[Document]:
    text = (SAMPLE / "harbor_manual.md").read_text(encoding="utf-8")
    return [
        read_document(f"part{i}.md", text[i * size : (i + 1) * size].encode()) for i in range(n)
    ]


def write_queries(path: Path, docs: list[Document]) -> Path:
    lines = []
    for i, doc in enumerate(docs):
        body = doc.text.strip()
        lines.append(
            {"id": f"end-{i}", "query": body[-120:-60], "evidence": [{"text": body[-250:]}]}
        )
        lines.append(
            {"id": f"mid-{i}", "query": body[400:460], "evidence": [{"text": body[380:700]}]}
        )
    path.write_text("\n".join(json.dumps(q) for q in lines) + "\n", encoding="utf-8")
    return path


class CountingEmbedder(HashEmbedder):
    """The hash model, counting the texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts, progress=None):
        self.texts.extend(texts)
        return super().embed(texts, progress)
