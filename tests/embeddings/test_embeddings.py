"""Embedders and the disk cache, each against something real (a local HTTP endpoint, a tiny
locally built model); the embedded default model in one marked test."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.embeddings import (
    EmbeddingCache,
    EmbeddingError,
    HashEmbedder,
    OpenAIEmbedder,
    embed_cached,
    make_embedder,
)
from scripts.tiny_models import tiny_bert
from tests.fakes import EmbeddingsServer

SECRET = "sk-test-ABCDEF1234567890SECRET"


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(32)
        self.seen: list[str] = []

    def embed(self, texts, progress=None):
        self.seen.extend(texts)
        return super().embed(texts, progress)


def test_hash_embedder_is_deterministic_normalised_and_lexical():
    e = HashEmbedder(64)
    a, b, c = e.embed(["ferry crossing cancelled", "ferry crossing cancelled", "tide tables"])
    assert np.allclose(a, b) and np.linalg.norm(a) == pytest.approx(1.0, abs=1e-6)
    assert a @ b > a @ c
    assert e.embed([""]).shape == (1, 64) and not e.embed([""]).any()


def test_cache_embeds_each_text_once_across_instances(tmp_path):
    path = tmp_path / "c.sqlite"
    first = CountingEmbedder()
    r1 = embed_cached(first, ["one", "two", "one"], EmbeddingCache(path))
    assert r1.n_encoded == 2 and sorted(first.seen) == ["one", "two"]
    second = CountingEmbedder()  # a restart: new process state, same file
    r2 = embed_cached(second, ["two", "one"], EmbeddingCache(path))
    assert r2.n_encoded == 0 and second.seen == []
    assert np.allclose(r2.vectors[1], r1.vectors[0])


def test_cache_separates_models_and_exact_texts(tmp_path):
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    embed_cached(HashEmbedder(16), ["§ 1\n\ntext"], cache)
    r = embed_cached(HashEmbedder(16), ["text"], cache)
    assert r.n_encoded == 1  # contextual prefix and plain text never collide
    r = embed_cached(HashEmbedder(32), ["text"], cache)
    assert r.n_encoded == 1 and r.vectors.shape == (1, 32)


def test_progress_reaches_the_total(tmp_path):
    calls = []
    embed_cached(
        HashEmbedder(8),
        [f"t{i}" for i in range(100)],
        EmbeddingCache(tmp_path / "c"),
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls[-1] == (100, 100)
    assert all(a <= b for (a, _), (b, _) in zip(calls, calls[1:], strict=False))


@pytest.mark.parametrize(
    "spec,expected",
    [
        ("hash", "hash:256"),
        ("hash:64", "hash:64"),
        (
            "openai:text-embedding-3-small",
            "openai:https://api.openai.com/v1:text-embedding-3-small",
        ),
    ],
)
def test_make_embedder_specs(spec, expected):
    assert make_embedder(spec).model_id == expected


@pytest.mark.parametrize("spec", ["nonsense-model", "hash:abc", "st:"])
def test_make_embedder_rejects_unknown(spec):
    with pytest.raises(ValueError):
        make_embedder(spec)


# --- OpenAI-compatible endpoint, against a real local HTTP server --------------------------


@pytest.fixture
def server():
    with EmbeddingsServer(dim=8) as s:
        yield s


def openai_embedder(server, **kw):
    return OpenAIEmbedder(
        "text-embedding-3-large",
        base_url=server.base_url,
        api_key=SECRET,
        timeout=kw.pop("timeout", 5),
        max_retries=0,
        **kw,
    )


def test_openai_endpoint_ok_and_key_sent_only_in_header(server):
    vecs = openai_embedder(server, batch_size=2).embed(["a", "b", "c"])
    assert vecs.shape == (3, 8)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert len(server.requests) == 2  # batched
    req = server.requests[0]
    assert req["path"] == "/v1/embeddings"
    assert req["headers"]["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in openai_embedder(server).model_id
    assert SECRET not in repr(openai_embedder(server))


@pytest.mark.parametrize(
    "mode,match",
    [
        ("401", "refused the API key"),
        ("429", "rate-limiting"),
        ("malformed", "not valid embeddings JSON"),
        ("mixed-dims", "mixed sizes"),
    ],
)
def test_openai_endpoint_failures_are_clear_and_never_leak_the_key(server, mode, match):
    server.mode = mode
    with pytest.raises(EmbeddingError, match=match) as info:
        openai_embedder(server).embed(["a", "b"])
    assert SECRET not in str(info.value)


def test_openai_wrong_dimensions(server):
    server.mode = "wrong-dims"
    with pytest.raises(EmbeddingError, match="16-d embeddings; 8-d were asked"):
        openai_embedder(server, dimensions=8).embed(["a"])


def test_openai_timeout(server):
    server.mode = "slow"
    with pytest.raises(EmbeddingError, match="did not answer within 0.5 s"):
        openai_embedder(server, timeout=0.5).embed(["a"])


def test_openai_without_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EmbeddingError, match="No API key"):
        OpenAIEmbedder().embed(["a"])  # the provider's endpoint needs one


def test_the_environment_key_is_never_read_by_the_embedder(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    OpenAIEmbedder(base_url=server.base_url, max_retries=0).embed(["a"])
    sent = server.requests[-1]["headers"]["authorization"]
    assert SECRET not in sent and sent == "Bearer no-key"


def test_openai_unreachable():
    e = OpenAIEmbedder(base_url="http://127.0.0.1:9/v1", api_key=SECRET, timeout=2, max_retries=0)
    with pytest.raises(EmbeddingError, match="connect") as info:
        e.embed(["a"])
    assert SECRET not in str(info.value)


# --- sentence-transformers, with a tiny local model ----------------------------------------


def test_sentence_transformers_local_folder(tmp_path):
    folder = tiny_bert(tmp_path / "tiny")
    e = make_embedder(f"st:{folder}")
    vecs = e.embed(["the ferry is cancelled", "tide and wind", "the ferry is cancelled"])
    assert vecs.shape == (3, 32)
    assert np.allclose(vecs[0], vecs[2], atol=1e-5)
    assert make_embedder(str(folder)).model_id == e.model_id


def test_texts_are_encoded_costliest_first_by_the_models_tokens(tmp_path):
    """Batches group texts of like token count (a batch is padded to its longest member): a
    short string of many tokens goes before a long one of few, and every vector still lands on
    its own text's row."""
    folder = tiny_bert(tmp_path / "tiny")
    e = make_embedder(f"st:{folder}")
    few_tokens = "ferry " * 8  # 48 characters, 8 word tokens
    many_tokens = "1 2 3 4 5 6 7 8 9 0 " * 2  # 40 characters, 20 tokens
    texts = ["tide", few_tokens, many_tokens]
    tokens = e.lengths(texts)
    assert tokens[2] > tokens[1] > tokens[0]  # by tokens, not by characters
    assert len(few_tokens) > len(many_tokens)
    order: list[str] = []
    real = e.embed

    def spy(batch, progress=None):
        order.extend(batch)
        return real(batch, progress)

    e.embed = spy
    got = embed_cached(e, texts, None).vectors
    assert order == [many_tokens, few_tokens, "tide"]
    want = np.stack([real([t])[0] for t in texts])
    assert np.allclose(got, want, atol=1e-5)


def test_sessions_encoding_at_once_share_one_model_without_errors(tmp_path):
    """Counting tokens must not disturb the model's own tokenizer while another thread encodes
    (a fast tokenizer's call changes its padding and truncation state)."""
    from concurrent.futures import ThreadPoolExecutor

    folder = tiny_bert(tmp_path / "tiny")
    e = make_embedder(f"st:{folder}")
    texts = [f"ferry {i} " * (1 + i % 9) for i in range(40)]
    want = embed_cached(e, texts, None).vectors

    def encode(offset: int) -> np.ndarray:
        turned = texts[offset:] + texts[:offset]
        got = embed_cached(e, turned, None).vectors
        return np.roll(got, offset, axis=0)

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(encode, [i % 40 for i in range(48)]))
    for got in results:
        assert np.allclose(got, want, atol=1e-5)


def test_an_embedder_without_token_counts_is_ordered_by_characters():
    e = CountingEmbedder()
    embed_cached(e, ["ab", "abcd", "a", "abc"], None)
    assert e.seen == ["abcd", "abc", "ab", "a"]


def test_sentence_transformers_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(EmbeddingError, match="Could not load"):
        make_embedder(f"st:{tmp_path / 'missing'}").embed(["x"])


@pytest.mark.model
def test_default_model_embeds_offline():
    e = make_embedder("default")
    a, b, c = e.embed(
        [
            "The ferry crossing was cancelled.",
            "The sailing was called off.",
            "Checksum of the TCP header.",
        ]
    )
    assert a.shape == (384,)
    assert a @ b > a @ c


def test_load_is_real_and_lazy(tmp_path):
    folder = tiny_bert(tmp_path / "tiny")
    e = make_embedder(f"st:{folder}")
    assert e.needs_loading and not e.needs_distillation
    model = e.load()
    assert not e.needs_loading and e.load() is model  # loaded once
    assert e.embed(["ferry"]).shape == (1, 32)
    assert not HashEmbedder().needs_loading
    assert not OpenAIEmbedder(api_key="").needs_loading  # nothing to load before a request


def test_one_batch_loop_reports_progress_and_normalises():
    seen: list[tuple[int, int]] = []
    e = HashEmbedder(16)
    e.batch_size = 2
    out = e.embed(["a b", "c", "d e f", "g", "h"], lambda done, total: seen.append((done, total)))
    assert seen == [(2, 5), (4, 5), (5, 5)]
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    assert e.embed([]).shape == (0, 16)


def test_the_disk_cache_is_held_to_its_size_least_recently_used_out(tmp_path):
    cap = 256 * 1024
    cache = EmbeddingCache(tmp_path, max_bytes=cap)
    row = np.ones(256, dtype=np.float32)  # 1 KiB a vector
    cache.put_many("m", {f"old{i}": row for i in range(50)})
    cache.put_many("m", {f"keep{i}": row for i in range(10)})
    for batch in range(8):  # 400 KiB more than fits
        assert set(cache.get_many("m", [f"keep{i}" for i in range(10)])) == {
            f"keep{i}" for i in range(10)
        }  # read before each write: recently used, so never pruned
        cache.put_many("m", {f"new{batch}-{i}": row for i in range(50)})
        assert cache.held_bytes() <= cap
    assert cache.get_many("m", [f"old{i}" for i in range(50)]) == {}  # least recently used
    assert len(cache.get_many("m", [f"new7-{i}" for i in range(50)])) == 50
    assert (tmp_path / "embeddings.sqlite").stat().st_size <= 2 * cap  # freed pages reused


def test_a_cache_file_from_before_the_size_cap_gets_its_column(tmp_path):
    import sqlite3

    path = tmp_path / "embeddings.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE vectors (model TEXT NOT NULL, key TEXT NOT NULL, dim INTEGER NOT "
            "NULL, vec BLOB NOT NULL, PRIMARY KEY (model, key))"
        )
        db.execute(
            "INSERT INTO vectors VALUES ('m', 'a', 2, ?)", [np.ones(2, np.float32).tobytes()]
        )
    db.close()
    cache = EmbeddingCache(path, max_bytes=2**20)
    assert set(cache.get_many("m", ["a"])) == {"a"}
    cache.put_many("m", {"b": np.ones(2, np.float32)})
    assert cache.count("m") == 2
