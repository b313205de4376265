"""Wording helpers: signed percentages without "-0%", lists in sentences, human names for ids."""

from __future__ import annotations

import math

import pytest

from scar_viz.chunking.registry import CHUNKERS, chunker_name
from scar_viz.common.fmt import (
    EMPTY_CELL,
    cell,
    change,
    chunk_list,
    compared,
    elide_middle,
    join_words,
    mu_note,
    percent,
)
from scar_viz.documents import samples


@pytest.mark.parametrize(
    ("value", "digits", "signed", "expected"),
    [
        (-0.0001, 0, False, "0%"),
        (-0.0001, 1, True, "0.0%"),
        (-0.0, 0, True, "0%"),
        (0.0004, 1, True, "0.0%"),
        (0.123, 0, False, "12%"),
        (0.123, 0, True, "+12%"),
        (-0.229, 1, True, "−22.9%"),
        (-0.56, 0, False, "−56%"),
        (1.0, 0, False, "100%"),
    ],
)
def test_percent(value, digits, signed, expected):
    assert percent(value, digits, signed) == expected


def test_percent_never_prints_minus_zero_on_a_grid():
    for i in range(-1000, 1001):
        for digits in (0, 1):
            text = percent(i / 1e5, digits, signed=True)
            if float(text.lstrip("+−").rstrip("%")) == 0:
                assert text in ("0%", "0.0%"), (i, text)
            else:
                assert text[0] == ("+" if i > 0 else "−"), (i, text)


def test_change_signs_and_zero():
    assert change(7, 10) == "−30%"
    assert change(13, 10) == "+30%"
    assert change(10, 10) == "0%"
    assert change(9.99999, 10, digits=1) == "0.0%"
    assert change(5, 0) == EMPTY_CELL


def test_join_words():
    assert join_words([]) == ""
    assert join_words([15]) == "15"
    assert join_words([15, 18]) == "15 and 18"
    assert join_words([15, 17, 18]) == "15, 17 and 18"
    assert join_words(["a", "b"], "or") == "a or b"
    assert "[" not in join_words((15, 18))


def test_chunk_list():
    assert chunk_list([]) == "no chunk"
    assert chunk_list({18, 15}) == "chunks 15 and 18"
    assert chunk_list((7,)) == "chunk 7"


def test_cell_never_shows_none():
    assert cell(None) == EMPTY_CELL
    assert cell(math.nan) == EMPTY_CELL
    assert cell(0.123456, 3) == 0.123
    assert cell(0) == 0 and cell("x") == "x"


def test_human_names_for_ids():
    assert samples.document_name("harbor") == samples.SAMPLES["harbor"].title
    assert samples.document_name(samples.UPLOAD) == "Uploaded document"
    assert samples.document_name("nope") == "nope"
    assert chunker_name("recursive") == "Recursive (langchain)"
    assert all(chunker_name(key) != key for key in CHUNKERS)
    assert chunker_name("unknown") == "unknown"


def test_mu_note_names_a_lexical_weight_and_nothing_at_the_papers_gate():
    assert mu_note(0.3) == ", μ = 0.3"
    assert mu_note(0.25, " at ") == " at μ = 0.25"
    assert mu_note(0.0) == "" and mu_note(0) == ""


@pytest.mark.parametrize(
    ("ours", "theirs", "digits", "expected"),
    [
        (7, 10, 0, "30% fewer tokens than window ±1"),
        (12, 10, 0, "20% more tokens than window ±1"),
        (10, 10, 0, "the same tokens as window ±1"),
        (0, 10, 0, "100% fewer tokens than window ±1"),
        (30, 10, 0, "200% more tokens than window ±1"),
        (999, 1000, 0, "under 1% fewer tokens than window ±1"),
        (1001, 1000, 1, "0.1% more tokens than window ±1"),
        (10001, 10000, 1, "under 0.1% more tokens than window ±1"),
        (7, 0, 0, "7 tokens where window ±1 has none"),
        (0, 0, 0, "the same tokens as window ±1"),
        (6.5, 10, 1, "35.0% fewer tokens than window ±1"),
    ],
)
def test_compared_writes_a_change_as_a_change(ours, theirs, digits, expected):
    assert compared(ours, theirs, "tokens", "window ±1", digits) == expected


def test_compared_on_a_range_never_writes_a_signed_share():
    """From −100 % to +200 % in steps of 0.5 %: a word says the direction, the number is
    never signed, never "0%", and the direction matches the sign of the change."""
    for step in range(-200, 401):
        ours = 1000 + 5 * step
        text = compared(ours, 1000, "tokens", "window ±1")
        assert "−" not in text and "-" not in text and "+" not in text, text
        assert not text.startswith("0%"), text
        assert "of the window" not in text and " of " not in text, text
        if ours < 1000:
            assert " fewer tokens than window ±1" in text, text
        elif ours > 1000:
            assert " more tokens than window ±1" in text, text
        else:
            assert text == "the same tokens as window ±1"
        if ours != 1000:
            exact = abs(ours - 1000) / 10  # the change in percent
            shown = float(text.split("%")[0].removeprefix("under "))
            assert shown == (1 if exact < 0.5 else pytest.approx(exact, abs=0.5)), text


@pytest.mark.parametrize(
    ("text", "chars", "expected"),
    [
        ("docs/api.md", 34, "docs/api.md"),
        (
            "src/very/deep/package/module/sub/handlers/limits.py",
            30,
            "src/very/deep/p…lers/limits.py",
        ),
        ("a/b/" + "x" * 40 + ".md", 20, "a/b/xx…xxxxxxxxxx.md"),
    ],
)
def test_elide_middle_keeps_the_start_and_the_file_name(text, chars, expected):
    short = elide_middle(text, chars)
    assert short == expected
    assert len(short) <= chars


def test_elide_middle_on_a_range_of_lengths():
    path = "kb/00/" + "/".join(f"dir{i}" for i in range(12)) + "/file0042.md"
    for chars in range(8, len(path) + 3):
        short = elide_middle(path, chars)
        assert len(short) <= max(chars, 3), (chars, short)
        if len(path) <= chars:
            assert short == path
        else:
            head, tail = short.split("…")
            assert path.startswith(head) and path.endswith(tail) and head and tail
            if chars >= 24:
                assert short.endswith("/file0042.md")
