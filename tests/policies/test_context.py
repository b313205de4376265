"""The context and its cost: document order, duplicates once, tokens as a sum over chunks."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.chunking.tokens import count_tokens
from scar_viz.documents import samples
from scar_viz.policies.context import (
    context_cost,
    context_text,
    saving,
    token_costs,
)

TEXT = "".join(f"[part {i:02d}] " + "words here and there. " * 2 for i in range(8))


def overlapping_chunks(size: int = 60, overlap: int = 15) -> list[Chunk]:
    """Fixed windows over TEXT: chunk i covers [i·(size − overlap), … + size)."""
    step, out, i = size - overlap, [], 0
    while i * step < len(TEXT):
        s, e = i * step, min(len(TEXT), i * step + size)
        out.append(Chunk(i, s, e, TEXT[s:e], ("Intro", "<b>Part</b>")))
        i += 1
    return out


def test_context_text_is_in_document_order_without_duplicates():
    chunks = overlapping_chunks()
    assert context_text(chunks, [4, 1, 4, 2]) == "\n\n".join(
        c.text for c in chunks[1:3] + [chunks[4]]
    )
    cost = context_cost(chunks, [4, 1, 4, 2])
    assert cost.chunks == 3
    assert cost.chars == len(context_text(chunks, [1, 2, 4]))
    assert cost.tokens == count_tokens(context_text(chunks, [1, 2, 4]))


def test_saving_is_relative_and_safe_at_zero():
    assert saving(75, 100) == 25.0 and saving(120, 100) == -20.0 and saving(5, 0) == 0.0


# --- token costs: a context's tokens as a sum over its chunks -------------------------------


def _chunked(kind: str, size: int = 600):
    return chunk_document(samples.load_sample(), ChunkingConfig(kind, size, size // 10))


@pytest.mark.parametrize("kind", ["recursive", "fixed", "sentence", "section", "tokens"])
def test_token_costs_sum_to_the_counted_context(kind):
    chunks = _chunked(kind)
    costs = token_costs(chunks)
    assert not costs.unsafe.any()  # the built-in chunkers strip chunk edges
    rng = np.random.default_rng(len(kind))
    for _ in range(200):
        ids = rng.choice(len(chunks), size=int(rng.integers(1, 9)), replace=False).tolist()
        assert costs.of(ids) == count_tokens(context_text(chunks, ids))
    assert costs.of([]) == 0 and costs.of([3, 3]) == count_tokens(chunks[3].text)


def test_a_separator_that_merges_with_the_chunk_end_is_counted_once():
    parts = [
        Chunk(0, 0, 11, "First part."),
        Chunk(1, 13, 24, "Second part"),
        Chunk(2, 26, 31, "Third"),
    ]
    costs = token_costs(parts)
    # ".\n\n" is one token in o200k_base: the separator after a full stop adds nothing
    assert costs.joint[0] == 0 and costs.joint[1] == 1
    assert costs.of([0, 1, 2]) == count_tokens(context_text(parts, [0, 1, 2]))
    assert costs.of([2, 0]) == count_tokens(context_text(parts, [0, 2]))
