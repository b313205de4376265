"""The BM25 index cache is shared by every session of a server: many threads asking for many
corpora at once (more than the cache keeps, so entries are evicted while others read them)
get the right index every time and no error."""

from __future__ import annotations

import sys
import threading
import time
from collections import OrderedDict

import numpy as np

from scar_viz.retrieval import bm25, bm25_index

THREADS = 8
CALLS = 1_000
CORPORA = [
    [f"harbour {i} crane", f"tide {i} ferry {i % 3}", f"pilot boat {i * 7}"] for i in range(24)
]


class SlowLookups(OrderedDict):
    """The cache with a pause after each look-up: the moment between finding an entry and
    marking it recent, when another thread may evict it, made wide enough to be hit in a
    test (the server's 1 error in 109,048 calls, every run)."""

    def get(self, key, default=None):
        found = super().get(key, default)
        time.sleep(0.0002)
        return found


def test_many_threads_many_corpora_no_error_and_the_right_index(monkeypatch):
    assert len(CORPORA) > 2 * bm25._CACHE.size
    monkeypatch.setattr(bm25._CACHE, "entries", SlowLookups())
    expected = [bm25_index(texts).scores(f"harbour {i}") for i, texts in enumerate(CORPORA)]
    errors: list[BaseException] = []
    wrong: list[int] = []
    start = threading.Barrier(THREADS)

    def work(seed: int) -> None:
        order = np.random.default_rng(seed).integers(0, len(CORPORA), CALLS)
        start.wait()
        for i in order:
            try:
                scores = bm25_index(CORPORA[i]).scores(f"harbour {i}")
            except BaseException as exc:  # any error at all fails the test
                errors.append(exc)
                return
            if not np.array_equal(scores, expected[i]):
                wrong.append(int(i))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        threads = [threading.Thread(target=work, args=(s,)) for s in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, repr(errors[:3])
    assert not wrong
