"""Shared fixtures: an isolated embedding cache, the development corpus, small documents."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpora" / "rfc9293.txt"
CORPUS_QUERIES = SHARED / "corpora" / "rfc9293.queries.jsonl"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own embedding cache; the user's ~/.cache is never touched."""
    monkeypatch.setenv("SCAR_VIZ_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def corpus_path() -> Path:
    if not CORPUS.exists():
        pytest.skip(f"development corpus not present at {CORPUS} (only in the project workspace)")
    return CORPUS


@pytest.fixture
def corpus_queries_path() -> Path:
    if not CORPUS_QUERIES.exists():
        pytest.skip(f"development queries not present at {CORPUS_QUERIES}")
    return CORPUS_QUERIES


@pytest.fixture
def hash_model(monkeypatch):
    """Pages start on the instant hashing embedder instead of loading torch."""
    monkeypatch.setenv("SCAR_VIZ_DEFAULT_MODEL", "hash")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture
def llm_server():
    """A loopback fake OpenAI-compatible chat server (tests/fake_llm.py), stopped after."""
    from tests.fake_llm import ChatServer

    with ChatServer() as server:
        yield server
