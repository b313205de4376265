"""The ``tokens`` chunker: fixed-size windows of ``o200k_base`` tokens, the app's tokenizer
(:mod:`scar_viz.chunking.tokens`); ``size`` and ``overlap`` count tokens.

Own code, because langchain's ``TokenTextSplitter`` needs tiktoken to download its vocabulary
and returns decoded strings, not offsets (a window that cuts a multi-byte character decodes to
U+FFFD, which is no substring of the document); bpe-openai's ``decode_with_offsets`` gives each
token's code-point offset instead.
"""

from __future__ import annotations

from functools import lru_cache

from scar_viz.chunking.base import Chunker
from scar_viz.common.spans import Span
from scar_viz.documents.sentences import strip_span


@lru_cache(maxsize=4)
def _token_starts(text: str) -> tuple[int, ...]:
    """Code-point offset where each o200k_base token of ``text`` starts."""
    from scar_viz.chunking.tokens import encoding

    enc = encoding()
    _, starts = enc.decode_with_offsets(enc.encode(text, disallowed_special=()))
    return tuple(starts)


def split_tokens(text: str, size: int, overlap: int) -> list[Span]:
    """Windows of ``size`` o200k_base tokens starting every ``size − overlap`` tokens.

    Window i covers tokens [i·step, i·step + size) and the characters from the first token's
    start to the next window-external token's start, edges stripped.
    """
    starts = _token_starts(text) if text else ()
    bounds = [*starts, len(text)]
    n, step = len(starts), size - overlap
    spans: list[Span] = []
    for i in range(0, n, step):
        j = min(i + size, n)
        span = strip_span(text, bounds[i], bounds[j])
        if span and (not spans or span != spans[-1]):
            spans.append(span)
        if j == n:
            break
    return spans


CHUNKER = Chunker(
    "tokens",
    split_tokens,
    name="Fixed tokens",
    label="Fixed-size tokens (o200k_base)",
    unit="tokens",
)
