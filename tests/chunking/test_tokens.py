"""Token counts straight from the Rust tokenizer equal the package encoding's."""

from __future__ import annotations

import pytest

from scar_viz.chunking import tokens

TEXTS = [
    "hello world",
    "A <|endoftext|> inside the text, and <|endofprompt|> too.",
    "naïve café 日本語 🙂 — tabs\tand\nnewlines\n\n",
    "x" * 5000,
    "   leading and trailing   ",
]


@pytest.mark.parametrize("text", TEXTS)
def test_counts_match_the_package_encoding(text):
    expected = len(tokens.encoding().encode(text, disallowed_special=()))
    assert tokens.count_tokens(text) == expected


def test_empty_text_has_no_tokens():
    assert tokens.count_tokens("") == 0
