"""The gathering core: names claimed first come first, limits in path order, reasons counted."""

from __future__ import annotations

import pytest

from scar_viz.documents.gather import (
    DUPLICATE,
    Collected,
    CorpusError,
    Entry,
    Gather,
    Limits,
    Skipped,
    describe_skipped,
)


def entry(name: str, data: bytes, problem: str = "", packed: int | None = None) -> Entry:
    return Entry(name, len(data), lambda n: data[:n], packed, problem)


def test_claims_in_given_order_reads_in_path_order():
    gather = Gather(Limits(files=2))
    gather.take([entry("b.txt", b"b1"), entry("a.txt", b"a"), entry("b.txt", b"b2")])
    gather.take([entry("c.txt", b"c"), entry("a.txt", b"again")])
    got = gather.result("x")
    assert [(d.name, d.text) for d in got.documents] == [("a.txt", "a"), ("b.txt", "b1")]
    assert got.skipped == (
        Skipped("a.txt", DUPLICATE),
        Skipped("b.txt", DUPLICATE),
        Skipped("c.txt", "over the limit of 2 files"),
    )


def test_a_known_problem_and_the_ratio_are_checked_before_reading():
    def never(n: int) -> bytes:
        raise AssertionError("read although refused")

    gather = Gather(Limits(ratio=10, ratio_floor=100))
    gather.take(
        [
            Entry("link", 5, never, None, "symbolic link (not followed)"),
            Entry("dense.txt", 1000, never, 50),
            entry("small.txt", b"x" * 99, packed=1),
        ]
    )
    got = gather.result("x")
    assert [d.name for d in got.documents] == ["small.txt"]
    assert {s.path: s.reason for s in got.skipped} == {
        "link": "symbolic link (not followed)",
        "dense.txt": "compression ratio over 10:1",
    }


def test_nothing_read_is_an_error_naming_the_counts():
    gather = Gather(Limits())
    gather.take([entry("a", b""), entry("b", b" "), entry("c", b"\x00\x01")])
    with pytest.raises(CorpusError, match=r"'src': 2 empty; 1 binary"):
        gather.result("src")


def test_describe_skipped_orders_by_count_then_reason():
    got = Collected(
        documents=(),
        skipped=(Skipped("x", "b"), Skipped("y", "a"), Skipped("z", "b")),
    )
    assert describe_skipped(got, examples=1) == [
        "2 files skipped: b (x, …)",
        "1 file skipped: a (y)",
    ]
