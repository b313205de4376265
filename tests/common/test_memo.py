"""The process-wide memo: the last N values (or N in total weight) by key, behind one lock."""

from __future__ import annotations

import threading

from scar_viz.common.memo import Memo


def test_the_least_recently_used_entry_goes_first():
    memo: Memo[int] = Memo(2)
    built: list[str] = []

    def build(key: str) -> int:
        built.append(key)
        return len(built)

    for key in ("a", "b", "a", "c", "a", "b"):
        memo.get_or_build(key, lambda k=key: build(k))
    assert built == ["a", "b", "c", "b"]  # c pushed b out (a was used after b)
    assert list(memo.entries) == ["a", "b"]


def test_a_weighed_memo_keeps_entries_up_to_its_total_weight_and_always_the_newest():
    memo: Memo[str] = Memo(10, weigh=len)
    for key in ("aaaa", "bbbb", "cc"):
        memo.put(key, key.upper())
    assert list(memo.entries) == ["aaaa", "bbbb", "cc"]  # 10 in all
    memo.put("ddd", "DDD")  # 13: the least recent goes
    assert list(memo.entries) == ["bbbb", "cc", "ddd"]
    memo.put("x" * 50, "big")  # heavier than the budget alone: kept, everything else goes
    assert list(memo.entries) == ["x" * 50]
    memo.clear()
    memo.put("aaaa", "A")
    memo.put("bbbbbb", "B")  # the weight starts again from 0 after clear
    assert list(memo.entries) == ["aaaa", "bbbbbb"]


def test_keep_first_returns_the_value_already_kept():
    memo: Memo[list[int]] = Memo(4)
    first = memo.put("k", [1])
    assert memo.put("k", [2], keep_first=True) is first
    assert memo.put("k", [3]) == [3]


def test_many_threads_see_one_value_per_key_and_no_error():
    memo: Memo[object] = Memo(3, weigh=lambda key: 1 + key % 2)  # type: ignore[operator]
    seen: dict[int, set[int]] = {k: set() for k in range(6)}
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for i in range(3000):
                key = i % 6
                seen[key].add(id(memo.get_or_build(key, object)))
        except BaseException as exc:  # noqa: BLE001 - the test reports any error
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sum(1 + k % 2 for k in memo.entries) <= 3


def test_a_memo_measured_in_bytes_keeps_what_fits_least_recently_used_out():
    import numpy as np

    from scar_viz.common.memo import held_bytes

    memo = Memo(int(3.5 * 2**20), measure=held_bytes)
    arrays = {k: np.zeros(2**20 // 8) for k in "abcd"}  # 1 MiB each
    for k in "abc":
        memo.put(k, arrays[k])
    assert list(memo.entries) == ["a", "b", "c"] and 3 * 2**20 <= memo.weight <= 3.5 * 2**20
    memo.get_or_build("a", lambda: None)  # "a" used: "b" is now the oldest
    memo.put("d", arrays["d"])
    assert list(memo.entries) == ["c", "a", "d"] and memo.weight <= 3.5 * 2**20
    big = np.zeros(5 * 2**20 // 8)
    memo.put("big", big)  # over the budget alone: kept, as the newest always is
    assert list(memo.entries) == ["big"] and memo.weight == held_bytes(big)
    memo.clear()
    assert memo.weight == 0 and not memo.entries


def test_held_bytes_counts_arrays_text_and_dataclasses_once():
    from dataclasses import dataclass

    import numpy as np

    from scar_viz.common.memo import held_bytes

    @dataclass(frozen=True)
    class Box:
        vectors: np.ndarray
        texts: list[str]

    vectors = np.zeros((1000, 64), dtype=np.float32)
    texts = [f"{i:04d}" + "x" * 996 for i in range(100)]  # 100 strings (not one constant)
    box = Box(vectors, texts)
    size = held_bytes(box)
    assert vectors.nbytes + 100 * 1000 < size < vectors.nbytes + 100 * 1100 + 4096
    assert held_bytes([box, box]) < size + 200  # the same object counted once
