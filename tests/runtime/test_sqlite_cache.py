"""A broken cache file degrades the app's caches (off for the process, one line, the file moved
aside for the next start) and is one sentence for the command line's; never a traceback."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from scar_viz.documents.sentence_cache import SentenceSpanCache
from scar_viz.embeddings import EmbeddingCache, HashEmbedder, embed_cached
from scar_viz.llm.cache import LLMCache
from scar_viz.runtime.sqlite_cache import ASIDE, CacheFileError

GARBAGE = b"this is no database at all\n" * 200
OFF = "The cache at embeddings.sqlite is unreadable: working without it."


def vec(*xs: float) -> np.ndarray:
    return np.asarray(xs, dtype=np.float32)


def corrupt(path) -> None:
    """Overwrite the cache file with garbage, its write-ahead log gone (as a crashed disk or a
    careless copy leaves it)."""
    for side in path.parent.glob(path.name + "-*"):
        side.unlink()
    path.write_bytes(GARBAGE)


def aside_files(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ASIDE in p.name)


def test_a_corrupt_file_at_start_turns_the_cache_off_and_moves_it_aside(tmp_path, caplog):
    path = tmp_path / "embeddings.sqlite"
    path.write_bytes(GARBAGE)
    with caplog.at_level(logging.WARNING, logger="scar_viz"):
        cache = EmbeddingCache(path, degrade=True)
    assert cache.off and cache.problem == OFF
    assert str(tmp_path) not in cache.problem  # the file's name, never the server's path
    assert cache.get_many("m", ["a"]) == {} and cache.count() == 0
    cache.put_many("m", {"a": vec(1, 0)})  # dropped, no error
    assert not path.exists() and len(aside_files(tmp_path)) == 1
    assert [r.getMessage() for r in caplog.records if "unreadable" in r.getMessage()] == [
        f"{OFF} (DatabaseError; moved to {aside_files(tmp_path)[0]})"
    ]
    fresh = EmbeddingCache(path, degrade=True)  # the next start rebuilds it
    assert not fresh.off
    fresh.put_many("m", {"a": vec(1, 0)})
    assert fresh.count("m") == 1


def test_a_file_corrupted_mid_run_turns_the_cache_off_once(tmp_path, caplog):
    path = tmp_path / "embeddings.sqlite"
    cache = EmbeddingCache(path, degrade=True)
    cache.put_many("m", {"a": vec(1, 0)})
    assert set(cache.get_many("m", ["a"])) == {"a"}
    corrupt(path)
    with caplog.at_level(logging.WARNING, logger="scar_viz"):
        assert cache.get_many("m", ["a"]) == {}
        cache.put_many("m", {"b": vec(0, 1)})
        result = embed_cached(HashEmbedder(16), ["one text", "another"], cache)
    assert result.vectors.shape == (2, 16) and result.n_encoded == 2
    assert cache.problem == OFF
    assert sum("unreadable" in r.getMessage() for r in caplog.records) == 1  # logged once
    assert not path.exists() and len(aside_files(tmp_path)) == 1


def test_an_unusable_cache_folder_turns_it_off_and_moves_nothing(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    cache = LLMCache(blocker / "llm.sqlite", degrade=True)
    assert cache.problem == "The cache at llm.sqlite is unreadable: working without it."
    assert cache.get("k") is None and cache.count() == 0
    cache.put("k", "model", "text", 1, 2)
    assert blocker.read_text() == "a file where the cache folder should be"


def test_the_sentence_cache_degrades_too(tmp_path):
    path = tmp_path / "sentences.sqlite"
    cache = SentenceSpanCache(path, degrade=True)
    cache.put("k", ((0, 5), (6, 9)))
    assert cache.get("k") == ((0, 5), (6, 9))
    corrupt(path)
    assert cache.get("k") is None and cache.off


def test_without_degrade_a_file_that_is_no_cache_is_one_sentence(tmp_path):
    path = tmp_path / "notes.bin"
    path.write_bytes(GARBAGE)
    with pytest.raises(CacheFileError, match="cannot be opened as a cache"):
        EmbeddingCache(path)
    assert path.read_bytes() == GARBAGE  # the user named a file of theirs: left where it is


def test_without_degrade_a_corrupt_cache_file_is_moved_aside_and_started_afresh(tmp_path):
    path = tmp_path / "embeddings.sqlite"
    path.write_bytes(GARBAGE)
    cache = EmbeddingCache(path)
    aside = [p for p in tmp_path.iterdir() if ".unreadable-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes() == GARBAGE
    assert cache.note.startswith(f"The cache file {path} was unreadable: moved to {aside[0].name}")
    assert not cache.off
    cache.put_many("m", {"a": vec(1, 0)})
    assert set(cache.get_many("m", ["a"])) == {"a"}


def test_without_degrade_a_file_broken_mid_run_is_one_sentence(tmp_path):
    good = tmp_path / "good.sqlite"
    cache = EmbeddingCache(good)
    cache.put_many("m", {"a": vec(1, 0)})
    corrupt(good)
    with pytest.raises(CacheFileError, match="cannot be read"):
        cache.get_many("m", ["a"])
