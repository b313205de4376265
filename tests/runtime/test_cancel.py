"""Long work stops when its ``should_stop`` says so: the evaluation between queries, embedding
between batches, a batch of chat calls while it waits (the calls not yet sent are never sent,
and the batch's worker threads end)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from scar_viz.embeddings import HashEmbedder, embed_cached
from scar_viz.evaluation import evaluate
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.llm.client import ChatModel
from scar_viz.runtime.cancel import Cancelled, check
from tests.evaluation_sample import hash_sample

ASK = [{"role": "system", "content": "Task: answer."}, {"role": "user", "content": "CONTEXT:\n"}]


def after(n: int):
    """A ``should_stop`` that says yes from its ``n``-th question on, counting questions."""
    asked = [0]

    def should_stop() -> bool:
        asked[0] += 1
        return asked[0] >= n

    return should_stop, asked


def test_check_raises_only_when_asked():
    check(None)
    check(lambda: False)
    with pytest.raises(Cancelled):
        check(lambda: True)


def test_the_evaluation_stops_between_queries():
    prep, labelled, vecs, emb, _ = hash_sample()
    steps: list[int] = []
    stop, asked = after(5)
    with pytest.raises(Cancelled):
        evaluate(
            LabelledRun(prep, labelled, vecs),
            ["topk", "scar"],
            progress=lambda d, t: steps.append(d),
            should_stop=stop,
        )
    assert asked[0] == 5 and steps == [1, 2, 3, 4]  # four queries ran, the fifth never did
    full = evaluate(LabelledRun(prep, labelled, vecs), ["topk", "scar"], should_stop=lambda: False)
    assert full.n_queries == len(labelled) > 5


class CountingHash(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(32)
        self.batches = 0

    def embed(self, texts):
        self.batches += 1
        return super().embed(texts)


def test_embedding_stops_between_batches_and_keeps_what_it_encoded(tmp_path):
    from scar_viz.embeddings import EmbeddingCache

    cache = EmbeddingCache(tmp_path / "c.sqlite")
    texts = [f"text number {i}" for i in range(2000)]  # batches of 100
    emb = CountingHash()
    stop, _ = after(3)
    with pytest.raises(Cancelled):
        embed_cached(emb, texts, cache, should_stop=stop)
    assert emb.batches == 2 and cache.count(emb.vectors_id) == 200
    again = embed_cached(emb, texts, cache)  # a rerun resumes from the cache
    assert again.n_cached == 200 and again.vectors.shape == (2000, 32)


def pool_threads() -> int:
    return sum(t.name.startswith("ThreadPoolExecutor") for t in threading.enumerate())


def test_a_batch_of_chat_calls_stops_and_its_workers_end(llm_server):
    llm_server.delay = 0.3
    stop = threading.Event()
    model = ChatModel(
        "fake-model",
        base_url=llm_server.base_url,
        timeout=5,
        cache=False,
        concurrency=2,
        should_stop=stop.is_set,
    )
    batch = [
        [ASK[0], {"role": "user", "content": f"CONTEXT:\nline {i} of the harbour log"}]
        for i in range(40)
    ]
    before = pool_threads()
    threading.Timer(0.8, stop.set).start()
    t0 = time.monotonic()
    with pytest.raises(Cancelled):
        model.complete_many(batch, json_reply=False)
    # within a poll of the stop (0.8 s), not after 40 calls (at least 6 s: 40 × 0.3 s over two
    # workers); the margin is for a loaded machine (2.02 s seen under the parallel suite)
    assert time.monotonic() - t0 < 4.0
    deadline = time.monotonic() + 5
    while pool_threads() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool_threads() == before  # the in-flight calls ended; no worker is left
    sent = llm_server.calls
    time.sleep(1.0)
    assert llm_server.calls == sent < 10  # nothing was sent after the stop


def test_a_progress_callback_that_raises_drops_the_calls_not_yet_sent(llm_server):
    llm_server.delay = 0.2
    model = ChatModel("fake-model", base_url=llm_server.base_url, timeout=5, cache=False)
    batch = [[ASK[0], {"role": "user", "content": f"CONTEXT:\nentry {i}"}] for i in range(30)]

    def progress(done: int, total: int) -> None:
        if done >= 2:
            raise KeyboardInterrupt  # what a stopped Streamlit run raises from a progress bar

    with pytest.raises(KeyboardInterrupt):
        model.complete_many(batch, json_reply=False, progress=progress)
    time.sleep(1.0)
    assert llm_server.calls < 12  # before, the pool's exit waited for all 30


def test_without_should_stop_nothing_changes(llm_server):
    model = ChatModel("fake-model", base_url=llm_server.base_url, timeout=5, cache=False)
    replies = model.complete_many([ASK, ASK], json_reply=False)
    assert len(replies) == 2 and np.isfinite(model.usage.total_tokens)
